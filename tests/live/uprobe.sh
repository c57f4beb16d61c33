#!/bin/bash
# Dynamic events: a uprobe made by the dynamic-event code decodes its argument,
# is removed on exit, and a killed run's leftovers are reaped by the next run.
. "$(dirname "$0")/lib.sh"
require_root
[ -e $TRACEFS/uprobe_events ] || skip "kernel has no uprobe_events"

BIN=$IOTAP_PROGS/uprobe_target
before=$(tracefs_snapshot)

tracer_start "$LIVE_TMP/u.out" probe "p:$BIN:iotap_target v=%di:s64"
"$BIN" 25 >/dev/null
"$BIN" 3 >/dev/null
tracer_stop
grep -c 'p_iotap_target: ([0-9a-f]*) v=' "$LIVE_TMP/u.out" | grep -qx 28 || fail "expected 28 hits: $(cat "$LIVE_TMP/u.out")"
vals=$(sed -n 's/.*p_iotap_target: .* v=\(-\?[0-9]*\)$/\1/p' "$LIVE_TMP/u.out" | tr '\n' ' ')
[ "$vals" = "$(seq 1 25 | tr '\n' ' ')1 2 3 " ] || fail "decoded arguments: $vals"
grep -q ' uprobe_target ' "$LIVE_TMP/u.out" || fail "COMM column"
[ "$(tracefs_snapshot)" = "$before" ] || fail "the uprobe was not removed"
echo "ok: uprobe decoded v=1..25,1..3 in order and was removed"

# -p and -M: only the target process, stop by itself after 5 hits.
mkfifo "$LIVE_TMP/go"
"$BIN" 40 wait <"$LIVE_TMP/go" >/dev/null &
target=$!
exec 9>"$LIVE_TMP/go"
timeout 10 "$IOTAP" probe -p $target -M 5 "p:$BIN:iotap_target v=%di:s64" >"$LIVE_TMP/m.out" &
mp=$!
until [ -s "$LIVE_TMP/m.out" ]; do sleep 0.05; done
"$BIN" 7 >/dev/null
echo x >&9
exec 9>&-
wait $mp || fail "probe -M did not exit by itself"
wait $target
[ "$(grep -c 'v=' "$LIVE_TMP/m.out")" = 5 ] || fail "-M 5 printed $(grep -c 'v=' "$LIVE_TMP/m.out")"
! grep -v "^Tracing" "$LIVE_TMP/m.out" | grep -qv " $target " || fail "-p let other PIDs through"
[ "$(tracefs_snapshot)" = "$before" ] || fail "-M exit left the uprobe"
echo "ok: -p filters, -M stops after 5 and cleans up"

# A run killed with SIGKILL leaves its group; the next run removes it.
tracer_start "$LIVE_TMP/k.out" probe "p:$BIN:iotap_target"
kill -KILL $TRACER_PID
wait $TRACER_PID 2>/dev/null || true
grep -q "iotap_$TRACER_PID/" $TRACEFS/dynamic_events || fail "expected a leftover after SIGKILL"
"$IOTAP" biolatency 0.1 1 >/dev/null 2>"$LIVE_TMP/k.err"
grep -q "iotap_$TRACER_PID/" $TRACEFS/dynamic_events && fail "leftover of a killed run not removed"
grep -q "removed 1 dynamic events left by a killed iotap" "$LIVE_TMP/k.err" || fail "no notice: $(cat "$LIVE_TMP/k.err")"
[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs not restored after reaping"
echo "ok: a killed run's uprobe is reaped by the next run"

# Errors: one line, exit 1.
rc=0; "$IOTAP" probe "p:$BIN:no_such_fn" >/dev/null 2>"$LIVE_TMP/e" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/e")" = 1 ] && grep -q "no function 'no_such_fn'" "$LIVE_TMP/e" ||
	fail "bad symbol: rc=$rc $(cat "$LIVE_TMP/e")"
rc=0; "$IOTAP" probe "x:foo" >/dev/null 2>"$LIVE_TMP/e" || rc=$?
[ $rc = 1 ] && grep -q "invalid probe 'x:foo'" "$LIVE_TMP/e" || fail "bad spec: rc=$rc"
echo "ok: bad probes give one error line"
