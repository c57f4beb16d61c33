#!/bin/bash
# -p exact at start-up, 30 runs in a row of each case, every run exact:
# - threadrace: tracers start while their process makes threads in a tight loop, and its
#   threads read the moment the tracers trace, then end at once (threadrace.c);
# - fio: three job threads (--thread) made while the tracers start, 170 direct reads each
#   once both trace.
# biolatency -p and biosnoop -p must count exactly the reads the disk counted.
# PEXACT_RUNS sets the runs; PEXACT_OPTS adds tracer options (--mmap-pages 1: small rings,
# where only lost events, each said, may make a run short).
. "$(dirname "$0")/lib.sh"
require_root
command -v fio >/dev/null || skip "fio is not installed"

RUNS=${PEXACT_RUNS:-30}
COUNT=1
DEV=$(loop_create pexact 8)
D=$(basename "$DEV")
udevadm settle 2>/dev/null || true

# reads_done - reads the disk completed, by the kernel's own count (merged requests count once)
reads_done() {
	awk '{ print $1 }' /sys/block/$D/stat
}

# traced PID - whether tracer PID's instance traces: its block events on and tracing_on 1
traced() {
	[ "$(cat $TRACEFS/instances/iotap_$1/events/block/block_rq_complete/enable 2>/dev/null)" = 1 ] &&
		[ "$(cat $TRACEFS/instances/iotap_$1/tracing_on 2>/dev/null)" = 1 ]
}

# check_run WHAT PID WANT - biolatency -p PID and biosnoop -p PID each counted WANT reads
check_run() {
	local got_lat got_snoop all_snoop
	got_lat=$(hist_total "$LIVE_TMP/lat.out")
	# biosnoop's I/O lines: TIME COMM PID DISK ...; every one must be the process's, on the disk.
	got_snoop=$(awk -v p=$2 -v d="$D" '$1 ~ /^[0-9.]+$/ && NF >= 8 && $3 == p && $4 == d' \
		"$LIVE_TMP/snoop.out" | wc -l)
	all_snoop=$(awk '$1 ~ /^[0-9.]+$/ && NF >= 8' "$LIVE_TMP/snoop.out" | wc -l)
	if [ "$3" = 0 ] || [ "$got_lat" != "$3" ] || [ "$got_snoop" != "$3" ] || [ "$all_snoop" != "$3" ]; then
		echo "$1: the disk completed $3 reads; biolatency -p $2 counted $got_lat, biosnoop -p $2 $got_snoop of $all_snoop rows" >&2
		cat "$LIVE_TMP/lat.err" "$LIVE_TMP/snoop.err" >&2
		failed=$((failed + 1))
	fi
}

failed=0
for run in $(seq 1 $RUNS); do
	rm -f "$LIVE_TMP/in"
	mkfifo "$LIVE_TMP/in"
	before=$(reads_done)
	"$IOTAP_PROGS/threadrace" "$DEV" $COUNT 2 <"$LIVE_TMP/in" &
	prog=$!
	exec 3>"$LIVE_TMP/in"
	"$IOTAP" biolatency ${PEXACT_OPTS:-} -d "$D" -p $prog >"$LIVE_TMP/lat.out" 2>"$LIVE_TMP/lat.err" &
	lat=$!
	"$IOTAP" biosnoop ${PEXACT_OPTS:-} -d "$D" -p $prog >"$LIVE_TMP/snoop.out" 2>"$LIVE_TMP/snoop.err" &
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
	LIVE_PIDS=
	want=$(($(reads_done) - before))
	check_run "threadrace run $run" $prog $want
done

# The fio case: its job threads wait, before any I/O, for a file the test makes once both
# tracers trace; they are made while the tracers start.
for run in $(seq 1 $RUNS); do
	rm -f "$LIVE_TMP/go"
	before=$(reads_done)
	fio --name=pexact --filename="$DEV" --thread --numjobs=3 --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --number_ios=170 --size=8M --randrepeat=0 \
		--exec_prerun="sh -c 'while [ ! -e $LIVE_TMP/go ]; do sleep 0.01; done'" \
		--output="$LIVE_TMP/fio.out" &
	prog=$!
	"$IOTAP" biolatency ${PEXACT_OPTS:-} -d "$D" -p $prog >"$LIVE_TMP/lat.out" 2>"$LIVE_TMP/lat.err" &
	lat=$!
	"$IOTAP" biosnoop ${PEXACT_OPTS:-} -d "$D" -p $prog >"$LIVE_TMP/snoop.out" 2>"$LIVE_TMP/snoop.err" &
	snoop=$!
	LIVE_PIDS="$LIVE_PIDS $prog $lat $snoop"
	for i in $(seq 1 600); do
		traced $lat && traced $snoop && break
		kill -0 $lat $snoop 2>/dev/null || fail "fio run $run: a tracer exited early: $(cat "$LIVE_TMP/lat.err" "$LIVE_TMP/snoop.err")"
		sleep 0.05
	done
	touch "$LIVE_TMP/go"
	wait $prog || fail "fio run $run: fio failed: $(cat "$LIVE_TMP/fio.out")"
	kill -INT $lat $snoop
	rc=0
	wait $lat || rc=$?
	wait $snoop || rc=$((rc | $?))
	[ $rc = 0 ] || fail "fio run $run: a tracer exited with $rc: $(cat "$LIVE_TMP/lat.err" "$LIVE_TMP/snoop.err")"
	LIVE_PIDS=
	want=$(($(reads_done) - before))
	check_run "fio run $run" $prog $want
done
[ $failed = 0 ] || fail "$failed of $((2 * RUNS)) runs: -p missed requests of threads made while the tracers started"
echo "ok: $RUNS threadrace and $RUNS fio runs, biolatency -p and biosnoop -p counted every read the disk counted"
