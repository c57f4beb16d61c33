#!/bin/bash
# layers-selftest.sh - the layer check fails on what it must catch: an upward edge and a
# circle, in crafted edge lists, in a small tree compiled here (includes and nm), and in
# the real tree with one line of the allow list taken out.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
BUILD=$(dirname "${IOTAP:-./iotap}")
CHECK="python3 $SRC/tests/lint/layers.py"
T=$(mktemp -d /tmp/iotap-layers.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0

# expect RC PATTERN NAME CMD... - CMD exits RC and its output has PATTERN
expect() {
	local rc=$1 pat=$2 name=$3 out got
	shift 3
	out=$("$@" 2>&1)
	got=$?
	if [ "$got" -ne "$rc" ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "FAIL: $name: exit $got (want $rc), output lacks '$pat':"
		sed 's/^/  | /' <<<"$out"
		fails=$((fails + 1))
	else
		echo "ok: $name"
	fi
}

printf 'low\nmid\nhigh\n' >"$T/order"
: >"$T/none"
printf 'include mid/a low/b\nsymbol high/c mid/a\nsymbol mid/a mid/d\n' >"$T/clean"
expect 0 '^ok:' "a downward graph passes" $CHECK --order "$T/order" --allow "$T/none" --edges "$T/clean"
{ cat "$T/clean"; echo 'include low/b mid/a'; } >"$T/up"
expect 1 'include low/b -> mid/a: upward' "an upward include fails" \
	$CHECK --order "$T/order" --allow "$T/none" --edges "$T/up"
{ cat "$T/clean"; echo 'symbol mid/d mid/a'; } >"$T/circle"
expect 1 'symbol circle between modules mid/a mid/d' "a circle inside a layer fails" \
	$CHECK --order "$T/order" --allow "$T/none" --edges "$T/circle"
echo 'include low/b mid/a   # why' >"$T/allow-up"
expect 0 '^ok:' "an allowed upward edge passes" \
	$CHECK --order "$T/order" --allow "$T/allow-up" --edges "$T/up"
expect 1 'symbol mid/d -> mid/a\|symbol circle' "allowing one edge allows no other" \
	$CHECK --order "$T/order" --allow "$T/allow-up" --edges "$T/circle"
expect 0 'allowed edge .include low/b mid/a. is gone' "a stale allowed edge is named" \
	$CHECK --order "$T/order" --allow "$T/allow-up" --edges "$T/clean"
printf 'mid/leaf\nlow\nmid\nhigh\n' >"$T/order-leaf"
{ cat "$T/clean"; echo 'include low/b mid/leaf'; } >"$T/leaf"
expect 0 '^ok:' "a module listed below its folder may be used from there" \
	$CHECK --order "$T/order-leaf" --allow "$T/none" --edges "$T/leaf"
{ cat "$T/leaf"; echo 'symbol mid/leaf mid/a'; } >"$T/leaf-up"
expect 1 'symbol mid/leaf -> mid/a: upward' "a module listed below its folder uses it no more" \
	$CHECK --order "$T/order-leaf" --allow "$T/none" --edges "$T/leaf-up"
{ cat "$T/clean"; echo 'symbol other/x low/b'; } >"$T/nolayer"
expect 1 'other/x is in no layer' "a module outside the layers fails" \
	$CHECK --order "$T/order" --allow "$T/none" --edges "$T/nolayer"

# A tree: low/b.c calls mid/a.c's function without including its header (symbol level
# only), and mid/a.h includes low/b.h while low/b.h includes mid/a.h (an include circle).
mkdir -p "$T/tree/low" "$T/tree/mid"
printf 'int a_fn(void);\nint b_fn(void) { return a_fn(); }\n' >"$T/tree/low/b.c"
printf '#include "a.h"\nint a_fn(void) { return 1; }\n' >"$T/tree/mid/a.c"
printf '#include "b.h"\n' >"$T/tree/mid/a.h"
printf 'int b_fn(void);\n' >"$T/tree/low/b.h"
printf 'low\nmid\n' >"$T/tree/order"
(cd "$T/tree" && ${CC:-cc} -c low/b.c -o b.o && ${CC:-cc} -Ilow -c mid/a.c -o a.o &&
	ar rc lib.a a.o b.o) || { echo "FAIL: cannot compile the test tree"; exit 1; }
expect 1 'symbol low/b -> mid/a: upward' "an upward call seen only by nm fails" \
	$CHECK --srcdir "$T/tree" --lib "$T/tree/lib.a" --order "$T/tree/order" --allow "$T/none"
echo '#include "a.h"' >>"$T/tree/low/b.h"
expect 1 'include circle between modules low/b mid/a' "an include circle in a tree fails" \
	$CHECK --srcdir "$T/tree" --lib "$T/tree/lib.a" --order "$T/tree/order" --allow "$T/none"

# A private header x-local.h is x's own half: x.c including it and it including x.h is
# no circle, while another module including it uses x.
mkdir -p "$T/priv/low"
printf 'int p_fn(void);\n' >"$T/priv/low/p.h"
printf '#include "p.h"\n' >"$T/priv/low/p-local.h"
printf '#include "p-local.h"\nint p_fn(void) { return 0; }\n' >"$T/priv/low/p.c"
printf '#include "p-local.h"\n' >"$T/priv/low/q.c"
echo low >"$T/priv/order"
expect 0 '^ok:' "x.c with its x-local.h is one module" \
	$CHECK --srcdir "$T/priv" --order "$T/priv/order" --allow "$T/none"
expect 0 '^include low/q low/p$' "x-local.h included elsewhere is an edge to x" \
	$CHECK --srcdir "$T/priv" --order "$T/priv/order" --allow "$T/none" --print-edges

# The real tree: every line of the allow list is needed; take one out and its upward edge
# fails, at include level and at symbol level.
LIB=$BUILD/libiotap.a
if [ -f "$LIB" ]; then
	while IFS='|' read -r edge want; do
		grep -vF "$edge" "$SRC/tests/lint/layers.allow" >"$T/allow-real"
		[ "$(wc -l <"$T/allow-real")" -lt "$(wc -l <"$SRC/tests/lint/layers.allow")" ] ||
			{ echo "FAIL: '$edge' is not in layers-allow"; fails=$((fails + 1)); }
		expect 1 "$want" "the real tree without '$edge' fails" \
			$CHECK --srcdir "$SRC" --lib "$LIB" --order "$SRC/tests/lint/layers.order" \
			--allow "$T/allow-real"
	done <<-'END'
	symbol  src/recorder/selection src/tools/registry|symbol src/recorder/selection -> src/tools/registry: upward
	include src/sources/select src/symbols/stacks|include src/sources/select -> src/symbols/stacks: upward
	END
else
	echo "FAIL: no $LIB: build first (make check builds it)"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the layer check fails on upward edges and circles"
