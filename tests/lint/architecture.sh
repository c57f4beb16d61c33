#!/bin/bash
# architecture.sh - fail when the README's architecture picture (doc/architecture.dot) names
# a folder or file the tree no longer has, or leaves out a layer of tests/lint/layers.order,
# or when the README's Architecture section names a path that is gone
# (tests/lint/architecture.py reads the labels; Graphviz is not needed).
# Usage: architecture.sh [DOT [README]]  (default: doc/architecture.dot, README.md)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
exec python3 "$SRC/tests/lint/architecture.py" --srcdir "$SRC" \
	--dot "${1:-$SRC/doc/architecture.dot}" --order "$SRC/tests/lint/layers.order" \
	--readme "${2:-$SRC/README.md}" --section Architecture
