#!/bin/bash
# cgtop: per cgroup and disk, the bios the kernel's own cgroup counters count, and the time
# blk-throttle held them. Two cgroups under one parent, "slow" with a read IOPS limit on a
# loop disk (cgroup v2's io.max where the io controller is on, else cgroup v1 blkio's
# read_iops_device, as on a hybrid host), "fast" free; each reads a partition of it (the
# remap names the reader before the throttle holds the bio). cgtop --cgroup PARENT must give
# each its row on the disk, whose READS equal the cgroup's own count (v2 io.stat rios, v1
# blkio.throttle.io_serviced), R-KB their bytes, REQS together the disk's diskstats, and
# slow's THROTms within 5% of what the reader waited beyond its unthrottled time (its wall
# time less N reads at fast's pace); fast's next to none. A recording made with --cgroups
# over the same reads, reported as nobody (who reads none of this machine's cgroups), gives
# the same rows: each cgroup's READS, R-KB and REQS equal live's, THROTms within 0.1% (and 0.5 ms) of it.
. "$(dirname "$0")/lib.sh"
require_root

N=200
M=100
IOPS=100
cg_throttle_setup cgtop $IOPS

tracer_start "$LIVE_TMP/top.out" cgtop -C --cgroup "$TOP" 999
# The recorder, as tests/live/cgroup-v1.sh starts it: tracing once its command runs.
R=$LIVE_TMP/r.iotap
"$IOTAP" record -o "$R" --cgroups -- sh -c "touch '$LIVE_TMP/rec.go'; exec sleep 600" \
	>/dev/null 2>"$LIVE_TMP/rec.err" &
REC_PID=$!
LIVE_PIDS="$LIVE_PIDS $REC_PID"
for _ in $(seq 1 200); do [ -e "$LIVE_TMP/rec.go" ] && break; sleep 0.05; done
[ -e "$LIVE_TMP/rec.go" ] || fail "record --cgroups did not start: $(cat "$LIVE_TMP/rec.err")"
before=$(awk '{ print $1 }' "/sys/block/$D/stat")
slow_s=$(cg_read_in "$TOP/slow" $N)
cg_read_in "$TOP/fast" $M >/dev/null
reads=$(($(awk '{ print $1 }' "/sys/block/$D/stat") - before))
tracer_stop
kill -INT $REC_PID
wait $REC_PID || fail "record --cgroups failed: $(cat "$LIVE_TMP/rec.err")"

python3 -c "import sys; sys.exit(0 if $slow_s >= 0.8 * $N / $IOPS else 1)" ||
	fail "$N reads took $slow_s s: the limit of $IOPS a second did not throttle them"
[ "$reads" = $((N + M)) ] || fail "diskstats counted $reads reads, expected $((N + M))"
# DISK READS WRITES R-KB W-KB REQS IOPS P50ms P99ms THROTms RQOSms QUEUEms DEVms DIRTYms CONTAINER CGROUP
col() { awk -v d="$D" -v c="$1" -v n="$2" '$1 == d && $16 == c { print $n }' "$LIVE_TMP/top.out"; }
rel=${TOP#"$ROOT"}
for cg in slow fast; do
	want=$([ $cg = slow ] && echo $N || echo $M)
	got=$(col "$rel/$cg" 2)
	kern=$(kernel_reads "$TOP/$cg" "$MM")
	[ "$got" = "$want" ] && [ "$kern" = "$want" ] ||
		fail "$cg: cgtop READS '$got', the cgroup's own count '$kern', the reader $want: $(cat "$LIVE_TMP/top.out")"
	[ "$(col "$rel/$cg" 4)" = $((want * 4)) ] || fail "$cg: R-KB $(col "$rel/$cg" 4), expected $((want * 4))"
done
others=$(awk -v d="$D" -v r="$rel" '$1 == d && $16 != r "/slow" && $16 != r "/fast"' "$LIVE_TMP/top.out")
[ -z "$others" ] || fail "rows of the disk outside the two cgroups: $others"
reqs=$(($(col "$rel/slow" 6) + $(col "$rel/fast" 6)))
[ "$reqs" = "$reads" ] || fail "REQS add up to $reqs, diskstats counted $reads"
throt=$(col "$rel/slow" 10)
fthrot=$(col "$rel/fast" 10)
# What the slow reader waited beyond its unthrottled time, as it timed its own reads: each
# read's time beyond its median read's (blk-throttle lets most through at once in each of
# its slices and holds the rest: the median read is an unthrottled one).
python3 - "$LIVE_TMP/slow" "$throt" "$fthrot" <<EOF || fail "throttle time: $(cat "$LIVE_TMP/top.out")"
import statistics, sys
lat = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("io ")]
throt, fthrot = float(sys.argv[2]), float(sys.argv[3])
base = statistics.median(lat)
held = sum(max(0.0, x - base) for x in lat) * 1000
print("slow's %d reads waited %.1f ms beyond its median read (%.3f ms); cgtop's THROTms %.1f (%+.1f%%), fast's %.1f"
      % (len(lat), held, base * 1000, throt, 100 * (throt - held) / held, fthrot))
sys.exit(0 if len(lat) == $N and abs(throt - held) <= 0.05 * held and fthrot < 5 else 1)
EOF
echo "ok: cgtop --cgroup $rel: slow $N and fast $M reads equal the cgroups' own counts and diskstats; slow's throttle time within 5% of its wait"

# The recording's report, as nobody: the file in a directory it may read, none of it root's
# to write. The same cgroups' rows on the disk, and no others.
PUB=$(mktemp -d /tmp/iotap-pub.XXXXXX)
trap 'rm -rf "$PUB"; cg_cleanup' EXIT
cp "$R" "$PUB/r.iotap"
chmod 755 "$PUB"
chown nobody "$PUB/r.iotap"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" report -i "$PUB/r.iotap" \
	cgtop -C --cgroup "$TOP" 999 >"$LIVE_TMP/rtop.out" 2>"$LIVE_TMP/rep.err" ||
	fail "report cgtop as nobody: $(cat "$LIVE_TMP/rep.err")"
[ ! -s "$LIVE_TMP/rep.err" ] || fail "report cgtop said: $(cat "$LIVE_TMP/rep.err")"
# rcol CGROUP N - field N of the recording's row of CGROUP on the disk
rcol() { awk -v d="$D" -v c="$1" -v n="$2" '$1 == d && $16 == c { print $n }' "$LIVE_TMP/rtop.out"; }
for cg in slow fast; do
	for f in 2:READS 4:R-KB 6:REQS; do
		n=${f%%:*}
		[ "$(rcol "$rel/$cg" "$n")" = "$(col "$rel/$cg" "$n")" ] ||
			fail "$cg: the recording's ${f#*:} '$(rcol "$rel/$cg" "$n")', live's '$(col "$rel/$cg" "$n")': $(cat "$LIVE_TMP/rtop.out")"
	done
	[ "$(rcol "$rel/$cg" 2)" = "$(kernel_reads "$TOP/$cg" "$MM")" ] ||
		fail "$cg: the recording's READS '$(rcol "$rel/$cg" 2)', the cgroup's own count '$(kernel_reads "$TOP/$cg" "$MM")'"
done
others=$(awk -v d="$D" -v r="$rel" '$1 == d && $16 != r "/slow" && $16 != r "/fast"' "$LIVE_TMP/rtop.out")
[ -z "$others" ] || fail "the recording's rows of the disk outside the two cgroups: $others"
# Each instance stamps its own copy of an event as it writes it: the two tracers' times of a
# request differ by the microseconds between those writes, not more.
rthrot=$(rcol "$rel/slow" 10)
rfthrot=$(rcol "$rel/fast" 10)
python3 - "$throt" "$rthrot" "$fthrot" "$rfthrot" <<EOF || fail "the recording's THROTms: $(cat "$LIVE_TMP/rtop.out")"
import sys
live, rec, flive, frec = map(float, sys.argv[1:])
print("THROTms: slow live %.1f, recorded %.1f (%+.2f%%); fast live %.1f, recorded %.1f"
      % (live, rec, 100 * (rec - live) / live, flive, frec))
sys.exit(0 if abs(rec - live) <= 0.001 * live + 0.5 and abs(frec - flive) <= 0.5 else 1)
EOF
echo "ok: as nobody, report cgtop of the recording gives slow $N and fast $M reads, their R-KB and REQS as live did, THROTms within 0.1%"
