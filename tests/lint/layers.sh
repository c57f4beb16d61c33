#!/bin/bash
# layers.sh - fail when a module uses a higher layer or modules (or layers) use each other
# in a circle, at include level (the sources) and at symbol level (nm of the built
# libiotap.a and of the objects linked only into the iotap binary); the order is
# tests/lint/layers.order, known exceptions tests/lint/layers.allow.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
# make check runs in the build folder and sets IOTAP to the binary beside libiotap.a, and
# IOTAP_OBJECTS to the binary's own objects (Makefile.am: iotap_OBJECTS); by hand, make
# says which they are.
BUILD=$(dirname "${IOTAP:-./iotap}")
LIB=$BUILD/libiotap.a
[ -f "$LIB" ] || { echo "FAIL: no $LIB: build first (make check builds it)"; exit 1; }
OBJECTS=${IOTAP_OBJECTS-$(MAKEFLAGS='' make -s -C "$BUILD" print-iotap-objects)}
objs=()
for o in $OBJECTS; do
	[ -f "$BUILD/$o" ] || { echo "FAIL: no $BUILD/$o: build first (make check builds it)"; exit 1; }
	objs+=(--obj "$BUILD/$o")
done
[ ${#objs[@]} -gt 0 ] || { echo "FAIL: no objects of the iotap binary named"; exit 1; }
exec python3 "$SRC/tests/lint/layers.py" --srcdir "$SRC" --lib "$LIB" "${objs[@]}" \
	--order "$SRC/tests/lint/layers.order" --allow "$SRC/tests/lint/layers.allow" --min-modules 50
