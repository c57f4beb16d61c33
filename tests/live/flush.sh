#!/bin/bash
# Flushes, one policy: credited to the task whose request asked for them (the fsync caller,
# jbd2's commit), never to the kernel worker that sends them; under -d PARTITION only the
# partition's own, never a sibling's; biosnoop's F rows and biolatency -F's Flush section
# count the same flushes. ext4 on the first of two partitions of a loop device.
. "$(dirname "$0")/lib.sh"
require_root
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (e2fsprogs)"

DEV=$(loop_create fl 48)
D=$(basename "$DEV")
# Partitions read with --rereadpt outlive the loop device's detach: another run's may be here.
partx -d "$DEV" 2>/dev/null || true
# An MBR with two partitions: p1 at sector 2048 (16 MiB), p2 at 34816 (16 MiB).
mbr_entry() {
	printf '\x00\xff\xff\xff\x83\xff\xff\xff'
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24)))"
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24)))"
}
{ mbr_entry 2048 32768; mbr_entry 34816 32768; } | dd of="$DEV" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$DEV" bs=1 seek=510 conv=notrunc status=none
blockdev --rereadpt "$DEV" 2>/dev/null || partx -a "$DEV" 2>/dev/null || true
for i in $(seq 1 50); do [ -b "${DEV}p2" ] && break; sleep 0.1; done
[ -b "${DEV}p2" ] || skip "the loop device shows no partitions (no partition scan)"
M=$(mktemp -d /tmp/iotap-flush-mnt.XXXXXX)
# Partitions read with --rereadpt outlive the loop device's detach: remove them first.
trap 'umount "$M" 2>/dev/null; rmdir "$M"; partx -d "$DEV" 2>/dev/null; live_cleanup' EXIT
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${DEV}p1" || fail "mkfs.ext4 failed"
mount -t ext4 "${DEV}p1" "$M" || skip "cannot mount ext4"
sync

# snoop_rows FILE - biosnoop's I/O lines: COMM PID DISK T ...
snoop_rows() {
	awk '$1 ~ /^[0-9.]+$/ && NF >= 8 { print $2, $3, $4, $5 }' "$1"
}

tracer_start "$LIVE_TMP/disk.out" biosnoop -d "$D"
s_disk=$TRACER_PID
tracer_start "$LIVE_TMP/p1.out" biosnoop -d "${D}p1"
s_p1=$TRACER_PID
tracer_start "$LIVE_TMP/p2.out" biosnoop -d "${D}p2"
s_p2=$TRACER_PID
tracer_start "$LIVE_TMP/lat.out" biolatency -F -d "$D"
l_disk=$TRACER_PID
tracer_start "$LIVE_TMP/lat1.out" biolatency -F -d "${D}p1"
l_p1=$TRACER_PID
# Five files written and fsync'ed: each fsync commits the journal (jbd2) and flushes.
for i in 1 2 3 4 5; do
	dd if=/dev/zero of="$M/f$i" bs=4096 count=8 conv=fsync status=none || fail "dd failed"
done
# All stopped at once: each sees the same stretch of time.
sleep 0.3
kill -INT $s_disk $s_p1 $s_p2 $l_disk $l_p1
for p in $s_disk $s_p1 $s_p2 $l_disk $l_p1; do wait $p || fail "a tracer exited with $?"; done

# Each fsync commits the journal: a commit block with PREFLUSH and FUA, two flushes on a
# loop device (it has no FUA: the kernel flushes after the write too). dd's data was
# written before, and no data-less flush is needed after a commit.
flushes=$(snoop_rows "$LIVE_TMP/disk.out" | awk '$4 == "F"' | wc -l)
[ "$flushes" = 10 ] || fail "biosnoop -d $D: $flushes flushes for 5 fsyncs, expected 10: $(snoop_rows "$LIVE_TMP/disk.out" | awk '$4 == "F"' | sort | uniq -c)"
workers=$(snoop_rows "$LIVE_TMP/disk.out" | awk '$4 == "F" && $1 ~ /^kworker/' | wc -l)
[ "$workers" = 0 ] || fail "$workers of $flushes flushes credited to a kworker: $(snoop_rows "$LIVE_TMP/disk.out" | awk '$4 == "F"' | sort | uniq -c)"
askers=$(snoop_rows "$LIVE_TMP/disk.out" | awk -v j="jbd2/${D}p1-8" '$4 == "F" && $1 == j' | wc -l)
[ "$askers" = "$flushes" ] || fail "flushes not all jbd2/${D}p1-8's: $(snoop_rows "$LIVE_TMP/disk.out" | awk '$4 == "F"' | sort | uniq -c)"
echo "ok: the $flushes flushes of 5 fsyncs are the journal's (jbd2/${D}p1-8), none a kworker's"

p1=$(snoop_rows "$LIVE_TMP/p1.out" | awk '$4 == "F"' | wc -l)
[ "$p1" = "$flushes" ] || fail "biosnoop -d ${D}p1: $p1 flushes, the disk had $flushes, all of p1's"
p2=$(snoop_rows "$LIVE_TMP/p2.out" | wc -l)
[ "$p2" = 0 ] || fail "biosnoop -d ${D}p2 (no I/O): $p2 rows: $(snoop_rows "$LIVE_TMP/p2.out" | sort | uniq -c)"
echo "ok: -d ${D}p1 shows all $flushes flushes, its sibling ${D}p2 none"

got=$(hist_total "$LIVE_TMP/lat.out" Flush)
[ "$got" = "$flushes" ] || fail "biolatency -F -d $D: flags = Flush counts $got, biosnoop $flushes"
got=$(hist_total "$LIVE_TMP/lat1.out" Flush)
[ "$got" = "$flushes" ] || fail "biolatency -F -d ${D}p1: flags = Flush counts $got, biosnoop $flushes"
echo "ok: biolatency -F's Flush section counts the same $flushes flushes, on the disk and on p1"
