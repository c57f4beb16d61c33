#!/bin/bash
# VM tier: the flight recorder over a slow device it does not fake, under Debian's 5.10, 6.1 and
# 6.12 kernels: dm-delay over the NVMe disk, reads undelayed and writes held 200 ms. A ring of 2 s
# with --trigger 'latency>100' -d dm-N fires on the first delayed write; its dump holds exactly
# the delayed writes and the reads of the ring before them, not the reads older than the ring.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
DMSETUP=$(command -v dmsetup) || skip "dmsetup not installed (apt-get install dmsetup)"

OLD=10 FAST=20 SLOW=3 WDELAY=200 RING=2
cat >"$LIVE_TMP/guest.sh" <<GUEST
OLD=$OLD FAST=$FAST SLOW=$SLOW WDELAY=$WDELAY RING=$RING
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
modprobe dm-delay || exit 1
size=$(cat /sys/block/nvme0n1/size)
# delay DEV OFFSET READ_MS WRITE_DEV OFFSET WRITE_MS: reads pass, writes wait.
echo "0 $size delay /dev/nvme0n1 0 0 /dev/nvme0n1 0 $WDELAY" |
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync slow0 2>&1 || exit 1
dm=$(ls /sys/block | grep "^dm-" | head -n1)
echo "== dm $dm"
# Reads older than the ring, then reads within it, then the delayed writes; the recorder
# holds the command until it traces, and the last sleep lets the window close on its own.
cat >/tmp/load.sh <<LOAD
/usr/local/bin/dio read /dev/$dm $OLD 4096 seq >/dev/null
sleep $((RING + 1))
/usr/local/bin/dio read /dev/$dm $FAST 4096 seq 1048576 >/dev/null
/usr/local/bin/dio write /dev/$dm $SLOW 4096 seq 4194304 >/dev/null
sleep 3
LOAD
iotap record -o /tmp/fr --ring $RING --after 1 --trigger 'latency>100' -d $dm \
	-- sh /tmp/load.sh 2>/tmp/rec.err
echo "== record rc=$?"
cat /tmp/rec.err
echo "== dumps"
ls /tmp/fr.*
f=$(ls /tmp/fr.* | head -n1)
echo "== info"
iotap report -i "$f" --info 2>&1
echo "== biolatency dm"
iotap biolatency -i "$f" -d $dm -m -F 2>&1
echo "== bitesize nvme"
iotap bitesize -i "$f" -d nvme0n1 2>&1
echo "== end"
GUEST

# slow_rows FILE SECTION - requests of a -m histogram section in buckets of 128 ms and more
slow_rows() {
	awk -v want="$2" '/^[a-z]+ = / { cur = $3; next }
		cur == want && / -> .*: [0-9]+ +\|/ && $1 >= 128 { n += $5 }
		END { print n + 0 }' "$1"
}

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$DMSETUP" --disk nvme --timeout 120 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	dm=$(awk '$1 == "==" && $2 == "dm" { print $3 }' "$out")
	[ -n "$dm" ] || fail "$k: no dm device: $(head -5 "$out")"
	grep -q "^== record rc=0$" "$out" || fail "$k: record failed: $(section "$out" record)"
	[ "$(section "$out" dumps | wc -l)" = 1 ] || fail "$k: expected one dump: $(section "$out" dumps)"
	section "$out" record >"$LIVE_TMP/rec-$k"
	# The first delayed write fires: 4 MiB into the disk is sector 8192.
	grep -q "^iotap record: dump 1: /tmp/fr\.[0-9]*: latency [0-9.]* ms > 100.000 ms: $dm WS\? sector 8192, 4096 bytes, pid [0-9]* (dio); $RING.000 s before, 1.000 s after" "$LIVE_TMP/rec-$k" ||
		fail "$k: dump line: $(cat "$LIVE_TMP/rec-$k")"
	section "$out" info >"$LIVE_TMP/info-$k"
	grep -q "^trigger:    latency [0-9.]* ms > 100.000 ms: $dm WS\? sector 8192, 4096 bytes" "$LIVE_TMP/info-$k" ||
		fail "$k: --info names no delayed write of $dm: $(cat "$LIVE_TMP/info-$k")"
	lat=$(sed -n "s/^trigger:    latency \([0-9]*\)\.[0-9]* ms .*/\1/p" "$LIVE_TMP/info-$k")
	[ "$lat" -ge $WDELAY ] || fail "$k: the trigger's latency $lat ms is under the write delay $WDELAY ms"
	section "$out" "biolatency dm" >"$LIVE_TMP/lat-$k"
	[ "$(hist_total "$LIVE_TMP/lat-$k")" = $((FAST + SLOW)) ] ||
		fail "$k: dump holds $(hist_total "$LIVE_TMP/lat-$k") bios of $dm, expected $FAST reads + $SLOW writes: $(cat "$LIVE_TMP/lat-$k")"
	# Direct reads are Sync-Read from 6.1 on; 5.10 sends them as plain reads.
	reads=$(($(hist_total "$LIVE_TMP/lat-$k" Sync-Read) + $(hist_total "$LIVE_TMP/lat-$k" Read)))
	[ "$reads" = $FAST ] || fail "$k: reads in the dump: $(cat "$LIVE_TMP/lat-$k")"
	[ "$(slow_rows "$LIVE_TMP/lat-$k" Sync-Read)" = 0 ] && [ "$(slow_rows "$LIVE_TMP/lat-$k" Read)" = 0 ] ||
		fail "$k: a read was delayed: $(cat "$LIVE_TMP/lat-$k")"
	[ "$(hist_total "$LIVE_TMP/lat-$k" Sync-Write)" = $SLOW ] && [ "$(slow_rows "$LIVE_TMP/lat-$k" Sync-Write)" = $SLOW ] ||
		fail "$k: delayed writes in the dump: $(cat "$LIVE_TMP/lat-$k")"
	section "$out" "bitesize nvme" >"$LIVE_TMP/size-$k"
	[ "$(hist_total "$LIVE_TMP/size-$k")" = $((FAST + SLOW)) ] ||
		fail "$k: bitesize counts $(hist_total "$LIVE_TMP/size-$k") requests on nvme0n1, expected $((FAST + SLOW)): $(cat "$LIVE_TMP/size-$k")"
	echo "ok: $k: dm-delay ($dm) writes ${WDELAY} ms: the trigger names the first ($lat ms); the dump holds the $SLOW writes and the $FAST reads of the ring, not the $OLD older ones"
done
