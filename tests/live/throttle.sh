#!/bin/bash
# Throttled I/O is charged to the task that sent it, never to blk-throttle's worker: a reader
# in a cgroup whose disk reads are throttled (io.max riops, or cgroup v1's
# blkio.throttle.read_iops_device) reads a partition, so blk-throttle holds its bios and its
# dispatch worker (a kworker) starts their requests later; the partition's remap
# (block_bio_remap) runs in the reader before the throttle and names it. biosnoop names the
# reader on every row, biotop has one row on the disk (the reader), --cgroup counts every read, and
# each equals the kernel's count in /sys/block/DEV/stat. biosnoop -v says how many
# requests the worker started (the join was needed, not idle).
. "$(dirname "$0")/lib.sh"
require_root

N=200
IOPS=100
# A cgroup with a read IOPS limit on a disk: cgroup v2's io.max where the io controller is
# on, else cgroup v1 blkio's throttle files (a hybrid host).
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
if [ -n "$V2" ] && grep -qw io "$V2/cgroup.controllers" 2>/dev/null; then
	echo +io >"$V2/cgroup.subtree_control" 2>/dev/null || true
	CG=$V2/iotap-throttle.$$
	limit() { echo "$1 riops=$IOPS" >"$CG/io.max"; }
	ROOT=$V2
elif [ -n "$V1" ] && [ -e "$V1/blkio.throttle.read_iops_device" ]; then
	CG=$V1/iotap-throttle.$$
	limit() { echo "$1 $IOPS" >"$CG/blkio.throttle.read_iops_device"; }
	ROOT=$V1
else
	skip "no blk-throttle here: neither cgroup v2's io controller nor cgroup v1's blkio throttle"
fi
mkdir "$CG" || skip "cannot create $CG"
DEV=$(loop_create throttle 64)
D=$(basename "$DEV")
th_cleanup() {
	cgroup_remove "$CG" "$ROOT"
	partx -d "$DEV" 2>/dev/null || true
	live_cleanup
}
trap th_cleanup EXIT

loop_partition "$DEV"
limit "$(cat "/sys/block/$D/dev")" || skip "cannot set a read IOPS limit on $D in $CG"

tracer_start "$LIVE_TMP/snoop.out" biosnoop -v -d "$D"
S_PID=$TRACER_PID
tracer_start "$LIVE_TMP/cg.out" biolatency -d "$D" --cgroup "$CG"
C_PID=$TRACER_PID
tracer_start "$LIVE_TMP/top.out" biotop -C 99
T_PID=$TRACER_PID
before=$(awk '{ print $1 }' "/sys/block/$D/stat")
t0=$(date +%s.%N)
sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$IOTAP_PROGS/dio' read '${DEV}p1' $N 4096 rand" \
	>/dev/null &
reader=$!
wait $reader || fail "the reader failed"
secs=$(python3 -c "import time; print('%.1f' % (time.time() - $t0))")
reads=$(($(awk '{ print $1 }' "/sys/block/$D/stat") - before))
for p in $S_PID $C_PID $T_PID; do TRACER_PID=$p; tracer_stop; done

# The limit held the reads back (N at IOPS a second), so the worker did start requests.
python3 -c "import sys; sys.exit(0 if $secs >= 0.8 * $N / $IOPS else 1)" ||
	fail "$N reads took $secs s: the limit of $IOPS a second did not throttle them"
[ "$reads" = $N ] || fail "diskstats counted $reads reads, expected $N"
joined=$(sed -n "s/.* \([0-9]*\) requests started by another task.*/\1/p" "$LIVE_TMP/snoop.out.err")
[ -n "$joined" ] && [ "$joined" -gt 0 ] ||
	fail "biosnoop -v says no request was started by blk-throttle's worker: $(cat "$LIVE_TMP/snoop.out.err")"
rows=$(awk 'NR > 1 && $5 == "R"' "$LIVE_TMP/snoop.out" | wc -l)
mine=$(awk -v p=$reader 'NR > 1 && $5 == "R" && $3 == p && $2 == "dio"' "$LIVE_TMP/snoop.out" | wc -l)
[ "$rows" = $N ] && [ "$mine" = $N ] ||
	fail "biosnoop: $mine of $rows reads named the reader ($reader); others: $(awk -v p=$reader 'NR > 1 && $3 != p { print $2, $3 }' "$LIVE_TMP/snoop.out" | sort | uniq -c | head -3)"
c=$(hist_total "$LIVE_TMP/cg.out")
[ "$c" = $N ] || fail "--cgroup $CG counted $c reads, expected $N"
# biotop's rows: PID COMM D MAJ MIN DISK I/O Kbytes AVGms
top=$(awk -v p=$reader -v d="$D" '$6 == d && $1 == p && $2 == "dio" { n += $7 } END { print n + 0 }' "$LIVE_TMP/top.out")
others=$(awk -v p=$reader -v d="$D" '$6 == d && $1 != p { n++ } END { print n + 0 }' "$LIVE_TMP/top.out")
[ "$top" = $N ] && [ "$others" = 0 ] || fail "biotop: the reader $top I/O, $others other rows"
echo "ok: $N throttled reads of a partition in $secs s ($joined requests started by blk-throttle's worker): biosnoop names the reader on all $N, biotop has its row alone, --cgroup counts $c = diskstats"

# The whole disk: no tracepoint runs in the sender's context before the throttle. With a
# kprobe on its entry (kprobes and BTF) the join holds as above; without, the worker is
# named on the requests it started, and biosnoop says how many, with no -v: never silently.
tracer_start "$LIVE_TMP/disk.out" biosnoop -d "$D"
S_PID=$TRACER_PID
before=$(awk '{ print $1 }' "/sys/block/$D/stat")
sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$IOTAP_PROGS/dio' read '$DEV' $N 4096 rand" \
	>/dev/null &
reader=$!
wait $reader || fail "the reader of the whole disk failed"
reads=$(($(awk '{ print $1 }' "/sys/block/$D/stat") - before))
TRACER_PID=$S_PID
tracer_stop
[ "$reads" = $N ] || fail "diskstats counted $reads reads of the whole disk, expected $N"
rows=$(awk 'NR > 1 && $5 == "R"' "$LIVE_TMP/disk.out" | wc -l)
mine=$(awk -v p=$reader 'NR > 1 && $5 == "R" && $3 == p && $2 == "dio"' "$LIVE_TMP/disk.out" | wc -l)
workers=$(awk 'NR > 1 && $5 == "R" && $2 ~ /^kworker\/[0-9]+:[0-9]+$/' "$LIVE_TMP/disk.out" | wc -l)
said=$(sed -n "s/.* \([0-9]*\) requests were started by a per-CPU kernel worker and are shown as it.*/\1/p" \
	"$LIVE_TMP/disk.out.err")
[ "$rows" = $N ] || fail "biosnoop listed $rows reads of the whole disk, expected $N"
if [ -e "$TRACEFS/kprobe_events" ]; then
	[ "$mine" = $N ] && [ -z "$said" ] ||
		fail "with kprobes: $mine of $N whole-disk reads named the reader; said: '$said'"
	echo "ok: $N throttled reads of the whole disk, all the reader's through blk-throttle's kprobe"
else
	[ "$workers" -gt 0 ] && [ "$mine" = $((N - workers)) ] ||
		fail "without kprobes: $mine of $N reads named the reader and $workers a per-CPU worker"
	[ "$said" = "$workers" ] ||
		fail "biosnoop said '$said' requests were the worker's, its rows show $workers: $(cat "$LIVE_TMP/disk.out.err")"
	echo "ok: $N throttled reads of the whole disk without kprobes: $workers shown as the worker, and biosnoop says so ($said)"
fi
