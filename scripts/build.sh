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
# What configure found depends on what is installed (cmocka decides whether the
# unit tests build) and on the arguments: configure again when either changed,
# so that demo.sh and test.sh work whichever ran first.
stamp="args: $* cmocka: $(pkg-config --exists cmocka && echo yes || echo no)"
if [ ! -f Makefile ] || [ "$(cat .iotap-configured 2>/dev/null)" != "$stamp" ]; then
	"$top/configure" -q --enable-debug --enable-werror "$@"
	echo "$stamp" >.iotap-configured
fi
make -s -j"$(nproc)" >/dev/null
echo "$dir/iotap"
