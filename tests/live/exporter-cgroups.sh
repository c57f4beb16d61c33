#!/bin/bash
# exporter --cgroups live: the series per cgroup and disk against the kernel's own counters.
# Two cgroups under one parent, as tests/live/cgtop.sh has them (lib.sh's cg_throttle_setup):
# "slow" with a read IOPS limit on a loop disk (cgroup v2's io.max where the io controller is
# on, else cgroup v1 blkio's read_iops_device, as on a hybrid host), "fast" free; each reads
# a partition of it.
# The exporter follows the hierarchy of the block controller by itself (no --cgroup), and
# says which in one line. Scraped after (every scrape passes promtool): each cgroup's
# iotap_cgroup_ios_total and _bytes_total of reads equal its own counters (v2 io.stat rios
# and rbytes, v1 blkio.throttle.io_serviced and io_service_bytes); the latency histogram's
# counts over the two add up to the disk's diskstats reads; slow's throttle wait is within
# 5% of what its reader waited beyond its median read, fast's next to none. A second
# exporter with --cgroup-series 1 serves slow and "other" (fast) with the same totals, and
# counts one cgroup folded. Both leave tracefs as they found it.
. "$(dirname "$0")/lib.sh"
require_root
command -v promtool >/dev/null || skip "no promtool: apt-get install prometheus (scripts/deps.sh test)"
command -v curl >/dev/null || skip "no curl"

N=200
M=100
IOPS=100
cg_throttle_setup cgexp $IOPS
# Whatever udev reads of the new partition is done before the counts start.
udevadm settle 2>/dev/null || sleep 1
before_fs=$(tracefs_snapshot)

# Every disk, the default limit; and the one disk with a limit of one cgroup.
EP=$(free_port)
tracer_start "$LIVE_TMP/e.out" exporter --cgroups -l "127.0.0.1:$EP" 1
E_PID=$TRACER_PID
EP1=$(free_port)
tracer_start "$LIVE_TMP/e1.out" exporter --cgroups --cgroup-series 1 -d "$D" -l "127.0.0.1:$EP1" 1
E1_PID=$TRACER_PID
grep -qF -- "--cgroups: the cgroups of $WHICH" "$LIVE_TMP/e.out.err" ||
	fail "the exporter does not say it follows $WHICH: $(cat "$LIVE_TMP/e.out.err")"

# scrape PORT NAME - fetch /metrics into $LIVE_TMP/NAME and check it with promtool
scrape() {
	curl -sf -m 5 "http://127.0.0.1:$1/metrics" -o "$LIVE_TMP/$2" || fail "scrape $2 failed"
	promtool check metrics <"$LIVE_TMP/$2" >"$LIVE_TMP/promtool.out" 2>&1 ||
		{ cat "$LIVE_TMP/promtool.out" >&2; fail "promtool rejects scrape $2"; }
}
# metric FILE SERIES - the value of one series line, taken literally ("" when absent)
metric() {
	S=$2 awk '$1 == ENVIRON["S"] { print $2 }' "$1"
}
# disk_sum FILE METRIC - the sum of METRIC's series of the disk, over every cgroup
disk_sum() {
	awk -v m="$2{" -v d="disk=\"$D\"" 'index($1, m) == 1 && index($1, d) { n += $2 } END { print n + 0 }' "$1"
}

scrape "$EP" s0
scrape "$EP1" t0
before=$(awk '{ print $1 }' "/sys/block/$D/stat")
slow_s=$(cg_read_in "$TOP/slow" $N)
cg_read_in "$TOP/fast" $M >/dev/null
reads=$(($(awk '{ print $1 }' "/sys/block/$D/stat") - before))
# A page younger than 0.1 s is served as it is: these are built after the reads.
sleep 0.3
scrape "$EP" s1
scrape "$EP1" t1

python3 -c "import sys; sys.exit(0 if $slow_s >= 0.8 * $N / $IOPS else 1)" ||
	fail "$N reads took $slow_s s: the limit of $IOPS a second did not throttle them"
[ "$reads" = $((N + M)) ] || fail "diskstats counted $reads reads, expected $((N + M))"
rel=${TOP#"$ROOT"}
S=$LIVE_TMP/s1
for cg in slow fast; do
	want=$([ $cg = slow ] && echo $N || echo $M)
	sel="cgroup=\"$rel/$cg\",disk=\"$D\",op=\"read\""
	got=$(metric "$S" "iotap_cgroup_ios_total{$sel}")
	kern=$(kernel_reads "$TOP/$cg" "$MM")
	[ "$got" = "$want" ] && [ "$kern" = "$want" ] ||
		fail "$cg: iotap_cgroup_ios_total '$got', the cgroup's own count '$kern', the reader $want: $(grep "cgroup_ios_total" "$S")"
	got=$(metric "$S" "iotap_cgroup_bytes_total{$sel}")
	kern=$(kernel_bytes "$TOP/$cg" "$MM")
	[ "$got" = $((want * 4096)) ] && [ "$kern" = "$got" ] ||
		fail "$cg: iotap_cgroup_bytes_total '$got', the cgroup's own bytes '$kern', expected $((want * 4096))"
	got=$(metric "$S" "iotap_cgroup_request_duration_seconds_count{cgroup=\"$rel/$cg\",disk=\"$D\"}")
	[ "$got" = "$want" ] || fail "$cg: $got requests in its latency histogram, expected $want"
done
hist=$(disk_sum "$S" iotap_cgroup_request_duration_seconds_count)
[ "$hist" = "$reads" ] || fail "the latency histograms of $D count $hist requests, diskstats $reads: $(grep "duration_seconds_count" "$S")"
[ "$(metric "$S" iotap_cgroup_folded_total)" = 0 ] || fail "cgroups folded into other: $(metric "$S" iotap_cgroup_folded_total)"
if [ -d "$TRACEFS/events/writeback/balance_dirty_pages" ]; then
	[ -n "$(metric "$S" "iotap_cgroup_wait_seconds_total{cgroup=\"$rel/slow\",disk=\"$D\",cause=\"dirty\"}")" ] ||
		fail "no dirty cause, where the kernel traces balance_dirty_pages"
fi
echo "ok: ios and bytes of slow ($N) and fast ($M) equal the cgroups' own counters; the latency histograms count diskstats' $reads reads"

# What the slow reader waited beyond its unthrottled time, as it timed its own reads (as
# tests/live/cgtop.sh: the median read is an unthrottled one).
throt=$(metric "$S" "iotap_cgroup_wait_seconds_total{cgroup=\"$rel/slow\",disk=\"$D\",cause=\"throttle\"}")
fthrot=$(metric "$S" "iotap_cgroup_wait_seconds_total{cgroup=\"$rel/fast\",disk=\"$D\",cause=\"throttle\"}")
python3 - "$LIVE_TMP/slow" "$throt" "$fthrot" <<EOF || fail "throttle time: $(grep "wait_seconds" "$S")"
import statistics, sys
lat = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("io ")]
throt, fthrot = float(sys.argv[2]), float(sys.argv[3])
base = statistics.median(lat)
held = sum(max(0.0, x - base) for x in lat)
print("slow's %d reads waited %.4f s beyond its median read (%.3f ms); throttle wait %.4f s (%+.1f%%), fast's %.4f s"
      % (len(lat), held, base * 1000, throt, 100 * (throt - held) / held, fthrot))
sys.exit(0 if len(lat) == $N and abs(throt - held) <= 0.05 * held and fthrot < 0.005 else 1)
EOF

# --cgroup-series 1: slow, seen first, keeps its series; fast's I/O is "other's", the totals
# the same, one cgroup folded.
T=$LIVE_TMP/t1
for k in ios_total bytes_total request_duration_seconds_count; do
	a=$(disk_sum "$S" "iotap_cgroup_$k") b=$(disk_sum "$T" "iotap_cgroup_$k")
	[ "$a" = "$b" ] || fail "--cgroup-series 1: iotap_cgroup_$k of $D sums to $b, without the limit $a"
done
[ "$(metric "$T" "iotap_cgroup_ios_total{cgroup=\"$rel/slow\",disk=\"$D\",op=\"read\"}")" = $N ] &&
	[ "$(metric "$T" "iotap_cgroup_ios_total{cgroup=\"other\",disk=\"$D\",op=\"read\"}")" = $M ] ||
	fail "--cgroup-series 1: not slow's $N and other's $M: $(grep "cgroup_ios_total" "$T")"
! grep -q "cgroup=\"$rel/fast\"" "$T" || fail "--cgroup-series 1 still serves fast's series"
[ "$(metric "$T" iotap_cgroup_folded_total)" = 1 ] ||
	fail "--cgroup-series 1: iotap_cgroup_folded_total $(metric "$T" iotap_cgroup_folded_total), expected 1"
echo "ok: --cgroup-series 1 sums fast into other ($M), totals equal, one cgroup folded"

for p in $E_PID $E1_PID; do TRACER_PID=$p; tracer_stop TERM; done
# Other runs' instances (iotap_PID) come and go: compare the rest, and look for ours by name.
theirs() {
	grep -v '^iotap_[0-9]*$' || true
}
after_fs=$(tracefs_snapshot)
for p in $E_PID $E1_PID; do
	[ ! -d "$TRACEFS/instances/iotap_$p" ] || fail "an exporter left iotap_$p behind"
done
[ "$(echo "$before_fs" | theirs)" = "$(echo "$after_fs" | theirs)" ] ||
	fail "tracefs changed: $(diff <(echo "$before_fs" | theirs) <(echo "$after_fs" | theirs))"
echo "ok: exporter --cgroups follows $WHICH; the exporters left tracefs as they found it"
