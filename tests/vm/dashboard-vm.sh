#!/bin/bash
# VM tier: the Grafana dashboard's NVMe and SCSI panels, which the host cannot feed (its
# kernel has no nvme or scsi events). In each Debian kernel, Debian's Prometheus, with
# contrib/prometheus's rules, scrapes a live `iotap exporter` while dio reads and writes the
# NVMe disk and reads the scsi_debug one, some reads inside its medium error range; every
# query of every panel, evaluated there, returns data, but for those over series listed as
# not exported yet (tests/live/grafana.py NOT_YET_EXPORTED). tests/live/dashboard.sh does
# the rest on the host.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
command -v prometheus >/dev/null || skip "no prometheus: scripts/deps.sh test"
DASH=$IOTAP_SRCDIR/contrib/grafana/iotap.json
CHECK=$IOTAP_SRCDIR/tests/live/grafana.py

ERR_LBA=4660
SCSI_PARAMS="scsi_debug dev_size_mb=64 delay=0 ndelay=1000000 opts=2 medium_error_start=$ERR_LBA medium_error_count=40"
# The window of $__rate_interval and $__range: the workload's last WIN seconds.
WIN=10
VARS=$(printf '{"instance": "127.0.0.1:10033", "disk": "(nvme0n1|nvme0|sda)", "device": ".*", "__rate_interval": "%ss", "__interval": "1s", "__range": "%ss"}' $WIN $WIN)
python3 "$CHECK" queries "$DASH" "$VARS" >"$LIVE_TMP/queries" || fail "the dashboard's queries"
# The rules, copied into the guest's /iotap.
RULES=() RULE_FILES=()
for r in "$IOTAP_SRCDIR"/contrib/prometheus/*.yml; do
	RULES+=("/iotap/${r##*/}")
	RULE_FILES+=(--file "$r:/iotap/${r##*/}")
done
prom_config 127.0.0.1:10033 "$LIVE_TMP/prom.yml" "${RULES[@]}"

cat >"$LIVE_TMP/guest.sh" <<GUEST
WIN=$WIN ERR_LBA=$ERR_LBA
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
# ready URL PATTERN SECONDS - wait (bounded) until URL answers with PATTERN
ready() {
	for i in $(seq 1 $(($3 * 10))); do
		wget -q -O - "$1" 2>/dev/null | grep -q "$2" && return 0
		sleep 0.1
	done
	echo "no $2 from $1 in $3 s"
	cat /tmp/exporter.out /tmp/prom.log
	exit 1
}
ip link set lo up
iotap exporter --stages --queue-time --cgroups --ring 30 -o /tmp/dump -l 127.0.0.1:10033 0.2 >/tmp/exporter.out 2>&1 &
ready http://127.0.0.1:10033/metrics iotap_build_info 30
prometheus --config.file=/iotap/prom.yml --storage.tsdb.path=/tmp/prom \
	--web.listen-address=127.0.0.1:9090 --log.level=warn >/tmp/prom.log 2>&1 &
# Its first scrape, then a workload longer than the window.
ready "http://127.0.0.1:9090/api/v1/query?query=up" '"value"' 90
start=$(date +%s)
i=0
while [ $(($(date +%s) - start)) -lt $((WIN + 3)) ]; do
	dio read /dev/nvme0n1 40 4096 rand >/dev/null
	dio write /dev/nvme0n1 10 65536 seq 1048576 >/dev/null
	dio read /dev/sda 10 4096 >/dev/null
	dio read /dev/sda 1 4096 seq $(( (ERR_LBA + (i % 5) * 8) * 512 )) >/dev/null 2>&1 &&
		echo "a read in the medium error range did not fail"
	i=$((i + 1))
	sleep 0.3
done
at=$(date +%s)
sleep 2.5
echo "== metrics"
wget -q -O - http://127.0.0.1:10033/metrics
while read -r key q; do
	echo "== q $key"
	wget -q -O - "http://127.0.0.1:9090/api/v1/query?$q&time=$at" || echo '{"status": "error", "error": "wget failed"}'
	echo
done </iotap/queries
echo "== log"
cat /tmp/exporter.out /tmp/prom.log
echo "== end"
GUEST

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--bin "$(command -v prometheus)" --mod "$SCSI_PARAMS" \
		--file "$LIVE_TMP/queries:/iotap/queries" \
		--file "$LIVE_TMP/prom.yml:/iotap/prom.yml" \
		"${RULE_FILES[@]}" \
		--timeout 240 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q "did not fail" "$out" && fail "$k: $(grep 'did not fail' "$out")"
	grep -q '^== end$' "$out" || { cat "$out"; fail "$k: the guest did not finish"; }
	rm -rf "$LIVE_TMP/r-$k"
	mkdir -p "$LIVE_TMP/r-$k"
	awk -v dir="$LIVE_TMP/r-$k" '
		/^== / { f = ""; if ($2 == "metrics") f = dir "/metrics"; if ($2 == "q") f = dir "/" $3 ".json"; next }
		f { print > f }' "$out"
	echo "$k:" >&2
	python3 "$CHECK" judge "$DASH" "$LIVE_TMP/r-$k" "$VARS" "$LIVE_TMP/r-$k/metrics" '{}' \
		>"$LIVE_TMP/r-$k/results.json" 2>"$LIVE_TMP/r-$k/judge" ||
		{ cat "$LIVE_TMP/r-$k/judge" >&2; sed -n '/^== log$/,$p' "$out" >&2; fail "$k: the dashboard's queries (above)"; }
	cat "$LIVE_TMP/r-$k/judge" >&2
	# The command panels show the disks the workload used.
	python3 - "$DASH" "$LIVE_TMP/r-$k/results.json" <<'PY' || fail "$k: the command panels"
import json, sys
dash, res = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for title, label, want in (("NVMe command latency p50 / p99 by namespace and class", "disk", "nvme0n1"),
                           ("SCSI command latency p50 / p99 by device and class", "device", None)):
    p = [p for p in dash["panels"] if p["title"] == title][0]
    got = {(s["metric"].get(label), s["metric"].get("op")) for s in res["%d/A" % p["id"]]}
    ops = {o for d, o in got if want is None or d == want}
    assert "read" in ops, "%s: no read series: %s" % (title, sorted(got))
    print("%s: %s" % (title, ", ".join("%s %s" % x for x in sorted(got))), file=sys.stderr)
PY
	echo "ok: $k: $(grep -c '^data' "$LIVE_TMP/r-$k/judge") queries return data over NVMe and SCSI disks," \
		"$(grep -c '^wait' "$LIVE_TMP/r-$k/judge") wait for series not exported yet"
done
