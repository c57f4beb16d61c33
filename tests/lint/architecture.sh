#!/bin/bash
# architecture.sh - fail when the architecture picture (doc/architecture.dot) names a
# folder or file the tree no longer has, or leaves out a layer of tests/lint/layers.order,
# or when the page that tells of it (doc/architecture.md) names a path that is gone
# (tests/lint/architecture.py reads the labels; Graphviz is not needed).
# Usage: architecture.sh [DOT [PAGE]]  (default: doc/architecture.dot, doc/architecture.md)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
exec python3 "$SRC/tests/lint/architecture.py" --srcdir "$SRC" \
	--dot "${1:-$SRC/doc/architecture.dot}" --order "$SRC/tests/lint/layers.order" \
	--page "${2:-$SRC/doc/architecture.md}"
