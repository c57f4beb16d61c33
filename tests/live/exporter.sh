#!/bin/bash
# exporter live: a real Prometheus server scrapes `iotap exporter` on loopback; PromQL over
# the scraped series equals known workloads exactly, and equals biolatency's histogram of
# the same I/O bucket by bucket; every scrape passes promtool; junk, oversized, slow and
# too many clients get errors or closed sockets while the counts stay right; a loop device
# made after the start gets series under its name, and loses them once detached while the
# others stay; SIGTERM leaves tracefs as found.
. "$(dirname "$0")/lib.sh"
require_root
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
	skip "no prometheus/promtool: apt-get install prometheus (scripts/deps.sh test)"
command -v curl >/dev/null || skip "no curl"

DEV=$(loop_create a 64)
D=$(basename "$DEV")
before=$(tracefs_snapshot)

EP=$(free_port)
URL=http://127.0.0.1:$EP/metrics

tracer_start "$LIVE_TMP/e.out" exporter -l "127.0.0.1:$EP" 0.2
EXP_PID=$TRACER_PID

prom_config "127.0.0.1:$EP"
prom_start "$LIVE_TMP/prom.yml"

# scrape NAME - fetch /metrics into $LIVE_TMP/NAME and check it with promtool
scrape() {
	curl -sf -m 5 "$URL" -o "$LIVE_TMP/$1" || fail "scrape $1 failed"
	promtool check metrics <"$LIVE_TMP/$1" >"$LIVE_TMP/promtool.out" 2>&1 ||
		{ cat "$LIVE_TMP/promtool.out" >&2; fail "promtool rejects scrape $1"; }
}

# metric FILE SERIES - the value of one series line, taken literally
metric() {
	S=$2 awk '$1 == ENVIRON["S"] { print $2 }' "$1"
}

# promql EXPR AFTER - the value of EXPR from Prometheus, once the sample it reads was
# scraped after AFTER (unix seconds): every scrape before then may predate the I/O
promql() {
	python3 - "$PP" "$1" "$2" <<'PY'
import json, sys, time, urllib.parse, urllib.request
port, expr, after = sys.argv[1], sys.argv[2], float(sys.argv[3])
deadline = time.time() + 15
while time.time() < deadline:
    q = urllib.parse.urlencode({"query": "timestamp(%s)" % expr})
    r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (port, q)))
    res = r["data"]["result"]
    if res and float(res[0]["value"][1]) > after:
        q = urllib.parse.urlencode({"query": expr})
        r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (port, q)))
        print(r["data"]["result"][0]["value"][1])
        sys.exit(0)
    time.sleep(0.2)
sys.exit("no sample of %s scraped after %.3f" % (expr, after))
PY
}

scrape s0
# Read N blocks, recorded as well; the snapshot is 0.2 s old at most, so samples scraped
# 0.3 s after the workload ended hold all of it.
N=800
REC=$LIVE_TMP/rec.iotap
"$IOTAP" record -o "$REC" -- "$IOTAP_PROGS/dio" read "$DEV" $N 4096 >/dev/null \
	2>"$LIVE_TMP/rec.err" || fail "record exited $?: $(cat "$LIVE_TMP/rec.err")"
t=$(python3 -c 'import time; print(time.time() + 0.3)')
SEL="disk=\"$D\",op=\"read\""
got=$(promql "iotap_block_request_latency_seconds_count{$SEL}" "$t") || fail "PromQL: $got"
[ "$got" = $N ] || fail "PromQL latency count $got, expected $N"
got=$(promql "sum(iotap_block_requests_by_pattern_total{$SEL})" "$t") || fail "PromQL: $got"
[ "$got" = $N ] || fail "PromQL pattern count $got, expected $N"
got=$(promql "iotap_block_request_size_bytes_sum{$SEL}" "$t") || fail "PromQL: $got"
[ "$got" = $((N * 4096)) ] || fail "PromQL bytes $got, expected $((N * 4096))"
echo "ok: PromQL over the scraped series counts $N reads, $((N * 4096)) bytes"

# Over the recording of the same I/O (two live tracers stamp each event apart by a few
# ns, enough to move a request across a bucket edge), the histogram equals biolatency's
# bucket by bucket, and --textfile writes what /metrics serves.
"$IOTAP" biolatency -D -d "$D" -i "$REC" >"$LIVE_TMP/b.out" 2>/dev/null || fail "biolatency -i failed"
"$IOTAP" exporter -d "$D" -i "$REC" --textfile "$LIVE_TMP/s1" 2>/dev/null || fail "exporter -i failed"
promtool check metrics <"$LIVE_TMP/s1" >/dev/null 2>&1 || fail "promtool rejects the textfile"
[ "$(hist_total "$LIVE_TMP/b.out" "$D")" = $N ] || fail "biolatency counted $(hist_total "$LIVE_TMP/b.out" "$D")"
python3 - "$LIVE_TMP/b.out" "$LIVE_TMP/s1" "$D" <<'PY' || fail "exporter buckets differ from biolatency's"
import re, sys
text, prom, disk = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
text = text[text.index("disk = %s\n" % disk):]
slots = {}
for lo, hi, c in re.findall(r"^\s*(\d+) -> (\d+)\s*: (\d+)", text, re.M):
    slots[(int(hi) + 1).bit_length() - 1] = int(c)
cum = dict(re.findall(r'iotap_block_request_latency_seconds_bucket\{disk="%s",op="read",le="([^"]+)"\} (\d+)' % disk, prom))
# Times are cut to whole microseconds, as BCC's rows are: le=2^i holds the rows up to it.
run = 0
for i in range(1, 28):
    run += slots.get(i, 0)
    le = "%.9g" % ((1 << i) * 1e-6)
    assert int(cum[le]) == run, (le, cum[le], run)
assert int(cum["+Inf"]) == run
PY
echo "ok: over a recording of the same I/O, the histogram equals biolatency -D's bucket by bucket"
# Queue time is opt-in (its event costs): absent by default, and with --queue-time one
# queue time per read.
! grep -q '^iotap_block_request_queue_seconds' "$LIVE_TMP/s1" ||
	fail "the default exporter publishes queue times"
"$IOTAP" exporter --queue-time -d "$D" -i "$REC" --textfile "$LIVE_TMP/sq" 2>/dev/null ||
	fail "exporter --queue-time -i failed"
got=$(metric "$LIVE_TMP/sq" "iotap_block_request_queue_seconds_count{$SEL}")
[ "$got" = $N ] || fail "--queue-time: $got queue times, expected $N"
echo "ok: queue times only with --queue-time, one per read ($N)"

# Bad HTTP: answers or closed sockets, never a crash, and the counts stay right.
python3 - "$EP" <<'PY' || fail "bad HTTP handling"
import socket, sys, time
port = int(sys.argv[1])

def req(data, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except ConnectionResetError:
        pass
    except socket.timeout:
        # Not a request yet: the server keeps the connection until its idle timeout.
        out = b"open"
    s.close()
    return out

def status(out):
    if out == b"open":
        return out
    return out.split(b" ", 2)[1] if out.startswith(b"HTTP/1.") else b"closed"

assert status(req(b"GET /nope HTTP/1.0\r\n\r\n")) == b"404", "404"
assert status(req(b"POST /metrics HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc")) == b"405", "405"
assert status(req(b"HEAD /metrics HTTP/1.0\r\n\r\n")) == b"200", "HEAD"
assert status(req(b"GET /metrics?x=1 HTTP/1.0\r\n\r\n")) == b"200", "query"
for junk in (b"\x00\xff\x16\x03\x01garbage\r\n\r\n", b"GET\r\n\r\n", b"\r\n" * 4000,
             b"GET / HTTP/9.9\r\n\r\n", bytes(range(256)) * 64):
    st = status(req(junk, 0.5))
    assert st in (b"400", b"505", b"closed", b"open"), (junk[:16], st)
big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n"
st = status(req(big))
assert st in (b"431", b"413", b"400", b"closed"), st
# Slow clients that send nothing hold a connection each (till the head deadline), and a
# scrape still answers at once (tests/live/flood.sh floods from the scraper's own address).
slow = [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
        for _ in range(8)]
t = time.time()
assert status(req(b"GET /metrics HTTP/1.0\r\n\r\n")) == b"200", "scrape beside slow clients"
assert time.time() - t < 1, "a scrape beside slow clients took %.1f s" % (time.time() - t)
# Many connections: past the limit they are refused or closed, none crash the server.
many = []
for _ in range(64):
    try:
        many.append(socket.create_connection(("127.0.0.1", port), timeout=0.05,
                                             source_address=("127.0.0.3", 0)))
    except OSError:
        pass
for s in many + slow:
    s.close()
print("bad HTTP: 404, 405, junk closed or 400, oversized %s, %d connections opened" %
      (st.decode(), len(many)))
PY
# 200 clients that never finish a request, from four other addresses for 6 s: every
# connection refused or closed within 5 s, while every scrape answers within a second.
python3 "$(dirname "$0")/slowclients.py" 127.0.0.1 "$EP" 200 6 \
	127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 >"$LIVE_TMP/slow.out" 2>&1 &
SLOW=$!
LIVE_PIDS="$LIVE_PIDS $SLOW"
: >"$LIVE_TMP/times"
sleep 1
while kill -0 $SLOW 2>/dev/null; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 5 "$URL" >>"$LIVE_TMP/times" || true
	sleep 0.2
done
rc=0
wait $SLOW || rc=$?
bad=$(awk '$1 != 200 || $2 >= 1' "$LIVE_TMP/times" | wc -l)
[ $rc = 0 ] && [ "$bad" = 0 ] || fail "$(cat "$LIVE_TMP/slow.out"); $bad of" \
	"$(wc -l <"$LIVE_TMP/times") scrapes meanwhile failed or took 1 s or more"
echo "ok: $(cat "$LIVE_TMP/slow.out"); $(wc -l <"$LIVE_TMP/times") scrapes meanwhile, all 200," \
	"slowest $(sort -k2 -g "$LIVE_TMP/times" | tail -1 | cut -d' ' -f2) s"
# Meanwhile more I/O: the total stays exact after the abuse.
M=300
dio read "$DEV" $M 65536 rand >/dev/null
kill -0 $EXP_PID || fail "exporter died"
t=$(python3 -c 'import time; print(time.time() + 0.3)')
got=$(promql "iotap_block_request_latency_seconds_count{$SEL}" "$t") || fail "PromQL: $got"
[ "$got" = $((N + M)) ] || fail "after bad HTTP, PromQL count $got, expected $((N + M))"
scrape s2
[ "$(metric "$LIVE_TMP/s2" 'iotap_exporter_http_requests_total{code="404",path="other"}')" -ge 1 ] ||
	fail "404s not counted"
echo "ok: after junk, oversized, slow and 64 clients, PromQL counts $((N + M))"

# A loop device made while it runs gets series under its own name.
NEW=
for i in $(seq 40 99); do
	[ -e /sys/block/loop$i ] || { NEW=loop$i; break; }
done
[ -n "$NEW" ] || fail "no free loop minor in 40..99"
truncate -s 16M "$LIVE_TMP/new.img"
losetup "/dev/$NEW" "$LIVE_TMP/new.img" || fail "losetup /dev/$NEW"
echo "/dev/$NEW" >>"$LIVE_TMP/loops"
dio read "/dev/$NEW" 123 4096 >/dev/null
t=$(python3 -c 'import time; print(time.time() + 0.3)')
got=$(promql "iotap_block_request_latency_seconds_count{disk=\"$NEW\",op=\"read\"}" "$t") ||
	fail "PromQL: $got"
[ "$got" = 123 ] || fail "new disk $NEW: PromQL count $got, expected 123"
scrape s2b
grep -q "disk=\"$NEW\"" "$LIVE_TMP/s2b" || fail "no $NEW series on /metrics"
losetup -d "/dev/$NEW"
# Detached (size 0), it is gone: a page of the next interval has none of its series, and
# the first disk's counts are intact. Wait, bounded, for an interval to pass.
for i in $(seq 1 50); do
	scrape s2c
	grep -q "disk=\"$NEW\"" "$LIVE_TMP/s2c" || break
	sleep 0.1
done
grep "disk=\"$NEW\"" "$LIVE_TMP/s2c" | head -3 >&2
grep -q "disk=\"$NEW\"" "$LIVE_TMP/s2c" && fail "$NEW's series still served 5 s after losetup -d"
got=$(metric "$LIVE_TMP/s2c" "iotap_block_request_latency_seconds_count{$SEL}")
[ "$got" = $((N + M)) ] || fail "after $NEW went, $D's count is $got, expected $((N + M))"
for m in iotap_block_request_latency_seconds_count iotap_block_request_size_bytes_count; do
	[ "$(grep -c "^$m{disk=\"$D\"" "$LIVE_TMP/s2c")" = "$(grep -c "^$m{disk=\"$D\"" "$LIVE_TMP/s2b")" ] ||
		fail "$D lost $m series when $NEW went"
done
echo "ok: $NEW's series are dropped once it is detached; $D's stay, $((N + M)) reads"
# LOOP_CTL_REMOVE: the device goes away again.
python3 -c 'import fcntl, os, sys; fd = os.open("/dev/loop-control", os.O_RDWR); fcntl.ioctl(fd, 0x4C81, int(sys.argv[1]))' "${NEW#loop}" ||
	fail "cannot remove $NEW"
echo "ok: $NEW, made after the start, is followed under its name (123 reads) until it goes"

# Its own health, and SIGTERM leaves tracefs as found.
scrape s3
for m in iotap_exporter_events_total process_cpu_seconds_total process_resident_memory_bytes; do
	[ -n "$(metric "$LIVE_TMP/s3" $m)" ] || fail "no $m"
done
# It traces every disk, other runs' too: a ring may overflow under their load, and then the
# exporter must have said so (counts on our disk were checked exact above).
lost=$(metric "$LIVE_TMP/s3" iotap_exporter_events_lost_total)
[[ $lost =~ ^[0-9]+$ ]] || fail "iotap_exporter_events_lost_total is '$lost'"
[ "$lost" = 0 ] || grep -q "lost [0-9]* events" "$LIVE_TMP/e.out.err" ||
	fail "$lost events lost, and the exporter did not warn"
grep -q '^iotap_build_info{version="' "$LIVE_TMP/s3" || fail "no iotap_build_info"
kill $PROM_PID
wait $PROM_PID 2>/dev/null || true
TRACER_PID=$EXP_PID
tracer_stop TERM
# Other runs' instances (iotap_PID) come and go (iotap clears dead runs' leftovers):
# compare the rest, and look for the exporter's own by name.
theirs() {
	grep -v '^iotap_[0-9]*$' || true
}
after=$(tracefs_snapshot)
[ -d "$TRACEFS/instances/iotap_$EXP_PID" ] && fail "the exporter left iotap_$EXP_PID behind"
before=$(echo "$before" | theirs)
after=$(echo "$after" | theirs)
[ "$after" = "$before" ] || { diff <(echo "$before") <(echo "$after") >&2; fail "tracefs changed after SIGTERM"; }
echo "ok: SIGTERM exits 0 and leaves tracefs as found"

# Live, the page is built when a scrape asks for it, from the events up to then: with an
# interval of an hour, each scrape still counts every read done before it, exactly. A
# page younger than 0.1 s is served as it is: each scrape waits that long after the reads.
DEV2=$(loop_create c 16)
EP2=$(free_port)
tracer_start "$LIVE_TMP/h.out" exporter -d "$(basename "$DEV2")" -l "127.0.0.1:$EP2" 3600
SEL2="disk=\"$(basename "$DEV2")\",op=\"read\""
total=0
for n in 321 45; do
	dio read "$DEV2" $n 4096 >/dev/null
	total=$((total + n))
	sleep 0.15
	curl -sf -m 5 "http://127.0.0.1:$EP2/metrics" -o "$LIVE_TMP/h.prom" || fail "scrape of the hourly exporter failed"
	got=$(metric "$LIVE_TMP/h.prom" "iotap_block_request_latency_seconds_count{$SEL2}")
	[ "$got" = $total ] || fail "interval 3600: a scrape after $total reads counts '$got'"
done
tracer_stop
echo "ok: with an interval of an hour, scrapes count 321, then 366 reads: pages built on demand"
