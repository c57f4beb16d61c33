#!/bin/bash
# layers.sh - fail when a module uses a higher layer or modules (or layers) use each other
# in a circle, at include level (the sources) and at symbol level (nm of the built
# libiotap.a); the order is tests/lint/layers.order, known exceptions tests/lint/layers.allow.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
# make check runs in the build folder and sets IOTAP to the binary beside libiotap.a.
BUILD=$(dirname "${IOTAP:-./iotap}")
LIB=$BUILD/libiotap.a
[ -f "$LIB" ] || { echo "FAIL: no $LIB: build first (make check builds it)"; exit 1; }
exec python3 "$SRC/tests/lint/layers.py" --srcdir "$SRC" --lib "$LIB" \
	--order "$SRC/tests/lint/layers.order" --allow "$SRC/tests/lint/layers.allow" --min-modules 50
