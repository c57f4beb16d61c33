#!/bin/bash
# --timeline live and from a recording: valid Trace Event JSON whose device slices are
# exactly the requests biosnoop printed; concurrent I/O gets lanes; flushes are marked.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create a 64)
D=$(basename "$DEV")
CHECK=$IOTAP_SRCDIR/tests/live/tracecheck.py

T=$LIVE_TMP/io.json
tracer_start "$LIVE_TMP/s.out" biosnoop -Q -d "$D" --timeline "$T"
# Both readers start at once and run long enough that their requests overlap.
(until [ -e "$LIVE_TMP/go" ]; do sleep 0.01; done
	exec "$IOTAP_PROGS/dio" read "$DEV" 1000 4096 >/dev/null) &
w1=$!
(until [ -e "$LIVE_TMP/go" ]; do sleep 0.01; done
	exec "$IOTAP_PROGS/dio" read "$DEV" 500 65536 rand >/dev/null) &
w2=$!
touch "$LIVE_TMP/go"
wait $w1 $w2
dd if=/dev/zero of="$DEV" bs=4k count=1 seek=5 oflag=direct conv=fsync 2>/dev/null
tracer_stop
lines=$(awk -v d="$D" '$4 == d' "$LIVE_TMP/s.out" | wc -l)
flush_lines=$(awk -v d="$D" '$4 == d && $5 == "F"' "$LIVE_TMP/s.out" | wc -l)
read -r req dev flushes errors lanes queued overlap < <(python3 "$CHECK" "$T") || fail "the timeline is not valid Trace Event JSON"
[ "$dev" = "$lines" ] && [ "$req" = "$lines" ] || fail "$dev device slices, $req requests, $lines biosnoop lines"
[ "$lines" -ge 1502 ] || fail "only $lines requests traced, expected 1000 + 500 reads, a write and a flush"
[ "$flushes" = "$flush_lines" ] && [ "$flushes" -ge 1 ] || fail "$flushes flush marks, $flush_lines F lines"
[ "$lanes" -ge 2 ] || fail "two concurrent readers gave $lanes lane(s) on $D"
[ "$lanes" = "$overlap" ] || fail "$lanes lanes for at most $overlap requests in flight at once on $D"
[ "$queued" -ge 1 ] || fail "no queued slice although -Q saw block_io_start"
echo "ok: timeline: $dev device slices = $lines requests, $flushes flush(es), $lanes lanes on $D"

# From a recording: the same checks, the same count as the report's lines.
F=$LIVE_TMP/rec.iotap
"$IOTAP" record -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" 250 4096 >/dev/null 2>"$LIVE_TMP/rec.err" ||
	fail "record failed: $(cat "$LIVE_TMP/rec.err")"
"$IOTAP" report -i "$F" biosnoop -d "$D" --timeline "$LIVE_TMP/rec.json" >"$LIVE_TMP/r.out" ||
	fail "report --timeline failed"
rlines=$(awk -v d="$D" '$4 == d' "$LIVE_TMP/r.out" | wc -l)
read -r req dev _ < <(python3 "$CHECK" "$LIVE_TMP/rec.json") || fail "the recording's timeline is invalid"
[ "$dev" = "$rlines" ] && [ "$rlines" = 250 ] || fail "recording: $dev device slices, $rlines lines, expected 250"
echo "ok: timeline from a recording: 250 device slices"

rc=0
"$IOTAP" biosnoop --timeline /nonexistent/x.json 1 >/dev/null 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "bad --timeline path: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: bad --timeline path: $(cat "$LIVE_TMP/err")"
