#!/bin/bash
# record --switch-output: parts that are whole recordings, summing exactly, none counted twice.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create rot 64)
D=$(basename "$DEV")
N=3000
B=$LIVE_TMP/r.iotap

# parts_total TOOL - the sum over every part of TOOL's histogram counts on the disk
parts_total() {
	local f n=0 c
	for f in "$B".*; do
		c=$("$IOTAP" report -i "$f" "$1" -d "$D" | hist_total /dev/stdin) || fail "report $1 of $f failed"
		n=$((n + c))
	done
	echo $n
}

# Two readers at once, so that requests are in flight at every boundary; parts of 40 KiB.
"$IOTAP" record -o "$B" --switch-output 40K -- sh -c \
	"'$IOTAP_PROGS/dio' read $DEV $N 4096 rand >/dev/null & '$IOTAP_PROGS/dio' read $DEV $N 4096 rand >/dev/null; wait" \
	2>"$LIVE_TMP/rec.err" || fail "record exited $?: $(cat "$LIVE_TMP/rec.err")"
parts=$(ls "$B".* | wc -l)
[ "$parts" -ge 3 ] || fail "only $parts parts"
[ ! -e "$B" ] || fail "the base name was written too"
ls "$B".* | grep -qv '\.[0-9]\{17\}$' && fail "part names: $(ls "$B".*)"
grep -q "^iotap record: [0-9]* events in .* written to $B\.\*, 0 lost$" "$LIVE_TMP/rec.err" ||
	fail "summary: $(cat "$LIVE_TMP/rec.err")"
grep "given up" "$LIVE_TMP/rec.err" && fail "requests were given up at boundaries"
for f in "$B".*; do
	"$IOTAP" report -i "$f" --info >"$LIVE_TMP/info" || fail "--info $f"
	grep -q "^complete:   yes$" "$LIVE_TMP/info" || fail "$f is not complete"
	grep -q "^  block:block_rq_complete" "$LIVE_TMP/info" || fail "$f has no formats"
done
lat=$(parts_total biolatency); size=$(parts_total bitesize)
[ "$lat" = $((2 * N)) ] || fail "biolatency over $parts parts counted $lat, expected $((2 * N))"
[ "$size" = $((2 * N)) ] || fail "bitesize over $parts parts counted $size, expected $((2 * N))"
echo "ok: $parts parts: biolatency $lat, bitesize $size, each exactly $((2 * N))"

# --max-files 2 leaves the newest two; the removed ones were the oldest: a 16 KiB read
# first and an 8 KiB read last mark the ends of the workload (the newest part alone may
# hold none of its requests: a part can begin after the last of them), with 9000 reads
# between, three times what two parts hold.
rm -f "$B".*
"$IOTAP" record -o "$B" --switch-output 40K --max-files 2 -- sh -c \
	"'$IOTAP_PROGS/dio' read $DEV 1 16384 seq && '$IOTAP_PROGS/dio' read $DEV $((3 * N)) 4096 rand &&
	 '$IOTAP_PROGS/dio' read $DEV 1 8192 seq" >/dev/null 2>"$LIVE_TMP/rec.err" ||
	fail "record --max-files exited $?: $(cat "$LIVE_TMP/rec.err")"
[ "$(ls "$B".* | wc -l)" = 2 ] || fail "--max-files 2 left $(ls "$B".* | wc -l) parts"
for f in "$B".*; do "$IOTAP" report -i "$f" biosnoop -d "$D"; done | awk -v d="$D" '$4 == d { print $7 }' \
	>"$LIVE_TMP/sizes" || fail "report biosnoop of the kept parts failed"
kept=$(grep -cx 4096 "$LIVE_TMP/sizes" || true)
[ "$(grep -cx 8192 "$LIVE_TMP/sizes")" = 1 ] && [ "$(grep -cx 16384 "$LIVE_TMP/sizes")" = 0 ] &&
	[ "$kept" -gt 0 ] && [ "$kept" -lt $((3 * N)) ] ||
	fail "the kept parts hold $(grep -cx 8192 "$LIVE_TMP/sizes") of the last read, $(grep -cx 16384 "$LIVE_TMP/sizes") of the first and $kept of $((3 * N)) between"
echo "ok: --max-files 2 keeps two parts"

# Bad values: one line, usage exit status.
for v in 10x 0 1.5M -1; do
	rc=0; "$IOTAP" record -o "$B" --switch-output "$v" -D 1 2>"$LIVE_TMP/err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "--switch-output $v: rc $rc, $(cat "$LIVE_TMP/err")"
done
rc=0; "$IOTAP" record -o "$B" --max-files 3 -D 1 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && grep -q "needs --switch-output" "$LIVE_TMP/err" || fail "--max-files alone: rc $rc"
echo "ok: bad --switch-output values refused with one line"
