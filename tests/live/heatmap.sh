#!/bin/bash
# --heatmap live and from a recording: well-formed SVG, hover counts sum to the requests
# traced, columns follow the interval, and chromium draws the cells.
. "$(dirname "$0")/lib.sh"
require_root
command -v xmllint >/dev/null || skip "no xmllint: apt-get install libxml2-utils"

DEV=$(loop_create a 64)
D=$(basename "$DEV")

# hover_sum SVG - the counts of every cell's hover text, added up
hover_sum() {
	sed -n 's/.*<title>.*: count \([0-9]*\)<\/title>.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# columns SVG - how many distinct time columns have cells
columns() {
	grep -o '<rect class="cell" x="[0-9]*"' "$1" | sort -u | wc -l
}

H=$LIVE_TMP/lat.svg
tracer_start "$LIVE_TMP/b.out" biolatency -d "$D" --heatmap "$H" 0.25
dio read "$DEV" 500 4096 >/dev/null
sleep 0.6
dio read "$DEV" 200 262144 rand >/dev/null
tracer_stop
xmllint --noout "$H" || fail "the heat map is not well-formed XML"
text=$(hist_total "$LIVE_TMP/b.out")
sum=$(hover_sum "$H")
[ "$sum" = "$text" ] || fail "hover counts add up to $sum, the text histograms to $text"
[ "$sum" = 700 ] || fail "hover counts and text count $sum, expected 700"
cols=$(columns "$H")
[ "$cols" -ge 2 ] || fail "expected cells in at least two 0.25 s columns, got $cols"
grep -q '0.25 s per column' "$H" || fail "the subtitle does not give the column width"
grep -q '>time since tracing began (s)<' "$H" && grep -q '>latency<' "$H" || fail "axis names missing"
echo "ok: heat map: $sum requests in the hover texts, as the text; cells in $cols columns"

if command -v chromium >/dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$(mktemp -d "$LIVE_TMP/chrome.XXXXXX")" \
		--screenshot="$LIVE_TMP/lat.png" --window-size=900,500 "file://$H" \
		>"$LIVE_TMP/chrome.log" 2>&1 || fail "chromium failed: $(tail -3 "$LIVE_TMP/chrome.log")"
	# The hottest cell is drawn in the scale's top colour.
	python3 "$IOTAP_SRCDIR/tests/live/png.py" "$LIVE_TMP/lat.png" '#bd0026' >/dev/null ||
		fail "the screenshot shows no cell in the hottest colour"
	echo "ok: chromium draws the cells"
else
	echo "skip: chromium is not installed (scripts/deps.sh test): the screenshot check is left out"
fi

# From a recording: the same total, with the default 1 s columns.
F=$LIVE_TMP/rec.iotap
"$IOTAP" record -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" 300 4096 >/dev/null 2>"$LIVE_TMP/rec.err" ||
	fail "record failed: $(cat "$LIVE_TMP/rec.err")"
"$IOTAP" report -i "$F" biolatency -d "$D" --heatmap "$LIVE_TMP/rec.svg" >"$LIVE_TMP/r.out" ||
	fail "report --heatmap failed"
xmllint --noout "$LIVE_TMP/rec.svg" || fail "the recording's heat map is not well-formed"
[ "$(hover_sum "$LIVE_TMP/rec.svg")" = "$(hist_total "$LIVE_TMP/r.out")" ] ||
	fail "recording: hover counts $(hover_sum "$LIVE_TMP/rec.svg"), text $(hist_total "$LIVE_TMP/r.out")"
[ "$(hover_sum "$LIVE_TMP/rec.svg")" = 300 ] || fail "recording: $(hover_sum "$LIVE_TMP/rec.svg") requests, expected 300"
grep -q '1 s per column' "$LIVE_TMP/rec.svg" || fail "recording: columns are not 1 s"
echo "ok: heat map from a recording: 300 requests"

rc=0
"$IOTAP" biolatency --heatmap /nonexistent/x.svg 1 1 >/dev/null 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "bad --heatmap path: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: bad --heatmap path: $(cat "$LIVE_TMP/err")"
