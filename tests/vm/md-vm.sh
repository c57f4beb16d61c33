#!/bin/bash
# VM tier: md (raid1 over the NVMe and scsi_debug disks) under Debian's 6.1 and 6.12
# kernels: mdflush with the kprobe and with the tracepoint fallback, live and recorded.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"

# mdadm for the guest: the host's, else the binary unpacked from Debian's package.
MDADM=$(command -v mdadm || true)
if [ -z "$MDADM" ]; then
	cache=${IOTAP_VM_CACHE:-/var/cache/iotap-vm}/debs
	mkdir -p "$cache"
	if [ ! -x "$cache/mdadm/sbin/mdadm" ]; then
		(cd "$LIVE_TMP" && apt-get download mdadm >/dev/null 2>&1) || skip "cannot download mdadm"
		dpkg -x "$LIVE_TMP"/mdadm_*.deb "$LIVE_TMP/mdadm" && mv "$LIVE_TMP/mdadm" "$cache/mdadm" ||
			skip "cannot unpack mdadm"
	fi
	MDADM=$cache/mdadm/sbin/mdadm
fi

K=7
cat >"$LIVE_TMP/guest.sh" <<GUEST
K=$K
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
# started FILE - wait (bounded) until a background iotap printed its banner
started() {
	for i in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	echo "iotap did not start: $(cat "$1")"
	exit 1
}
mkdir -p /run/mdadm
mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
	/dev/nvme0n1 /dev/sda >/tmp/mdadm.out 2>&1 || { cat /tmp/mdadm.out; exit 1; }
for i in $(seq 1 50); do [ -b /dev/md0 ] && break; sleep 0.1; done
echo "== md0 $(cat /sys/block/md0/md/level) $(ls /sys/block/md0/slaves | tr '\n' ' ')"
for mode in kprobe tracepoint; do
	opt=; [ $mode = tracepoint ] && opt=-t
	iotap mdflush $opt >/tmp/md.out 2>/tmp/md.err &
	t=$!
	started /tmp/md.out
	dio fsync /dev/md0 $K 0
	sleep 0.5
	kill -INT $t
	wait $t
	echo "== live $mode"
	cat /tmp/md.out /tmp/md.err
done
iotap record -o /tmp/rec.iotap --tools mdflush -- dio fsync /dev/md0 $K 0 2>/tmp/rec.err
echo "== record $(cat /tmp/rec.err)"
echo "== guest-report"
iotap mdflush -i /tmp/rec.iotap 2>&1
echo "== recording"
base64 /tmp/rec.iotap
echo "== dynamic_events"
cat /sys/kernel/tracing/dynamic_events
echo "== end"
GUEST

# section OUT NAME - the lines of one "== NAME" block of the guest's output
section() {
	awk -v want="== $2" 'index($0, "== ") == 1 { on = index($0, want) == 1; next } on' "$1"
}

# check_flushes KERNEL WHAT FILE - exactly K flushes on md0, all by dio, nothing else
check_flushes() {
	local n
	n=$(awk '$3 == "dio" && $4 == "md0"' "$3" | wc -l)
	[ "$n" = $K ] || fail "$1 $2: $n flushes by dio on md0, expected $K: $(cat "$3")"
	n=$(awk '$1 ~ /^[0-9][0-9]:/' "$3" | wc -l)
	[ "$n" = $K ] || fail "$1 $2: $n lines, expected $K: $(cat "$3")"
}

for k in 6.1 6.12; do
	rc=0
	out=$LIVE_TMP/vm-$k.out
	"$IOTAP_SRCDIR/tests/vm/vm-run" --kernel $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$MDADM" --timeout 170 -- "$LIVE_TMP/guest.sh" >"$out" 2>"$LIVE_TMP/vm-$k.err" || rc=$?
	[ $rc = 125 ] && skip "VM for $k could not run: $(tail -3 "$LIVE_TMP/vm-$k.err")"
	[ -n "${IOTAP_VM_KEEP:-}" ] && cp "$out" "$IOTAP_VM_KEEP/md-$k.out"
	[ $rc = 0 ] || { cat "$out" "$LIVE_TMP/vm-$k.err"; fail "guest script failed on $k ($rc)"; }
	grep -q "^== md0 raid1 " "$out" || fail "$k: no raid1 md0: $(head -5 "$out")"
	section "$out" "live kprobe" >"$LIVE_TMP/kp-$k"
	section "$out" "live tracepoint" >"$LIVE_TMP/tp-$k"
	section "$out" "guest-report" >"$LIVE_TMP/gr-$k"
	grep -q "with a kprobe" "$LIVE_TMP/kp-$k" || fail "$k: the kprobe was not used: $(cat "$LIVE_TMP/kp-$k")"
	grep -q "block_bio_queue" "$LIVE_TMP/tp-$k" || fail "$k: -t did not use the tracepoint"
	check_flushes $k kprobe "$LIVE_TMP/kp-$k"
	check_flushes $k tracepoint "$LIVE_TMP/tp-$k"
	check_flushes $k guest-report "$LIVE_TMP/gr-$k"
	grep -q ", 0 lost" "$out" || fail "$k: record lost events: $(section "$out" record)"
	section "$out" recording | base64 -d >"$LIVE_TMP/rec-$k.iotap" || fail "$k: recording not decoded"
	chmod 644 "$LIVE_TMP/rec-$k.iotap"
	chmod 755 "$LIVE_TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" mdflush -i "$LIVE_TMP/rec-$k.iotap" \
		>"$LIVE_TMP/hr-$k" 2>&1 || fail "$k: host report failed: $(cat "$LIVE_TMP/hr-$k")"
	cmp -s "$LIVE_TMP/hr-$k" "$LIVE_TMP/gr-$k" ||
		fail "$k: mdflush reports differently here: $(diff "$LIVE_TMP/gr-$k" "$LIVE_TMP/hr-$k")"
	section "$out" dynamic_events | grep -q . && fail "$k: kprobe left behind: $(section "$out" dynamic_events)"
	echo "ok: $k: raid1 md0, $K fsyncs -> $K md flushes by dio with the kprobe, with -t, recorded and reported here unprivileged"
done
