#!/bin/bash
# readme.sh - fail when a relative link of README.md or doc/*.md (a file, or a heading's
# #anchor) does not resolve, when a doc page is not linked from the README or not
# distributed, or when the README's set-up section is not on its first screen or quotes a
# command that is no executable script of the tree (tests/lint/readme.py).
# Usage: readme.sh [README]  (default: README.md of the tree)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
exec python3 "$SRC/tests/lint/readme.py" --srcdir "$SRC" --readme "${1:-$SRC/README.md}"
