#!/bin/bash
# VM tier: iostackbreakdown's kprobe layers (vfs, ext4) and fileio on ext4 over NVMe,
# under Debian's 6.1 and 6.12 kernels, which have kprobes (qemu; exit 77 when it cannot run).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
MKE2FS=$(command -v mke2fs || true)
[ -n "$MKE2FS" ] || skip "no mke2fs (e2fsprogs)"
N=24
M=40

cat >"$LIVE_TMP/guest.sh" <<GUEST
N=$N
M=$M
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
. /iotap/guest-lib.sh
# held PROG - the test program, stopped before its I/O; P is its PID
held() {
	FILEIO_WAIT=1 $1 rw /mnt $N $M &
	P=$!
	for i in $(seq 1 100); do
		[ "$(cut -d' ' -f3 /proc/$P/stat)" = T ] && return 0
		sleep 0.05
	done
	echo "test program did not stop"
	exit 1
}
mke2fs -q -t ext4 -F /dev/nvme0n1 || exit 1
mkdir -p /mnt
mount -t ext4 /dev/nvme0n1 /mnt || exit 1
dd if=/dev/zero of=/mnt/b bs=4096 count=$M 2>/dev/null
sync
for run in "iostackbreakdown -d nvme0n1:fileio" "fileio -C 3600:fileio" "fileio -C 3600:fileio_static"; do
	tool=${run%%:*}
	held ${run##*:}
	# A file of its own per run: the background job truncates its output only once it
	# runs, and the last run's banner would otherwise pass for this one's.
	out=/tmp/${run##*:}-${tool%% *}.out
	iotap $tool -p $P >"$out" 2>&1 &
	t=$!
	started "$out"
	kill -CONT $P
	wait $P
	sleep 0.5
	kill -INT $t
	wait $t
	echo "== $tool ${run##*:}"
	cat "$out"
done
echo "== dynamic_events"
cat /sys/kernel/tracing/dynamic_events
echo "== end"
GUEST

# sysrow FILE SYSCALL - the attribution row of a syscall
sysrow() {
	awk -v s="$2" '/^SYSCALL / { on = 1; next } on && $1 == s { print; exit }' "$1"
}

for k in $VM_KERNELS; do
	vm_boot $k --disk nvme --mod ext4 --bin "$IOTAP" \
		--bin "$IOTAP_PROGS/fileio" --bin "$IOTAP_PROGS/fileio_static" --bin "$MKE2FS" --timeout 240 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	section "$out" "iostackbreakdown -d nvme0n1 fileio" >"$LIVE_TMP/s-$k"
	section "$out" "fileio -C 3600 fileio" >"$LIVE_TMP/f-$k"
	section "$out" "fileio -C 3600 fileio_static" >"$LIVE_TMP/fs-$k"
	grep -q '^layer vfs: kprobe/kretprobe pairs on vfs_read, vfs_write, vfs_open, vfs_fsync_range$' \
		"$LIVE_TMP/s-$k" || { cat "$LIVE_TMP/s-$k"; fail "$k: no vfs kprobe layer"; }
	for want in vfs_write:$N vfs_read:$M ext4_file_write_iter:$N ext4_file_read_iter:$M \
		ext4_sync_file:1 vfs_fsync:1 sys_pwrite64:$N sys_pread64:$M; do
		got=$(hist_total "$LIVE_TMP/s-$k" "${want%%:*}")
		[ "$got" = "${want#*:}" ] || { cat "$LIVE_TMP/s-$k"; fail "$k: ${want%%:*} counted $got, want ${want#*:}"; }
	done
	set -- $(sysrow "$LIVE_TMP/s-$k" pread64)
	[ "${2:-}" = $M ] && [ "$5" = $M ] && [ "$6" = $M ] || fail "$k: pread64 row: $*"
	a=$(awk '$NF == "/mnt/a"' "$LIVE_TMP/f-$k"); b=$(awk '$NF == "/mnt/b"' "$LIVE_TMP/f-$k")
	set -- $a
	[ "${4:-}" = $N ] && [ "${6:-}" = $((N * 4)) ] || { cat "$LIVE_TMP/f-$k"; fail "$k: fileio a: '$a'"; }
	set -- $b
	[ "${3:-}" = $M ] && [ "${5:-}" = $((M * 4)) ] || { cat "$LIVE_TMP/f-$k"; fail "$k: fileio b: '$b'"; }
	# A static program: the libc uprobes never fire; the getname kretprobe names its files.
	grep -q 'file names: a kretprobe on getname' "$LIVE_TMP/fs-$k" || { cat "$LIVE_TMP/fs-$k"; fail "$k: no getname kretprobe"; }
	a=$(awk '$NF == "/mnt/a"' "$LIVE_TMP/fs-$k"); b=$(awk '$NF == "/mnt/b"' "$LIVE_TMP/fs-$k")
	set -- $a
	[ "${4:-}" = $N ] || { cat "$LIVE_TMP/fs-$k"; fail "$k: static fileio a: '$a'"; }
	set -- $b
	[ "${3:-}" = $M ] || { cat "$LIVE_TMP/fs-$k"; fail "$k: static fileio b: '$b'"; }
	[ "$(sed -n '/^== dynamic_events/,/^== end/p' "$out" | wc -l)" = 2 ] ||
		fail "$k: dynamic events left behind"
	echo "ok: $k: vfs and ext4 kprobe layers count $N writes, $M reads, 1 fsync; fileio names a and b (libc uprobes, and getname for a static program)"
done
