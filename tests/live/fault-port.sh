#!/bin/bash
# A second `iotap exporter` on a port that is taken (by another exporter, or anything else
# listening there, on one address or all): one line that says so, exit status 2, within a
# couple of seconds, and nothing left in tracefs. The first exporter serves on.
. "$(dirname "$0")/lib.sh"
require_root
command -v curl >/dev/null || skip "no curl"

P=$(free_port)
before=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)
tracer_start "$LIVE_TMP/first.out" exporter -l "127.0.0.1:$P"
FIRST=$TRACER_PID

# second LISTEN - a second exporter on LISTEN: refused with one line, nothing left behind
second() {
	local rc=0 pid t0=$SECONDS
	"$IOTAP" exporter -l "$1" >"$LIVE_TMP/second.out" 2>"$LIVE_TMP/second.err" &
	pid=$!
	LIVE_PIDS="$LIVE_PIDS $pid"
	wait $pid || rc=$?
	[ $rc = 2 ] || fail "a second exporter on $1: exit status $rc, expected 2"
	[ $((SECONDS - t0)) -le 5 ] || fail "a second exporter on $1 took $((SECONDS - t0)) s to give up"
	[ "$(cat "$LIVE_TMP/second.err")" = "iotap exporter: cannot listen on $1: Address already in use" ] ||
		fail "a second exporter on $1 said: $(cat "$LIVE_TMP/second.err")"
	[ ! -e "$TRACEFS/instances/iotap_$pid" ] || fail "the second exporter left iotap_$pid"
	echo "ok: a second exporter on $1 is refused: $(cat "$LIVE_TMP/second.err")"
}
second "127.0.0.1:$P"
# Every address, while the first holds 127.0.0.1 on the same port.
second ":$P"
curl -sf -m 5 -o /dev/null "http://127.0.0.1:$P/metrics" || fail "the first exporter stopped serving"
tracer_stop TERM
after=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)
[ "$after" = "$before" ] || fail "tracefs changed"
[ ! -e "$TRACEFS/instances/iotap_$FIRST" ] || fail "the first exporter left iotap_$FIRST"
echo "ok: the first exporter served on and left tracefs as found"
