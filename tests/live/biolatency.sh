#!/bin/bash
# biolatency live: exact counts from direct I/O on a loop device.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create a 64)
OTHER=$(loop_create b 16)
D=$(basename "$DEV")
N=2000

# perf_fds PID - how many perf_event_open rings PID holds (the process side-band's)
perf_fds() {
	find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' | wc -l
}

# Exactly N direct reads -> the disk's histogram counts N. Without -p nothing it
# shows names a process: no process side-band is taken (no perf ring at all).
tracer_start "$LIVE_TMP/d.out" biolatency -D -d "$D"
dio read "$DEV" $N 4096 >/dev/null
fds=$(perf_fds $TRACER_PID)
tracer_stop
[ "$fds" = 0 ] || fail "-D without -p holds $fds perf rings: a process side-band nobody reads"
[ "$(hist_sections "$LIVE_TMP/d.out")" = "$D" ] || fail "-D sections: $(hist_sections "$LIVE_TMP/d.out")"
got=$(hist_total "$LIVE_TMP/d.out" "$D")
[ "$got" = $N ] || fail "-D counted $got, expected $N"
grep -q '^     usecs               : count     distribution$' "$LIVE_TMP/d.out" || fail "header layout"
echo "ok: -D counts $N reads on $D"

# -F: reads form a single Read section, O_DSYNC writes a Sync-Write one.
tracer_start "$LIVE_TMP/f.out" biolatency -F -d "$D"
dio read "$DEV" 500 4096 >/dev/null
dio dsync "$DEV" 300 4096 >/dev/null
tracer_stop
secs=$(hist_sections "$LIVE_TMP/f.out" | tr '\n' ' ')
read_sec=$(hist_sections "$LIVE_TMP/f.out" | grep -E '^(Sync-)?Read$' || true)
[ -n "$read_sec" ] || fail "-F: no Read section in: $secs"
[ "$(hist_total "$LIVE_TMP/f.out" "$read_sec")" = 500 ] || fail "-F: $read_sec != 500"
[ "$(hist_total "$LIVE_TMP/f.out" Sync-Write)" = 300 ] || fail "-F: Sync-Write != 300 ($secs)"
# Two flushes per O_DSYNC write on a loop device: its FUA emulated by a flush after the
# write, then the sync's own; both the writer's, both under Flush.
[ "$(hist_total "$LIVE_TMP/f.out" Flush)" = 600 ] || fail "-F: Flush != 600 ($secs)"
[ "$(hist_sections "$LIVE_TMP/f.out" | wc -l)" = 3 ] || fail "-F: unexpected sections $secs"
echo "ok: -F gives $read_sec=500 Sync-Write=300 Flush=600"

# -d on another disk sees none of them.
tracer_start "$LIVE_TMP/o.out" biolatency -d "$(basename "$OTHER")"
dio read "$DEV" 300 4096 >/dev/null
tracer_stop
[ "$(hist_total "$LIVE_TMP/o.out")" = 0 ] || fail "-d other disk counted I/O"
echo "ok: -d filters other disks"

# -Q and device time traced at once over one workload: equal counts, Q never smaller.
tracer_start "$LIVE_TMP/q0.out" biolatency -e -d "$D"
t0=$TRACER_PID
tracer_start "$LIVE_TMP/q1.out" biolatency -Q -e -d "$D"
dio read "$DEV" 1000 4096 >/dev/null
dio read "$DEV" 200 65536 rand >/dev/null
tracer_stop
TRACER_PID=$t0 tracer_stop
c0=$(hist_total "$LIVE_TMP/q0.out"); c1=$(hist_total "$LIVE_TMP/q1.out")
[ "$c0" = 1200 ] && [ "$c1" = 1200 ] || fail "-Q counts $c1 vs $c0, expected 1200"
tot0=$(sed -n 's/.*total: \([0-9]*\) usecs.*/\1/p' "$LIVE_TMP/q0.out")
tot1=$(sed -n 's/.*total: \([0-9]*\) usecs.*/\1/p' "$LIVE_TMP/q1.out")
[ -n "$tot0" ] && [ "$tot1" -ge "$tot0" ] || fail "-Q total $tot1 < device total $tot0"
grep -q "^avg = [0-9]* usecs, total: $tot0 usecs, count: 1200$" "$LIVE_TMP/q0.out" || fail "-e line"
echo "ok: -Q counts equal (1200), total $tot1 >= $tot0 usecs"

# -p: only the I/O of that process, though another process reads the same disk.
mkfifo "$LIVE_TMP/go"
(read -r _ <"$LIVE_TMP/go"; exec "$IOTAP_PROGS/dio" read "$DEV" 400 4096 >/dev/null) &
target=$!
tracer_start "$LIVE_TMP/p.out" biolatency -p $target -d "$D"
dio read "$DEV" 250 4096 seq 8388608 >/dev/null &
noise=$!
echo go >"$LIVE_TMP/go"
wait $target $noise
fds=$(perf_fds $TRACER_PID)
tracer_stop
[ "$fds" -gt 0 ] || fail "-p holds no perf ring: no process side-band to tell its threads"
[ "$(hist_total "$LIVE_TMP/p.out")" = 400 ] || fail "-p counted $(hist_total "$LIVE_TMP/p.out"), expected 400"
echo "ok: -p counts only the target's 400 reads"

# -j: one valid JSON object per line, counts add up.
tracer_start "$LIVE_TMP/j.out" biolatency -j -F -d "$D"
dio read "$DEV" 123 4096 >/dev/null
tracer_stop
sed 1d "$LIVE_TMP/j.out" | grep -v '^$' >"$LIVE_TMP/j.json"
python3 - "$LIVE_TMP/j.json" <<'PY' || fail "-j output is not valid JSON with 123 reads"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert sum(d["count"] for o in objs for d in o["data"]) == 123, objs
assert all(o["val_type"] == "usecs" and "flags" in o for o in objs)
PY
echo "ok: -j is valid JSON"

# interval count: two reports then exit by itself; argv[0] alias; percentiles.
ln -s "$IOTAP" "$LIVE_TMP/biolatency"
timeout 10 "$LIVE_TMP/biolatency" -d "$D" --percentiles 0.5 2 >"$LIVE_TMP/i.out" &
ipid=$!
sleep 0.3
dio read "$DEV" 100 4096 >/dev/null
wait $ipid || fail "interval run did not exit by itself with 0"
[ "$(grep -c '^Tracing block device I/O' "$LIVE_TMP/i.out")" = 1 ] || fail "banner"
[ "$(hist_total "$LIVE_TMP/i.out")" = 100 ] || fail "intervals lost I/O: $(hist_total "$LIVE_TMP/i.out")"
grep -q 'percentiles (usecs): p50 = [0-9]*, p90 = [0-9]*, p99 = [0-9]*, p99.9 = [0-9]*, max = [0-9]*' \
	"$LIVE_TMP/i.out" || fail "--percentiles line"
echo "ok: interval/count, argv[0] alias and --percentiles"
