#!/bin/bash
# Configure and build iotap out of tree in DIR (default build/), strict warnings.
# Usage: scripts/build.sh [--static] [DIR] [configure args...]
#   --static: the one-file binary (configure --enable-static-binary), in DIR (default
#             build-static/): doc/building.md, One file for a locked-down host
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
static=()
default=$top/build
if [ "${1:-}" = --static ]; then
	shift
	static=(--enable-static-binary)
	default=$top/build-static
fi
dir=${1:-$default}
shift || true
set -- "${static[@]+"${static[@]}"}" "$@"
cd "$top"
# Again when configure.ac changed: an old configure would ignore an option it does not know.
# A fresh machine without the autotools gets told what to run, not a silent exit.
if ! { [ -x configure ] && [ configure -nt configure.ac ]; }; then
	command -v autoreconf >/dev/null ||
		{ echo "build: no autoreconf: run scripts/deps.sh first (as root)" >&2; exit 1; }
	autoreconf -fi >/dev/null 2>&1 || { echo "build: autoreconf -fi failed" >&2; exit 1; }
fi
mkdir -p "$dir"
cd "$dir"
# What configure found depends on what is installed (cmocka decides whether the
# unit tests build, libotf2 whether report --otf2 works) and on the arguments:
# configure again when either changed, so that demo.sh and test.sh work whichever
# ran first.
stamp="args: $* cmocka: $(pkg-config --exists cmocka && echo yes || echo no)"
stamp="$stamp otf2: $(pkg-config --exists otf2 && echo yes || echo no)"
if [ ! -f Makefile ] || [ "$(cat .iotap-configured 2>/dev/null)" != "$stamp" ]; then
	"$top/configure" -q --enable-debug --enable-werror "$@"
	echo "$stamp" >.iotap-configured
fi
make -s -j"$(nproc)" >/dev/null
echo "$dir/iotap"
