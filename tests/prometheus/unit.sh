#!/bin/bash
# unit.sh - promtool test rules: the unit tests of contrib/prometheus's recorded series and
# of every alert (fired and not fired) over synthetic series.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
command -v promtool >/dev/null || { echo "SKIP: no promtool to run the rules' unit tests: apt-get install prometheus (scripts/deps.sh test)"; exit 77; }
tests=("$SRC"/tests/prometheus/*.test.yml)
promtool test rules "${tests[@]}" || { echo "FAIL: promtool test rules"; exit 1; }
echo "ok: promtool test rules passes ${#tests[@]} files of unit tests"
