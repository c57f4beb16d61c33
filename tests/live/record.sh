#!/bin/bash
# record and report: exact counts from a recording, the same as live; damaged files fail cleanly.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create rec 64)
D=$(basename "$DEV")
N=1500
F=$LIVE_TMP/r.iotap

# N direct reads, recorded while a live biolatency traces the same disk.
tracer_start "$LIVE_TMP/live.out" biolatency -D -d "$D"
"$IOTAP" record -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" $N 4096 >"$LIVE_TMP/offsets" \
	2>"$LIVE_TMP/rec.err" || fail "record exited $?: $(cat "$LIVE_TMP/rec.err")"
tracer_stop
[ "$(stat -c %a "$F")" = 600 ] || fail "recording mode is $(stat -c %a "$F"), expected 600"
grep -q "^iotap record: [0-9]* events in .* written to $F, 0 lost$" "$LIVE_TMP/rec.err" ||
	fail "no summary line: $(cat "$LIVE_TMP/rec.err")"
"$IOTAP" report -i "$F" biolatency -D -d "$D" >"$LIVE_TMP/rep.out" 2>"$LIVE_TMP/rep.err" ||
	fail "report failed: $(cat "$LIVE_TMP/rep.err")"
[ ! -s "$LIVE_TMP/rep.err" ] || fail "report said: $(cat "$LIVE_TMP/rep.err")"
live=$(hist_total "$LIVE_TMP/live.out" "$D"); rep=$(hist_total "$LIVE_TMP/rep.out" "$D")
[ "$live" = $N ] || fail "live biolatency counted $live, expected $N"
[ "$rep" = $N ] || fail "report biolatency counted $rep, expected $N"
[ "$(hist_sections "$LIVE_TMP/rep.out")" = "$D" ] || fail "report sections: $(hist_sections "$LIVE_TMP/rep.out")"
! grep -q '^Tracing' "$LIVE_TMP/rep.out" || fail "report printed the live banner"
# The -i form is the same command.
"$IOTAP" biolatency -i "$F" -D -d "$D" | cmp -s - "$LIVE_TMP/rep.out" || fail "biolatency -i differs from report"
echo "ok: report biolatency -D -d $D counts $N, as live did"

# biosnoop: the same N rows, at the sectors dio read.
if "$IOTAP" biosnoop --help >/dev/null 2>&1; then
	"$IOTAP" report -i "$F" biosnoop -d "$D" >"$LIVE_TMP/snoop.out" || fail "report biosnoop failed"
	awk 'NR > 1 { print $6 }' "$LIVE_TMP/snoop.out" | sort -n >"$LIVE_TMP/snoop.sectors"
	awk '{ print $1 / 512 }' "$LIVE_TMP/offsets" | sort -n >"$LIVE_TMP/want.sectors"
	[ "$(wc -l <"$LIVE_TMP/snoop.sectors")" = $N ] || fail "biosnoop rows: $(wc -l <"$LIVE_TMP/snoop.sectors")"
	cmp -s "$LIVE_TMP/snoop.sectors" "$LIVE_TMP/want.sectors" || fail "biosnoop sectors differ from dio's"
	echo "ok: report biosnoop gives the $N rows at dio's sectors"
else
	echo "skip: no biosnoop tool yet; its assertion is left out"
fi

# --info: what, where, how many, complete.
"$IOTAP" report -i "$F" --info >"$LIVE_TMP/info" || fail "--info failed"
grep -q "^host:       $(uname -n)$" "$LIVE_TMP/info" || fail "--info host: $(cat "$LIVE_TMP/info")"
grep -q "^kernel:     Linux $(uname -r) " "$LIVE_TMP/info" || fail "--info kernel"
grep -q "^cpus:       $(nproc)$" "$LIVE_TMP/info" || fail "--info cpus"
grep -q "^command:    $IOTAP_PROGS/dio read $DEV $N 4096 (pid [0-9]*)$" "$LIVE_TMP/info" || fail "--info command"
grep -q "^  block:block_rq_complete  *[0-9]*$" "$LIVE_TMP/info" || fail "--info events"
grep -q "^lost:       0$" "$LIVE_TMP/info" || fail "--info lost"
grep -q "^complete:   yes$" "$LIVE_TMP/info" || fail "--info complete"
echo "ok: --info describes the recording"

# -- COMMAND counts exactly the command's I/O, though another process reads the same disk.
"$IOTAP_PROGS/dio" read "$DEV" 10000000 4096 rand >/dev/null 2>&1 &
noise=$!
LIVE_PIDS="$LIVE_PIDS $noise"
sleep 0.2
"$IOTAP" record -f -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" 700 4096 seq 1048576 >/dev/null \
	2>"$LIVE_TMP/rec.err" || fail "record -- failed: $(cat "$LIVE_TMP/rec.err")"
kill $noise; wait $noise 2>/dev/null || true
pid=$("$IOTAP" report -i "$F" --info | sed -n 's/^command: .*(pid \([0-9]*\))$/\1/p')
[ -n "$pid" ] || fail "--info has no command pid"
got=$("$IOTAP" report -i "$F" biolatency -d "$D" -p "$pid" | hist_total /dev/stdin)
[ "$got" = 700 ] || fail "record -- dio: -p $pid counted $got, expected 700"
all=$("$IOTAP" report -i "$F" biolatency -d "$D" | hist_total /dev/stdin)
[ "$all" -gt 700 ] || fail "the noise was not recorded ($all)"
echo "ok: record -- dio counts the command's 700 reads ($all with the noise)"

# Overwriting needs -f: one line, exit 1, file untouched.
sum=$(md5sum <"$F")
rc=0; "$IOTAP" record -o "$F" -D 1 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "overwrite without -f: rc $rc, $(cat "$LIVE_TMP/err")"
grep -q "exists; use -f to overwrite it" "$LIVE_TMP/err" || fail "overwrite message: $(cat "$LIVE_TMP/err")"
[ "$(md5sum <"$F")" = "$sum" ] || fail "the existing file was changed"
echo "ok: an existing file needs -f"

# -D stops by itself; intervals follow recorded time.
start=$(date +%s%N)
timeout 10 "$IOTAP" record -f -o "$F" -D 2 2>/dev/null || fail "record -D 2 failed"
el=$((($(date +%s%N) - start) / 1000000))
[ $el -ge 1900 ] && [ $el -lt 4000 ] || fail "record -D 2 took $el ms"
n=$("$IOTAP" report -i "$F" biolatency -T 0.5 | grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] *$' || true)
[ "$n" -ge 4 ] && [ "$n" -le 5 ] || fail "0.5 s intervals over 2 s gave $n reports"
echo "ok: -D 2 took $el ms; 0.5 s intervals give $n reports"

# Damaged files: one clear error or a report marked cut short; never a crash or a hang.
"$IOTAP" record -f -o "$F" -- "$IOTAP_PROGS/dio" read "$DEV" 8000 4096 >/dev/null 2>&1 || fail "record"
# damaged WHAT - report biolatency over $LIVE_TMP/bad; prints "error" or "partial"
damaged() {
	local rc=0
	timeout 10 "$IOTAP" report -i "$LIVE_TMP/bad" biolatency -d "$D" >"$LIVE_TMP/bad.out" \
		2>"$LIVE_TMP/bad.err" || rc=$?
	[ $rc -lt 124 ] || fail "$1: exit $rc (crash or hang)"
	if [ $rc != 0 ]; then
		[ "$(wc -l <"$LIVE_TMP/bad.err")" = 1 ] || fail "$1: not one error line: $(cat "$LIVE_TMP/bad.err")"
		grep -q "^iotap biolatency: cannot read '$LIVE_TMP/bad': " "$LIVE_TMP/bad.err" ||
			fail "$1: unclear error: $(cat "$LIVE_TMP/bad.err")"
		[ ! -s "$LIVE_TMP/bad.out" ] || fail "$1: error with output"
		echo error
	else
		[ "$(wc -l <"$LIVE_TMP/bad.err")" = 1 ] || fail "$1: stderr: $(cat "$LIVE_TMP/bad.err")"
		grep -q "warning: '$LIVE_TMP/bad' was cut short at byte [0-9]*" "$LIVE_TMP/bad.err" ||
			fail "$1: partial without the warning: $(cat "$LIVE_TMP/bad.err")"
		grep -q 'usecs.*distribution' "$LIVE_TMP/bad.out" || fail "$1: partial report has no histogram"
		echo partial
	fi
}
# Offsets from the chunk headers (iotap-recording(5)): inside the first, second and last
# record chunks, and inside END.
read -r meta ev1 ev1_end ev2 size < <(python3 - "$F" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, evts = 20, []
while off < len(d):
    _, t, _, clen = struct.unpack_from('<4sIII', d, off)
    if t == 0x4154454d:
        meta = off + 30
    if t == 0x53545645:
        evts.append((off, off + 24 + clen))
    off += 24 + clen
assert len(evts) >= 3, evts
print(meta, evts[0][0] + 100, evts[0][1], (evts[1][0] + evts[1][1]) // 2, len(d))
PY
)
for cut in 0:error 10:error 19:error 20:error 100:error $meta:error $ev1:error \
	$((ev1_end + 5)):partial $ev2:partial $((size - 30)):partial $((size - 1)):partial; do
	head -c "${cut%%:*}" "$F" >"$LIVE_TMP/bad"
	r=$(damaged "cut at ${cut%%:*}")
	[ "$r" = "${cut#*:}" ] || fail "cut at ${cut%%:*}: $r, expected ${cut#*:}"
	case ${cut#*:} in error) ;; *)
		got=$(hist_total "$LIVE_TMP/bad.out")
		[ "$got" -gt 0 ] && [ "$got" -le 8000 ] || fail "cut at ${cut%%:*} counted $got" ;;
	esac
done
head -c $((size - 1)) "$F" >"$LIVE_TMP/bad"
damaged "cut in END" >/dev/null
[ "$(hist_total "$LIVE_TMP/bad.out")" = 8000 ] || fail "cut in END lost reads: $(hist_total "$LIVE_TMP/bad.out")"
python3 - "$F" "$LIVE_TMP" <<'PY'
import sys, zlib, struct
src, tmp = sys.argv[1], sys.argv[2]
data = bytearray(open(src, 'rb').read())
def put(name, b):
    open(f"{tmp}/{name}", 'wb').write(b)
flip = bytearray(data); flip[len(data) // 2] ^= 0x10; put("flip", flip)
flip = bytearray(data); flip[30] ^= 0x01; put("flip-hdr", flip)
magic = bytearray(data); magic[0:8] = b"NOTAREC!"; put("magic", magic)
fut = bytearray(data); fut[8:10] = struct.pack("<H", 2)
fut[16:20] = struct.pack("<I", zlib.crc32(bytes(fut[0:16]))); put("future", fut)
put("garbage", bytes(range(256)) * 64)
PY
: >"$LIVE_TMP/empty"
for c in flip:corrupt flip-hdr:corrupt magic:"not an iotap recording" \
	future:"newer format version" garbage:"not an iotap recording" \
	empty:"not an iotap recording"; do
	cp "$LIVE_TMP/${c%%:*}" "$LIVE_TMP/bad"
	[ "$(damaged "${c%%:*}")" = error ] || fail "${c%%:*} was not refused"
	grep -q "${c#*:}" "$LIVE_TMP/bad.err" || fail "${c%%:*}: $(cat "$LIVE_TMP/bad.err")"
done
echo "ok: truncated, bit-flipped, empty, wrong magic and future version fail cleanly"

# An unprivileged user reports without touching this machine's tracefs, /proc or /sys.
PUB=$(mktemp -d /tmp/iotap-pub.XXXXXX)
trap 'rm -rf "$PUB"; live_cleanup' EXIT
cp "$F" "$PUB/r.iotap"
chmod 755 "$PUB"; chown nobody "$PUB/r.iotap"
want=$("$IOTAP" report -i "$F" biolatency -D -d "$D")
got=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" report -i "$PUB/r.iotap" \
	biolatency -D -d "$D" 2>"$LIVE_TMP/nobody.err") || fail "report as nobody: $(cat "$LIVE_TMP/nobody.err")"
[ "$got" = "$want" ] || fail "report as nobody differs"
[ "$(hist_total <(echo "$got") "$D")" = 8000 ] || fail "report as nobody counted $(hist_total <(echo "$got") "$D")"
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace; the leak check is done by the other runs.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=%file -o "$LIVE_TMP/strace" \
		"$IOTAP" report -i "$F" biolatency -D -d "$D" >/dev/null 2>&1
	# glibc's allocator reads overcommit_memory when it trims a thread's heap: not a fact
	# about the traced machine.
	grep -E '"(/sys|/proc|/dev/loop)|tracing|kallsyms' "$LIVE_TMP/strace" |
		grep -v -e '/proc/self/' -e '"/proc/sys/vm/overcommit_memory"' >"$LIVE_TMP/touched" || true
	[ ! -s "$LIVE_TMP/touched" ] || fail "report read this machine: $(head -3 "$LIVE_TMP/touched")"
fi
echo "ok: nobody reports the same 8000 reads; report reads nothing of this machine"
