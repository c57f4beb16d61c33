#!/bin/bash
# biostages live: on a loop device, the stage counts of a known workload equal the kernel's
# completed requests (diskstats); with scheduler none G2I and I2D say why they are missing,
# with mq-deadline every request has them; sequential buffered writes merge, and every bio
# queued is a request or a merge into one; JSON parses and equals the text; a recording
# reports what was traced live; the exporter's D2C stage _count equals diskstats.
. "$(dirname "$0")/lib.sh"
require_root
[ -d $TRACEFS/events/block/block_getrq ] && [ -d $TRACEFS/events/block/block_bio_queue ] ||
	skip "kernel has no block_getrq/block_bio_queue"

DEV=$(loop_create stages 64)
D=$(basename "$DEV")
SCHED=/sys/block/$D/queue/scheduler
N=500

# stat FIELD - one field of /sys/block/D/stat (1: reads completed, 5: writes completed)
stat() {
	awk -v f="$1" '{ print $f }' /sys/block/$D/stat
}

# jget FILE OP KEY [STAGE] - a count from biostages -j output for disk D and OP
jget() {
	python3 - "$@" "$D" <<'PY'
import json, sys
path, op, key = sys.argv[1:4]
stage = sys.argv[4] if len(sys.argv) > 5 else None
disk = sys.argv[-1]
n = None
for line in open(path):
    o = json.loads(line)
    if o["disk"] == disk and o["op"] == op:
        n = o["stages"][stage]["count"] if stage else o[key]
print(0 if n is None else n)
PY
}

# tget FILE OP STAGE - a stage's COUNT column from biostages' text (the dash as -)
tget() {
	awk -v disk="$D" -v op="$2" -v st="$3" '
		$1 == disk && $2 == op ":" { cur = 1; next }
		/^[^ ]/ || /^$/ { cur = 0 }
		cur && $1 == st { print ($2 ~ /^[0-9]+$/) ? $2 : "-"; exit }' "$1"
}

# reason FILE OP STAGE - the JSON reason a stage is unavailable
reason() {
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["disk"] == sys.argv[4] and o["op"] == sys.argv[2]:
        print(o["stages"][sys.argv[3]].get("unavailable", ""))' "$1" "$2" "$3" "$D"
}

# 1. Direct reads with scheduler none: D2C and Q2C count every request the kernel completed.
if grep -q none "$SCHED"; then
	echo none >"$SCHED"
	r0=$(stat 1)
	tracer_start "$LIVE_TMP/t.out" biostages -d "$D"
	T_PID=$TRACER_PID
	tracer_start "$LIVE_TMP/j.out" biostages -d "$D" -j
	J_PID=$TRACER_PID
	F=$LIVE_TMP/rec.iotap
	"$IOTAP" record -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" $N 4096 >/dev/null \
		2>"$LIVE_TMP/rec.err" || fail "record exited $?: $(cat "$LIVE_TMP/rec.err")"
	r1=$(stat 1)
	TRACER_PID=$J_PID; tracer_stop
	TRACER_PID=$T_PID; tracer_stop
	want=$((r1 - r0))
	[ "$want" = $N ] || fail "diskstats counted $want reads, expected $N (other I/O on $D?)"
	python3 -m json.tool --json-lines "$LIVE_TMP/j.out" >/dev/null || fail "-j output is not JSON"
	for st in D2C Q2C Q2G; do
		got=$(jget "$LIVE_TMP/j.out" read - $st)
		[ "$got" = "$want" ] || fail "scheduler none: $st count $got, diskstats $want"
		got=$(tget "$LIVE_TMP/t.out" read $st)
		[ "$got" = "$want" ] || fail "scheduler none: text $st count $got, diskstats $want"
	done
	got=$(jget "$LIVE_TMP/j.out" read requests)
	[ "$got" = "$want" ] || fail "requests $got, diskstats $want"
	got=$(jget "$LIVE_TMP/j.out" read bios_queued)
	[ "$got" = "$want" ] || fail "bios queued $got, expected $want (no merges of direct reads)"
	for st in G2I I2D; do
		[ "$(reason "$LIVE_TMP/j.out" read $st)" = "no insert: scheduler none" ] ||
			fail "scheduler none: $st is not unavailable with its reason: $(grep "\"read\"" "$LIVE_TMP/j.out")"
		[ "$(tget "$LIVE_TMP/t.out" read $st)" = - ] || fail "text $st is not a dash"
	done
	grep -q "no insert: scheduler none" "$LIVE_TMP/t.out" || fail "text gives no reason"
	echo "ok: scheduler none: $want direct reads, D2C = Q2C = Q2G = diskstats, G2I/I2D unavailable (scheduler none), text = JSON"

	# The recording reports what was traced live: every count and reason. (Times differ by
	# nanoseconds: each tracefs instance stamps its own copy of an event.)
	"$IOTAP" biostages -i "$F" -d "$D" -j >"$LIVE_TMP/r.out" 2>"$LIVE_TMP/r.err" ||
		fail "report failed: $(cat "$LIVE_TMP/r.err")"
	strip() { python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line); o.pop("ts", None)
    for v in o["stages"].values():
        for k in ("p50_us", "p99_us", "max_us"): v.pop(k, None)
    if o["disk"] == sys.argv[2]: print(json.dumps(o, sort_keys=True))' "$1" "$D"; }
	[ "$(strip "$LIVE_TMP/r.out")" = "$(strip "$LIVE_TMP/j.out")" ] ||
		fail "recorded report differs from live: $(strip "$LIVE_TMP/r.out") vs $(strip "$LIVE_TMP/j.out")"
	echo "ok: recorded then reported equals live"
else
	echo "skip: $D cannot use scheduler none ($(cat "$SCHED"))"
fi

# 2. mq-deadline: every request is inserted, so G2I and I2D count them all.
grep -q mq-deadline "$SCHED" || skip "$D has no mq-deadline: $(cat "$SCHED")"
echo mq-deadline >"$SCHED"
r0=$(stat 1)
tracer_start "$LIVE_TMP/j2.out" biostages -d "$D" -j
dio read "$DEV" $N 4096 >/dev/null
r1=$(stat 1)
tracer_stop
want=$((r1 - r0))
for st in Q2G G2I I2D D2C Q2C; do
	got=$(jget "$LIVE_TMP/j2.out" read - $st)
	[ "$got" = "$want" ] || fail "mq-deadline: $st count $got, diskstats $want"
done
echo "ok: mq-deadline: $want direct reads, every stage counts each request"

# 3. Sequential buffered writes, written back by BLKFLSBUF: bios merge into few requests;
# each bio queued is a request or joined one. The exporter serves the same stages. (Not
# fsync: its data-less PREFLUSH write counts as a write in diskstats, while the flush it
# becomes is a flush here; not sync: it writes back every other disk too.)
EP=$LIVE_TMP/stages.prom
w0=$(stat 5)
tracer_start "$LIVE_TMP/j3.out" biostages -d "$D" -j
J_PID=$TRACER_PID
tracer_start "$LIVE_TMP/e.out" exporter --stages -d "$D" --textfile "$EP" 0.2
E_PID=$TRACER_PID
dd if=/dev/zero of="$DEV" bs=4k count=4096 status=none
blockdev --flushbufs "$DEV"
w1=$(stat 5)
TRACER_PID=$E_PID; tracer_stop
TRACER_PID=$J_PID; tracer_stop
want=$((w1 - w0))
req=$(jget "$LIVE_TMP/j3.out" write requests)
q=$(jget "$LIVE_TMP/j3.out" write bios_queued)
back=$(jget "$LIVE_TMP/j3.out" write back_merges)
front=$(jget "$LIVE_TMP/j3.out" write front_merges)
rqm=$(jget "$LIVE_TMP/j3.out" write request_merges)
split=$(jget "$LIVE_TMP/j3.out" write splits)
bios=$(jget "$LIVE_TMP/j3.out" write bios)
d2c=$(jget "$LIVE_TMP/j3.out" write - D2C)
q2c=$(jget "$LIVE_TMP/j3.out" write - Q2C)
[ "$req" = "$want" ] && [ "$d2c" = "$want" ] && [ "$q2c" = "$want" ] ||
	fail "writes: requests $req, D2C $d2c, Q2C $q2c; diskstats $want"
[ $((back + front + rqm)) -gt 0 ] || fail "no merges of 4096 sequential 4 KiB writes"
[ $((req + back + front + rqm)) = $((q + split)) ] ||
	fail "requests $req + merges $back/$front/$rqm != bios queued $q + splits $split"
[ "$bios" = $((q + split)) ] || fail "the requests carry $bios bios, $q queued + $split splits"
echo "ok: $q sequential writes: $req requests (diskstats), $back back + $front front + $rqm request merges"

e=$(awk -v s="iotap_block_request_stage_seconds_count{disk=\"$D\",op=\"write\",stage=\"D2C\"}" \
	'$1 == s { print $2 }' "$EP")
[ "$e" = "$want" ] || fail "exporter D2C _count $e, diskstats $want: $(grep stage_seconds_count "$EP")"
e=$(awk -v s="iotap_block_request_stage_seconds_count{disk=\"$D\",op=\"read\",stage=\"D2C\"}" \
	'$1 == s { print $2 }' "$EP")
[ -z "$e" ] || [ "$e" = 0 ] || fail "exporter has $e reads on $D, none were made"
grep -q "^iotap_block_request_stage_seconds_bucket{disk=\"$D\",op=\"write\",stage=\"Q2C\",le=\"2e-06\"}" "$EP" ||
	fail "no Q2C buckets with the exporter's le: $(grep stage_seconds_bucket "$EP" | head -3)"
echo "ok: exporter: D2C _count $want = diskstats"
