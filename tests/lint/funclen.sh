#!/bin/bash
# funclen.sh - fail when a function of the tree is over 150 lines, from its first header
# line to its closing brace (tests/lint/funclen.py reads them): a longer one does more
# than one job, and is split into helpers named for theirs. The tests are not held to it.
# Usage: funclen.sh [PATH...]  (default: src/, kernel/ and parsers/)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
[ $# -gt 0 ] || set -- "$SRC/src" "$SRC/kernel" "$SRC/parsers"
exec python3 "$SRC/tests/lint/funclen.py" --max 150 --root "$SRC" "$@"
