#!/bin/bash
# VM tier: record --switch-output while requests span several parts, under Debian's 6.1 and
# 6.12 kernels. scsi_debug answers each command 750 jiffies late (3 s at Debian's HZ 250): two
# readers keep such a request in flight on sda all the time, the second through dm-linear over
# sda (a dm disk completes bios, not requests), while a reader on the NVMe disk keeps records
# coming in parts of 1 s, so every slow request (and bio) begins in one part and completes
# parts later, with two or three parts open at once. Summed over the parts, biolatency and
# bitesize count exactly the reads each disk got: none lost, none twice. Then (6.12 only) ten
# reads of 15 s, one a part: the oldest parts close to make room, and the requests they give
# up are said, as many as the parts miss.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
DMSETUP=$(command -v dmsetup) || skip "dmsetup not installed (apt-get install dmsetup)"

SLOW=2 FAST=100 DELAY=750
cat >"$LIVE_TMP/guest.sh" <<GUEST
SLOW=$SLOW FAST=$FAST DELAY=$DELAY
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
echo $DELAY >/sys/bus/pseudo/drivers/scsi_debug/delay || exit 1
modprobe dm-mod || exit 1
echo "0 $(cat /sys/block/sda/size) linear /dev/sda 0" |
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync lin0 2>&1 || exit 1
dm=$(ls /sys/block | grep "^dm-" | head -n1)
echo "== dm $dm"
# Two slow readers, the second a part later and through dm-linear, and batches of fast reads
# for as long as they run; the batches are counted.
cat >/tmp/load.sh <<LOAD
/usr/local/bin/dio read /dev/sda $SLOW 4096 seq >/dev/null & a=\$!
(sleep 1.5; exec /usr/local/bin/dio read /dev/$dm $SLOW 4096 seq 1048576 >/dev/null) & b=\$!
n=0
while kill -0 \$a 2>/dev/null || kill -0 \$b 2>/dev/null; do
	/usr/local/bin/dio read /dev/nvme0n1 $FAST 4096 rand >/dev/null || exit 1
	n=\$((n + 1))
done
wait \$a && wait \$b && echo \$n >/tmp/batches
LOAD
iotap record -o /tmp/r --switch-output 1s -- sh /tmp/load.sh 2>/tmp/rec.err
echo "== record rc=$?"
cat /tmp/rec.err
echo "== batches $(cat /tmp/batches)"
echo "== parts $(ls /tmp/r.* | wc -l)"
for f in /tmp/r.*; do
	iotap report -i "$f" --info | grep -q "^complete:   yes$" || echo "== broken $f"
	for d in sda nvme0n1 $dm; do
		echo "== lat $d"
		iotap report -i "$f" biolatency -d $d -m 2>&1
		# bitesize counts requests: a dm disk has none.
		[ $d = "$dm" ] && continue
		echo "== size $d"
		iotap report -i "$f" bitesize -d $d 2>&1
	done
done
[ "$1" = many ] || { echo "== end"; exit 0; }
# More slow requests than parts may stay open: 10 reads of 15 s (HZ 250) 1.5 s apart, each
# in a part of its own (a reader's start varies by a few hundred ms under TCG).
echo $((DELAY * 5)) >/sys/bus/pseudo/drivers/scsi_debug/delay || exit 1
cat >/tmp/many.sh <<'LOAD'
pids=
for i in 0 1 2 3 4 5 6 7 8 9; do
	/usr/local/bin/dio read /dev/sda 1 4096 seq $((i * 1048576)) >/dev/null & pids="$pids $!"
	sleep 1.5
done
alive=1
while [ $alive = 1 ]; do
	/usr/local/bin/dio read /dev/nvme0n1 100 4096 rand >/dev/null || exit 1
	alive=0
	for p in $pids; do kill -0 $p 2>/dev/null && alive=1; done
done
LOAD
iotap record -o /tmp/m --switch-output 1s -- sh /tmp/many.sh 2>/tmp/many.err
echo "== many rc=$?"
cat /tmp/many.err
for f in /tmp/m.*; do
	echo "== many lat"
	iotap report -i "$f" biolatency -d sda 2>&1
done
echo "== end"
GUEST

# sections OUT NAME - the lines of every "== NAME" block of the guest's output
sections() {
	awk -v want="== $2" 'index($0, "== ") == 1 { on = $0 == want; next } on' "$1"
}

# slow_rows FILE - requests of -m histograms in buckets of 2048 ms and more
slow_rows() {
	awk '/ -> .*: [0-9]+ +\|/ && $1 >= 2048 { n += $5 } END { print n + 0 }' "$1"
}

for k in $VM_KERNELS; do
	many=
	[ $k = 6.12 ] && many=many
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$DMSETUP" --disk both --timeout 175 -- "$LIVE_TMP/guest.sh" ${many:+"$many"}
	out=$LIVE_TMP/vm-$k.out
	grep -q "^== end$" "$out" || fail "$k: the guest did not finish: $(tail -5 "$out")"
	grep -q "^== record rc=0$" "$out" || fail "$k: record failed: $(head -20 "$out")"
	grep -q "^iotap record: [0-9]* events in .* written to /tmp/r\.\*, 0 lost$" "$out" ||
		fail "$k: summary: $(head -5 "$out")"
	sections "$out" "record rc=0" | grep "given up" && fail "$k: requests were given up at boundaries"
	grep "^== broken" "$out" && fail "$k: parts not whole"
	batches=$(awk '$1 == "==" && $2 == "batches" { print $3 }' "$out")
	parts=$(awk '$1 == "==" && $2 == "parts" { print $3 }' "$out")
	[ -n "$batches" ] && [ "$batches" -ge 1 ] || fail "$k: no fast reads: $(head -5 "$out")"
	# The slow readers keep a request of 2 s or more in flight throughout: parts of 1 s.
	[ "$parts" -ge $((2 * SLOW)) ] || fail "$k: $parts parts: too few for the $((2 * SLOW)) slow requests to span several"
	dm=$(awk '$1 == "==" && $2 == "dm" { print $3 }' "$out")
	[ -n "$dm" ] || fail "$k: no dm disk: $(head -5 "$out")"
	for d in sda nvme0n1 "$dm"; do
		case $d in
		sda) want=$((2 * SLOW)) ;;
		nvme0n1) want=$((batches * FAST)) ;;
		*) want=$SLOW ;;
		esac
		sections "$out" "lat $d" >"$LIVE_TMP/lat-$d-$k"
		sections "$out" "size $d" >"$LIVE_TMP/size-$d-$k"
		lat=$(hist_total "$LIVE_TMP/lat-$d-$k")
		[ "$d" = "$dm" ] || size=$(hist_total "$LIVE_TMP/size-$d-$k")
		[ "$lat" = $want ] || fail "$k: biolatency -d $d over $parts parts counted $lat, expected $want"
		[ "$d" = "$dm" ] || [ "$size" = $want ] ||
			fail "$k: bitesize -d $d over $parts parts counted $size, expected $want"
	done
	[ "$(slow_rows "$LIVE_TMP/lat-sda-$k")" = $((2 * SLOW)) ] ||
		fail "$k: sda reads were not all slow: $(cat "$LIVE_TMP/lat-sda-$k")"
	[ "$(slow_rows "$LIVE_TMP/lat-$dm-$k")" = $SLOW ] ||
		fail "$k: $dm bios were not all slow: $(cat "$LIVE_TMP/lat-$dm-$k")"
	echo "ok: $k: $parts parts of 1 s: sda $((2 * SLOW)) reads of 2 s or more ($SLOW of them bios of $dm), nvme0n1 $((batches * FAST)), each counted once by biolatency and bitesize"
	[ $k = 6.12 ] || continue
	# Past ROTATE_OPEN_MAX parts the oldest closes: each request cut so is said, none silently.
	grep -q "^== many rc=0$" "$out" || fail "$k: record of 10 slow reads failed: $(grep -A5 "^== many rc" "$out")"
	line=$(grep "^iotap record: warning: [0-9]* requests were given up at part boundaries: their part closed while they were in flight (8 parts open, or 60 s past its end); [0-9]* of them completed later, in a part without their first events$" "$out") ||
		fail "$k: 10 slow reads over 8 open parts: no given-up line: $(grep "^iotap record" "$out")"
	up=$(echo "$line" | sed 's/^iotap record: warning: \([0-9]*\) .*/\1/')
	split=$(echo "$line" | sed 's/.*; \([0-9]*\) of them.*/\1/')
	sections "$out" "many lat" >"$LIVE_TMP/many-$k"
	got=$(hist_total "$LIVE_TMP/many-$k")
	[ "$up" -ge 1 ] && [ "$split" = "$up" ] && [ $((got + up)) = 10 ] ||
		fail "$k: 10 slow reads: $got counted over the parts, $up given up, $split split"
	echo "ok: $k: 10 slow reads, 8 parts open at most: $got counted over the parts, $up given up and said"
done
