#!/bin/bash
# grafana.sh - contrib/grafana/iotap.json imports into Grafana (one Prometheus datasource
# input, unique panel ids, a gridPos each, no overlap, every variable defined and used,
# every query following $instance and $disk), a panel over series that need an exporter
# option or the recording rules says so in place of "No data" (noValue), and it reads only
# metrics the exporter names or contrib/prometheus's rules record; and the check is shown to
# fail on dashboards broken in each of those ways.
# tests/live/dashboard.sh evaluates every query against a live exporter.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
DASH=$SRC/contrib/grafana/iotap.json
CHECK=$SRC/tests/live/grafana.py
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
python3 -c 'import yaml' 2>/dev/null ||
	{ echo "SKIP: no python3 yaml to read contrib/prometheus's rules: apt-get install python3-yaml (scripts/deps.sh test)"; exit 77; }
tmp=$(mktemp -d /tmp/iotap-grafana.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

python3 "$CHECK" lint "$DASH" || { echo "FAIL: $DASH"; exit 1; }
python3 "$CHECK" sources "$DASH" "$SRC" || { echo "FAIL: $DASH reads metrics src/ does not name"; exit 1; }

# broken NAME WANT PYTHON - the dashboard changed by PYTHON (on d, panels p) must fail the
# lint with a line matching WANT
broken() {
	python3 - "$DASH" "$tmp/$1.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [x for x in d["panels"] if x["type"] != "row"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
	if python3 "$CHECK" lint "$tmp/$1.json" 2>"$tmp/$1.err"; then
		echo "FAIL: the lint passes a dashboard with $1"
		exit 1
	fi
	grep -q -- "$2" "$tmp/$1.err" || { echo "FAIL: $1: $(cat "$tmp/$1.err")"; exit 1; }
}
broken dup-id "panel ids not unique" 'p[1]["id"] = p[0]["id"]'
broken no-datasource "datasource" 'del p[0]["datasource"]'
broken other-datasource "datasource" 'p[2]["targets"][0]["datasource"] = {"type": "prometheus", "uid": "prom1"}'
broken no-input "one Prometheus datasource input" 'd["__inputs"] = []'
broken unknown-var 'nosuch. is neither' 'p[0]["targets"][0]["expr"] += " * $nosuch"'
broken unused-var "used by no query" 'd["templating"]["list"].append(dict(d["templating"]["list"][0], name="extra"))'
broken no-disk 'does not follow \$disk' 'p[3]["targets"][0]["expr"] = p[3]["targets"][0]["expr"].replace(",disk=~\"$disk\"", "")'
broken no-instance 'does not follow \$instance' 'p[3]["targets"][0]["expr"] = p[3]["targets"][0]["expr"].replace("instance=~\"$instance\",", "")'
broken no-gridpos "bad gridPos" 'del p[4]["gridPos"]["w"]'
broken too-wide "bad gridPos" 'p[4]["gridPos"]["x"] = 20'
broken overlap "overlaps" 'p[5]["gridPos"] = dict(p[4]["gridPos"])'
broken heatmap-format "heat map target" 'p[0]["targets"][0]["format"] = "time_series"'
broken panel-id "id must be null" 'd["id"] = 7'
broken no-stages-novalue "needs --stages, and its noValue" \
	'del [x for x in p if x["id"] == 19][0]["fieldConfig"]["defaults"]["noValue"]'
broken no-rules-novalue "reads recorded series, and its noValue" \
	'del [x for x in p if x["id"] == 3][0]["fieldConfig"]["defaults"]["noValue"]'
broken no-disk-cgroup 'does not follow \$disk' \
	'c = [x for x in p if x["title"] == "Wait time by cause per cgroup"][0]["targets"][0]; c["expr"] = c["expr"].replace(",disk=~\"$disk\"", "")'
broken no-cgroups-novalue "needs --cgroups, and its noValue" \
	'del [x for x in p if x["title"] == "Request latency p99 per cgroup"][0]["fieldConfig"]["defaults"]["noValue"]'

# misspelt NAME WANT FROM TO - the sources check fails the dashboard with FROM made TO in a
# query of a panel that reads FROM, with a line matching WANT
misspelt() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = [t for x in d["panels"] for t in x.get("targets", []) if sys.argv[3] in t["expr"]][0]
t["expr"] = t["expr"].replace(sys.argv[3], sys.argv[4])
json.dump(d, open(sys.argv[2], "w"))' "$DASH" "$tmp/$1.json" "$3" "$4"
	if python3 "$CHECK" sources "$tmp/$1.json" "$SRC" 2>"$tmp/$1.err"; then
		echo "FAIL: sources passes a dashboard with $1"
		exit 1
	fi
	grep -q -- "$2" "$tmp/$1.err" || { echo "FAIL: $1: $(cat "$tmp/$1.err")"; exit 1; }
}
misspelt typo "latncy_seconds_bucket, which src/ never names" \
	iotap_block_request_latency_seconds_bucket iotap_block_request_latncy_seconds_bucket
misspelt unrecorded "histogram_quantile_rate1m, which no rule of contrib/prometheus records" \
	histogram_quantile_rate5m histogram_quantile_rate1m
echo "ok: $DASH passes; the lint fails 17 broken variants of it, the sources check a misspelt metric and a series no rule records"
