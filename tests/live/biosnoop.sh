#!/bin/bash
# biosnoop live: one line per request with exact sectors and sizes, flushes, filters, JSON.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create snoop 64)
OTHER=$(loop_create snoop-other 16)
D=$(basename "$DEV")
N=300

# rows FILE - the lines of disk $D (after the banner and the header)
rows() {
	awk -v d="$D" 'NR > 2 && $4 == d' "$1"
}

# Exactly N random direct reads: N lines, the sectors dio used, its size, its name and PID.
tracer_start "$LIVE_TMP/r.out" biosnoop -d "$D"
"$IOTAP_PROGS/dio" read "$DEV" $N 4096 rand >"$LIVE_TMP/r.offs" &
wp=$!
wait $wp
tracer_stop
sed -n 2p "$LIVE_TMP/r.out" | grep -qx 'TIME(s)     COMM           PID     DISK      T SECTOR     BYTES  LAT(ms)' ||
	fail "header: $(sed -n 2p "$LIVE_TMP/r.out")"
rows "$LIVE_TMP/r.out" >"$LIVE_TMP/r.rows"
[ "$(wc -l <"$LIVE_TMP/r.rows")" = $N ] || fail "$(wc -l <"$LIVE_TMP/r.rows") lines, expected $N"
awk '{ print $1 / 512 }' "$LIVE_TMP/r.offs" | sort -n >"$LIVE_TMP/want"
awk '{ print $6 }' "$LIVE_TMP/r.rows" | sort -n >"$LIVE_TMP/got"
cmp -s "$LIVE_TMP/want" "$LIVE_TMP/got" || fail "sectors differ from dio's offsets / 512"
bad=$(awk -v p=$wp '$2 != "dio" || $3 != p || $5 != "R" || $7 != 4096 || $8 !~ /^[0-9]+\.[0-9][0-9]$/' \
	"$LIVE_TMP/r.rows" | head -1)
[ -z "$bad" ] || fail "unexpected line: $bad"
awk 'NR == 1 && $1 != "0.000000" { exit 1 } $1 < last { exit 1 } { last = $1 }' "$LIVE_TMP/r.rows" ||
	fail "TIME(s) does not start at 0 and grow"
echo "ok: $N reads give $N lines with dio's sectors, 4096 bytes, COMM dio, PID $wp"

# -Q: a QUE(ms) column, never negative; -m far above any latency hides every line.
tracer_start "$LIVE_TMP/q.out" biosnoop -Q -d "$D"
tq=$TRACER_PID
tracer_start "$LIVE_TMP/m.out" biosnoop -m 100000 -d "$D"
dio read "$DEV" 200 8192 >/dev/null
tracer_stop
TRACER_PID=$tq tracer_stop
sed -n 2p "$LIVE_TMP/q.out" | grep -q ' BYTES  QUE(ms) LAT(ms)$' || fail "-Q header"
[ "$(rows "$LIVE_TMP/q.out" | awk '$7 == 8192 && $8 ~ /^[0-9]+\.[0-9][0-9]$/' | wc -l)" = 200 ] ||
	fail "-Q: expected 200 lines with QUE(ms) >= 0"
[ "$(awk 'NR > 2' "$LIVE_TMP/m.out" | wc -l)" = 0 ] || fail "-m 100000 printed lines"
echo "ok: -Q gives QUE(ms) >= 0 on all 200 lines, -m 100000 hides them all"

# -p: only the target's reads though another process reads the same disk; -d: other disks.
mkfifo "$LIVE_TMP/go"
(read -r _ <"$LIVE_TMP/go"; exec "$IOTAP_PROGS/dio" read "$DEV" 150 4096 seq 8388608 >/dev/null) &
target=$!
tracer_start "$LIVE_TMP/p.out" biosnoop -p $target
tp=$TRACER_PID
tracer_start "$LIVE_TMP/o.out" biosnoop -d "$(basename "$OTHER")"
dio read "$DEV" 100 4096 >/dev/null &
noise=$!
echo go >"$LIVE_TMP/go"
wait $target $noise
tracer_stop
TRACER_PID=$tp tracer_stop
[ "$(awk 'NR > 2' "$LIVE_TMP/p.out" | wc -l)" = 150 ] || fail "-p: $(awk 'NR > 2' "$LIVE_TMP/p.out" | wc -l) lines, expected 150"
[ -z "$(awk -v p=$target 'NR > 2 && $3 != p' "$LIVE_TMP/p.out")" ] || fail "-p: another PID"
[ "$(awk 'NR > 2' "$LIVE_TMP/o.out" | wc -l)" = 0 ] || fail "-d other disk printed lines"
echo "ok: -p shows only the target's 150 reads, -d excludes other disks"

# -P: a sequential pass is sequential after its first request; -c keeps one command.
tracer_start "$LIVE_TMP/s.out" biosnoop -P --comm dio -d "$D"
dd if="$DEV" of=/dev/null bs=4k count=20 iflag=direct 2>/dev/null
dio read "$DEV" 100 4096 seq 1048576 >/dev/null
tracer_stop
sed -n 2p "$LIVE_TMP/s.out" | grep -q ' BYTES  P LAT(ms)$' || fail "-P header"
rows "$LIVE_TMP/s.out" >"$LIVE_TMP/s.rows"
[ "$(wc -l <"$LIVE_TMP/s.rows")" = 100 ] || fail "--comm dio: $(wc -l <"$LIVE_TMP/s.rows") lines, expected 100"
[ "$(awk 'NR > 1 && $8 == "S"' "$LIVE_TMP/s.rows" | wc -l)" = 99 ] || fail "-P: not sequential"
echo "ok: -P marks a sequential pass S, --comm dio hides dd"

# A flush has its own type, no sector, 0 bytes, and the process that asked for it.
tracer_start "$LIVE_TMP/f.out" biosnoop -d "$D"
dd if=/dev/zero of="$DEV" bs=4k count=1 seek=5 oflag=direct conv=fsync 2>/dev/null
tracer_stop
rows "$LIVE_TMP/f.out" >"$LIVE_TMP/f.rows"
[ "$(awk '$5 == "F"' "$LIVE_TMP/f.rows" | wc -l)" = 1 ] || fail "flush: $(cat "$LIVE_TMP/f.rows")"
awk '$5 == "F" { exit !($2 == "dd" && $6 == "-" && $7 == 0) }' "$LIVE_TMP/f.rows" ||
	fail "flush line: $(awk '$5 == "F"' "$LIVE_TMP/f.rows")"
[ "$(awk '$5 == "W" && $6 == 40 && $7 == 4096 && $2 == "dd"' "$LIVE_TMP/f.rows" | wc -l)" = 1 ] ||
	fail "the write before the flush: $(cat "$LIVE_TMP/f.rows")"
echo "ok: fsync's flush shows as T=F, SECTOR -, 0 bytes, COMM dd"

# -j: one JSON object per line; -t: wall-clock times; a duration ends the run by itself.
timeout 10 "$IOTAP" biosnoop -j -t -d "$D" 2 >"$LIVE_TMP/j.out" &
jp=$!
sleep 0.5
dio read "$DEV" 50 4096 stride:65536 >"$LIVE_TMP/j.offs"
wait $jp || fail "biosnoop with a duration did not exit by itself with 0"
sed 1d "$LIVE_TMP/j.out" >"$LIVE_TMP/j.json"
python3 - "$LIVE_TMP/j.json" "$LIVE_TMP/j.offs" <<'PY' || fail "-j output is not the 50 reads as JSON"
import json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
offs = sorted(int(l) // 512 for l in open(sys.argv[2]))
assert sorted(o["sector"] for o in objs) == offs, objs
assert all(o["comm"] == "dio" and o["type"] == "R" and o["bytes"] == 4096 for o in objs)
assert all(re.fullmatch(r"\d\d:\d\d:\d\d\.\d\d\d", o["timestamp"]) and o["lat_ms"] >= 0 for o in objs)
PY
echo "ok: -j -t give 50 JSON objects with wall-clock timestamps"
