#!/bin/bash
# fileio and iostackbreakdown live: exact per-file and per-syscall counts on ext4 and xfs.
. "$(dirname "$0")/lib.sh"
require_root
[ -d $TRACEFS/events/syscalls ] || skip "kernel has no syscall tracepoints"
N=24
M=40
PROG="$IOTAP_PROGS/fileio"

# fs_make FS - a filesystem of type FS on a fresh loop device, mounted; prints the mount point
fs_make() {
	local dev mnt="$LIVE_TMP/mnt-$1"
	command -v "mkfs.$1" >/dev/null || skip "no mkfs.$1 (install e2fsprogs and xfsprogs)"
	dev=$(loop_create "fs-$1" 320)
	"mkfs.$1" -q "$dev" >/dev/null 2>&1 || mkfs."$1" -f -q "$dev" >/dev/null || fail "mkfs.$1 failed"
	mkdir -p "$mnt"
	mount "$dev" "$mnt" || fail "cannot mount $1"
	echo "$dev" >>"$LIVE_TMP/mounts.$1"
	dd if=/dev/urandom of="$mnt/b" bs=4096 count=$M status=none
	sync
	echo "$mnt"
}

# run_held ARGS - the test program, stopped once loaded until a tracer follows its PID
# (its dynamic loader's own reads are not part of the count); PROG_PID is its PID
run_held() {
	local i
	FILEIO_WAIT=1 "$PROG" "$@" &
	PROG_PID=$!
	for i in $(seq 1 100); do
		[ "$(awk '{ print $3 }' /proc/$PROG_PID/stat 2>/dev/null)" = T ] && return 0
		sleep 0.02
	done
	fail "test program did not stop"
}

# release - continue the held program, wait for it
release() {
	kill -CONT $PROG_PID
	wait $PROG_PID || fail "test program failed"
}

# row FILE PID NAME - the fileio row of NAME (a path ending in /NAME) for PID
row() {
	awk -v pid="$2" -v name="$3" '$1 == pid && $NF ~ ("/" name "$")' "$1"
}

# sysrow FILE SYSCALL - the attribution row of a syscall
sysrow() {
	awk -v s="$2" '/^SYSCALL / { on = 1; next } on && $1 == s { print; exit }' "$1"
}

cleanup_fs() {
	local m
	for m in "$LIVE_TMP"/mnt-*; do [ -d "$m" ] && umount "$m" 2>/dev/null; done
	live_cleanup
}
trap cleanup_fs EXIT

for fs in ext4 xfs; do
	MNT=$(fs_make $fs)

	# fileio: a gets N writes of 4 KiB, b M direct reads of 4 KiB, under the program's PID.
	run_held rw "$MNT" $N $M
	tracer_start "$LIVE_TMP/f.$fs" fileio -C -p $PROG_PID 3600
	release
	tracer_stop
	a=$(row "$LIVE_TMP/f.$fs" $PROG_PID a); b=$(row "$LIVE_TMP/f.$fs" $PROG_PID b)
	set -- $a
	[ "${2:-}" = fileio ] && [ "${3:-}" = 0 ] && [ "${4:-}" = $N ] && [ "${6:-}" = $((N * 4)) ] ||
		fail "$fs: fileio row of a: '$a' (want $N writes, $((N * 4)) Kb)"
	set -- $b
	[ "${2:-}" = fileio ] && [ "${3:-}" = $M ] && [ "${4:-}" = 0 ] && [ "${5:-}" = $((M * 4)) ] ||
		fail "$fs: fileio row of b: '$b' (want $M reads, $((M * 4)) Kb)"
	echo "ok: $fs: fileio a: $N writes/$((N * 4)) Kb, b: $M reads/$((M * 4)) Kb, pid $PROG_PID"

	# iostackbreakdown: N pwrite64, M pread64 all to disk with M requests, one fsync.
	run_held rw "$MNT" $N $M
	tracer_start "$LIVE_TMP/s.$fs" iostackbreakdown -p $PROG_PID
	release
	tracer_stop
	grep -q '^layer syscall: syscalls:sys_enter_\*/sys_exit_\* tracepoints$' "$LIVE_TMP/s.$fs" ||
		fail "$fs: no syscall layer line"
	grep -q '^layer vfs: not offered: ' "$LIVE_TMP/s.$fs" || fail "$fs: no vfs layer line"
	set -- $(sysrow "$LIVE_TMP/s.$fs" pwrite64)
	[ "${2:-}" = $N ] || fail "$fs: pwrite64 calls ${2:-none}, want $N"
	set -- $(sysrow "$LIVE_TMP/s.$fs" pread64)
	[ "${2:-}" = $M ] && [ "$5" = $M ] && [ "$6" = $M ] && [ "${12}" = $((M * 4)) ] &&
		[ "${11}" = 0 ] || fail "$fs: pread64 row: $* (want $M calls, all to disk, $M requests)"
	set -- $(sysrow "$LIVE_TMP/s.$fs" fsync)
	[ "${2:-}" = 1 ] && [ "$5" = 1 ] || fail "$fs: fsync row: $* (want 1 call that went to disk)"
	grep -q '^operation = sys_pread64$' "$LIVE_TMP/s.$fs" || fail "$fs: no sys_pread64 histogram"
	grep -q '^sys_pread64, [0-9]*$' "$LIVE_TMP/s.$fs" || fail "$fs: no 'op, total ns' line"
	grep -q '^operation = iomap_dio_read$' "$LIVE_TMP/s.$fs" || fail "$fs: no iomap_dio_read histogram"
	echo "ok: $fs: iostackbreakdown $N pwrite64, $M pread64 with $M block requests, 1 fsync to disk"

	# A cached pass: every read from the page cache, no block request.
	"$PROG" cached "$MNT" $M
	run_held cached "$MNT" $M
	tracer_start "$LIVE_TMP/c.$fs" iobreakdown -T syscall -T blk -p $PROG_PID
	release
	tracer_stop
	[ "$(grep -c '^layer ' "$LIVE_TMP/c.$fs")" = 2 ] && grep -q '^layer blk: ' "$LIVE_TMP/c.$fs" &&
		! grep -q '^operation = iomap' "$LIVE_TMP/c.$fs" || fail "$fs: -T syscall -T blk: other layers traced"
	set -- $(sysrow "$LIVE_TMP/c.$fs" pread64)
	[ "${2:-}" = $M ] && [ "$5" = 0 ] && [ "$6" = 0 ] && [ "${11}" = $((M * 4)) ] && [ "${12}" = 0 ] ||
		fail "$fs: cached pread64 row: $* (want $M calls from the page cache, 0 requests)"
	echo "ok: $fs: cached pass: $M pread64 from the page cache, 0 block requests"

	# -j: every line one JSON object; the same counts.
	if [ $fs = ext4 ]; then
		run_held rw "$MNT" $N $M
		tracer_start "$LIVE_TMP/j.out" iostackbreakdown -j -p $PROG_PID
		release
		tracer_stop
		sed 1d "$LIVE_TMP/j.out" | grep -v '^$' >"$LIVE_TMP/j.json"
		python3 - "$LIVE_TMP/j.json" $N $M <<'PY' || fail "-j: not valid JSON with the counts"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
n, m = int(sys.argv[2]), int(sys.argv[3])
rows = {o["syscall"]: o for o in objs if "syscall" in o}
assert rows["pread64"]["calls"] == m and rows["pread64"]["blk_requests"] == m, rows
assert rows["pwrite64"]["calls"] == n and rows["fsync"]["disk_calls"] == 1, rows
hists = {o["operation"]: o for o in objs if "data" in o}
assert sum(d["count"] for d in hists["sys_pread64"]["data"]) == m, hists.keys()
PY
		echo "ok: $fs: -j gives one JSON object per line with the same counts"
	fi

	# dup, fork, write through the child's copy: the writes land on c, not on the decoy.
	run_held dupfork "$MNT" 9 >/dev/null
	tracer_start "$LIVE_TMP/d.$fs" fileio -C -c fileio 3600
	release
	tracer_stop
	c=$(awk '$NF ~ /\/c$/' "$LIVE_TMP/d.$fs")
	set -- $c
	[ "${4:-}" = 9 ] && [ "${6:-}" = 36 ] && [ "$1" != $PROG_PID ] ||
		fail "$fs: dup+fork writes: '$c' (want 9 writes of the child to c)"
	! grep -q '/decoy$' "$LIVE_TMP/d.$fs" || fail "$fs: writes charged to the decoy"
	echo "ok: $fs: writes through a dup'd descriptor in a forked child land on c"
done

# record, then report: the same tables as live over the same run (one interval each, as a
# report's default of 1 s could split the run into two tables).
MNT=$LIVE_TMP/mnt-ext4
run_held rw "$MNT" $N $M
tracer_start "$LIVE_TMP/live.f" fileio -C -p $PROG_PID 3600
t_live=$TRACER_PID
tracer_start "$LIVE_TMP/live.s" iostackbreakdown -p $PROG_PID
t_live_s=$TRACER_PID
"$IOTAP" record -o "$LIVE_TMP/rec.iotap" --tools fileio,iostackbreakdown >"$LIVE_TMP/rec.out" 2>&1 &
t_rec=$!
LIVE_PIDS="$LIVE_PIDS $t_rec"
for i in $(seq 1 100); do [ -s "$LIVE_TMP/rec.iotap" ] && break; sleep 0.05; done
sleep 1
release
TRACER_PID=$t_live tracer_stop
TRACER_PID=$t_live_s tracer_stop
TRACER_PID=$t_rec tracer_stop
"$IOTAP" report -i "$LIVE_TMP/rec.iotap" fileio -C -p $PROG_PID 3600 >"$LIVE_TMP/rep.f" 2>"$LIVE_TMP/rep.f.err" ||
	{ cat "$LIVE_TMP/rep.f.err" >&2; fail "report fileio failed"; }
"$IOTAP" report -i "$LIVE_TMP/rec.iotap" iostackbreakdown -p $PROG_PID >"$LIVE_TMP/rep.s" 2>"$LIVE_TMP/rep.s.err" ||
	{ cat "$LIVE_TMP/rep.s.err" >&2; fail "report iostackbreakdown failed"; }
# Latencies are stamped per perf event, so two sessions differ there: compare the counts.
for f in a b; do
	l=$(row "$LIVE_TMP/live.f" $PROG_PID $f | awk '{ print $1, $2, $3, $4, $5, $6, $NF }')
	r=$(row "$LIVE_TMP/rep.f" $PROG_PID $f | awk '{ print $1, $2, $3, $4, $5, $6, $NF }')
	[ -n "$l" ] && [ "$l" = "$r" ] || fail "report fileio row of $f: '$r', live: '$l'"
done
counts() {
	sed -n '/^per syscall/,$p' "$1" | awk '/^[a-z0-9_]+ +[0-9]/ { print $1, $2, $5, $6, $11, $12, $13 }' |
		grep -E '^(pread64|pwrite64|fsync) '
}
counts "$LIVE_TMP/live.s" >"$LIVE_TMP/live.t"
counts "$LIVE_TMP/rep.s" >"$LIVE_TMP/rep.t"
grep -q "^pread64 $M $M $M " "$LIVE_TMP/rep.t" && cmp -s "$LIVE_TMP/live.t" "$LIVE_TMP/rep.t" ||
	{ diff "$LIVE_TMP/live.t" "$LIVE_TMP/rep.t" >&2; fail "report iostackbreakdown differs from live"; }
echo "ok: record then report: fileio rows and per-syscall counts equal live's (names from the recorded uprobes)"

# A file opened before recording began is named from the descriptor table recorded at start.
"$PROG" preopen "$MNT" 5 &
pre=$!
for i in $(seq 1 100); do [ "$(awk '{ print $3 }' /proc/$pre/stat)" = T ] && break; sleep 0.02; done
"$IOTAP" record -o "$LIVE_TMP/pre.iotap" --tools fileio >"$LIVE_TMP/pre.out" 2>&1 &
t_rec=$!
LIVE_PIDS="$LIVE_PIDS $t_rec"
for i in $(seq 1 100); do [ -s "$LIVE_TMP/pre.iotap" ] && break; sleep 0.05; done
sleep 1
kill -CONT $pre
wait $pre || fail "preopen failed"
TRACER_PID=$t_rec tracer_stop
"$IOTAP" report -i "$LIVE_TMP/pre.iotap" fileio -C -p $pre 3600 >"$LIVE_TMP/pre.f" 2>&1 || fail "report failed"
set -- $(row "$LIVE_TMP/pre.f" $pre p)
[ "${4:-}" = 5 ] && [ "${6:-}" = 20 ] || { cat "$LIVE_TMP/pre.f" >&2; fail "file opened before recording: '$*'"; }
echo "ok: a file opened before recording is named from the recorded descriptor table"

# The naming uprobes go at every exit; a SIGKILLed run's are reaped by the next run.
before=$(tracefs_snapshot)
tracer_start "$LIVE_TMP/k.out" fileio -C 3600
grep -q libc_open "$TRACEFS/uprobe_events" || fail "no libc open uprobes while fileio runs"
tracer_stop
[ "$(tracefs_snapshot)" = "$before" ] || fail "fileio left tracefs changed after SIGINT"
tracer_start "$LIVE_TMP/k.out" fileio -C 3600
kill -KILL $TRACER_PID; wait $TRACER_PID 2>/dev/null || true
grep -q libc_open "$TRACEFS/uprobe_events" || fail "SIGKILL test: no uprobes left to reap"
tracer_start "$LIVE_TMP/k2.out" iostackbreakdown -T syscall
tracer_stop
[ "$(tracefs_snapshot)" = "$before" ] || fail "the next run did not reap fileio's uprobes"
echo "ok: fileio's uprobes are removed on exit and reaped after SIGKILL"

# Bad options: one error line, exit 1.
for args in "fileio -m 5" "fileio -s bogus" "iostackbreakdown -T bogus" "iobreakdown -d nosuchdisk" \
	"fileio -p 999999999"; do
	rc=0
	"$IOTAP" $args >"$LIVE_TMP/e.out" 2>"$LIVE_TMP/e.err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/e.err")" = 1 ] ||
		fail "'$args': exit $rc, stderr: $(cat "$LIVE_TMP/e.err")"
done
echo "ok: bad options give one error line and exit 1"
