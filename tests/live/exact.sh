#!/bin/bash
# Exact capture: the ftrace source counts every event, and says how many it
# lost when its buffer overflowed; its tracefs instance is private, on the
# mono clock, gone on every exit path, and reaped after a SIGKILL; the perf
# source accounts for what it did not deliver.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create x 64)
D=$(basename "$DEV")
DEVT=$(( $(stat -c '0x%t' "$DEV") << 20 | $(stat -c '0x%T' "$DEV") ))
before=$(tracefs_snapshot)

# count_of FILE EVENT - the count probe -c printed for EVENT
count_of() {
	awk -v e="$2" '$1 == e { print $2 }' "$1"
}

# lost_of FILE - the "N in all" of the last lost-events warning, 0 without one
lost_of() {
	sed -n 's/.*lost [0-9]* events (\([0-9]*\) in all.*/\1/p' "$1" | tail -1 | grep . || echo 0
}

# The default source: a private instance with the mono clock, exact counts.
tracer_start "$LIVE_TMP/a.out" probe -c "block:block_rq_complete dev == $DEVT"
inst=$TRACEFS/instances/iotap_$TRACER_PID
[ -d "$inst" ] || fail "no tracefs instance iotap_$TRACER_PID"
grep -q '\[mono\]' "$inst/trace_clock" || fail "instance clock: $(cat "$inst/trace_clock")"
[ "$(cat "$inst/events/block/block_rq_complete/enable")" = 1 ] || fail "event not enabled in the instance"
grep -q "dev == $DEVT" "$inst/events/block/block_rq_complete/filter" || fail "filter not set in the instance"
[ "$(cat $TRACEFS/events/block/block_rq_complete/enable)" = 0 ] || fail "the global event was enabled"
dio read "$DEV" 2000 4096 >/dev/null
tracer_stop
[ "$(count_of "$LIVE_TMP/a.out" block:block_rq_complete)" = 2000 ] ||
	fail "ftrace counted $(count_of "$LIVE_TMP/a.out" block:block_rq_complete) of 2000"
[ "$(tracefs_snapshot)" = "$before" ] || fail "the instance was not removed"
echo "ok: ftrace counts 2000 of 2000 in instance iotap_PID (mono clock), removed at exit"

# An overflowing buffer: what was read plus what the kernel says it lost is every event.
tracer_start "$LIVE_TMP/l.out" probe -c --mmap-pages 1 "block:block_rq_complete dev == $DEVT"
kill -STOP $TRACER_PID
dio read "$DEV" 16384 4096 >/dev/null
kill -CONT $TRACER_PID
tracer_stop
got=$(count_of "$LIVE_TMP/l.out" block:block_rq_complete)
lost=$(lost_of "$LIVE_TMP/l.out.err")
[ "$lost" -gt 0 ] || fail "a stopped reader with a 16 KiB buffer lost nothing ($got read)"
[ $((got + lost)) = 16384 ] || fail "read $got + lost $lost != 16384"
echo "ok: an overflowed ftrace buffer: $got read + $lost lost = 16384"

# The perf source: samples delivered plus those counted but not delivered is every event.
tracer_start "$LIVE_TMP/p.out" probe -c --source perf "block:block_rq_complete dev == $DEVT"
dio read "$DEV" 2000 4096 >/dev/null
tracer_stop
got=$(count_of "$LIVE_TMP/p.out" block:block_rq_complete)
und=$(sed -n 's/.*block_rq_complete: [0-9]* events counted by the kernel but not delivered (\([0-9]*\) in all.*/\1/p' \
	"$LIVE_TMP/p.out.err" | tail -1)
[ $((got + ${und:-0})) = 2000 ] || fail "perf: $got delivered + ${und:-0} undelivered != 2000"
echo "ok: perf source: $got delivered + ${und:-0} counted but not delivered = 2000"

# Overflowing perf rings: every missing sample is reported as not delivered.
tracer_start "$LIVE_TMP/q.out" probe -c --source perf --mmap-pages 1 "block:block_rq_complete dev == $DEVT"
kill -STOP $TRACER_PID
dio read "$DEV" 16384 4096 >/dev/null
kill -CONT $TRACER_PID
tracer_stop
got=$(count_of "$LIVE_TMP/q.out" block:block_rq_complete)
und=$(sed -n 's/.*block_rq_complete: [0-9]* events counted by the kernel but not delivered (\([0-9]*\) in all.*/\1/p' \
	"$LIVE_TMP/q.out.err" | tail -1)
[ -n "$und" ] && [ $((got + und)) = 16384 ] || fail "perf overflow: $got delivered + ${und:-none} undelivered != 16384"
echo "ok: overflowed perf rings: $got delivered + $und not delivered = 16384"
[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs changed"

# Recordings carry both: perf's undelivered counts per event, ftrace's losses per CPU.
# The command stops the recorder while it makes the I/O, so that its buffers overflow.
stall="kill -STOP \$PPID; $IOTAP_PROGS/dio read $DEV 16384 4096 >/dev/null; kill -CONT \$PPID"
"$IOTAP" record --source perf --mmap-pages 1 --tools biolatency -o "$LIVE_TMP/p.iotap" -- sh -c "$stall" \
	2>"$LIVE_TMP/pr.err" || fail "record --source perf: $(cat "$LIVE_TMP/pr.err")"
grep -q 'events counted by the kernel but not delivered' "$LIVE_TMP/pr.err" || fail "record summary: $(cat "$LIVE_TMP/pr.err")"
"$IOTAP" report -i "$LIVE_TMP/p.iotap" --info >"$LIVE_TMP/pi.out" || fail "report --info"
grep -q '^  block:block_rq_complete .*([0-9]* counted by the kernel but not delivered)' "$LIVE_TMP/pi.out" ||
	fail "--info: $(cat "$LIVE_TMP/pi.out")"
"$IOTAP" report -i "$LIVE_TMP/p.iotap" biolatency >/dev/null 2>"$LIVE_TMP/pb.err" || fail "report biolatency"
grep -q 'block:block_rq_complete: [0-9]* events counted by the kernel but not delivered' "$LIVE_TMP/pb.err" ||
	fail "report biolatency: $(cat "$LIVE_TMP/pb.err")"
"$IOTAP" record --mmap-pages 1 --tools biolatency -o "$LIVE_TMP/f.iotap" -- sh -c "$stall" \
	2>"$LIVE_TMP/fr.err" || fail "record: $(cat "$LIVE_TMP/fr.err")"
lost=$(sed -n 's/.* written to .*, \([0-9]*\) lost$/\1/p' "$LIVE_TMP/fr.err")
[ "${lost:-0}" -gt 0 ] || fail "record summary lost nothing: $(cat "$LIVE_TMP/fr.err")"
"$IOTAP" report -i "$LIVE_TMP/f.iotap" --info >"$LIVE_TMP/fi.out" || fail "report --info"
grep -q "^lost: *$lost " "$LIVE_TMP/fi.out" || fail "--info lost != $lost: $(cat "$LIVE_TMP/fi.out")"
echo "ok: recordings keep perf's undelivered counts and ftrace's $lost losses"
[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs changed"

# A SIGKILLed run leaves its instance; the next run removes it and says so.
tracer_start "$LIVE_TMP/k.out" probe -c "block:block_rq_complete dev == $DEVT"
kill -KILL $TRACER_PID
wait $TRACER_PID 2>/dev/null || true
[ -d "$TRACEFS/instances/iotap_$TRACER_PID" ] || fail "a SIGKILLed run left no instance to reap"
"$IOTAP" biolatency -d "$D" 0.1 1 >/dev/null 2>"$LIVE_TMP/k2.err" || fail "run after SIGKILL failed"
grep -q 'removed 1 tracefs instances left by a killed iotap' "$LIVE_TMP/k2.err" || fail "no reap message: $(cat "$LIVE_TMP/k2.err")"
[ "$(tracefs_snapshot)" = "$before" ] || fail "the killed run's instance was not reaped"
echo "ok: a killed run's instance is reaped by the next run"

# Stack tools stay exact: their events are read from the ftrace ring as well, so that
# a sample perf drops (here a one-page ring overflows while the reader is stopped) is
# an event without a stack, not a missing event.
tracer_start "$LIVE_TMP/st.out" iostack -K -f --mmap-pages 1
kill -STOP $TRACER_PID
dio read "$DEV" 60 4096 >/dev/null
kill -CONT $TRACER_PID
tracer_stop
bytes=$(awk -v d="$D" 'index($0, d ";dio") == 1 { s += $NF } END { print s + 0 }' "$LIVE_TMP/st.out")
bare=$(awk -v d="$D" '$1 == d ";dio" { s += $2 } END { print s + 0 }' "$LIVE_TMP/st.out")
nostack=$(sed -n 's/.*: [0-9]* events without a stack (\([0-9]*\) in all).*/\1/p' "$LIVE_TMP/st.out.err" | tail -1)
[ "$bytes" = $((60 * 4096)) ] || fail "iostack counted $bytes bytes of $((60 * 4096)): $(cat "$LIVE_TMP/st.out.err")"
[ "${nostack:-0}" -gt 0 ] && [ "$bare" -gt 0 ] ||
	fail "a one-page perf ring dropped no stacks: $(cat "$LIVE_TMP/st.out.err")"
grep -q 'lost [0-9]* events' "$LIVE_TMP/st.out.err" && fail "stack losses reported as lost events"
echo "ok: iostack with an overflowing perf ring: all 60 reads, $((bare / 4096)) of them without a stack ($nostack events in all)"

# Callchains need perf: --source ftrace refuses a stack tool with one line.
rc=0; "$IOTAP" biostacks --source ftrace -d "$D" >/dev/null 2>"$LIVE_TMP/s.err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/s.err")" = 1 ] && grep -q 'cannot take the callchains' "$LIVE_TMP/s.err" ||
	fail "--source ftrace with stacks: rc=$rc $(cat "$LIVE_TMP/s.err")"
echo "ok: --source ftrace refuses callchains in one line"

# Tracepoint probes: a glob names several events; a bad one is one error line.
tracer_start "$LIVE_TMP/g.out" probe -c 'block:block_rq_*'
dio read "$DEV" 100 4096 >/dev/null
tracer_stop
grep -q '^block:block_rq_issue ' "$LIVE_TMP/g.out" && grep -q '^block:block_rq_complete ' "$LIVE_TMP/g.out" ||
	fail "glob: $(cat "$LIVE_TMP/g.out")"
rc=0; "$IOTAP" probe 'block:no_such_event' >/dev/null 2>"$LIVE_TMP/e" || rc=$?
[ $rc = 1 ] && grep -q "invalid probe 'block:no_such_event'" "$LIVE_TMP/e" || fail "bad tracepoint: rc=$rc"
echo "ok: probe globs tracepoints; an unknown one is refused"
[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs changed"
