#!/bin/bash
# SIGHUP ends a run as SIGINT and SIGTERM do (doc/kernels.md, "Leaving the kernel as
# found"), for the long-running processes too: the exporter exits 0; a rotating record
# writes its summary and its last part whole, the requests summing exactly over the parts;
# a flight recorder writes its summary. Each leaves tracefs as found. (A tool's SIGHUP:
# cleanup.sh.)
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create hup 64)
D=$(basename "$DEV")
before=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)

# hup_stop NAME - SIGHUP the background iotap: exit 0, its instance gone, tracefs as found
hup_stop() {
	local rc=0 after
	kill -HUP $TRACER_PID
	wait $TRACER_PID || rc=$?
	[ $rc = 0 ] || fail "$1: exit status $rc after SIGHUP: $(cat "$ERR")"
	[ ! -e "$TRACEFS/instances/iotap_$TRACER_PID" ] || fail "$1 left iotap_$TRACER_PID"
	after=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)
	[ "$after" = "$before" ] || fail "$1: tracefs changed after SIGHUP"
}

# rec_start ARGS... - iotap record in the background, tracing once it has said nothing for a while
rec_start() {
	ERR=$LIVE_TMP/rec.err
	"$IOTAP" record "$@" 2>"$ERR" &
	TRACER_PID=$!
	LIVE_PIDS="$LIVE_PIDS $TRACER_PID"
	sleep 1.5
	kill -0 $TRACER_PID 2>/dev/null || fail "record $* exited: $(cat "$ERR")"
}

P=$(free_port)
tracer_start "$LIVE_TMP/e.out" exporter -l "127.0.0.1:$P"
ERR=$LIVE_TMP/e.out.err
hup_stop exporter
echo "ok: SIGHUP: the exporter exits 0, tracefs as found"

B=$LIVE_TMP/rot
rec_start -o "$B" --switch-output 40K
dio read "$DEV" 2000 4096 rand >/dev/null
sleep 0.3
hup_stop "record --switch-output"
grep -q "^iotap record: [0-9]* events in .* written to $B\.\*, [0-9]* lost$" "$ERR" || fail "no summary: $(cat "$ERR")"
n=0
for f in "$B".*; do
	"$IOTAP" report -i "$f" --info | grep -q "^complete:   yes$" || fail "$f is not whole after SIGHUP"
	n=$((n + $("$IOTAP" report -i "$f" biolatency -d "$D" | hist_total /dev/stdin)))
done
grep -q "warning: lost" "$ERR" || [ $n = 2000 ] || fail "the parts count $n of 2000 reads, none lost"
echo "ok: SIGHUP: record --switch-output writes its last part whole; $(ls "$B".* | wc -l) parts count $n of 2000"

rec_start -o "$LIVE_TMP/fr" --ring 5
dio read "$DEV" 200 4096 rand >/dev/null
hup_stop "record --ring"
grep -q "^iotap record: [0-9]* events in .* written to $LIVE_TMP/fr\.\*, [0-9]* lost$" "$ERR" ||
	fail "no summary: $(cat "$ERR")"
echo "ok: SIGHUP: record --ring exits 0 with its summary, tracefs as found"
