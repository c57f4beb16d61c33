#!/bin/bash
# Another root process removes iotap's tracefs instance under it. The kernel refuses while
# iotap holds the instance's ring files open (EBUSY): tracing goes on, every request is
# still counted, and iotap still removes the instance itself at exit. Should a kernel ever
# let the removal through, iotap must stop with an error and a non-zero exit, not hang.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create a 16)
D=$(basename "$DEV")
tracer_start "$LIVE_TMP/b.out" biolatency -d "$D"
INST=$TRACEFS/instances/iotap_$TRACER_PID
[ -d "$INST" ] || fail "no instance $INST while tracing"
if rmdir "$INST" 2>"$LIVE_TMP/rmdir.err"; then
	# Removed: iotap must notice and stop with a message of its own.
	rc=0
	for i in $(seq 1 100); do kill -0 $TRACER_PID 2>/dev/null || break; sleep 0.05; done
	kill -0 $TRACER_PID 2>/dev/null && fail "the instance was removed and iotap kept running"
	wait $TRACER_PID || rc=$?
	[ $rc != 0 ] && [ -s "$LIVE_TMP/b.out.err" ] || fail "instance removed: rc $rc, no message"
	echo "ok: the instance could be removed; iotap stopped: $(head -1 "$LIVE_TMP/b.out.err")"
	exit 0
fi
grep -q "busy" "$LIVE_TMP/rmdir.err" || fail "rmdir failed other than busy: $(cat "$LIVE_TMP/rmdir.err")"
dio read "$DEV" 300 4096 >/dev/null
tracer_stop
n=$(hist_total "$LIVE_TMP/b.out")
[ "$n" = 300 ] || fail "after the attempt, $n of 300 requests counted"
[ ! -e "$INST" ] || fail "iotap left $INST behind"
echo "ok: the kernel refuses to remove a busy instance; iotap counted 300 of 300 and removed it"
