#!/bin/bash
# golden.sh - every tool over the checked-in recordings, compared byte for byte with
# tests/golden/expected (stdout, stderr and exit status). Proves a restructuring changed
# no output; the files a case writes (SVG, HTML pages) are compared too. --update rewrites the expected files instead (review the diff before committing).
# Needs no root: reports only read files. Printed paths are the recordings' short names, and
# the checkout a recorded command ran from is masked ('.../tests/progs/dio').
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/..}" && pwd)
IOTAP=${IOTAP:-$PWD/iotap}
G=$SRC/tests/golden
update=0
[ "${1:-}" = --update ] && update=1
OUT=$(mktemp -d /tmp/iotap-golden.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
export TZ=UTC LC_ALL=C
ln -sf "$SRC/tests/data/recordings/linux-6.18-loop.iotap" "$OUT/L"
ln -sf "$SRC/tests/data/recordings/linux-6.1-vm.iotap" "$OUT/V"
ln -sf "$G/mixed.iotap" "$OUT/M"
ln -sf "$G/stacks.iotap" "$OUT/S"
ln -sf "$G/devices.iotap" "$OUT/D"
ln -sf "$G/files.iotap" "$OUT/F"
ln -sf "$G/stages.iotap" "$OUT/G"
ln -sf "$G/writeback.iotap" "$OUT/W"
ln -sf "$G/iouring.iotap" "$OUT/U"
ln -sf "$G/sysroot" "$OUT/sysroot"
# perf.data has no wall clock: its times come from the file's mtime, which a checkout sets.
cp "$SRC/tests/data/perf/block-10-reads.data" "$OUT/P"
cp "$SRC/tests/data/perf/stacky-4-reads-g.data" "$OUT/Pg"
touch -d '2026-11-01 12:00:00' "$OUT/P" "$OUT/Pg"
fails=0 n=0

# html_assets PAGE - the page, its <style> and <script> blocks each one line: whether they are
# src/output/html.css and html.js byte for byte
html_assets() {
	awk -v css="$SRC/src/output/html.css" -v js="$SRC/src/output/html.js" '
		function same(file, text,   line, all) {
			all = ""
			while ((getline line < file) > 0)
				all = all line "\n"
			close(file)
			return all == text
		}
		$0 == "<style>" { in_css = 1; buf = ""; print; next }
		$0 == "</style>" && in_css { in_css = 0; print (same(css, buf) ? "[html.css]" : "[NOT html.css]"); print; next }
		$0 == "<script>" { in_js = 1; buf = ""; print; next }
		$0 == "</script>" && in_js { in_js = 0; print (same(js, buf) ? "[html.js]" : "[NOT html.js]"); print; next }
		in_css || in_js { buf = buf $0 "\n"; next }
		{ print }' "$1"
}
[ -r "$G/cases" ] || { echo "FAIL: no $G/cases"; exit 1; }
while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	n=$((n + 1))
	rm -f "$OUT"/*.svg "$OUT"/*.html
	# Run where the recordings have their short names, so printed paths do not depend on
	# the checkout.
	(cd "$OUT" && eval "set -- $args" && "$IOTAP" "$@" >stdout 2>stderr; echo $? >"$OUT/rc")
	{
		cat "$OUT/stdout"
		echo "--- stderr"
		cat "$OUT/stderr"
		echo "--- exit $(cat "$OUT/rc")"
		for f in "$OUT"/*.svg "$OUT"/*.html; do
			[ -e "$f" ] || continue
			echo "--- ${f##*/}"
			# A page's own script and style are src/output/html.js and html.css as they
			# are: said so (or not) in one line each, the rest of the page compared whole.
			case $f in
			*.html) html_assets "$f" ;;
			*) cat "$f" ;;
			esac
		done
	} | sed -e "s|$OUT/||g" -e "s|'[^' ]*/tests/progs/|'.../tests/progs/|g" >"$OUT/got"
	if [ $update = 1 ]; then
		cp "$OUT/got" "$G/expected/$name"
	elif ! cmp -s "$OUT/got" "$G/expected/$name"; then
		echo "FAIL: $name (iotap $args):"
		diff -u "$G/expected/$name" "$OUT/got" | head -20
		fails=$((fails + 1))
	fi
done <"$G/cases"
# A cases file that went missing or empty must not pass as "all identical".
[ $n -gt 0 ] || { echo "FAIL: no golden cases in $G/cases"; exit 1; }
if [ $update = 1 ]; then
	echo "updated $n expected outputs"
	exit 0
fi
[ $fails = 0 ] || { echo "$fails of $n golden outputs differ"; exit 1; }
echo "ok: $n golden outputs byte-identical"
