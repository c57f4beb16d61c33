#!/bin/bash
# -p exact at start-up: tracers start while their process makes threads in a tight loop,
# and its threads read the moment the tracers trace, then end at once (threadrace.c).
# Every run, biolatency -p and biosnoop -p count exactly the reads the disk counted.
# An open finding (issue 27): about 1 run in 70 still misses 3 to 6 requests, so no tier
# runs it yet; make check-open does. It goes into LIVE_TESTS when its window is closed.
. "$(dirname "$0")/lib.sh"
require_root

RUNS=${PEXACT_RUNS:-30}
COUNT=1
DEV=$(loop_create pexact 8)
D=$(basename "$DEV")
udevadm settle 2>/dev/null || true

# reads_done - reads the disk completed, by the kernel's own count (merged requests count once)
reads_done() {
	awk '{ print $1 }' /sys/block/$D/stat
}

failed=0
for run in $(seq 1 $RUNS); do
	rm -f "$LIVE_TMP/in"
	mkfifo "$LIVE_TMP/in"
	before=$(reads_done)
	"$IOTAP_PROGS/threadrace" "$DEV" $COUNT 2 <"$LIVE_TMP/in" &
	prog=$!
	exec 3>"$LIVE_TMP/in"
	"$IOTAP" biolatency -d "$D" -p $prog >"$LIVE_TMP/lat.out" 2>"$LIVE_TMP/lat.err" &
	lat=$!
	"$IOTAP" biosnoop -d "$D" -p $prog >"$LIVE_TMP/snoop.out" 2>"$LIVE_TMP/snoop.err" &
	snoop=$!
	LIVE_PIDS="$LIVE_PIDS $prog $lat $snoop"
	printf '%s\n' $TRACEFS/instances/iotap_$lat $TRACEFS/instances/iotap_$snoop >&3
	exec 3>&-
	wait $prog || fail "run $run: threadrace failed: $(cat "$LIVE_TMP/lat.err" "$LIVE_TMP/snoop.err")"
	kill -INT $lat $snoop
	rc=0
	wait $lat || rc=$?
	wait $snoop || rc=$((rc | $?))
	[ $rc = 0 ] || fail "run $run: a tracer exited with $rc: $(cat "$LIVE_TMP/lat.err" "$LIVE_TMP/snoop.err")"
	want=$(($(reads_done) - before))
	got_lat=$(hist_total "$LIVE_TMP/lat.out")
	# biosnoop's I/O lines: TIME COMM PID DISK ...; every one must be the process's, on the disk.
	got_snoop=$(awk -v p=$prog -v d="$D" '$1 ~ /^[0-9.]+$/ && NF >= 8 && $3 == p && $4 == d' \
		"$LIVE_TMP/snoop.out" | wc -l)
	all_snoop=$(awk '$1 ~ /^[0-9.]+$/ && NF >= 8' "$LIVE_TMP/snoop.out" | wc -l)
	if [ "$got_lat" != "$want" ] || [ "$got_snoop" != "$want" ] || [ "$all_snoop" != "$want" ]; then
		echo "run $run: the disk completed $want reads; biolatency -p $prog counted $got_lat, biosnoop -p $prog $got_snoop of $all_snoop rows" >&2
		failed=$((failed + 1))
	fi
done
[ $failed = 0 ] || fail "$failed of $RUNS runs: -p missed requests of threads made while the tracer started"
echo "ok: $RUNS runs, biolatency -p and biosnoop -p counted every read the disk counted"
