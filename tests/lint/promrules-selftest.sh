#!/bin/bash
# promrules-selftest.sh - promrules.sh fails on rules broken in each way it must catch, in
# copies of this tree's rules and tests: bad PromQL, a misspelt metric, a planned metric that
# src/ names by now, a recorded name out of convention, an alert never fired and one never
# quiet in the unit tests, and a test of an alert no file has.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
LINT="bash $SRC/tests/lint/promrules.sh"
command -v promtool >/dev/null || { echo "SKIP: no promtool: apt-get install prometheus (scripts/deps.sh test)"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: no python3 yaml: apt-get install python3-yaml"; exit 77; }
T=$(mktemp -d /tmp/iotap-promrules.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# tree NAME - a copy of the rules and their tests in $T/NAME, src/ a link to the real one
tree() {
	mkdir -p "$T/$1/contrib" "$T/$1/tests"
	cp -r "$SRC/contrib/prometheus" "$T/$1/contrib/"
	cp -r "$SRC/tests/prometheus" "$T/$1/tests/"
	ln -s "$SRC/src" "$T/$1/src"
}
# edit NAME FILE PYTHON - FILE (under $T/NAME) changed by PYTHON on its text s
edit() {
	python3 - "$T/$1/$2" "$3" <<'PY'
import sys
p, code = sys.argv[1], sys.argv[2]
s = open(p).read()
t = s
exec(code)
assert s != t, "the edit changed nothing"
open(p, "w").write(s)
PY
}
A=contrib/prometheus/iotap-alerts.yml
R=contrib/prometheus/iotap-recording.yml
U=tests/prometheus/iotap-alerts.test.yml

tree clean
expect 0 '^ok:' "this tree's rules pass" $LINT "$T/clean"

tree syntax
edit syntax $A 's = s.replace("increase(iotap_exporter_events_lost_total[10m])", "increase(iotap_exporter_events_lost_total[10m]")'
expect 1 'FAIL: promtool check rules' "bad PromQL fails" $LINT "$T/syntax"

tree typo
edit typo $A 's = s.replace("iotap_flight_dump_failures_total[15m]", "iotap_flight_dump_failure_total[15m]")'
expect 1 'reads iotap_flight_dump_failure_total, which src/ never names' "a misspelt metric fails" $LINT "$T/typo"

# Nothing is planned now: the copy's checks plan a metric that src/ serves.
tree planned
mkdir -p "$T/planned/tests/live"
cp "$SRC/tests/live/promrules.py" "$T/planned/tests/live/"
edit planned tests/live/promrules.py 's = s.replace("PLANNED = {\n", "PLANNED = {\n    \"iotap_flight_dump_failures_total\": \"a later exporter\",\n", 1)'
expect 1 'iotap_flight_dump_failures_total is in PLANNED, but src/ names it' "a planned metric src/ serves fails" \
	$LINT "$T/planned"

tree naming
edit naming $R 's = s.replace("record: instance_disk_op:iotap_block_request_size_bytes_sum:rate5m", "record: iotap_throughput")'
expect 1 'iotap_throughput: a recorded name is level:metric:operations' "a recorded name out of convention fails" \
	$LINT "$T/naming"

tree never-fired
edit never-fired $A 's = s.replace("      - alert: IotapEventsLost\n", "      - alert: IotapEventsDropped\n        expr: iotap_exporter_events_lost_total > 1e9\n      - alert: IotapEventsLost\n")'
expect 1 'alert IotapEventsDropped fires in no unit test' "an alert without a fired test fails" \
	$LINT "$T/never-fired"

tree never-quiet
edit never-quiet $U 's = s.replace("      - eval_time: 10m\n        alertname: IotapEventsLost\n", "").replace("      - eval_time: 25m\n        alertname: IotapEventsLost\n", "")'
expect 1 'alert IotapEventsLost has no unit test where it does not fire' "an alert without a quiet test fails" \
	$LINT "$T/never-quiet"

tree stale
edit stale $A 's = s.replace("alert: IotapFlightDumpFailures", "alert: IotapFlightDumpsFailing")'
expect 1 'a unit test expects alert IotapFlightDumpFailures, which no rules file has' "a test of a gone alert fails" \
	$LINT "$T/stale"

[ $fails = 0 ] || exit 1
echo "ok: promrules.sh fails on each of 7 broken copies of the rules"
