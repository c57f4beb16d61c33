#!/usr/bin/env python3
"""flood.py - a flood of stuck clients from the scraper's own address, and a scraper beside it.

Usage: flood.py HOST PORT MODE N SECONDS [--tls] [--pid PID]

N connections from HOST's own address (the scraper's) to PORT, each kept open and stuck
for SECONDS, reconnected at once whenever the server closes one, while a scraper on the
same address asks for /metrics every 0.2 s (through TLS with --tls, certificate not
checked). MODE says how a connection is stuck:
  half     half a request head, then nothing
  trickle  a request head one byte a second, never ended
  hello    half a TLS ClientHello, then nothing: a handshake never finished
Prints one line: the scrapes and the slowest, what the flood saw, and with --pid the
server's CPU seconds and its largest resident memory over the flood (VmHWM, read after).
Exit 1 when a scrape failed or took 1 s or more, or none was made.
"""
import errno
import resource
import selectors
import socket
import ssl
import sys
import threading
import time

HEAD = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Stuck: " + b"a" * 200
HALF = HEAD[:len(HEAD) // 2]
# A TLS record announcing a 512-byte handshake message, of which half comes.
HELLO = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 250
SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
LIMIT = 1.0


def scraper(host, port, tls, end, out):
    """scrape every 0.2 s until end: out gets (status, seconds) per scrape"""
    ctx = None
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    while time.monotonic() < end:
        t0 = time.monotonic()
        status = "failed"
        try:
            s = socket.create_connection((host, port), timeout=5)
            if ctx:
                s = ctx.wrap_socket(s)
            s.sendall(SCRAPE)
            data = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
            s.close()
            if data.startswith(b"HTTP/1."):
                status = data.split(b" ", 2)[1].decode()
        except (OSError, ssl.SSLError) as e:
            status = "error:" + type(e).__name__
        out.append((status, time.monotonic() - t0))
        time.sleep(0.2)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main():
    host, port, mode, n, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), \
        float(sys.argv[5])
    rest = sys.argv[6:]
    tls = "--tls" in rest
    pid = int(rest[rest.index("--pid") + 1]) if "--pid" in rest else 0
    if mode not in ("half", "trickle", "hello"):
        sys.exit("flood.py: MODE is half, trickle or hello")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, n + 256)), hard))
    first = HELLO if mode == "hello" else (HEAD[:1] if mode == "trickle" else HALF)

    sel = selectors.DefaultSelector()
    socks = {}			# socket -> bytes of HEAD sent (trickle)
    stats = {"opened": 0, "closed": 0, "refused": 0}

    def dial():
        try:
            s = socket.create_connection((host, port), timeout=2, source_address=(host, 0))
            s.setblocking(False)
            s.send(first)
        except OSError:
            stats["refused"] += 1
            return
        stats["opened"] += 1
        socks[s] = len(first)
        sel.register(s, selectors.EVENT_READ)

    cpu0 = cpu_seconds(pid) if pid else 0
    for _ in range(n):
        dial()
    scrapes = []
    end = time.monotonic() + secs
    th = threading.Thread(target=scraper, args=(host, port, tls, end, scrapes))
    th.start()
    next_byte = time.monotonic() + 1
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            try:
                alive = bool(s.recv(4096))
            except OSError as e:
                alive = e.errno in (errno.EAGAIN, errno.EWOULDBLOCK)
            if not alive:
                sel.unregister(s)
                del socks[s]
                s.close()
                stats["closed"] += 1
        if mode == "trickle" and time.monotonic() >= next_byte:
            next_byte += 1
            for s, sent in list(socks.items()):
                try:
                    s.send(HEAD[sent % len(HEAD):sent % len(HEAD) + 1])
                    socks[s] = sent + 1
                except OSError:
                    pass
        for _ in range(n - len(socks)):
            dial()
    th.join()
    held = len(socks)
    for s in list(socks):
        s.close()
    cpu = "cpu %.2f s, peak rss %d KiB; " % (cpu_seconds(pid) - cpu0, hwm_kib(pid)) if pid else ""
    bad = [x for x in scrapes if x[0] != "200" or x[1] >= LIMIT]
    slowest = max((x[1] for x in scrapes), default=0)
    print("%s %d from %s for %.0f s%s: %s%d scrapes, %d failed or slow, slowest %.3f s; "
          "flood opened %d, closed by the server %d, refused %d, held at the end %d%s" %
          (mode, n, host, secs, " (TLS)" if tls else "", cpu, len(scrapes), len(bad), slowest,
           stats["opened"], stats["closed"], stats["refused"], held,
           "; first bad: %s %.3f s" % bad[0] if bad else ""))
    sys.exit(1 if bad or not scrapes else 0)


main()
