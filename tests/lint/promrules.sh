#!/bin/bash
# promrules.sh - contrib/prometheus's rules files pass `promtool check rules`; they read only
# metrics the exporter names (src/), Prometheus' own up, series they record, or the planned
# ones tests/live/promrules.py lists; each recorded name is level:metric:operations; and
# every alert fires in one of tests/prometheus's unit tests and stays quiet in another
# (tests/prometheus/unit.sh runs them). promrules-selftest.sh shows each check failing.
# Usage: promrules.sh [TREE]   (TREE: a source tree, default this one)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
TREE=${1:-$SRC}
CHECK=$SRC/tests/live/promrules.py
# A tree with checks of its own (a copy promrules-selftest.sh made) is read with them.
[ -f "$TREE/tests/live/promrules.py" ] && CHECK=$TREE/tests/live/promrules.py
command -v promtool >/dev/null || { echo "SKIP: no promtool to check the rules: apt-get install prometheus (scripts/deps.sh test)"; exit 77; }
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	{ echo "SKIP: no python3 with yaml to read the rules: apt-get install python3-yaml (scripts/deps.sh test)"; exit 77; }

rules=("$TREE"/contrib/prometheus/*.yml)
tests=("$TREE"/tests/prometheus/*.test.yml)
[ -e "${rules[0]}" ] || { echo "FAIL: no rules in $TREE/contrib/prometheus"; exit 1; }
[ -e "${tests[0]}" ] || { echo "FAIL: no unit tests in $TREE/tests/prometheus"; exit 1; }
promtool check rules "${rules[@]}" || { echo "FAIL: promtool check rules"; exit 1; }
python3 "$CHECK" sources "$TREE" "${rules[@]}" || { echo "FAIL: the rules read metrics no one serves"; exit 1; }
python3 "$CHECK" coverage "${rules[@]}" -- "${tests[@]}" || { echo "FAIL: alerts without unit tests"; exit 1; }
echo "ok: ${#rules[@]} rules files pass promtool check rules; they read served metrics only; every alert is tested fired and not fired"
