#!/bin/bash
# --prom live: every file iotap writes passes promtool, and its counts equal the text output's.
. "$(dirname "$0")/lib.sh"
require_root
command -v promtool >/dev/null || skip "no promtool: apt-get install prometheus (scripts/deps.sh test)"

DEV=$(loop_create a 64)
D=$(basename "$DEV")

# snap_start FILE - copy FILE whenever it changes, to check every version written
snap_start() {
	local f=$1
	mkdir -p "$LIVE_TMP/snaps"
	(
		i=0 last=
		while :; do
			if [ -e "$f" ]; then
				m=$(stat -c %Y.%s.%i "$f" 2>/dev/null || true)
				if [ -n "$m" ] && [ "$m" != "$last" ]; then
					cp "$f" "$LIVE_TMP/snaps/$(basename "$f").$i" 2>/dev/null && i=$((i + 1))
					last=$m
				fi
			fi
			sleep 0.02
		done
	) &
	SNAP_PID=$!
	LIVE_PIDS="$LIVE_PIDS $SNAP_PID"
}

# promcheck FILE... - promtool accepts each file
promcheck() {
	local f
	for f in "$@"; do
		promtool check metrics <"$f" >"$LIVE_TMP/promtool.out" 2>&1 ||
			{ cat "$LIVE_TMP/promtool.out" "$f" >&2; fail "promtool rejects $f"; }
	done
}

# metric FILE SERIES - the value of one series line, e.g. 'x_count{disk="a"}' (taken
# literally: awk -v would unescape it)
metric() {
	S=$2 awk '$1 == ENVIRON["S"] { print $2 }' "$1"
}

# biolatency: intervals of 0.3 s over two workloads; the file is cumulative, the text per interval.
P=$LIVE_TMP/bio.prom
snap_start "$P"
tracer_start "$LIVE_TMP/b.out" biolatency -D -d "$D" --prom "$P" 0.3
dio read "$DEV" 700 4096 >/dev/null
sleep 0.5
dio read "$DEV" 300 65536 rand >/dev/null
tracer_stop
kill $SNAP_PID
! ls -d "$LIVE_TMP"/.bio.prom.?????? >/dev/null 2>&1 || fail "a temporary of $P left behind"
n=$(ls "$LIVE_TMP/snaps" | wc -l)
[ "$n" -ge 2 ] || fail "expected several versions of the file, saw $n"
promcheck "$LIVE_TMP"/snaps/* "$P"
text=$(hist_total "$LIVE_TMP/b.out" "$D")
count=$(metric "$P" "iotap_biolatency_seconds_count{disk=\"$D\"}")
inf=$(metric "$P" "iotap_biolatency_seconds_bucket{disk=\"$D\",le=\"+Inf\"}")
[ "$count" = "$text" ] && [ "$inf" = "$text" ] || fail "_count $count, +Inf $inf, text $text"
[ "$text" = 1000 ] || fail "text output and metrics count $text, expected 1000"
# Each bucket is the text's rows up to it: slot i of the text is le=2^i us (times are cut
# to whole microseconds, so a row's bound is the next power of two: prom.h).
python3 - "$LIVE_TMP/b.out" "$P" "$D" <<'PY' || fail "buckets differ from the text histograms"
import re, sys
text, prom, disk = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
slots = {}
for lo, hi, c in re.findall(r"^\s*(\d+) -> (\d+)\s*: (\d+)", text, re.M):
    i = (int(hi) + 1).bit_length() - 1
    slots[i] = slots.get(i, 0) + int(c)
cum = {}
for le, v in re.findall(r'iotap_biolatency_seconds_bucket\{disk="%s",le="([^"]+)"\} (\d+)' % disk, prom):
    cum[le] = int(v)
run = 0
for i in range(1, 28):
    run += slots.get(i, 0)
    le = "%.9g" % ((1 << i) * 1e-6)
    assert cum[le] == run, (le, cum[le], run)
prev = -1
for le, v in cum.items():
    assert v >= prev, (le, v)
    prev = v
PY
# Versions only ever grow (counters never go down).
prev=0
for f in $(ls "$LIVE_TMP"/snaps/* | sort -t. -k3 -n); do
	c=$(metric "$f" "iotap_biolatency_seconds_count{disk=\"$D\"}")
	c=${c:-0}
	[ "$c" -ge "$prev" ] || fail "_count went down: $prev -> $c in $f"
	prev=$c
done
echo "ok: biolatency --prom: $n versions pass promtool, _count $count equals the text's $text"

# bitesize: a process name that needs escaping; counts per comm equal the text.
weird='we"ird\dio'
cp "$IOTAP_PROGS/dio" "$LIVE_TMP/$weird"
P=$LIVE_TMP/size.prom
tracer_start "$LIVE_TMP/s.out" bitesize -d "$D" --prom "$P"
"$LIVE_TMP/$weird" read "$DEV" 400 4096 >/dev/null
dio read "$DEV" 100 65536 >/dev/null
tracer_stop
promcheck "$P"
[ "$(metric "$P" 'iotap_bitesize_bytes_count{comm="we\"ird\\dio"}')" = 400 ] ||
	{ cat "$P" >&2; fail "bitesize: escaped comm does not count 400"; }
# bitesize's sizes are cut to whole KiB (BCC's rows): the bound that holds a 4 KiB row is
# 8192 bytes. The exporter's sizes are bytes, exact: there 4096 is under le="4096".
[ "$(metric "$P" 'iotap_bitesize_bytes_bucket{comm="we\"ird\\dio",le="8192"}')" = 400 ] ||
	fail "bitesize: 4 KiB requests not under le=8192"
[ "$(metric "$P" 'iotap_bitesize_bytes_bucket{comm="we\"ird\\dio",le="4096"}')" = 0 ] ||
	fail "bitesize: 4 KiB requests under le=4096"
# The text's sections are "Process Name = COMM".
sed 's/^Process Name = /comm = /' "$LIVE_TMP/s.out" >"$LIVE_TMP/s.txt"
[ "$(hist_total "$LIVE_TMP/s.txt" dio)" = 100 ] || fail "bitesize text: dio counts $(hist_total "$LIVE_TMP/s.txt" dio)"
[ "$(metric "$P" 'iotap_bitesize_bytes_count{comm="dio"}')" = 100 ] || fail "bitesize: dio count is not 100"
echo "ok: bitesize --prom: comm $weird escaped and counts 400, dio 100, as the text"

# biotop: counters per process and direction equal the rows.
P=$LIVE_TMP/top.prom
tracer_start "$LIVE_TMP/t.out" biotop -C --prom "$P" 0.3
"$LIVE_TMP/$weird" read "$DEV" 250 4096 >/dev/null
tracer_stop
promcheck "$P"
req=$(awk -v d="$D" '$1 ~ /^iotap_biotop_requests_total\{/ && $1 ~ "comm=\"we\\\\\"ird" && $1 ~ "disk=\"" d "\"" { n += $2 } END { print n + 0 }' "$P")
bytes=$(awk -v d="$D" '$1 ~ /^iotap_biotop_bytes_total\{/ && $1 ~ "comm=\"we\\\\\"ird" && $1 ~ "disk=\"" d "\"" { n += $2 } END { print n + 0 }' "$P")
rows=$(awk -v d="$D" '$2 ~ /^we"ird/ && $6 == d { n += $7 } END { print n + 0 }' "$LIVE_TMP/t.out")
[ "$req" = 250 ] && [ "$rows" = 250 ] || fail "biotop: prom $req, rows $rows, expected 250"
[ "$bytes" = $((250 * 4096)) ] || fail "biotop: bytes_total $bytes"
echo "ok: biotop --prom: 250 requests, $bytes bytes, as in the rows"

# seeksize and biopattern: the same requests in their histograms and counters.
tracer_start "$LIVE_TMP/k.out" seeksize -d "$D" --prom "$LIVE_TMP/seek.prom"
t1=$TRACER_PID
tracer_start "$LIVE_TMP/p.out" biopattern -d "$D" --prom "$LIVE_TMP/pat.prom" 10
dio read "$DEV" 333 4096 >/dev/null
tracer_stop
TRACER_PID=$t1 tracer_stop
promcheck "$LIVE_TMP/seek.prom" "$LIVE_TMP/pat.prom"
sed 's/^Process Name = /comm = /' "$LIVE_TMP/k.out" >"$LIVE_TMP/k.txt"
# The disk's first request has no previous position: seeksize counts the other 332.
[ "$(metric "$LIVE_TMP/seek.prom" 'iotap_seeksize_bytes_count{comm="dio"}')" = 332 ] &&
	[ "$(hist_total "$LIVE_TMP/k.txt" dio)" = 332 ] || fail "seeksize: prom and text do not both count 332"
pat=$(awk '$1 ~ /^iotap_biopattern_requests_total/ { n += $2 } END { print n + 0 }' "$LIVE_TMP/pat.prom")
rows=$(awk -v d="$D" '$1 == d { n += $4 } END { print n + 0 }' "$LIVE_TMP/p.out")
[ "$pat" = 333 ] && [ "$rows" = 333 ] || fail "biopattern: prom $pat, text $rows, expected 333"
[ "$(metric "$LIVE_TMP/pat.prom" "iotap_biopattern_bytes_total{disk=\"$D\"}")" = $((333 * 4096)) ] ||
	fail "biopattern: bytes_total"
echo "ok: seeksize (332 seeks) and biopattern (333 requests) --prom count as the text"

# A path that cannot be written: one error line before tracing, usage status.
rc=0
"$IOTAP" biolatency --prom /nonexistent/x.prom 1 1 >/dev/null 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "bad --prom path: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: bad --prom path: $(cat "$LIVE_TMP/err")"
