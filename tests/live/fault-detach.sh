#!/bin/bash
# A traced disk goes away mid-run (losetup -d): each tracer says so in one line that names
# it, once, and goes on. biolatency -D over every disk counts the other disk's reads before
# and after exactly as its /sys/block/DEV/stat does, and the gone disk's up to its detach;
# biolatency -d on the disk that goes says the same line and ends with what it had. Nothing
# else is said gone: the loop devices that were never attached are not disks that went.
. "$(dirname "$0")/lib.sh"
require_root

A=$(loop_create keep 32)
B=$(loop_create gone 32)
DA=$(basename "$A") DB=$(basename "$B")
MMB=$(cat /sys/block/$DB/dev)
N=300 K=100 M=200
reads() { awk '{ print $1 }' /sys/block/$1/stat; }

a0=$(reads $DA) b0=$(reads $DB)
tracer_start "$LIVE_TMP/all.out" biolatency -D
ALL=$TRACER_PID
tracer_start "$LIVE_TMP/one.out" biolatency -d "$DB"
ONE=$TRACER_PID
dio read "$A" $N 4096 >/dev/null
dio read "$B" $K 4096 rand >/dev/null
b1=$(reads $DB)
losetup -d "$B"
# The watch looks once a second.
for i in $(seq 1 60); do
	grep -q "went away" "$LIVE_TMP/all.out.err" && grep -q "went away" "$LIVE_TMP/one.out.err" && break
	sleep 0.1
done
dio read "$A" $M 4096 rand >/dev/null
a1=$(reads $DA)
TRACER_PID=$ONE tracer_stop
TRACER_PID=$ALL tracer_stop

want="disk $DB ($MMB) went away: none of its I/O from here on, the other disks' still traced"
for t in all one; do
	n=$(grep -c "went away" "$LIVE_TMP/$t.out.err" || true)
	[ "$n" = 1 ] && grep -q "$want\$" "$LIVE_TMP/$t.out.err" ||
		fail "biolatency ($t) said $n times that a disk went away: $(cat "$LIVE_TMP/$t.out.err")"
done
[ $((a1 - a0)) = $((N + M)) ] && [ $((b1 - b0)) = $K ] ||
	fail "diskstats counted $((a1 - a0)) reads of $DA and $((b1 - b0)) of $DB, dio made $((N + M)) and $K"
ga=$(hist_total "$LIVE_TMP/all.out" "$DA") gb=$(hist_total "$LIVE_TMP/all.out" "$DB")
[ "$ga" = $((a1 - a0)) ] && [ "$gb" = $((b1 - b0)) ] ||
	fail "biolatency -D counted $ga reads of $DA and $gb of $DB, diskstats $((a1 - a0)) and $((b1 - b0)): $(cat "$LIVE_TMP/all.out")"
g1=$(hist_total "$LIVE_TMP/one.out")
[ "$g1" = $((b1 - b0)) ] || fail "biolatency -d $DB counted $g1, diskstats $((b1 - b0)): $(cat "$LIVE_TMP/one.out")"
echo "ok: $DB detached mid-run: said once by each tracer ('$want'); $DA $ga reads = diskstats, before and after; $DB $gb = diskstats up to its detach"
