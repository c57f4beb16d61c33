#!/bin/bash
# biostacks and iostack live: exact folded counts of a known call chain (frame pointers and
# DWARF), the kernel read path, text layouts, -io, --max-stack, SVG flame graphs, and
# symbols from a recording after the binary is gone.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create stk 64)
D=$(basename "$DEV")
N=300
FP=$IOTAP_PROGS/stacky_fp
DW=$IOTAP_PROGS/stacky_dwarf
[ -x "$FP" ] && [ -x "$DW" ] || fail "no stacky test programs in $IOTAP_PROGS"

# folded_sum FILE PATTERN - the total weight of the folded lines matching PATTERN (grep -E)
folded_sum() {
	grep -E -- "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'
}

CHAIN='main;outer_fn;middle_fn;inner_fn;'

# biostacks -f: one line for the N reads, user chain in order, then the kernel read path.
tracer_start "$LIVE_TMP/bf.out" biostacks -d "$D" -f
"$FP" "$DEV" $N
tracer_stop
grep -q 'Tracing block I/O' "$LIVE_TMP/bf.out" && fail "-f output has the banner"
line=$(grep "^stacky_fp;" "$LIVE_TMP/bf.out" || true)
[ "$(echo "$line" | grep -c .)" = 1 ] || fail "biostacks -f: expected one stacky_fp line: $(cat "$LIVE_TMP/bf.out")"
echo "$line" | grep -q "$CHAIN" || fail "biostacks -f: no $CHAIN in: $line"
echo "$line" | grep -Eq "inner_fn;.*(_sys_pread64|;vfs_read;|;blkdev_read_iter;)" ||
	fail "biostacks -f: no read syscall path after inner_fn: $line"
[ "${line##* }" = $N ] || fail "biostacks -f counted ${line##* }, expected $N"
echo "ok: biostacks -f: stacky_fp;...;$CHAIN...read path... $N"

# iostack -U -f: the bytes of the N reads under disk;comm;...;inner_fn.
tracer_start "$LIVE_TMP/if.out" iostack -U -f
"$FP" "$DEV" $N
tracer_stop
got=$(folded_sum "$LIVE_TMP/if.out" "^$D;stacky_fp;.*${CHAIN%;} ")
[ "$got" = $((N * 4096)) ] || fail "iostack -U -f: $got bytes for $CHAIN, expected $((N * 4096)): $(grep stacky "$LIVE_TMP/if.out")"
grep "^$D;stacky_fp;" "$LIVE_TMP/if.out" | grep -q 'vfs_read\|_sys_pread64' && fail "iostack -U kept kernel frames"
echo "ok: iostack -U -f: $D;stacky_fp;...;${CHAIN%;} $((N * 4096))"

# DWARF: without frame pointers only --call-graph dwarf finds the callers of inner_fn.
tracer_start "$LIVE_TMP/df.out" biostacks -d "$D" -f --call-graph dwarf
"$DW" "$DEV" $N
tracer_stop
[ "$(folded_sum "$LIVE_TMP/df.out" "^stacky_dwarf;.*$CHAIN")" = $N ] ||
	fail "biostacks --call-graph dwarf: $(cat "$LIVE_TMP/df.out" "$LIVE_TMP/df.out.err")"
tracer_start "$LIVE_TMP/du.out" iostack -U -f --call-graph dwarf
"$DW" "$DEV" $N
tracer_stop
[ "$(folded_sum "$LIVE_TMP/du.out" "^$D;stacky_dwarf;.*${CHAIN%;} ")" = $((N * 4096)) ] ||
	fail "iostack --call-graph dwarf: $(grep stacky "$LIVE_TMP/du.out")"
tracer_start "$LIVE_TMP/dn.out" iostack -U -f
"$DW" "$DEV" $N
tracer_stop
grep "^$D;stacky_dwarf;" "$LIVE_TMP/dn.out" | grep -q "outer_fn;middle_fn" &&
	fail "frame pointers walked a binary built without them: $(grep stacky "$LIVE_TMP/dn.out")"
echo "ok: --call-graph dwarf: $CHAIN without frame pointers (biostacks $N, iostack $((N * 4096)) bytes)"

# exec: stacks taken before a process execs are named with the image it had then.
tracer_start "$LIVE_TMP/ex.out" biostacks -d "$D" -f
"$FP" "$DEV" $N 4096 exec "$IOTAP_PROGS/dio" read "$DEV" 100 4096 >/dev/null
tracer_stop
[ "$(folded_sum "$LIVE_TMP/ex.out" "^stacky_fp;.*$CHAIN.*(_sys_pread64|;vfs_read;)")" = $N ] ||
	fail "biostacks across an exec: not $N under stacky_fp;...;$CHAIN: $(cat "$LIVE_TMP/ex.out")"
[ "$(folded_sum "$LIVE_TMP/ex.out" "^dio;")" = 100 ] ||
	fail "biostacks across an exec: not 100 for dio after it: $(cat "$LIVE_TMP/ex.out")"
echo "ok: across an exec: $N under stacky_fp's $CHAIN, then 100 under dio, same pid"

# Text: bpftrace's @usecs[stack] layout; iostack's disk/frames/comm [pid]/R: W: entries.
tracer_start "$LIVE_TMP/bt.out" biostacks -d "$D"
"$FP" "$DEV" $N
tracer_stop
awk -v n=$N '
	/^@usecs\[$/ { inb = 1; frames = ""; next }
	inb && /^\]: $/ { inb = 0; hist = (frames ~ /inner_fn\+[0-9]+ middle_fn\+[0-9]+ outer_fn\+[0-9]+ main\+/); next }
	inb { if ($0 !~ /^    [^ ]/) bad = 1; frames = frames " " substr($0, 5); next }
	hist && /^\[[0-9KMG, ]+[])] +[0-9]+ \|[@ ]+\|$/ {
		split($0, a, "|"); m = split(a[1], b, " ")
		if (length(a[2]) != 52 || length(a[1]) != 25) bad = 1
		total += b[m]
	}
	END { exit !(total == n && !bad) }' "$LIVE_TMP/bt.out" ||
	fail "biostacks text: not one @usecs[...] histogram of $N under inner_fn/middle_fn/outer_fn/main: $(cat "$LIVE_TMP/bt.out")"
echo "ok: biostacks prints @usecs[frames]: histogram of $N reads, frames innermost first"

tracer_start "$LIVE_TMP/it.out" iostack -P
"$FP" "$DEV" $N &
spid=$!
wait $spid
tracer_stop
awk -v d="disk $D" -v who="    stacky_fp [$spid]" -v r="    R: $((N * 4096)), W: 0" '
	$0 == d { e = 1; f = ""; next }
	e && $0 == who { w = 1; next }
	e && w { ok = ok || ($0 == r && f ~ /inner_fn\+.*middle_fn\+.*outer_fn\+/ && f ~ /vfs_read|_sys_pread64/); e = w = 0; next }
	e { f = f $0 }
	END { exit !ok }' "$LIVE_TMP/it.out" ||
	fail "iostack -P: no 'disk $D' / frames / 'stacky_fp [$spid]' / 'R: $((N * 4096)), W: 0' entry: $(cat "$LIVE_TMP/it.out")"
first=$(grep -m1 '^    R: ' "$LIVE_TMP/it.out" | awk -F'[:,]' '{ print $2 + $4 }')
max=$(grep '^    R: ' "$LIVE_TMP/it.out" | awk -F'[:,]' '{ t = $2 + $4; if (t > m) m = t } END { print m + 0 }')
[ "$first" = "$max" ] || fail "iostack: the first entry ($first bytes) is not the largest ($max)"
echo "ok: iostack -P: disk $D, frames, stacky_fp [$spid], R: $((N * 4096)), W: 0; largest first"

# -io alias, --io, and a bad value.
tracer_start "$LIVE_TMP/iw.out" iostack -K -io w -f
"$FP" "$DEV" 50
tracer_stop
grep -q "^$D;stacky_fp;" "$LIVE_TMP/iw.out" && fail "-io w counted reads"
tracer_start "$LIVE_TMP/ir.out" iostack -K --io r -f
"$FP" "$DEV" 50
tracer_stop
[ "$(folded_sum "$LIVE_TMP/ir.out" "^$D;stacky_fp;")" = $((50 * 4096)) ] || fail "--io r: $(cat "$LIVE_TMP/ir.out")"
"$IOTAP" iostack -io x >/dev/null 2>"$LIVE_TMP/bad.err" && fail "-io x accepted"
grep -q "invalid --io 'x': expected one of rw|r|w" "$LIVE_TMP/bad.err" || fail "-io x: $(cat "$LIVE_TMP/bad.err")"
"$IOTAP" iostack --help | grep -q -- '--io, -io DIR' || fail "--help does not show -io"
"$IOTAP" man iostack | grep -q -- '\\fB\\-\\-io\\fR, \\fB\\-io\\fR' || fail "the man page does not show -io"
echo "ok: -io w / --io r select the direction; -io x is refused; help and man show -io"

# --max-stack bounds every stack.
tracer_start "$LIVE_TMP/ms.out" biostacks -d "$D" -f --max-stack 4
"$FP" "$DEV" 50
tracer_stop
awk -F';' 'NF > 5 { exit 1 } END { exit !NR }' "$LIVE_TMP/ms.out" || fail "--max-stack 4: $(cat "$LIVE_TMP/ms.out")"
echo "ok: --max-stack 4 keeps at most 4 frames"

# SVG: well-formed, and a browser draws the frames.
tracer_start "$LIVE_TMP/sv.out" biostacks -d "$D" --svg "$LIVE_TMP/bs.svg" --weight latency
"$FP" "$DEV" $N
"$DW" "$DEV" 100
tracer_stop
xmllint --noout "$LIVE_TMP/bs.svg" || fail "the SVG is not well-formed"
grep -q '>outer_fn<\|outer_fn (' "$LIVE_TMP/bs.svg" || fail "the SVG has no outer_fn frame"
grep -q '@usecs\[' "$LIVE_TMP/sv.out" || fail "--svg dropped the text report"
echo "ok: --svg writes well-formed XML with the frames"
if command -v chromium >/dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d "$LIVE_TMP/chrome.XXXXXX")" \
		--screenshot="$LIVE_TMP/bs.png" --window-size=1200,600 "file://$LIVE_TMP/bs.svg" \
		>"$LIVE_TMP/chrome.log" 2>&1 || fail "chromium failed: $(tail -3 "$LIVE_TMP/chrome.log")"
	colours=$(python3 - "$LIVE_TMP/bs.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = hdr[:4]
assert depth == 8 and ctype in (2, 6), hdr
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, i = bytearray(stride), set(), 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    seen.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
    prev = line
print(len(seen))
PY
) || fail "cannot decode the screenshot"
	[ "$colours" -ge 50 ] || fail "the screenshot has only $colours colours: nothing drawn?"
	echo "ok: chromium draws the flame graph ($colours colours in $LIVE_TMP/bs.png)"
else
	echo "skip: chromium is not installed (scripts/deps.sh test): the screenshot check is left out"
fi

# A recording: a process running before it (its mappings from the MAPS section), then the
# binary removed: [unknown] (module) frames, and names again through --symfs's build-id tree.
F=$LIVE_TMP/s.iotap
cp "$FP" "$LIVE_TMP/stacky_copy"
mkfifo "$LIVE_TMP/go"
"$LIVE_TMP/stacky_copy" "$DEV" $N 4096 wait <>"$LIVE_TMP/go" &
spid=$!
LIVE_PIDS="$LIVE_PIDS $spid"
sleep 0.2
"$IOTAP" record -g --mmap-pages 1024 -o "$F" --tools biostacks,iostack -- \
	sh -c "echo go >'$LIVE_TMP/go'; while kill -0 $spid 2>/dev/null; do sleep 0.02; done" \
	2>"$LIVE_TMP/rec.err" || fail "record -g failed: $(cat "$LIVE_TMP/rec.err")"
wait $spid || fail "stacky_copy failed"
"$IOTAP" biostacks -i "$F" -d "$D" -f >"$LIVE_TMP/r1.out" 2>"$LIVE_TMP/r1.err" || fail "biostacks -i: $(cat "$LIVE_TMP/r1.err")"
[ "$(folded_sum "$LIVE_TMP/r1.out" "^stacky_copy;.*$CHAIN.*(_sys_pread64|;vfs_read;)")" = $N ] ||
	fail "biostacks -i: not $N under stacky_copy;...;$CHAIN: $(cat "$LIVE_TMP/r1.out")"
"$IOTAP" report -i "$F" iostack -U -f >"$LIVE_TMP/r2.out" || fail "report iostack failed"
[ "$(folded_sum "$LIVE_TMP/r2.out" "^$D;stacky_copy;.*${CHAIN%;} ")" = $((N * 4096)) ] ||
	fail "report iostack: not $((N * 4096)) bytes: $(cat "$LIVE_TMP/r2.out")"
echo "ok: from a recording (mappings taken before it began): $CHAIN, $N reads, $((N * 4096)) bytes"

# DWARF recordings: the recorder unwinds as it records, so the file holds callchains, not
# 8 KiB stack copies (2 x N of them would be over 4 MiB), and reports need no CFI. The
# perf ring holds all 2 x N samples (16 MiB), so that what is checked is the unwinding,
# not whether the reader kept up on a busy machine (a sample perf drops for want of room
# is an event without a stack, counted; tests/live/exact.sh checks that path).
"$IOTAP" record -g --call-graph dwarf --mmap-pages 4096 -o "$LIVE_TMP/dw.iotap" --tools biostacks,iostack -- \
	"$DW" "$DEV" $N 2>"$LIVE_TMP/dwrec.err" || fail "record --call-graph dwarf: $(cat "$LIVE_TMP/dwrec.err")"
"$IOTAP" biostacks -i "$LIVE_TMP/dw.iotap" -d "$D" -f >"$LIVE_TMP/dw.out" 2>&1 || fail "biostacks -i dw: $(cat "$LIVE_TMP/dw.out")"
[ "$(folded_sum "$LIVE_TMP/dw.out" "^stacky_dwarf;.*$CHAIN.*(_sys_pread64|;vfs_read;)")" = $N ] ||
	fail "biostacks from a dwarf recording: not $N under $CHAIN: $(cat "$LIVE_TMP/dw.out")"
"$IOTAP" iostack -i "$LIVE_TMP/dw.iotap" -U -f >"$LIVE_TMP/dwi.out" || fail "iostack -i dw failed"
[ "$(folded_sum "$LIVE_TMP/dwi.out" "^$D;stacky_dwarf;.*${CHAIN%;} ")" = $((N * 4096)) ] ||
	fail "iostack from a dwarf recording: $(cat "$LIVE_TMP/dwi.out")"
size=$(stat -c %s "$LIVE_TMP/dw.iotap")
[ "$size" -lt $((2 * 1024 * 1024)) ] || fail "the dwarf recording is $size bytes: stack copies stored?"
echo "ok: --call-graph dwarf recording: $CHAIN without frame pointers, $N reads, $((N * 4096)) bytes, $size bytes on disk"
bid=$(readelf -n "$LIVE_TMP/stacky_copy" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || fail "stacky has no build-id"
mkdir -p "$LIVE_TMP/sysroot/.build-id/${bid:0:2}"
mv "$LIVE_TMP/stacky_copy" "$LIVE_TMP/sysroot/.build-id/${bid:0:2}/${bid:2}"
"$IOTAP" biostacks -i "$F" -d "$D" -f >"$LIVE_TMP/r3.out" 2>/dev/null || fail "biostacks -i without the binary failed"
grep "^stacky_copy;" "$LIVE_TMP/r3.out" | grep -q '\[unknown\] (stacky_copy);\[unknown\] (stacky_copy)' ||
	fail "without the binary: no [unknown] (stacky_copy) frames: $(cat "$LIVE_TMP/r3.out")"
grep -q 'outer_fn' "$LIVE_TMP/r3.out" && fail "named outer_fn without the binary"
"$IOTAP" biostacks -i "$F" -d "$D" -f --symfs "$LIVE_TMP/sysroot" >"$LIVE_TMP/r4.out" 2>/dev/null ||
	fail "biostacks --symfs failed"
[ "$(folded_sum "$LIVE_TMP/r4.out" "^stacky_copy;.*$CHAIN")" = "$(folded_sum "$LIVE_TMP/r1.out" "^stacky_copy;")" ] ||
	fail "--symfs .build-id: $(cat "$LIVE_TMP/r4.out")"
echo "ok: binary gone: [unknown] (stacky_copy) frames; --symfs finds it by build-id"
