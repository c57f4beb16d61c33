#!/bin/bash
# exporter-ring live: one `iotap exporter --ring` process, one tracefs instance. Its
# metrics count a known workload exactly (the disk's own /sys/block counters), a 4096-byte
# request under le="4096"; SIGUSR2 writes a dump that biolatency and biosnoop report
# exactly and that the dump metrics count; SIGTERM leaves tracefs as found.
. "$(dirname "$0")/lib.sh"
require_root
command -v curl >/dev/null || skip "no curl"

DEV=$(loop_create a 64)
D=$(basename "$DEV")
udevadm settle 2>/dev/null || true
# The instances of other iotap runs on this machine come and go: this test looks at its own.
top_snapshot() {
	tracefs_snapshot | sed '/^== instances$/,$d'
}
before=$(top_snapshot)
URL=http://127.0.0.1:$(free_port)/metrics

# A trigger that never fires here: SIGUSR2 alone dumps, and the metrics show the trigger's pairing is harmless.
tracer_start "$LIVE_TMP/e.out" exporter -l "$(echo "${URL#http://}" | cut -d/ -f1)" -d "$D" --ring 60 \
	--trigger 'latency>600000' -o "$LIVE_TMP/dump" 0.2
P=$TRACER_PID

# One process, one instance: no helper process, and the tracefs instance named for it.
[ -d "$TRACEFS/instances/iotap_$P" ] || fail "no instance iotap_$P"
[ -z "$(pgrep -P "$P")" ] || fail "the exporter has child processes: $(pgrep -P "$P" | tr '\n' ' ')"
echo "ok: one process ($P), its one instance iotap_$P"

read -r r0 _ _ _ w0 _ <"/sys/block/$D/stat"
dio read "$DEV" 3000 4096 rand >/dev/null
# Four threads of one process, one read at a time: the dump names the process, not the threads.
echo go | "$IOTAP_PROGS/threadio" "$DEV" 4 50 4096 one-by-one >/dev/null &
TP=$!
wait $TP || fail "threadio failed"
dio write "$DEV" 700 4096 rand >/dev/null
read -r r1 _ _ _ w1 _ <"/sys/block/$D/stat"
R=$((r1 - r0))
W=$((w1 - w0))
[ $R = 3200 ] && [ $W = 700 ] || fail "the disk counted $R reads and $W writes, not 3200 and 700"

# metric NAME - one series' value from a fresh scrape, 0 when absent
metric() {
	curl -sf -m 5 "$URL" | S=$1 awk '$1 == ENVIRON["S"] { v = $2 } END { print v == "" ? 0 : v }'
}
# wait_metric NAME VALUE - until the page shows VALUE (it is rebuilt every 0.2 s)
wait_metric() {
	local i v
	for i in $(seq 1 100); do
		v=$(metric "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.1
	done
	fail "$1 is $v, expected $2"
}
wait_metric "iotap_block_request_latency_seconds_count{disk=\"$D\",op=\"read\"}" $R
wait_metric "iotap_block_request_latency_seconds_count{disk=\"$D\",op=\"write\"}" $W
echo "ok: $R reads and $W writes counted, as /sys/block/$D/stat"

# le is inclusive: every 4096-byte request is under le="4096", none under le="2048".
for op in read write; do
	n=$([ $op = read ] && echo $R || echo $W)
	[ "$(metric "iotap_block_request_size_bytes_bucket{disk=\"$D\",op=\"$op\",le=\"4096\"}")" = $n ] ||
		fail "$op: not every 4096-byte request is under le=\"4096\""
	[ "$(metric "iotap_block_request_size_bytes_bucket{disk=\"$D\",op=\"$op\",le=\"2048\"}")" = 0 ] ||
		fail "$op: 4096-byte requests under le=\"2048\""
done
echo "ok: 4096-byte requests under le=\"4096\""

[ "$(metric 'iotap_flight_dumps_total{reason="signal"}')" = 0 ] || fail "a dump before any was asked for"
ring=$(metric iotap_flight_ring_bytes)
secs=$(metric iotap_flight_ring_seconds)
awk -v b="$ring" -v s="$secs" 'BEGIN { exit !(b > 0 && s > 0) }' ||
	fail "the ring holds $ring bytes, $secs s after the workload"

kill -USR2 "$P"
wait_metric 'iotap_flight_dumps_total{reason="signal"}' 1
[ "$(metric iotap_flight_dump_failures_total)" = 0 ] || fail "a dump failed"
[ "$(metric 'iotap_flight_dumps_total{reason="latency"}')" = 0 ] || fail "the latency trigger fired"
set -- "$LIVE_TMP"/dump.*
[ $# = 1 ] && [ -f "$1" ] || fail "expected one dump, got: $*"
DUMP=$1
grep -q "dump 1: $DUMP: SIGUSR2" "$LIVE_TMP/e.out.err" || fail "the dump was not said"

"$IOTAP" report -i "$DUMP" biolatency >"$LIVE_TMP/bl" 2>"$LIVE_TMP/bl.err" ||
	{ cat "$LIVE_TMP/bl.err" >&2; fail "report biolatency over the dump failed"; }
n=$(hist_total "$LIVE_TMP/bl")
[ "$n" = $((R + W)) ] || fail "biolatency over the dump counts $n requests, not $((R + W))"
"$IOTAP" report -i "$DUMP" biosnoop >"$LIVE_TMP/bs" 2>"$LIVE_TMP/bs.err" ||
	{ cat "$LIVE_TMP/bs.err" >&2; fail "report biosnoop over the dump failed"; }
nr=$(awk -v d="$D" '$4 == d && $5 == "R" && $7 == 4096' "$LIVE_TMP/bs" | wc -l)
nw=$(awk -v d="$D" '$4 == d && $5 ~ /^W/ && $7 == 4096' "$LIVE_TMP/bs" | wc -l)
[ "$nr" = $R ] && [ "$nw" = $W ] || fail "biosnoop over the dump shows $nr reads and $nw writes, not $R and $W"
nt=$(awk -v p="$TP" '$2 == "threadio" && $3 == p' "$LIVE_TMP/bs" | wc -l)
na=$(awk '$2 == "threadio"' "$LIVE_TMP/bs" | wc -l)
[ "$nt" = 200 ] && [ "$na" = 200 ] ||
	fail "biosnoop over the dump shows $na reads by threadio, $nt of them by its process $TP, not 200"
echo "ok: SIGUSR2 dump: biolatency counts $n, biosnoop $nr reads and $nw writes, threadio's 200 by its process; iotap_flight_dumps_total{reason=\"signal\"} 1"

tracer_stop TERM
[ ! -e "$TRACEFS/instances/iotap_$P" ] || fail "instance iotap_$P left behind"
after=$(top_snapshot)
[ "$after" = "$before" ] || { diff <(echo "$before") <(echo "$after") >&2; fail "tracefs changed after SIGTERM"; }
echo "ok: SIGTERM exits 0, tracefs as found"

# A request trigger: every read is slower than 1 ns, so the first fires. --max-dumps 1 ends
# the dumps, not the service: reads after the hold-off (the ring's 2 s) are counted and
# would fire again, but no second dump is written.
URL=http://127.0.0.1:$(free_port)/metrics
tracer_start "$LIVE_TMP/t.out" exporter -l "$(echo "${URL#http://}" | cut -d/ -f1)" -d "$D" \
	--ring 2 --trigger 'latency>0.000001' --max-dumps 1 -o "$LIVE_TMP/lat" 0.2
P=$TRACER_PID
read -r r0 _ <"/sys/block/$D/stat"
dio read "$DEV" 100 4096 rand >/dev/null
wait_metric 'iotap_flight_dumps_total{reason="latency"}' 1
sleep 3
dio read "$DEV" 50 4096 rand >/dev/null
read -r r1 _ <"/sys/block/$D/stat"
wait_metric "iotap_block_request_latency_seconds_count{disk=\"$D\",op=\"read\"}" $((r1 - r0))
sleep 1.5
kill -0 "$P" 2>/dev/null || fail "--max-dumps 1 ended the exporter"
[ "$(metric 'iotap_flight_dumps_total{reason="latency"}')" = 1 ] || fail "a second latency dump past --max-dumps 1"
[ "$(metric 'iotap_flight_dumps_total{reason="signal"}')" = 0 ] || fail "a signal dump nobody asked for"
set -- "$LIVE_TMP"/lat.*
[ $# = 1 ] && [ -f "$1" ] || fail "expected one latency dump, got: $*"
grep -q "dump 1: $1: latency " "$LIVE_TMP/t.out.err" || fail "the latency dump was not said: $(cat "$LIVE_TMP/t.out.err")"
"$IOTAP" report -i "$1" --info 2>&1 | grep -q '^trigger: *latency ' || fail "the dump does not say a latency trigger fired"
tracer_stop TERM
[ ! -e "$TRACEFS/instances/iotap_$P" ] || fail "instance iotap_$P left behind"
echo "ok: --trigger latency: one dump, reason=\"latency\"; --max-dumps 1 ends the dumps and the metrics go on ($((r1 - r0)) reads)"

# A long interval: the dump does not wait for it, and the last textfile, at exit, counts it.
tracer_start "$LIVE_TMP/l.out" exporter --textfile "$LIVE_TMP/l.prom" -d "$D" --ring 60 \
	-o "$LIVE_TMP/long" 30
P=$TRACER_PID
read -r r0 _ <"/sys/block/$D/stat"
dio read "$DEV" 200 4096 rand >/dev/null
read -r r1 _ <"/sys/block/$D/stat"
t0=$(date +%s.%N)
kill -USR2 "$P"
for _ in $(seq 1 100); do
	grep -q "dump 1: .*: SIGUSR2" "$LIVE_TMP/l.out.err" && break
	sleep 0.1
done
t1=$(date +%s.%N)
grep -q "dump 1: .*: SIGUSR2" "$LIVE_TMP/l.out.err" || fail "no SIGUSR2 dump within 10 s with a 30 s interval"
# The window closes a second after the signal (events still merging), then a tick writes it.
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 4) }' ||
	fail "the SIGUSR2 dump took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s: it waited for the interval"
set -- "$LIVE_TMP"/long.*
[ $# = 1 ] && [ -f "$1" ] || fail "expected one dump, got: $*"
"$IOTAP" report -i "$1" biolatency -d "$D" >"$LIVE_TMP/lbl" 2>&1 || fail "report biolatency over the dump failed"
n=$(hist_total "$LIVE_TMP/lbl")
[ "$n" = $((r1 - r0)) ] || fail "the dump counts $n reads, not $((r1 - r0))"
grep -q '^iotap_flight_dumps_total{reason="signal"} 0' "$LIVE_TMP/l.prom" ||
	fail "the first textfile should count no dump yet: $(grep flight_dumps "$LIVE_TMP/l.prom")"
tracer_stop TERM
grep -q '^iotap_flight_dumps_total{reason="signal"} 1$' "$LIVE_TMP/l.prom" ||
	fail "the textfile at exit does not count the dump: $(grep flight_dumps "$LIVE_TMP/l.prom")"
echo "ok: interval 30 s: the SIGUSR2 dump went out in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s with $n reads; the exit textfile counts it"
