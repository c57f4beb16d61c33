#!/bin/bash
# Regenerate the docs' pictures from a live run (root; takes ~10 s of tracing):
# doc/heatmap.svg and .png from biolatency --heatmap, doc/timeline.png from biosnoop
# --timeline drawn by scripts/trace2svg.py. Run under the kernel lock when others trace.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
iotap=$top/build/iotap dio=$top/build/tests/progs/dio
[ -x "$iotap" ] && [ -x "$dio" ] || { echo "build first: scripts/build.sh && make -C build check TESTS=" >&2; exit 1; }
tmp=$(mktemp -d /dev/shm/iotap-doc.XXXXXX)
dev=
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev"
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 512M "$tmp/disk.img"
dev=$(losetup -f --show "$tmp/disk.img")
d=$(basename "$dev")

"$iotap" biolatency -d "$d" --heatmap "$top/doc/heatmap.svg" 0.2 >/dev/null 2>&1 &
lat=$!
"$iotap" biosnoop -Q -d "$d" --timeline "$tmp/io.json" >/dev/null 2>&1 &
snoop=$!
sleep 1.5
# Phases a heat map shows, each a few columns wide: small sequential reads, then large
# random reads with small ones beside them, then synchronous writes (with their flushes).
for i in $(seq 1 16); do
	case $i in
	[1-4]) "$dio" read "$dev" 1500 4096 >/dev/null ;;
	[5-9]|10)
		"$dio" read "$dev" 60 1048576 rand >/dev/null &
		w1=$!
		"$dio" read "$dev" 500 4096 rand >/dev/null &
		w2=$!
		"$dio" read "$dev" 300 65536 rand >/dev/null
		wait $w1 $w2 ;;
	*) "$dio" dsync "$dev" 300 16384 rand >/dev/null ;;
	esac
	sleep 0.3
done
sleep 0.5
kill -INT $lat $snoop
wait $lat $snoop
python3 "$top/scripts/trace2svg.py" "$tmp/io.json" "$tmp/timeline.svg" \
	$(python3 - "$tmp/io.json" <<'PY'
# A 4 ms window around the middle request that needed a third lane on the disk.
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
disk = {e["pid"] for e in ev if e["ph"] == "M" and e["args"].get("name", "").startswith("disk ")}
lane = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
deep = sorted(e["ts"] for e in ev if e["ph"] == "X" and e["pid"] in disk and e["cat"] == "request"
              and lane.get(e["tid"], "").endswith("lane 2"))
t = deep[len(deep) // 2] / 1000 if deep else 0
print(max(t - 1, 0), t + 3)
PY
)
shot() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$tmp/chrome" --screenshot="$2" --window-size="$3" "file://$1" >/dev/null 2>&1
}
w=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$top/doc/heatmap.svg" | head -1)
shot "$top/doc/heatmap.svg" "$top/doc/heatmap.png" "$w"
w=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$tmp/timeline.svg" | head -1)
shot "$tmp/timeline.svg" "$top/doc/timeline.png" "$w"
echo "wrote doc/heatmap.svg doc/heatmap.png doc/timeline.png"
