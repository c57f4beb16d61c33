#!/bin/bash
# The reader stopped (SIGSTOP) for 10 s under load, with small buffers: the kernel
# drops what does not fit. On SIGCONT the loss is counted and said within the next
# interval, every read is either counted or among the lost, tracing recovers (the reads
# after the resume are counted exactly, and nothing more is lost), and the exit is clean.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create over 64)
D=$(basename "$DEV")
N=5000
M=500

# 64 KiB of ftrace buffer per CPU, filtered to the test disk in the kernel: a thousand
# events or so, a fifth of the reads' while stopped, plenty for the reads after.
tracer_start "$LIVE_TMP/s.out" biolatency -d "$D" --mmap-pages 4 1
kill -STOP $TRACER_PID
t0=$(date +%s.%N)
dio read "$DEV" $N 4096 rand >/dev/null
sleep "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { d = 10 - (b - a); print (d > 0 ? d : 0) }')"
kill -CONT $TRACER_PID
for i in $(seq 1 60); do
	grep -q "lost [0-9]* events" "$LIVE_TMP/s.out.err" && break
	sleep 0.05
done
kill -0 $TRACER_PID 2>/dev/null || fail "iotap died after SIGCONT: $(cat "$LIVE_TMP/s.out.err")"
line=$(grep "lost [0-9]* events" "$LIVE_TMP/s.out.err") ||
	fail "no loss said 3 s after SIGCONT: $(cat "$LIVE_TMP/s.out.err")"
lost=$(echo "$line" | sed -n '1s/.*lost [0-9]* events (\([0-9]*\) in all.*/\1/p')
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "loss line: $line"
echo "$line" | grep -q "^iotap biolatency: warning: lost $lost events ($lost in all; CPU [0-9]*: [0-9]*.*): the ring buffers overflowed, raise --mmap-pages$" ||
	fail "loss line: $line"
echo "ok: after 10 s stopped, $lost events lost, said: $line"

# The intervals missed while stopped are reported at once (each report is flushed); one
# more goes by, then what is printed is the reads after the resume.
sleep 1.2
off=$(stat -c %s "$LIVE_TMP/s.out")
dio read "$DEV" $M 4096 rand >/dev/null
sleep 1.2
tracer_stop
after=$(tail -c +$((off + 1)) "$LIVE_TMP/s.out" | hist_total /dev/stdin)
over=$(head -c "$off" "$LIVE_TMP/s.out" | hist_total /dev/stdin)
total=$(sed -n 's/.*lost [0-9]* events (\([0-9]*\) in all.*/\1/p' "$LIVE_TMP/s.out.err" | tail -1)
[ "$total" = "$lost" ] || fail "more lost after the resume: $(cat "$LIVE_TMP/s.out.err")"
[ "$after" = $M ] || fail "after the resume, $after of $M reads counted"
[ "$over" -lt $N ] || fail "all $N reads counted: nothing was lost"
[ $((over + lost)) -ge $N ] || fail "$over of $N reads counted and only $lost events lost: some went unaccounted"
[ ! -e "$TRACEFS/instances/iotap_$TRACER_PID" ] || fail "iotap left its instance"
echo "ok: tracing recovers: $M of $M reads after the resume; of $N while stopped $over counted, $lost events lost"
