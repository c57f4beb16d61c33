#!/bin/bash
# Every exit path leaves tracefs exactly as found.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create c 16)
before=$(tracefs_snapshot)

for sig in INT TERM HUP; do
	tracer_start "$LIVE_TMP/s.out" biolatency -d "$(basename "$DEV")"
	dio read "$DEV" 50 4096 >/dev/null
	tracer_stop $sig
	[ "$(hist_total "$LIVE_TMP/s.out")" = 50 ] || fail "SIG$sig: final report lost I/O"
	[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs changed after SIG$sig"
	echo "ok: SIG$sig leaves tracefs clean and prints the final report"
done

"$IOTAP" biolatency 0.2 2 >/dev/null || fail "interval run failed"
[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs changed after a finished run"
echo "ok: a finished interval run leaves tracefs clean"
