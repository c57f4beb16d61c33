#!/bin/bash
# Configure and build iotap out of tree in DIR (default build/), strict warnings.
# Usage: scripts/build.sh [DIR] [configure args...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
shift || true
cd "$top"
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] || "$top/configure" -q --enable-debug --enable-werror "$@"
make -s -j"$(nproc)" >/dev/null
echo "$dir/iotap"
