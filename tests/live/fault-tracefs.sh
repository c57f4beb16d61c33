#!/bin/bash
# Another root process changes tracefs under a running iotap. Resetting the global state
# (the top instance's set_event and events/enable, which iotap never uses) changes nothing:
# every request is counted. Turning iotap's own instance off (tracing_on 0, an event
# disabled) would leave every count short with nothing said: iotap stops within a second
# or two with one line that says what changed, a non-zero exit, and removes its instance.
# (Removing the instance: fault-instance.sh.)
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create t 16)
D=$(basename "$DEV")

# tamper_stops WHAT WANT - after `WHAT` on the instance ($INST), iotap stops saying WANT
tamper_stops() {
	local rc=0 i
	tracer_start "$LIVE_TMP/t.out" biolatency -d "$D"
	INST=$TRACEFS/instances/iotap_$TRACER_PID
	[ -d "$INST" ] || fail "no instance $INST while tracing"
	eval "$1"
	for i in $(seq 1 60); do kill -0 $TRACER_PID 2>/dev/null || break; sleep 0.05; done
	kill -0 $TRACER_PID 2>/dev/null && fail "$1: iotap still runs 3 s later"
	wait $TRACER_PID || rc=$?
	[ $rc = 2 ] || fail "$1: exit status $rc, expected 2"
	[ "$(wc -l <"$LIVE_TMP/t.out.err")" = 1 ] || fail "$1: stderr is not one line: $(cat "$LIVE_TMP/t.out.err")"
	grep -q "^iotap biolatency: $2 iotap_$TRACER_PID: stopping, the counts would be short$" \
		"$LIVE_TMP/t.out.err" || fail "$1: message: $(cat "$LIVE_TMP/t.out.err")"
	[ ! -e "$INST" ] || fail "$1: iotap left $INST behind"
	echo "ok: $1: iotap stops in a second: $(cat "$LIVE_TMP/t.out.err")"
}

tamper_stops 'echo 0 >"$INST/tracing_on"' "another process turned tracing off in tracefs instance"
tamper_stops 'echo "!block:block_rq_complete" >>"$INST/set_event"' \
	"another process disabled block:block_rq_complete in tracefs instance"
tamper_stops 'echo 0 >"$INST/events/block/block_rq_issue/enable"' \
	"another process disabled block:block_rq_issue in tracefs instance"

# The global reset: written back as found (nothing else here uses the top instance), so that
# runs beside this one see no change.
ev=$(cat $TRACEFS/set_event)
en=$(cat $TRACEFS/events/enable)
[ -z "$ev" ] && [ "$en" = 0 ] || skip "the top instance traces ($ev): not resetting someone else's tracing"
tracer_start "$LIVE_TMP/g.out" biolatency -d "$D"
echo >$TRACEFS/set_event
echo 0 >$TRACEFS/events/enable
sleep 1.5
dio read "$DEV" 200 4096 >/dev/null
tracer_stop
[ "$(hist_total "$LIVE_TMP/g.out")" = 200 ] || fail "after a global reset, $(hist_total "$LIVE_TMP/g.out") of 200 counted"
[ ! -e "$TRACEFS/instances/iotap_$TRACER_PID" ] || fail "iotap left its instance after a global reset"
echo "ok: a reset of the top instance's events leaves iotap tracing: 200 of 200 counted"
