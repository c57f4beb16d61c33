#!/bin/bash
# VM tier: md (raid1 over the NVMe and scsi_debug disks) under Debian's 6.1 and 6.12
# kernels: mdflush with the kprobe and with the tracepoint fallback; md0's bios timed by
# biolatency and shown by biosnoop with the member disks they went to; live and recorded.
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

K=7 NR=60 NW=20
cat >"$LIVE_TMP/guest.sh" <<GUEST
K=$K NR=$NR NW=$NW
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
	# A file of its own per run: the background job truncates its output only once it
	# runs, and the last run's banner would otherwise pass for this one's.
	iotap mdflush $opt >/tmp/md-$mode.out 2>/tmp/md-$mode.err &
	t=$!
	started /tmp/md-$mode.out
	dio fsync /dev/md0 $K 0
	sleep 0.5
	kill -INT $t
	wait $t
	echo "== live $mode"
	cat /tmp/md-$mode.out /tmp/md-$mode.err
done
# Direct reads and writes on md0: bios, each sent on to the members (block_bio_remap).
echo "dio read /dev/md0 $NR 4096 >/dev/null" >/tmp/md-io.sh
echo "dio write /dev/md0 $NW 4096 seq 1048576 >/dev/null" >>/tmp/md-io.sh
iotap biolatency --bio -d md0 >/tmp/bl.out 2>&1 &
t=$!
iotap biosnoop -d md0 --remap >/tmp/bs.out 2>&1 &
t2=$!
started /tmp/bl.out
started /tmp/bs.out
sh /tmp/md-io.sh
sleep 0.5
kill -INT $t $t2
wait $t
wait $t2
echo "== live biolatency"
cat /tmp/bl.out
echo "== live biosnoop"
cat /tmp/bs.out
echo "dio fsync /dev/md0 $K 0" >/tmp/rec.sh
cat /tmp/md-io.sh >>/tmp/rec.sh
iotap record -o /tmp/rec.iotap --tools mdflush,biolatency,biosnoop -- sh /tmp/rec.sh 2>/tmp/rec.err
echo "== record $(cat /tmp/rec.err)"
echo "== guest-report mdflush"
iotap mdflush -i /tmp/rec.iotap 2>&1
echo "== guest-report biolatency"
iotap biolatency -d md0 -i /tmp/rec.iotap 2>&1
echo "== guest-report biosnoop"
iotap biosnoop -d md0 --remap -i /tmp/rec.iotap 2>&1
echo "== recording"
base64 /tmp/rec.iotap
echo "== dynamic_events"
cat /sys/kernel/tracing/dynamic_events
echo "== end"
GUEST

# check_stacked KERNEL WHAT BIOLATENCY BIOSNOOP - md0's bios counted exactly, with their members
check_stacked() {
	local n
	n=$(hist_total "$3")
	[ "$n" = $((NR + NW)) ] || fail "$1 $2: biolatency -d md0 counted $n, expected $((NR + NW)): $(cat "$3")"
	# raid1 reads one member, writes both.
	n=$(awk '$4 == "md0" && $5 == "R" && $NF ~ /^(nvme0n1|sda):[0-9]+$/' "$4" | wc -l)
	[ "$n" = $NR ] || fail "$1 $2: $n md0 reads sent to one member, expected $NR: $(cat "$4")"
	n=$(awk '$4 == "md0" && $5 == "W" && ($NF ~ /^nvme0n1:[0-9]+,sda:[0-9]+$/ || $NF ~ /^sda:[0-9]+,nvme0n1:[0-9]+$/)' "$4" | wc -l)
	[ "$n" = $NW ] || fail "$1 $2: $n md0 writes sent to both members, expected $NW: $(cat "$4")"
	n=$(awk '$1 ~ /^[0-9]+\./' "$4" | wc -l)
	[ "$n" = $((NR + NW)) ] || fail "$1 $2: $n biosnoop lines, expected $((NR + NW)): $(cat "$4")"
}

# check_flushes KERNEL WHAT FILE - exactly K flushes on md0, all by dio, nothing else
check_flushes() {
	local n
	n=$(awk '$3 == "dio" && $4 == "md0"' "$3" | wc -l)
	[ "$n" = $K ] || fail "$1 $2: $n flushes by dio on md0, expected $K: $(cat "$3")"
	n=$(awk '$1 ~ /^[0-9][0-9]:/' "$3" | wc -l)
	[ "$n" = $K ] || fail "$1 $2: $n lines, expected $K: $(cat "$3")"
}

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$MDADM" --timeout 170 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q "^== md0 raid1 " "$out" || fail "$k: no raid1 md0: $(head -5 "$out")"
	section "$out" "live kprobe" >"$LIVE_TMP/kp-$k"
	section "$out" "live tracepoint" >"$LIVE_TMP/tp-$k"
	section "$out" "guest-report mdflush" >"$LIVE_TMP/gr-$k"
	grep -q "with a kprobe" "$LIVE_TMP/kp-$k" || fail "$k: the kprobe was not used: $(cat "$LIVE_TMP/kp-$k")"
	grep -q "block_bio_queue" "$LIVE_TMP/tp-$k" || fail "$k: -t did not use the tracepoint"
	check_flushes $k kprobe "$LIVE_TMP/kp-$k"
	check_flushes $k tracepoint "$LIVE_TMP/tp-$k"
	check_flushes $k guest-report "$LIVE_TMP/gr-$k"
	for w in biolatency biosnoop; do
		section "$out" "live $w" >"$LIVE_TMP/l$w-$k"
		section "$out" "guest-report $w" >"$LIVE_TMP/g$w-$k"
	done
	check_stacked $k live "$LIVE_TMP/lbiolatency-$k" "$LIVE_TMP/lbiosnoop-$k"
	check_stacked $k guest-report "$LIVE_TMP/gbiolatency-$k" "$LIVE_TMP/gbiosnoop-$k"
	grep -q ", 0 lost" "$out" || fail "$k: record lost events: $(section "$out" record)"
	section "$out" recording | base64 -d >"$LIVE_TMP/rec-$k.iotap" || fail "$k: recording not decoded"
	chmod 644 "$LIVE_TMP/rec-$k.iotap"
	chmod 755 "$LIVE_TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" mdflush -i "$LIVE_TMP/rec-$k.iotap" \
		>"$LIVE_TMP/hr-$k" 2>&1 || fail "$k: host report failed: $(cat "$LIVE_TMP/hr-$k")"
	cmp -s "$LIVE_TMP/hr-$k" "$LIVE_TMP/gr-$k" ||
		fail "$k: mdflush reports differently here: $(diff "$LIVE_TMP/gr-$k" "$LIVE_TMP/hr-$k")"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" biolatency -d md0 \
		-i "$LIVE_TMP/rec-$k.iotap" >"$LIVE_TMP/hbiolatency-$k" 2>&1 || fail "$k: host biolatency failed"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" biosnoop -d md0 --remap \
		-i "$LIVE_TMP/rec-$k.iotap" >"$LIVE_TMP/hbiosnoop-$k" 2>&1 || fail "$k: host biosnoop failed"
	for w in biolatency biosnoop; do
		cmp -s "$LIVE_TMP/h$w-$k" "$LIVE_TMP/g$w-$k" ||
			fail "$k: $w reports differently here: $(diff "$LIVE_TMP/g$w-$k" "$LIVE_TMP/h$w-$k")"
	done
	section "$out" dynamic_events | grep -q . && fail "$k: kprobe left behind: $(section "$out" dynamic_events)"
	echo "ok: $k: raid1 md0, $K fsyncs -> $K md flushes by dio with the kprobe, with -t, recorded and reported here unprivileged"
	echo "ok: $k: md0 $NR reads + $NW writes -> biolatency --bio -d md0 $((NR + NW)), biosnoop --remap: reads to one member, writes to both; recorded, reported here"
done
