#!/bin/bash
# report --otf2 of what was recorded here: file and block I/O on ext4 over a loop device over a
# file in /dev/shm, recorded by iotap record and, around the same workload, by perf record.
# Each archive read back by otf2-print and by python3-otf2 counts per disk and per file what
# iotap report counts on the same recording, the loop device's reads and writes and their
# bytes are what the kernel counted (/sys/block/DEV/stat), each thread is a location of its
# process and each location is in time order. A DIR it cannot write is refused in one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/otf2lib.sh"
require_root
otf2_tools
[ -d $TRACEFS/events/syscalls ] || skip "kernel has no syscall tracepoints"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (install e2fsprogs)"
N=24		# fileio: buffered 4 KiB writes to a, then one fsync
M=40		# fileio: O_DIRECT 4 KiB reads of b
NR=100		# dio: O_DIRECT 4 KiB reads of the device
T=30		# threadio: O_DIRECT 4 KiB reads of the device by each of 3 threads
R=$LIVE_TMP/r.iotap
P=$LIVE_TMP/perf.data
MNT=$LIVE_TMP/mnt
IMG=$(mktemp /dev/shm/iotap-otf2.XXXXXX)
PRIV=$(mktemp -d /dev/shm/iotap-otf2-priv.XXXXXX)

WC=
cleanup_otf2() {
	# The loop device keeps its queue's write-cache setting after it is detached: the next
	# test on it would be sent no flushes.
	[ -n "$WC" ] && echo "$WC" >/sys/block/"$D"/queue/write_cache
	mountpoint -q "$MNT" && umount "$MNT"
	mountpoint -q "$LIVE_TMP/ro" && umount "$LIVE_TMP/ro"
	mountpoint -q "$LIVE_TMP/full" && umount "$LIVE_TMP/full"
	live_cleanup
	rm -rf "$IMG" "$PRIV"
}
trap cleanup_otf2 EXIT

# The disk: ext4 on a loop device over a /dev/shm file, initialised at mkfs time so that
# nothing writes to it in the background; b holds what fileio reads.
truncate -s 128M "$IMG"
DEV=$(losetup -f --show "$IMG") || fail "losetup failed"
echo "$DEV" >>"$LIVE_TMP/loops"
D=$(basename "$DEV")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 || fail "mkfs.ext4 failed"
mkdir -p "$MNT"
mount -o noatime "$DEV" "$MNT" || fail "cannot mount ext4 on $DEV"
dd if=/dev/urandom of="$MNT/b" bs=4096 count=$M status=none
sync
# No flushes: the kernel counts an empty fsync's flush as a write of no bytes, and the archive
# has no flush operations (doc/otf2.md); a write-through device is sent none.
WC=$(cat /sys/block/"$D"/queue/write_cache)
echo "write through" >/sys/block/"$D"/queue/write_cache || skip "$D cannot be made write-through"
# udev's probes of the new device are done before anything is counted.
command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true

# stat_rw - the loop device's completed reads, read bytes, writes, written bytes (the kernel's)
stat_rw() {
	awk '{ printf "%.0f %.0f %.0f %.0f\n", $1, $3 * 512, $5, $7 * 512 }' /sys/block/"$D"/stat
}

# iotap records perf recording the workload: both see the very same requests, and the kernel
# counts them between the two looks at its counters. fileio reads and writes files, dio and
# threadio (its threads wait for a line on stdin) read the device; sync leaves nothing in flight.
# Every read and write of the machine is recorded: rings large enough for a busy one.
before=$(stat_rw)
"$IOTAP" record -o "$R" --mmap-pages 1024 --tools biosnoop,fileio -- perf record -q -o "$P" \
	-e block:block_rq_issue -e block:block_rq_complete -e block:block_io_start -a -- \
	sh -c "'$IOTAP_PROGS/fileio' rw '$MNT' $N $M && '$IOTAP_PROGS/dio' read '$DEV' $NR 4096 >/dev/null &&
		echo go | '$IOTAP_PROGS/threadio' '$DEV' 3 $T 4096 together && sync" \
	>"$LIVE_TMP/rec.out" 2>"$LIVE_TMP/rec.err" || fail "recording failed: $(cat "$LIVE_TMP/rec.err")"
after=$(stat_rw)
lost=$("$IOTAP" report -i "$R" --info | sed -n 's/^lost: *\([0-9]*\).*/\1/p')
[ "$lost" = 0 ] || fail "the recording lost $lost events (the machine was too busy): no count can be exact"
read -r r0 rb0 w0 wb0 <<<"$before"
read -r r1 rb1 w1 wb1 <<<"$after"
kernel="$((r1 - r0)) $((rb1 - rb0)) $((w1 - w0)) $((wb1 - wb0))"

for in in "$R" "$P"; do
	o=$LIVE_TMP/$(basename "$in").otf2
	"$IOTAP" report -i "$in" --otf2 "$o" 2>"$o.err" || fail "report -i $in --otf2: $(cat "$o.err")"
	grep -q "written to $o (open $o/traces.otf2)$" "$o.err" || fail "no summary line: $(cat "$o.err")"
	otf2-print --silent "$o/traces.otf2" >/dev/null 2>"$o.print.err" ||
		fail "otf2-print finds $o invalid: $(cat "$o.print.err")"
	otf2_compare "$in" "$o"
	got=$(awk -v d="$D" '$1 == "disk" && $6 == d { print $2, $3, $4, $5 }' "$o.cmp.py")
	[ "$got" = "$kernel" ] ||
		fail "$(basename "$in"): $D in the archive: '$got' (reads, bytes, writes, bytes); the kernel counted '$kernel'"
	echo "ok: $(basename "$in"): both readers count what report counts; $D: $got, as the kernel counted"
done
o=$LIVE_TMP/r.iotap.otf2
read -r rr rrb rw rwb <<<"$kernel"
[ "$rr" -ge $((M + NR + 3 * T)) ] && [ "$rw" -ge 1 ] && [ "$rwb" -ge $((N * 4096)) ] ||
	fail "the workload's I/O is not all there: the kernel counted $kernel"

# reads TID HANDLE - the reads thread TID completed on HANDLE (0: none)
reads() {
	awk -v t="$1" -v h="$2" '$1 == "ops" && $2 == t && $5 == h { n = $3 } END { print n + 0 }' "$o.cmp.py"
}
# group_pid NAME - the PID of the one location group of the processes called NAME
group_pid() {
	awk -v n="$1" '$1 == "group" && $2 == n { gsub(/[()]/, "", $3); print $3 }' "$o.cmp.py"
}

# The files by name: fileio's a and b (no one else's), the device as dio read it. Its direct
# reads may also write back what ext4 left dirty in the device's page cache: those writes are
# its own, as the kernel sees it, and in the counts above.
grep -qx "file 0 0 $N $((N * 4096)) $MNT/a" "$o.cmp.py" ||
	fail "a: $(grep " $MNT/a\$" "$o.cmp.py") (want $N writes of 4 KiB)"
grep -qx "file $M $((M * 4096)) 0 0 $MNT/b" "$o.cmp.py" ||
	fail "b: $(grep " $MNT/b\$" "$o.cmp.py") (want $M reads of 4 KiB)"
pid=$(group_pid dio)
[ -n "$pid" ] && [ "$(reads "$pid" "$DEV")" = $NR ] && [ "$(reads "$pid" "$D")" = $NR ] ||
	fail "dio ($pid): $(reads "$pid" "$DEV") reads of $DEV, $(reads "$pid" "$D") read requests on $D (want $NR)"
echo "ok: fileio's $N writes to a and $M reads of b, dio's $NR reads of $DEV and requests on $D are theirs"

# A location per thread, in its process's group: threadio's 3 readers each did T reads of the
# device, each one block request on it (or one fewer, where the kernel merged a thread's last
# read with the next thread's first); its main thread read neither (its libraries, stdin).
pid=$(group_pid threadio)
[ -n "$pid" ] || fail "no location group of threadio: $(grep '^group ' "$o.cmp.py")"
awk -v p=$pid '$1 == "thread" && $5 == "threadio" && $6 == "(" p ")" { print $2 }' "$o.cmp.py" \
	>"$LIVE_TMP/tio"
readers=0
for tid in $(cat "$LIVE_TMP/tio"); do
	d=$(reads $tid "$D") f=$(reads $tid "$DEV")
	if [ "$tid" = "$pid" ]; then
		[ "$d" = 0 ] && [ "$f" = 0 ] || fail "threadio's main thread $pid: $d requests on $D, $f reads of $DEV"
	else
		[ "$f" = $T ] && { [ "$d" = $T ] || [ "$d" = $((T - 1)) ]; } ||
			fail "threadio's thread $tid: $d requests on $D, $f reads of $DEV (want $T)"
		readers=$((readers + 1))
	fi
done
[ $readers = 3 ] && grep -qx "$pid" "$LIVE_TMP/tio" ||
	fail "threadio's locations: $(tr '\n' ' ' <"$LIVE_TMP/tio") (want $pid and 3 readers)"
grep -qx "machine $(uname -n)" "$o.cmp.py" || fail "machine: $(grep '^machine' "$o.cmp.py")"
grep -q "Name: \"IOTAP::UNAME::RELEASE\" <[0-9]*>, Type: STRING, Value: \"$(uname -r)\"" "$o.defs" ||
	fail "no kernel release on the machine's node"
echo "ok: threadio ($pid): its 3 readers are 3 locations of its group, each with its $T reads of $DEV and requests on $D; the machine is $(uname -n)"

# A DIR it cannot write: one line, exit 2, nothing made.
mkdir -p "$LIVE_TMP/ro"
mount -t tmpfs -o ro,size=1M tmpfs "$LIVE_TMP/ro" || fail "cannot mount a read-only tmpfs"
rc=0
"$IOTAP" report -i "$R" --otf2 "$LIVE_TMP/ro/o" 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] &&
	grep -qx "iotap report: cannot write $LIVE_TMP/ro/o: Read-only file system" "$LIVE_TMP/err" ||
	fail "a read-only DIR: rc $rc, $(cat "$LIVE_TMP/err")"
# Without permission: a process of nobody's, in a directory that is root's.
chmod 755 "$PRIV"
install -m 644 "$R" "$PRIV/r.iotap"
mkdir -m 755 "$PRIV/dir"
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" report -i "$PRIV/r.iotap" \
	--otf2 "$PRIV/dir/o" 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] &&
	grep -qx "iotap report: cannot write $PRIV/dir/o: Permission denied" "$LIVE_TMP/err" &&
	[ -z "$(ls -A "$PRIV/dir")" ] || fail "an unwritable DIR: rc $rc, $(cat "$LIVE_TMP/err")"
# Nor an empty DIR of another user's, which that user could swap for a link: not even root's.
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" report -i "$PRIV/r.iotap" \
	--otf2 "$PRIV/dir" 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 2 ] && grep -qx "iotap report: cannot write $PRIV/dir: it is another user's directory: give a new one, or one of yours" "$LIVE_TMP/err" &&
	[ -z "$(ls -A "$PRIV/dir")" ] || fail "an empty DIR of root's: rc $rc, $(cat "$LIVE_TMP/err")"
mkdir -m 777 "$PRIV/theirs"
chown nobody "$PRIV/theirs"
rc=0
"$IOTAP" report -i "$R" --otf2 "$PRIV/theirs" 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 2 ] && grep -qx "iotap report: cannot write $PRIV/theirs: it is another user's directory: give a new one, or one of yours" "$LIVE_TMP/err" &&
	[ -z "$(ls -A "$PRIV/theirs")" ] || fail "root into nobody's empty DIR: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: a read-only, unwritable or another user's DIR is refused in one line, nothing written"

# A disk that fills up while the archive is written: one line naming the file, no DIR left.
mkdir -p "$LIVE_TMP/full"
mount -t tmpfs -o size=16k tmpfs "$LIVE_TMP/full" || fail "cannot mount a small tmpfs"
rc=0
"$IOTAP" report -i "$R" --otf2 "$LIVE_TMP/full/o" 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 2 ] && [ "$(grep -c '^iotap report: cannot write ' "$LIVE_TMP/err")" = 1 ] &&
	grep -q "^iotap report: cannot write $LIVE_TMP/full/o: No space left on device: " "$LIVE_TMP/err" &&
	[ -z "$(ls -A "$LIVE_TMP/full")" ] || fail "a full disk: rc $rc, $(cat "$LIVE_TMP/err"), left $(ls -A "$LIVE_TMP/full")"
echo "ok: a disk that fills up leaves no archive, and says so in one line"
