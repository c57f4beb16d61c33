#!/usr/bin/env python3
"""slowclients.py - clients that never finish a request, to show they cannot starve a server.

Usage: slowclients.py HOST PORT N SECONDS SRC[,SRC...] [--tls]

N clients, spread over the source addresses SRC (loopback ones: Linux routes all of
127/8 to lo), each for SECONDS: connect, then send a request head one byte every 0.3 s
without ever ending it (with --tls: half of them after a TLS handshake, half dribbling the
TLS ClientHello itself), until the server closes; then again. Every connection must be
refused (at connect, or closed before it could send anything) or closed by the server
within DEADLINE seconds of opening. Prints one summary line; exit 1 if a connection
outlived the deadline.
"""
import socket
import ssl
import sys
import threading
import time

DEADLINE = 5.0		# the server's 3 s head deadline, its 0.25 s sweep, and slack for load
DRIBBLE = 0.3

HEAD = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
# A TLS record header announcing a 512-byte handshake message that never comes whole.
HELLO = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 600


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.refused = self.closed = self.late = 0
        self.longest = 0.0


def one(host, port, src, mode, stats, end):
    """one connection: returns when the server refused or closed it (or at end)"""
    t0 = time.monotonic()
    try:
        raw = socket.create_connection((host, port), timeout=DEADLINE, source_address=(src, 0))
    except OSError:
        with stats.lock:
            stats.refused += 1
        return
    s = raw
    data = HEAD
    sent = 0
    try:
        if mode == "tls":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(raw)
        elif mode == "hello":
            data = HELLO
        s.settimeout(DRIBBLE)
        while time.monotonic() < end or sent == 0:
            s.send(data[sent % len(data):sent % len(data) + 1])
            sent += 1
            try:
                if not s.recv(4096):
                    break		# closed by the server
            except socket.timeout:
                pass
            if time.monotonic() - t0 > DEADLINE + 5:
                break
        else:
            # The run ended first: neither refused nor closed, but late when held too long.
            s.close()
            held = time.monotonic() - t0
            if held > DEADLINE:
                with stats.lock:
                    stats.late += 1
                    stats.longest = max(stats.longest, held)
            return
    except socket.timeout:
        pass			# a handshake still not answered: held, not closed
    except (OSError, ssl.SSLError):
        pass
    held = time.monotonic() - t0
    s.close()
    with stats.lock:
        stats.longest = max(stats.longest, held)
        if held > DEADLINE:
            stats.late += 1
        elif sent <= 1 and held < 1:
            stats.refused += 1
        else:
            stats.closed += 1


def client(host, port, src, mode, stats, end):
    while time.monotonic() < end:
        one(host, port, src, mode, stats, end)
        time.sleep(0.2)


def main():
    host, port, n, secs, srcs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        float(sys.argv[4]), sys.argv[5].split(",")
    tls = "--tls" in sys.argv[6:]
    stats = Stats()
    end = time.monotonic() + secs
    threads = []
    for i in range(n):
        mode = ("tls" if i % 2 else "hello") if tls else "plain"
        t = threading.Thread(target=client, args=(host, port, srcs[i % len(srcs)], mode, stats, end))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    print("slow clients: %d from %d addresses for %.0f s: %d connections refused, %d closed by "
          "the server, %d held past %.0f s; longest held %.1f s" %
          (n, len(srcs), secs, stats.refused, stats.closed, stats.late, DEADLINE, stats.longest))
    sys.exit(1 if stats.late or not stats.closed else 0)


main()
