#!/bin/bash
# Output files written as root into /tmp (sticky, world-writable) follow no planted symlink:
# FILE.tmp (the name older versions wrote through) and FILE itself point at a root-owned
# file; every output option (--prom, --heatmap, --timeline, --svg, record -o) must leave
# that file untouched, and a symlink at FILE is replaced by the output, not written through.
# The links are root's own, so fs.protected_symlinks does not step in: iotap must not follow.
. "$(dirname "$0")/lib.sh"
require_root
[ -k /tmp ] && [ -w /tmp ] || skip "/tmp is not a sticky world-writable directory"

SRC=${IOTAP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
L=$SRC/tests/data/recordings/linux-6.18-loop.iotap
S=$SRC/tests/golden/stacks.iotap
BASE=/tmp/iotap-outfile.$$
VICTIM=$LIVE_TMP/victim
trap 'rm -rf "$BASE".*; live_cleanup' EXIT

echo "root's own data" >"$VICTIM"
chmod 0600 "$VICTIM"
before=$(stat -c '%s %Y %i' "$VICTIM")

# victim_intact WHAT - the planted links' target is as it was
victim_intact() {
	[ "$(cat "$VICTIM")" = "root's own data" ] && [ "$(stat -c '%s %Y %i' "$VICTIM")" = "$before" ] ||
		fail "$1: the symlinks' target was written"
}

# plant F - F.tmp and F are symlinks to the victim
plant() {
	ln -sfn "$VICTIM" "$1.tmp"
	ln -sfn "$VICTIM" "$1"
}

# replaced F MODE WHAT - F is now a regular file of that mode, F.tmp still the planted link,
# and no temporary is left in /tmp
replaced() {
	[ -f "$1" ] && [ ! -L "$1" ] || fail "$3: $1 is not a regular file now"
	[ "$(stat -c %a "$1")" = "$2" ] || fail "$3: $1 has mode $(stat -c %a "$1"), expected $2"
	[ -L "$1.tmp" ] || fail "$3: the planted $1.tmp was removed or replaced"
	! ls -d /tmp/."${1##*/}".?????? >/dev/null 2>&1 || fail "$3: a temporary was left behind"
}

n=0
# --prom: each interval writes a temporary beside FILE and renames it over FILE.
F=$BASE.prom
plant "$F"
"$IOTAP" report -i "$L" biolatency --prom "$F" 0.01 >/dev/null || fail "biolatency --prom"
victim_intact --prom
replaced "$F" 644 --prom
grep -q '^iotap_biolatency_seconds_count 300$' "$F" || fail "--prom: no count of 300 in $F"
n=$((n + 1))

F=$BASE.svg
plant "$F"
"$IOTAP" report -i "$L" biolatency --heatmap "$F" >/dev/null || fail "biolatency --heatmap"
victim_intact --heatmap
replaced "$F" 644 --heatmap
grep -q '^<svg ' "$F" || fail "--heatmap: $F is no SVG"
n=$((n + 1))

F=$BASE.json
plant "$F"
"$IOTAP" report -i "$L" biosnoop --timeline "$F" >/dev/null || fail "biosnoop --timeline"
victim_intact --timeline
replaced "$F" 644 --timeline
grep -q '"ph": "X"' "$F" || fail "--timeline: $F has no slices"
n=$((n + 1))

F=$BASE.flame.svg
plant "$F"
"$IOTAP" report -i "$S" biostacks --symfs "$SRC/tests/golden/sysroot" --svg "$F" >/dev/null ||
	fail "biostacks --svg"
victim_intact --svg
replaced "$F" 644 --svg
n=$((n + 1))

# record -o writes as it goes: created exclusively under its name. Without -f the planted
# link is an existing file (refused); with -f the link itself is replaced.
F=$BASE.iotap
plant "$F"
rc=0
"$IOTAP" record -o "$F" -D 1 2>"$LIVE_TMP/err" || rc=$?
[ $rc != 0 ] && grep -q "exists; use -f to overwrite it" "$LIVE_TMP/err" ||
	fail "record -o onto a symlink without -f: rc $rc, $(cat "$LIVE_TMP/err")"
victim_intact "record -o"
[ -L "$F" ] || fail "record -o without -f removed the link"
"$IOTAP" record -f -o "$F" -D 1 2>/dev/null || fail "record -f -o"
victim_intact "record -f -o"
replaced "$F" 600 "record -f -o"
"$IOTAP" report -i "$F" --info >/dev/null || fail "record -f -o: the recording does not read back"
n=$((n + 1))

# A device under the name is never removed or written (-f -o /dev/null as root).
rc=0
"$IOTAP" record -f -o /dev/null -D 1 2>"$LIVE_TMP/err" || rc=$?
[ $rc != 0 ] && [ -c /dev/null ] && grep -q "not a regular file" "$LIVE_TMP/err" ||
	fail "record -f -o /dev/null: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: $n output options leave planted symlinks' targets untouched; /dev/null is refused"
