#!/bin/bash
# VM tier: the drift report on Debian's newest kernels (sid, sid-rt: tests/live/lib.sh's
# VM_NEWEST). The guest hands back the formats of every event iotap may read
# (tests/vm/collect-formats, with the NVMe and SCSI drivers loaded); here test_events runs
# every tool's init, with each of its options, over them beside the kernels of
# tests/data/formats, and prints each field iotap reads whose name, type or size there is
# none of the known kernels'. A tool whose init fails over the new kernel fails the test (an
# event it needs gone, or a field it cannot do without); the drift itself is printed, not
# judged: it is what the next kernel changed, for a person to read.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
[ -n "$VM_NEWEST" ] || skip "IOTAP_VM_NEWEST names no kernel"
EVENTS=$(dirname "$IOTAP")/tests/unit/test_events
[ -x "$EVENTS" ] || skip "no $EVENTS (a build without cmocka)"

for k in $VM_NEWEST; do
	vm_boot $k --timeout 120 -- "$IOTAP_SRCDIR/tests/vm/collect-formats" /sys/kernel/tracing -
	d=$LIVE_TMP/formats-$k
	mkdir "$d"
	base64 -d <"$LIVE_TMP/vm-$k.out" | tar -xz -C "$d" || fail "$k: no formats came back: $(head -c 300 "$LIVE_TMP/vm-$k.out")"
	rel=$(ls "$d")
	[ -f "$d/$rel/events/header_page" ] || fail "$k: no header_page in $(ls -R "$d" | head)"
	for sys in block nvme scsi io_uring cgroup writeback; do
		[ -d "$d/$rel/events/$sys" ] || fail "$k ($rel): the guest has no $sys events"
	done
	IOTAP_DRIFT_FORMATS=$d/$rel "$EVENTS" >"$LIVE_TMP/drift-$k" 2>&1 ||
		fail "$k ($rel): a tool cannot run over its formats: $(grep -v '^drift:' "$LIVE_TMP/drift-$k" | tail -20)"
	# The report is test_tables' (test_drift's after it is its own, of two known kernels).
	awk '/^\[ RUN +\] test_tables/ { on = 1; next } /^\[ +(OK|FAILED) +\] test_tables/ { on = 0 }
		on && /^drift: / && !/ fields iotap reads differ on /' "$LIVE_TMP/drift-$k"
	sum=$(grep "^drift: [0-9]* of the [0-9]* fields iotap reads differ on $rel from" "$LIVE_TMP/drift-$k") ||
		fail "$k ($rel): no drift report: $(tail -20 "$LIVE_TMP/drift-$k")"
	echo "ok: $k ($rel): every tool inits over its formats with each option; ${sum#drift: }"
done
