#!/bin/bash
# funclen-selftest.sh - the function length check fails on a 151-line function and passes
# one of 150, whichever way its header is laid out (the name at column 0 below its return
# type, parameters on lines of their own, an __attribute__ before the name); it fails on
# what it cannot read, and passes the real tree.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(bash "$SRC/tests/lint/funclen.sh")
T=$(mktemp -d /tmp/iotap-funclen.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# body N - N lines of a function's body
body() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '\tx += %d;\n' "$i"
	done
}

# func NAME N - a definition of N lines, its header on one line
func() {
	printf 'static int %s(int x)\n{\n' "$1"
	body $(($2 - 4))
	printf '\treturn x;\n}\n'
}

# func_split NAME N - a definition of N lines: its return type on a line of its own, its
# parameters on two, a comment and a preprocessor line before it
func_split() {
	printf '/* %s - a test */\n#define UNUSED 1\nstatic int __attribute__((unused))\n' "$1"
	printf '%s(int x,\n\t int y)\n{\n' "$1"
	body $(($2 - 6))
	printf '\treturn x + y;\n}\n'
}

mkdir -p "$T/ok" "$T/long" "$T/split" "$T/open" "$T/nohead"
{ func short 10; echo; func limit 150; } >"$T/ok/a.c"
{ func_split inline 20; echo; func_split limit2 150; } >"$T/ok/b.h"
expect 0 '^ok: 4 functions in 2 files, none over 150 lines' "functions of 150 lines pass" \
	"${CHECK[@]}" "$T/ok"
{ func short 10; echo; func toolong 151; } >"$T/long/a.c"
expect 1 "^FAIL: .*/long/a.c:12: toolong is 151 lines (at most 150)$" \
	"a function of 151 lines fails" "${CHECK[@]}" "$T/long"
func_split toolong2 151 >"$T/split/b.c"
expect 1 "^FAIL: .*/split/b.c:3: toolong2 is 151 lines (at most 150)$" \
	"a function of 151 lines from its return type's line fails" "${CHECK[@]}" "$T/split"
# Indented braces (a block, a struct in the body) close no function; a struct's '};' at
# column 0 before it opens none.
{
	printf 'struct s {\n\tint a;\n};\n\nstatic int blocks(int x)\n{\n'
	printf '\tstruct s v = {\n\t\t.a = 1,\n\t};\n\n\tif (x) {\n\t\tx = v.a;\n\t}\n'
	body 140
	printf '\treturn x;\n}\n'
} >"$T/split/c.c"
expect 1 "c.c:5: blocks is 151 lines" "indented braces do not end a function" \
	"${CHECK[@]}" "$T/split/c.c"
{ printf 'static int open(void)\n{\n\treturn 0;\n\n'; func next 5; } >"$T/open/a.c"
expect 1 "^FAIL: .*/open/a.c:1: open is not closed by a } at column 0" \
	"a function with no closing brace at column 0 fails" "${CHECK[@]}" "$T/open"
printf 'static int table[] =\n{\n\t1,\n};\n' >"$T/nohead/a.c"
expect 1 "^FAIL: .*/nohead/a.c:2: a { at column 0 after no function header" \
	"a brace at column 0 after no function header fails" "${CHECK[@]}" "$T/nohead"
: >"$T/empty.c"
expect 1 "^FAIL: no function definitions found" "a tree without functions fails" \
	"${CHECK[@]}" "$T/empty.c"
expect 0 '^ok:' "the real tree passes" "${CHECK[@]}"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the function length check fails on a function over 150 lines"
