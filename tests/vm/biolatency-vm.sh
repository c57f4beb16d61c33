#!/bin/bash
# VM tier: biolatency on real NVMe and SCSI (scsi_debug) disks and a kprobe,
# under Debian's 6.1 and 6.12 kernels (qemu; exit 77 when the VM cannot run).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"

cat >"$LIVE_TMP/guest.sh" <<'GUEST'
. /iotap/guest-lib.sh
# biolatency -F: exact counts per flag set from direct reads on both disks.
traced /tmp/bl.out biolatency -F
dio read /dev/nvme0n1 300 4096 >/dev/null
dio read /dev/sda 200 4096 >/dev/null
untraced
echo "== biolatency-F"
cat /tmp/bl.out /tmp/bl.out.err
traced /tmp/bl2.out biolatency -D
dio read /dev/nvme0n1 300 4096 >/dev/null
dio read /dev/sda 200 4096 >/dev/null
untraced
cat /tmp/bl2.out /tmp/bl2.out.err
# iostack: a stack event read from perf and the ftrace instance, joined per event.
traced /tmp/is.out iostack -K -f --verbose
dio read /dev/nvme0n1 300 4096 >/dev/null
untraced
echo "== iostack"
cat /tmp/is.out /tmp/is.out.err
# A kprobe through the dynamic-event path, removed afterwards.
echo "== kprobe"
traced /tmp/kp.out probe -M 5 'p:blk_mq_start_request rq=%di:x64'
dio read /dev/nvme0n1 20 4096 >/dev/null
wait $t
cat /tmp/kp.out /tmp/kp.out.err
echo "== dynamic_events"
cat /sys/kernel/tracing/dynamic_events
echo "== end"
GUEST

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--timeout 120 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	awk '/^Tracing/{n++} n==1' "$out" >"$LIVE_TMP/d-$k"
	awk '/^Tracing/{n++} n==2' "$out" | sed '/^== iostack$/,$d' >"$LIVE_TMP/dd-$k"
	[ "$(hist_total "$LIVE_TMP/dd-$k" nvme0n1)" = 300 ] || fail "$k: nvme0n1 count $(hist_total "$LIVE_TMP/dd-$k" nvme0n1)"
	[ "$(hist_total "$LIVE_TMP/dd-$k" sda)" = 200 ] || fail "$k: sda count $(hist_total "$LIVE_TMP/dd-$k" sda)"
	[ "$(hist_total "$LIVE_TMP/d-$k")" = 500 ] || fail "$k: -F total $(hist_total "$LIVE_TMP/d-$k")"
	bytes=$(sed -n '/^== iostack$/,/^== kprobe$/p' "$out" | awk 'index($0, "nvme0n1;dio") == 1 { s += $NF } END { print s + 0 }')
	[ "$bytes" = $((300 * 4096)) ] || fail "$k: iostack nvme0n1;dio bytes $bytes, expected $((300 * 4096))"
	grep -q 'block_bio_queue from both rings: [1-9][0-9]* joined' "$out" || fail "$k: iostack joined no stacks"
	[ "$(grep -c 'p_blk_mq_start_request: ([0-9a-f]*) rq=0x[0-9a-f]*$' "$out")" = 5 ] || fail "$k: kprobe hits"
	sed -n '/^== dynamic_events$/,/^== end$/p' "$out" | grep -q iotap_ && fail "$k: kprobe left behind"
	echo "ok: $k: nvme0n1=300 sda=200 exact, -F total 500, iostack $bytes bytes with stacks joined, kprobe decoded and removed"
done
