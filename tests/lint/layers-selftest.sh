#!/bin/bash
# layers-selftest.sh - the layer check fails on what it must catch: an upward edge and a
# circle, in crafted edge lists, in small trees compiled here (includes and nm, of a
# library and of a binary's own objects: the CLI's old main.c <-> record-main.c circle),
# and in the real tree with its order changed or an old edge put back.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
BUILD=$(dirname "${IOTAP:-./iotap}")
CHECK="python3 $SRC/tests/lint/layers.py"
T=$(mktemp -d /tmp/iotap-layers.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

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
# A folder is a layer: a module named in the order gets no rank of its own.
printf 'mid/leaf\nlow\nmid\nhigh\n' >"$T/order-leaf"
{ cat "$T/clean"; echo 'include low/b mid/leaf'; } >"$T/leaf"
expect 1 'include low/b -> mid/leaf: upward' "a module named below its folder is still in it" \
	$CHECK --order "$T/order-leaf" --allow "$T/none" --edges "$T/leaf"
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
printf 'low/b\nlow\nmid\n' >"$T/tree/order-module"
expect 1 'a layer is a folder' "an order line naming a module fails" \
	$CHECK --srcdir "$T/tree" --order "$T/tree/order-module" --allow "$T/none"
expect 1 'symbol low/b -> mid/a: upward' "an upward call seen only by nm fails" \
	$CHECK --srcdir "$T/tree" --lib "$T/tree/lib.a" --order "$T/tree/order" --allow "$T/none"
echo '#include "a.h"' >>"$T/tree/low/b.h"
expect 1 'include circle between modules low/b mid/a' "an include circle in a tree fails" \
	$CHECK --srcdir "$T/tree" --lib "$T/tree/lib.a" --order "$T/tree/order" --allow "$T/none"

# Files of one link in a circle, outside the library: the old shape of the CLI, where main.c
# both called the record command's front end and held the cli_error it calls back.
mkdir -p "$T/bin/low" "$T/bin/cli" "$T/bin/build/cli"
printf 'int b_fn(void) { return 0; }\n' >"$T/bin/low/b.c"
printf 'int b_fn(void);\nint rec_run(void);\nvoid cli_error(void) { b_fn(); }\nint main(void) { return rec_run(); }\n' \
	>"$T/bin/cli/main.c"
printf 'void cli_error(void);\nint rec_run(void) { cli_error(); return 0; }\n' >"$T/bin/cli/rec.c"
printf 'low\ncli\n' >"$T/bin/order"
(cd "$T/bin" && ${CC:-cc} -c low/b.c -o build/b.o && ar rc build/lib.a build/b.o &&
	${CC:-cc} -c cli/main.c -o build/cli/main.o && ${CC:-cc} -c cli/rec.c -o build/cli/rec.o) ||
	{ echo "FAIL: cannot compile the test tree"; exit 1; }
BIN=(--srcdir "$T/bin" --lib "$T/bin/build/lib.a" --order "$T/bin/order" --allow "$T/none")
expect 0 '^ok:' "the library alone shows no circle" $CHECK "${BIN[@]}"
expect 1 'symbol circle between modules cli/main cli/rec' "a circle between the binary's files fails" \
	$CHECK "${BIN[@]}" --obj "$T/bin/build/cli/main.o" --obj "$T/bin/build/cli/rec.o"
echo 'symbol cli/rec cli/main   # why' >"$T/bin/allow"
expect 0 '^ok:' "an allowed file circle passes" $CHECK --srcdir "$T/bin" --lib "$T/bin/build/lib.a" \
	--order "$T/bin/order" --allow "$T/bin/allow" --obj "$T/bin/build/cli/main.o" \
	--obj "$T/bin/build/cli/rec.o"
# The fix: what both call is a file of its own, which calls neither.
printf 'int rec_run(void);\nint main(void) { return rec_run(); }\n' >"$T/bin/cli/main.c"
printf 'int b_fn(void);\nvoid cli_error(void) { b_fn(); }\n' >"$T/bin/cli/shared.c"
(cd "$T/bin" && ${CC:-cc} -c cli/main.c -o build/cli/main.o &&
	${CC:-cc} -c cli/shared.c -o build/cli/shared.o) || { echo "FAIL: cannot compile the test tree"; exit 1; }
expect 0 '^ok:' "the binary's files with the shared part apart pass" $CHECK "${BIN[@]}" \
	--obj "$T/bin/build/cli/main.o" --obj "$T/bin/build/cli/rec.o" --obj "$T/bin/build/cli/shared.o"

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

# Every layer folder is on one -I path: a header name in two of them is ambiguous.
mkdir -p "$T/priv/mid"
printf 'int p2_fn(void);\n' >"$T/priv/mid/p.h"
printf 'low\nmid\n' >"$T/priv/order2"
expect 1 'p.h is in more than one layer folder: low/p.h mid/p.h' \
	"a header name in two layer folders fails" \
	$CHECK --srcdir "$T/priv" --order "$T/priv/order2" --allow "$T/none"

# The real tree: it passes with its own order, and the check reads its includes and its
# objects' symbols: list the sources below the core they are built on and both fail.
LIB=$BUILD/libiotap.a
if [ -f "$LIB" ]; then
	objs=()
	for o in ${IOTAP_OBJECTS-$(MAKEFLAGS='' make -s -C "$BUILD" print-iotap-objects)}; do
		objs+=(--obj "$BUILD/$o")
	done
	expect 0 '^ok:' "the real tree passes" $CHECK --srcdir "$SRC" --lib "$LIB" "${objs[@]}" \
		--order "$SRC/tests/lint/layers.order" --allow "$SRC/tests/lint/layers.allow"
	# Its binary's objects are read: main.o installs the stack API, a call no object of
	# the library makes; and the edge main.c's old shape had back from record-main.c
	# makes a circle again.
	grep -v '^src/stacks\b' "$SRC/tests/lint/layers.order" >"$T/order-stacks"
	echo src/stacks >>"$T/order-stacks"
	expect 1 '^FAIL: symbol src/cli/main -> src/stacks/stacks: upward' \
		"the real tree with the stack API above the CLI fails (the binary's symbols)" \
		$CHECK --srcdir "$SRC" --lib "$LIB" "${objs[@]}" --order "$T/order-stacks" \
		--allow "$SRC/tests/lint/layers.allow"
	$CHECK --srcdir "$SRC" --lib "$LIB" "${objs[@]}" --order "$SRC/tests/lint/layers.order" \
		--allow "$SRC/tests/lint/layers.allow" --print-edges >"$T/edges-real"
	echo 'symbol src/cli/record-main src/cli/main' >>"$T/edges-real"
	expect 1 'symbol circle between modules src/cli/main src/cli/record-main' \
		"the real tree with record-main calling back into main fails" \
		$CHECK --order "$SRC/tests/lint/layers.order" --allow "$SRC/tests/lint/layers.allow" \
		--edges "$T/edges-real"
	grep -vx 'src/sources' "$SRC/tests/lint/layers.order" |
		sed 's|^src/core$|src/sources\nsrc/core|' >"$T/order-real"
	for kind in include symbol; do
		expect 1 "^FAIL: $kind src/sources/[a-z-]* -> src/core/[a-z-]*: upward" \
			"the real tree with the sources below the core fails ($kind)" \
			$CHECK --srcdir "$SRC" --lib "$LIB" --order "$T/order-real" \
			--allow "$SRC/tests/lint/layers.allow"
	done
else
	echo "FAIL: no $LIB: build first (make check builds it)"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the layer check fails on upward edges and circles"
