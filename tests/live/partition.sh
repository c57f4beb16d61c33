#!/bin/bash
# -d with a partition: block events carry the disk and its sectors, so a partition is
# traced as its disk's sector range; the disk itself counts both partitions. Also the
# below-the-block-layer tools' clear refusals on a kernel without their events.
. "$(dirname "$0")/lib.sh"
require_root

IMG_MB=32
DEV=$(loop_create p $IMG_MB)
D=$(basename "$DEV")
# Partitions read with --rereadpt outlive the loop device's detach: a run before ours may
# have left some on this device (partx -a then adds none), and ours must go with it.
partx -d "$DEV" 2>/dev/null || true
trap 'partx -d "$DEV" 2>/dev/null; live_cleanup' EXIT
# An MBR with two partitions: p1 at sector 2048 (8 MiB), p2 at 18432 (8 MiB).
mbr_entry() {
	# status, CHS (unused), type 0x83, CHS, LBA start, sector count (little-endian)
	printf '\x00\xff\xff\xff\x83\xff\xff\xff'
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24)))"
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24)))"
}
{ mbr_entry 2048 16384; mbr_entry 18432 16384; } | dd of="$DEV" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$DEV" bs=1 seek=510 conv=notrunc status=none
blockdev --rereadpt "$DEV" 2>/dev/null || partx -a "$DEV" 2>/dev/null || true
for i in $(seq 1 50); do [ -b "${DEV}p2" ] && break; sleep 0.1; done
[ -b "${DEV}p2" ] || skip "the loop device shows no partitions (no partition scan)"
[ "$(cat /sys/class/block/${D}p2/start)" = 18432 ] || fail "p2 starts at $(cat /sys/class/block/${D}p2/start)"

N1=300 N2=200
tracer_start "$LIVE_TMP/p1.out" biolatency -d "${D}p1"
dio read "${DEV}p1" $N1 4096 >/dev/null
dio read "${DEV}p2" $N2 4096 >/dev/null
tracer_stop
got=$(hist_total "$LIVE_TMP/p1.out")
[ "$got" = $N1 ] || fail "-d ${D}p1 counted $got, expected $N1"
echo "ok: -d ${D}p1 counts its $N1 reads, not p2's $N2"

tracer_start "$LIVE_TMP/p2.out" biosnoop -d "${D}p2"
tracer_start "$LIVE_TMP/d.out" biolatency -d "$D"
dio read "${DEV}p1" $N1 4096 >/dev/null
dio read "${DEV}p2" $N2 4096 >/dev/null
sleep 0.3
kill -INT $(jobs -p) 2>/dev/null
wait
got=$(awk -v d="$D" '$4 == d && $6 >= 18432 && $6 < 18432 + 16384' "$LIVE_TMP/p2.out" | wc -l)
[ "$got" = $N2 ] || fail "biosnoop -d ${D}p2: $got lines in p2's range, expected $N2"
[ "$(awk '$1 ~ /^[0-9]+\./' "$LIVE_TMP/p2.out" | wc -l)" = $N2 ] || fail "biosnoop -d ${D}p2 shows other I/O"
got=$(hist_total "$LIVE_TMP/d.out")
[ "$got" = $((N1 + N2)) ] || fail "-d $D counted $got, expected $((N1 + N2))"
echo "ok: biosnoop -d ${D}p2 shows exactly its $N2 reads at disk sectors; -d $D counts $((N1 + N2))"

# --bio refuses a request-based device; the nvme/scsi tools say what this kernel lacks.
rc=0; "$IOTAP" biolatency --bio -d "$D" 2>"$LIVE_TMP/e" || rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$LIVE_TMP/e")" = 1 ] && grep -q "completes requests, not bios" "$LIVE_TMP/e" ||
	fail "--bio on $D: rc $rc: $(cat "$LIVE_TMP/e")"
for t in nvmelatency scsilatency scsiresult; do
	[ -d /sys/kernel/tracing/events/nvme ] && [ $t = nvmelatency ] && continue
	[ -d /sys/kernel/tracing/events/scsi ] && [ $t != nvmelatency ] && continue
	rc=0; "$IOTAP" $t 2>"$LIVE_TMP/e" >/dev/null || rc=$?
	[ $rc != 0 ] && grep -q "this kernel has no" "$LIVE_TMP/e" || fail "$t without its events: rc $rc: $(cat "$LIVE_TMP/e")"
done
echo "ok: --bio refused on a request-based disk; nvme/scsi tools refuse cleanly where the kernel lacks the events"
