#!/bin/bash
# biotop live: exact per-process counts in one interval, -p, sorting, rows, screen handling.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create top 64)
D=$(basename "$DEV")
N=400

# rows FILE - the process lines (after the PID COMM ... header)
rows() {
	awk 'seen { print } /^PID +COMM +D MAJ MIN DISK +I\/O +Kbytes +AVGms$/ { seen = 1 }' "$1"
}

# One 3 s interval, count 1: exits by itself; the reader's line counts its N reads exactly.
tracer_start "$LIVE_TMP/a.out" biotop -C 3 1
"$IOTAP_PROGS/dio" read "$DEV" $N 4096 rand >/dev/null &
wp=$!
dio write "$DEV" 50 8192 >/dev/null
wait $wp
wait $TRACER_PID || fail "biotop -C 3 1 did not exit by itself with 0"
sed -n 2,5p "$LIVE_TMP/a.out" >"$LIVE_TMP/a.head"
sed -n 1p "$LIVE_TMP/a.head" | grep -qx '' || fail "-C: no blank line before the report"
sed -n 2p "$LIVE_TMP/a.head" | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} loadavg: [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+$' ||
	fail "loadavg line: $(sed -n 2p "$LIVE_TMP/a.head")"
sed -n 3p "$LIVE_TMP/a.head" | grep -qx '' || fail "no blank line after loadavg"
sed -n 4p "$LIVE_TMP/a.head" | grep -qx 'PID     COMM             D MAJ MIN DISK       I/O  Kbytes  AVGms' ||
	fail "header: $(sed -n 4p "$LIVE_TMP/a.head")"
line=$(rows "$LIVE_TMP/a.out" | awk -v p=$wp '$1 == p')
echo "$line" | awk -v d="$D" -v n=$N '{ exit !($2 == "dio" && $3 == "R" && $4 == 7 && $6 == d &&
	$7 == n && $8 == n * 4 && $9 ~ /^[0-9]+\.[0-9][0-9]$/) }' || fail "reader's line: '$line'"
rows "$LIVE_TMP/a.out" | awk -v d="$D" '$2 == "dio" && $3 == "W" && $6 == d && $7 == 50 && $8 == 400' |
	grep -q . || fail "no line for the 50 writes: $(rows "$LIVE_TMP/a.out")"
rows "$LIVE_TMP/a.out" | awk '$8 > last && NR > 1 { exit 1 } { last = $8 }' || fail "not sorted by Kbytes"
echo "ok: one interval counts PID $wp's $N reads ($((N * 4)) Kbytes) and the 50 writes"

# -p: only the target, though another process reads the same disk; -s io sorts by I/O.
mkfifo "$LIVE_TMP/go"
(read -r _ <"$LIVE_TMP/go"; exec "$IOTAP_PROGS/dio" read "$DEV" 250 4096 >/dev/null) &
target=$!
tracer_start "$LIVE_TMP/p.out" biotop -C -p $target 3 1
tp=$TRACER_PID
tracer_start "$LIVE_TMP/s.out" biotop -C -s io 3 1
ts=$TRACER_PID
tracer_start "$LIVE_TMP/r.out" biotop -C -r 1 3 1
"$IOTAP_PROGS/dio" read "$DEV" 100 65536 seq 16777216 >/dev/null &
noise=$!
echo go >"$LIVE_TMP/go"
wait $target $noise
wait $tp $ts $TRACER_PID || fail "biotop interval runs did not exit with 0"
[ "$(rows "$LIVE_TMP/p.out" | awk -v p=$target '$1 == p && $7 == 250' | wc -l)" = 1 ] &&
	[ "$(rows "$LIVE_TMP/p.out" | wc -l)" = 1 ] || fail "-p: $(rows "$LIVE_TMP/p.out")"
rows "$LIVE_TMP/s.out" | awk '$7 > last && NR > 1 { exit 1 } { last = $7 }' || fail "-s io: not sorted"
rows "$LIVE_TMP/s.out" | awk -v t=$target -v n=$noise '$1 == t { ti = NR } $1 == n { ni = NR }
	END { exit !(ti && ni && ti < ni) }' || fail "-s io: 250 reads not before 100: $(rows "$LIVE_TMP/s.out")"
[ "$(rows "$LIVE_TMP/r.out" | wc -l)" = 1 ] || fail "-r 1: $(rows "$LIVE_TMP/r.out")"
echo "ok: -p shows only PID $target (250 reads); -s io puts it before 100 larger reads; -r 1"

# Without -C the screen is cleared as clear(1) does, every second by default and at the end.
timeout --preserve-status -s INT 2.5 "$IOTAP" biotop >"$LIVE_TMP/c.out" || fail "biotop stopped by SIGINT did not exit with 0"
[ "$(grep -c $'\033\\[H\033\\[2J\033\\[3J[0-9:]* loadavg: ' "$LIVE_TMP/c.out")" = 3 ] ||
	fail "expected 3 cleared screens in 2.5 s, got $(grep -c loadavg "$LIVE_TMP/c.out")"
echo "ok: screens cleared every second, and at Ctrl-C"

# On a terminal, lines are cut to its width.
if command -v script >/dev/null; then
	script -qec "stty cols 30; $IOTAP biotop -C 0.3 1" /dev/null >"$LIVE_TMP/t.out" </dev/null
	long=$(tr -d '\r' <"$LIVE_TMP/t.out" | awk 'length > 30' | grep -v '^Tracing' || true)
	[ -z "$long" ] || fail "lines wider than the terminal: $long"
	tr -d '\r' <"$LIVE_TMP/t.out" | grep -qx 'PID     COMM             D MAJ' || fail "header not cut to 30"
	echo "ok: lines cut to a 30-column terminal"
fi
