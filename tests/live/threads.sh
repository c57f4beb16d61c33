#!/bin/bash
# Threads: -p PID counts every thread of the process, live and recorded; the PID column
# of short-lived threads is their process, never their own thread id.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create threads 64)
D=$(basename "$DEV")
T=2
N=100

# snoop_rows FILE - biosnoop's I/O lines: COMM PID DISK ...
snoop_rows() {
	awk '$1 ~ /^[0-9.]+$/ && NF >= 8 { print $2, $3, $4 }' "$1"
}

# top_rows FILE - biotop's process lines
top_rows() {
	awk 'seen { print } /^PID +COMM +D MAJ MIN DISK/ { seen = 1 }' "$1"
}

# threadio_wait - a threadio waiting for "go" on a fifo; sets TIO_PID
threadio_wait() {
	rm -f "$LIVE_TMP/go"
	mkfifo "$LIVE_TMP/go"
	"$IOTAP_PROGS/threadio" "$@" <"$LIVE_TMP/go" &
	TIO_PID=$!
	LIVE_PIDS="$LIVE_PIDS $TIO_PID"
}

# T threads of one process read N blocks each; the main thread reads nothing. Another
# process reads the same disk meanwhile: -p must leave it out.
threadio_wait "$DEV" $T $N 4096 together
pid=$TIO_PID
tracer_start "$LIVE_TMP/lat.out" biolatency -d "$D" -p $pid
lat=$TRACER_PID
tracer_start "$LIVE_TMP/bs.out" bitesize -d "$D" -p $pid
bs=$TRACER_PID
tracer_start "$LIVE_TMP/snoop.out" biosnoop -d "$D" -p $pid
snoop=$TRACER_PID
tracer_start "$LIVE_TMP/top.out" biotop -C -p $pid 3 1
top=$TRACER_PID
dio read "$DEV" 50 4096 seq 33554432 >/dev/null
echo go >"$LIVE_TMP/go"
wait $pid || fail "threadio failed"
wait $top || fail "biotop -p did not exit by itself with 0"
for TRACER_PID in $lat $bs $snoop; do tracer_stop; done
got=$(hist_total "$LIVE_TMP/lat.out")
[ "$got" = $((T * N)) ] || fail "biolatency -p $pid: $got requests, expected $((T * N))"
got=$(hist_total "$LIVE_TMP/bs.out")
[ "$got" = $((T * N)) ] || fail "bitesize -p $pid: $got requests, expected $((T * N))"
got=$(snoop_rows "$LIVE_TMP/snoop.out" | awk -v p=$pid -v d="$D" '$2 == p && $3 == d' | wc -l)
all=$(snoop_rows "$LIVE_TMP/snoop.out" | wc -l)
[ "$got" = $((T * N)) ] && [ "$all" = $((T * N)) ] ||
	fail "biosnoop -p $pid: $got of $all rows are the process's, expected $((T * N)) of $((T * N))"
# biotop has no disk filter: the process may also have read its binary or libraries from
# the root disk; every row must be the process's, and the loop device's exactly one.
line=$(top_rows "$LIVE_TMP/top.out")
echo "$line" | awk -v p=$pid -v d="$D" -v n=$((T * N)) '$1 != p { bad = 1 } $6 == d { rows++; ok = $3 == "R" && $7 == n } END { exit !(ok && rows == 1 && !bad) }' ||
	fail "biotop -p $pid: '$line', expected only its rows, one on $D of $((T * N)) reads"
echo "ok: -p $pid counts the $T threads' $((T * N)) reads in biolatency, bitesize, biosnoop and biotop"

# A thread's own id is not a process: refused with one line naming the process.
threadio_wait "$DEV" 1 1000000 4096 together
echo go >"$LIVE_TMP/go"
tid=
for i in $(seq 1 100); do
	tid=$(ls /proc/$TIO_PID/task | grep -vx $TIO_PID | head -1 || true)
	[ -n "$tid" ] && break
	sleep 0.02
done
[ -n "$tid" ] || fail "threadio started no thread"
rc=0
"$IOTAP" biosnoop -d "$D" -p "$tid" >/dev/null 2>"$LIVE_TMP/tid.err" || rc=$?
kill $TIO_PID; wait $TIO_PID 2>/dev/null || true
[ $rc = 1 ] && [ "$(cat "$LIVE_TMP/tid.err")" = "iotap biosnoop: $tid is a thread of process $TIO_PID: give the process ID, which covers all its threads" ] ||
	fail "-p THREAD: exit $rc, '$(cat "$LIVE_TMP/tid.err")'"
echo "ok: -p $tid (a thread of $TIO_PID) refused with one line"

# Short-lived threads, one after another, each gone before the next starts: the PID
# column is the process for every request, in biosnoop and biotop, live and recorded.
T2=40
N2=2
threadio_wait "$DEV" $T2 $N2 4096 one-by-one
pid=$TIO_PID
tracer_start "$LIVE_TMP/s2.out" biosnoop -d "$D"
snoop=$TRACER_PID
tracer_start "$LIVE_TMP/t2.out" biotop -C 3 1
top=$TRACER_PID
echo go >"$LIVE_TMP/go"
wait $pid || fail "threadio failed"
wait $top || fail "biotop did not exit by itself with 0"
TRACER_PID=$snoop tracer_stop
got=$(snoop_rows "$LIVE_TMP/s2.out" | awk -v p=$pid '$1 == "threadio" && $2 == p' | wc -l)
all=$(snoop_rows "$LIVE_TMP/s2.out" | awk '$1 == "threadio"' | wc -l)
[ "$got" = $((T2 * N2)) ] && [ "$all" = $((T2 * N2)) ] ||
	fail "biosnoop: $got of $all threadio rows show PID $pid, expected $((T2 * N2)) of $((T2 * N2))"
rows=$(top_rows "$LIVE_TMP/t2.out" | awk '$2 == "threadio"')
echo "$rows" | awk -v p=$pid -v d="$D" -v n=$((T2 * N2)) '$1 != p { bad = 1 } $6 == d { r++; ok = $7 == n } END { exit !(ok && r == 1 && !bad) }' ||
	fail "biotop: threadio rows '$rows', expected PID $pid only, one row on $D with $((T2 * N2)) reads"
echo "ok: $T2 short-lived threads' $((T2 * N2)) requests show PID $pid in biosnoop and biotop"

F="$LIVE_TMP/t.iotap"
echo go | "$IOTAP" record -o "$F" -- "$IOTAP_PROGS/threadio" "$DEV" $T2 $N2 4096 one-by-one \
	2>"$LIVE_TMP/rec.err" || fail "record failed: $(cat "$LIVE_TMP/rec.err")"
pid=$("$IOTAP" report -i "$F" --info | sed -n 's/^command: .*(pid \([0-9]*\))$/\1/p')
[ -n "$pid" ] || fail "--info has no command pid"
got=$("$IOTAP" report -i "$F" biosnoop -d "$D" -p "$pid" | snoop_rows /dev/stdin | awk -v p=$pid '$2 == p' | wc -l)
[ "$got" = $((T2 * N2)) ] || fail "report biosnoop -p $pid: $got rows, expected $((T2 * N2))"
got=$("$IOTAP" report -i "$F" biolatency -d "$D" -p "$pid" | hist_total /dev/stdin)
[ "$got" = $((T2 * N2)) ] || fail "report biolatency -p $pid: $got, expected $((T2 * N2))"
echo "ok: recorded, -p $pid finds the $((T2 * N2)) requests of $T2 short-lived threads"
