#!/bin/bash
# include-cycles.sh - fail when project modules include each other in a cycle.
# A module is a .c file and its .h (src/core/session.c + .h = src/core/session); an
# '#include "x.h"' is an edge to x's module, found beside the including file first, then
# in the -I folders of Makefile.am (IOTAP_INCLUDES). tsort reports any cycle in that graph.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
cd "$SRC" || exit 1
DIRS="src tracefs parsers src/core src/sources src/recording src/symbols src/output src/cli"
edges=$(mktemp /tmp/iotap-includes.XXXXXX)
trap 'rm -f "$edges" "$edges.err"' EXIT
nodes=0
while IFS= read -r f; do
	dir=$(dirname "$f")
	from=${f%.*}
	nodes=$((nodes + 1))
	echo "$from $from" >>"$edges"
	while IFS= read -r inc; do
		to=
		for d in "$dir" $DIRS; do
			if [ -f "$d/$inc" ]; then
				to=$(realpath --relative-to="$SRC" "$d/$inc")
				break
			fi
		done
		[ -n "$to" ] || continue	# a system or generated header (config.h)
		to=${to%.*}
		[ "$to" = "$from" ] || echo "$from $to" >>"$edges"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find src tracefs parsers -name '*.[ch]' | sort)
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	echo "FAIL: include cycle between modules:"
	grep -v '^tsort: -: input contains a loop:$' "$edges.err" | sed 's/^tsort: /  /'
	exit 1
fi
[ "$nodes" -gt 20 ] || { echo "FAIL: found only $nodes source files under $DIRS"; exit 1; }
echo "ok: no include cycle among $nodes source files ($(sort -u "$edges" | awk '$1 != $2' | wc -l) module edges)"
