#!/bin/bash
# VM tier: bioerr over injected errors under Debian's 6.1 and 6.12 kernels: null_blk's bad
# blocks (a request-based disk) and device-mapper's error target (bio-based, so bioerr -d
# dm-0 follows bios); exact lines, sectors and BLK_STS names, live and recorded.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
DMSETUP=$(command -v dmsetup) || skip "dmsetup not installed (apt-get install dmsetup)"

K=4 BAD=4096
cat >"$LIVE_TMP/guest.sh" <<GUEST
K=$K BAD=$BAD
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
# started FILE - wait (bounded) until a background iotap printed its banner
started() {
	for i in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	echo "iotap did not start: $(cat "$1")"
	exit 1
}
# failing_reads DEV - K direct 4 KiB reads from sector BAD on, each expected to fail; 20 good
echo "K=$K BAD=$BAD" >/tmp/fr.sh
cat >>/tmp/fr.sh <<'FR'
failing_reads() {
	for i in $(seq 0 $((K - 1))); do
		dio read $1 1 4096 seq $(( (BAD + i * 8) * 512 )) >/dev/null 2>&1 && echo "read $i on $1 did not fail"
	done
	dio read $1 20 4096 >/dev/null || echo "good reads on $1 failed"
}
FR
. /tmp/fr.sh
modprobe null_blk nr_devices=0 || exit 1
mount -t configfs none /sys/kernel/config 2>/dev/null
nb=/sys/kernel/config/nullb/nullb0
mkdir $nb && echo 64 >$nb/size && echo 1 >$nb/memory_backed &&
	echo "+$BAD-$((BAD + K * 8 - 1))" >$nb/badblocks && echo 1 >$nb/power || exit 1
for i in $(seq 1 50); do [ -b /dev/nullb0 ] && break; sleep 0.1; done
modprobe dm-mod || exit 1
# dm-0 maps its first BAD sectors to nullb0 and fails the rest with its error target.
printf '0 %d linear /dev/nullb0 0\n%d %d error\n' $BAD $BAD $((K * 8)) |
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync err0 2>&1 || exit 1
dm=$(ls /sys/block | grep "^dm-" | head -n1)
echo "== dm $dm"
iotap bioerr -d nullb0 >/tmp/nb.out 2>&1 &
t=$!
iotap bioerr -d $dm >/tmp/dm.out 2>&1 &
t2=$!
started /tmp/nb.out
started /tmp/dm.out
failing_reads /dev/nullb0
failing_reads /dev/$dm
sleep 0.5
kill -INT $t $t2
wait $t
wait $t2
echo "== live nullb0"
cat /tmp/nb.out
echo "== live dm"
cat /tmp/dm.out
echo ". /tmp/fr.sh; failing_reads /dev/nullb0; failing_reads /dev/$dm" >/tmp/rec.sh
iotap record -o /tmp/rec.iotap --tools bioerr -- sh /tmp/rec.sh 2>/tmp/rec.err
echo "== record $(cat /tmp/rec.err)"
echo "== guest-report nullb0"
iotap bioerr -d nullb0 -i /tmp/rec.iotap 2>&1
echo "== guest-report dm"
iotap bioerr -d $dm -i /tmp/rec.iotap 2>&1
echo "== recording"
base64 /tmp/rec.iotap
echo "== end"
GUEST

# check_errors KERNEL WHAT FILE DISK STS - exactly K failed reads by dio at the bad sectors
check_errors() {
	local want got
	want=$(for i in $(seq 0 $((K - 1))); do printf '%d ' $((BAD + i * 8)); done)
	got=$(awk -v d="$4" -v s="$5" '$4 == d && $NF == s && $2 == "dio" && $5 ~ /^R/ && $7 == 4096 { print $6 }' "$3" | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "$1 $2: $4 failed sectors '$got', expected '$want': $(cat "$3")"
	got=$(grep -c ' BLK_STS_\| errno ' "$3")
	[ "$got" = $K ] || fail "$1 $2: $got error lines on $4, expected $K: $(cat "$3")"
}

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$DMSETUP" --disk none --timeout 170 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q "did not fail\|failed$" "$out" && fail "$k: injection did not behave: $(grep 'did not fail\|failed$' "$out")"
	dm=$(awk '$1 == "==" && $2 == "dm" { print $3 }' "$out")
	[ -n "$dm" ] || fail "$k: no dm device: $(head -5 "$out")"
	for w in live guest-report; do
		section "$out" "$w nullb0" >"$LIVE_TMP/nb-$w-$k"
		section "$out" "$w dm" >"$LIVE_TMP/dm-$w-$k"
		check_errors $k "$w" "$LIVE_TMP/nb-$w-$k" nullb0 BLK_STS_IOERR
		check_errors $k "$w" "$LIVE_TMP/dm-$w-$k" "$dm" BLK_STS_IOERR
	done
	grep -q ", 0 lost" "$out" || fail "$k: record lost events: $(grep '^== record' "$out")"
	section "$out" recording | base64 -d >"$LIVE_TMP/rec-$k.iotap" || fail "$k: recording not decoded"
	chmod 644 "$LIVE_TMP/rec-$k.iotap"
	chmod 755 "$LIVE_TMP"
	for d in nullb0 "$dm"; do
		w=nb; [ "$d" = nullb0 ] || w=dm
		setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" bioerr -d "$d" \
			-i "$LIVE_TMP/rec-$k.iotap" >"$LIVE_TMP/h-$w-$k" 2>&1 || fail "$k: host report failed"
		cmp -s "$LIVE_TMP/h-$w-$k" "$LIVE_TMP/$w-guest-report-$k" ||
			fail "$k: bioerr -d $d reports differently here: $(diff "$LIVE_TMP/$w-guest-report-$k" "$LIVE_TMP/h-$w-$k")"
	done
	echo "ok: $k: $K reads on null_blk bad blocks and $K on a dm error target -> exactly $K bioerr lines each, right sectors, BLK_STS_IOERR; live, recorded, reported here unprivileged"
done
