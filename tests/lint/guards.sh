#!/bin/bash
# guards.sh - fail when a header's include guard is not named for its file: x-y.h is
# guarded by IOTAP_X_Y_H (#ifndef, then #define), so that a renamed or moved header
# cannot keep a guard that another header's name would produce.
# Usage: guards.sh [DIR...]  (default: the tree's source and test folders)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
[ $# -gt 0 ] || set -- "$SRC/kernel" "$SRC/parsers" "$SRC/src" "$SRC/tests"
n=0
bad=0
while IFS= read -r -d '' h; do
	base=$(basename "$h" .h)
	want=IOTAP_$(tr 'a-z-' 'A-Z_' <<<"$base")_H
	# The first #ifndef and the #define after it; comments before them are fine.
	got=$(awk '/^#ifndef[ \t]/ && !g { g = $2; next }
		   g && /^#define[ \t]/ { print g, $2; exit }
		   g { print g, "(none)"; exit }' "$h")
	n=$((n + 1))
	if [ "$got" != "$want $want" ]; then
		echo "FAIL: ${h#"$SRC"/}: guard '${got:-(none)}', want $want"
		bad=$((bad + 1))
	fi
done < <(find "$@" -name '*.h' -type f -print0)
[ "$n" -gt 0 ] || { echo "FAIL: no headers found under $*"; exit 1; }
[ "$bad" -eq 0 ] || { echo "$bad of $n headers have a guard not named for their file"; exit 1; }
echo "ok: $n headers guarded by IOTAP_<FILE>_H"
