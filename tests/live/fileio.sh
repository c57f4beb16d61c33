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

# run_waiting OUT ARGS - the test program, held until a tracer follows its PID
# (its dynamic loader's own reads are not part of the count); PROG_PID is its PID
run_held() {
	mkfifo "$LIVE_TMP/go.$$" 2>/dev/null || true
	FILEIO_WAIT=1 "$PROG" "$@" <"$LIVE_TMP/go.$$" &
	PROG_PID=$!
	exec 7>"$LIVE_TMP/go.$$"
}

# release - let the held program run, wait for it
release() {
	echo g >&7
	exec 7>&-
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
	tracer_start "$LIVE_TMP/c.$fs" iobreakdown -T syscall,blk -p $PROG_PID
	release
	tracer_stop
	set -- $(sysrow "$LIVE_TMP/c.$fs" pread64)
	[ "${2:-}" = $M ] && [ "$5" = 0 ] && [ "$6" = 0 ] && [ "${11}" = $((M * 4)) ] && [ "${12}" = 0 ] ||
		fail "$fs: cached pread64 row: $* (want $M calls from the page cache, 0 requests)"
	echo "ok: $fs: cached pass: $M pread64 from the page cache, 0 block requests"

	# dup, fork, write through the child's copy: the writes land on c, not on the decoy.
	run_held dupfork "$MNT" 9 >/dev/null
	tracer_start "$LIVE_TMP/d.$fs" fileio -C -c fileio 3600
	echo g >&7; exec 7>&-
	wait $PROG_PID || fail "dupfork failed"
	tracer_stop
	c=$(awk '$NF ~ /\/c$/' "$LIVE_TMP/d.$fs")
	set -- $c
	[ "${4:-}" = 9 ] && [ "${6:-}" = 36 ] && [ "$1" != $PROG_PID ] ||
		fail "$fs: dup+fork writes: '$c' (want 9 writes of the child to c)"
	! grep -q '/decoy$' "$LIVE_TMP/d.$fs" || fail "$fs: writes charged to the decoy"
	echo "ok: $fs: writes through a dup'd descriptor in a forked child land on c"
done
