#!/bin/bash
# The Grafana dashboard (contrib/grafana/iotap.json) live: a real Prometheus with
# contrib/prometheus's rules loaded scrapes `iotap exporter` on loopback while fio reads a
# loop device at a fixed rate and writes it, and writes to a second one fail; every query of
# every panel, its variables substituted as Grafana would, returns data from Prometheus
# (recorded series too); the IOPS panel's read rate equals the kernel's (/sys/block/DEV/stat)
# and fio's within 5%. Panels over metrics this exporter does not serve yet
# (tests/live/grafana.py NOT_YET_EXPORTED) or this host cannot have (no NVMe or SCSI events)
# must still be valid PromQL, and are listed. tests/live/rules.sh looks at the panels over
# an exporter with its default options.
. "$(dirname "$0")/lib.sh"
require_root
for t in prometheus curl fio python3; do
	command -v $t >/dev/null || skip "no $t: scripts/deps.sh test"
done
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
DASH=$SRC/contrib/grafana/iotap.json
CHECK=$SRC/tests/live/grafana.py
python3 "$CHECK" lint "$DASH" || fail "the dashboard's structure"

# The workload: fio reads RATE random 4 KiB blocks a second for RUN seconds (and writes
# 64 KiB ones); Grafana's $__rate_interval becomes WIN seconds, a window inside the run.
RATE=200
RUN=20
WIN=15

EDEV=""
# dash_cleanup - the loop device over the small tmpfs, then the mount, then the rest
dash_cleanup() {
	for p in $LIVE_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	[ -z "$EDEV" ] || losetup -d "$EDEV" 2>/dev/null || true
	umount "$LIVE_TMP/small" 2>/dev/null || true
	live_cleanup
}
trap dash_cleanup EXIT

DEV=$(loop_create dash 128)
D=$(basename "$DEV")
# Writes past the space of a 1 MiB tmpfs fail (BLK_STS_NOSPC): the errors panels' data.
mkdir "$LIVE_TMP/small"
mount -t tmpfs -o size=1M none "$LIVE_TMP/small" || fail "cannot mount a tmpfs"
truncate -s 16M "$LIVE_TMP/small/img"
EDEV=$(losetup -f --show "$LIVE_TMP/small/img") || fail "losetup"
E=$(basename "$EDEV")

EP=$(free_port)
INSTANCE=127.0.0.1:$EP

# Every disk: $disk is a choice among them, as on a real host. Every series: the panels of
# each option have data.
tracer_start "$LIVE_TMP/e.out" exporter --stages --queue-time --cgroups --ring 30 -o "$LIVE_TMP/dump" -l "$INSTANCE" 0.2
EXP_PID=$TRACER_PID

prom_config "$INSTANCE" "$LIVE_TMP/prom.yml" "$SRC"/contrib/prometheus/*.yml
prom_start "$LIVE_TMP/prom.yml"
prom_wait_up

# The kernel's count of completed reads of the disk, stamped, every 0.1 s.
(
	while :; do
		read -r r _ </sys/block/$D/stat
		echo "$(date +%s.%N) $r"
		sleep 0.1
	done
) >"$LIVE_TMP/stat" &
LIVE_PIDS="$LIVE_PIDS $!"

t0=$(date +%s.%N)
fio --output-format=json --output="$LIVE_TMP/fio.json" --filename="$DEV" --direct=1 \
	--ioengine=psync --time_based --runtime=$RUN \
	--name=r --rw=randread --bs=4k --rate_iops=$RATE --size=64M \
	--name=w --rw=write --bs=64k --rate_iops=20 --offset=64M --size=64M &
FIO_PID=$!
LIVE_PIDS="$LIVE_PIDS $FIO_PID"
# Writes to E fill its tmpfs, then fail; more fail every second: a counter that only appears
# with its first value shows no rate until it grows.
sleep 3
rc=0
dio write "$EDEV" 400 4096 seq 4194304 >/dev/null 2>"$LIVE_TMP/dio.err" || rc=$?
[ $rc = 1 ] || fail "the writes to $E did not fail as they should (dio exited $rc: $(cat "$LIVE_TMP/dio.err"))"
for i in $(seq 1 12); do
	sleep 1
	rc=0
	dio write "$EDEV" 1 4096 seq $(((8 + i) << 20)) >/dev/null 2>&1 || rc=$?
	[ $rc = 1 ] || fail "a write to $E at $((8 + i)) MiB did not fail (dio exited $rc)"
done
wait $FIO_PID || fail "fio failed: $(cat "$LIVE_TMP/fio.json")"
# The instant every panel is evaluated: the window before it lies inside the run.
at=$(python3 -c "print('%.3f' % ($t0 + $RUN - 1))")
# Samples scraped after it: one more scrape interval, and the exporter's 0.2 s.
sleep 2.5
curl -sf -m 5 "http://$INSTANCE/metrics" -o "$LIVE_TMP/metrics" || fail "no /metrics"

# Metrics this host cannot have: the exporter said its kernel lacks the events, or there is
# no such device. Anywhere else, their panels must return data like the rest.
nvme="the kernel has no nvme events"
scsi="the kernel has no scsi events"
if ! grep -q "no nvme:nvme_setup_cmd" "$LIVE_TMP/e.out.err"; then
	nvme=
	[ -n "$(ls /sys/class/nvme 2>/dev/null)" ] || nvme="no NVMe controller"
fi
if ! grep -q "scsi:scsi_dispatch_cmd_start/done events" "$LIVE_TMP/e.out.err"; then
	scsi=
	[ -n "$(ls /sys/class/scsi_device 2>/dev/null)" ] || scsi="no SCSI device"
fi
host=$(python3 -c 'import json, sys
nvme, scsi = sys.argv[1:]
h = {}
if nvme:
    h["iotap_nvme_command_latency_seconds_bucket"] = nvme
if scsi:
    h["iotap_scsi_command_latency_seconds_bucket"] = scsi
if nvme and scsi:
    h["iotap_exporter_unpaired_commands_total"] = nvme + ", " + scsi
print(json.dumps(h))' "$nvme" "$scsi")

# Grafana's substitutions: a multi-value variable as a regex alternation.
vars=$(printf '{"instance": "%s", "disk": "(%s|%s)", "device": ".*", "__rate_interval": "%ss", "__interval": "1s", "__range": "%ss"}' \
	"$INSTANCE" "$D" "$E" "$WIN" "$WIN")
python3 "$CHECK" vars "$DASH" "$PROM" "$vars" "{\"instance\": [\"$INSTANCE\"], \"disk\": [\"$D\", \"$E\"]}" ||
	fail "the variables do not offer this exporter and its disks"
python3 "$CHECK" eval "$DASH" "$PROM" "$at" "$vars" "$LIVE_TMP/metrics" "$host" >"$LIVE_TMP/results.json" ||
	fail "the dashboard's queries (above)"

# The IOPS panel's reads of the disk, against the kernel's over the same window and fio's.
python3 - "$DASH" "$LIVE_TMP/results.json" "$LIVE_TMP/stat" "$LIVE_TMP/fio.json" "$D" "$at" "$WIN" "$RATE" "$PROM" <<'PY' ||
import bisect, json, sys, urllib.parse, urllib.request
dash, res, stat, fio, disk = (sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3],
                              json.load(open(sys.argv[4])), sys.argv[5])
at, win, rate, prom = float(sys.argv[6]), float(sys.argv[7]), float(sys.argv[8]), sys.argv[9]
panels = [p for p in json.load(open(dash))["panels"] if p["title"] == "IOPS by op"]
assert len(panels) == 1, "no panel 'IOPS by op'"
got = [s["value"] for s in res["%d/A" % panels[0]["id"]]
       if s["metric"].get("disk") == disk and s["metric"].get("op") == "read"]
assert len(got) == 1, "IOPS by op has no read series of %s: %s" % (disk, res["%d/A" % panels[0]["id"]])
panel = got[0]
ts, reads = [], []
for line in open(stat):
    t, r = line.split()
    ts.append(float(t))
    reads.append(int(r))

def at_time(t):
    i = bisect.bisect_left(ts, t)
    assert 0 < i < len(ts), "no /sys/block stat sample around %.3f" % t
    return reads[i - 1] + (reads[i] - reads[i - 1]) * (t - ts[i - 1]) / (ts[i] - ts[i - 1])

kernel = (at_time(at) - at_time(at - win)) / win
fio_iops = [j for j in fio["jobs"] if j["jobname"] == "r"][0]["read"]["iops"]
print("IOPS panel: %s reads %.1f/s; kernel %.1f/s over the same %g s; fio %.1f/s (asked %g)"
      % (disk, panel, kernel, win, fio_iops, rate), file=sys.stderr)
if abs(panel - kernel) > 0.05 * kernel:
    # What Prometheus holds against what the kernel counted at each scrape.
    print("  evaluated at %.3f" % at, file=sys.stderr)
    for what in ('iotap_block_request_latency_seconds_count{disk="%s",op="read"}' % disk, "up"):
        q = urllib.parse.urlencode({"query": "%s[%ds]" % (what, win + 10), "time": at + 5})
        r = json.load(urllib.request.urlopen("%s/api/v1/query?%s" % (prom, q)))
        for t, v in r["data"]["result"][0]["values"]:
            print("  %s %.3f: %s, the kernel %.0f" % (what[:5], t, v, at_time(t)), file=sys.stderr)
for name, want in (("the kernel's", kernel), ("fio's", fio_iops)):
    assert abs(panel - want) <= 0.05 * want, "panel %.1f/s is not within 5%% of %s %.1f/s" % (panel, name, want)
assert abs(fio_iops - rate) <= 0.05 * rate, "fio did %.1f reads/s, asked %g" % (fio_iops, rate)
PY
	fail "the IOPS panel's rate"

# The other panels agree with the workload: fio's byte rates and sizes, random reads, quantiles
# in order, the heat map's total equal to the IOPS; the failed writes by their status.
python3 - "$DASH" "$LIVE_TMP/results.json" "$D" "$E" "$RATE" <<'PY' || fail "a panel disagrees with the workload"
import json, sys
dash, res, disk, edisk, rate = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])),
                                sys.argv[3], sys.argv[4], float(sys.argv[5]))

def series(title, ref="A", **labels):
    p = [p for p in dash["panels"] if p["title"] == title]
    assert len(p) == 1, "no panel %r" % title
    return [s for s in res["%d/%s" % (p[0]["id"], ref)]
            if all(s["metric"].get(k) == v for k, v in labels.items())]

def value(title, ref="A", **labels):
    s = series(title, ref, **labels)
    assert len(s) == 1, "%s %s: %s" % (title, labels, s)
    return s[0]["value"]

def near(what, got, want, tol=0.05):
    assert abs(got - want) <= tol * want, "%s: %g, expected %g within %g%%" % (what, got, want, tol * 100)

near("read bytes/s", value("Throughput by op", disk=disk, op="read"), rate * 4096)
near("write bytes/s", value("Throughput by op", disk=disk, op="write"), 20 * 65536)
near("mean read size", value("Mean request size by op", disk=disk, op="read"), 4096, 1e-9)
near("mean write size", value("Mean request size by op", disk=disk, op="write"), 65536, 1e-9)
near("random reads/s", value("Sequential vs random", disk=disk, op="read", pattern="random"), rate)
title = "Latency p50 / p99 / p99.9 by disk and op"
for s in series(title, "A"):
    d, o = s["metric"]["disk"], s["metric"]["op"]
    q = [s["value"], value(title, "B", disk=d, op=o), value(title, "C", disk=d, op=o)]
    assert 0 < q[0] <= q[1] <= q[2], "%s %s: p50, p99, p99.9 %s" % (d, o, q)
total = sum(s["value"] for s in series("IOPS by op"))
near("the heat map's +Inf row against the IOPS", value("Latency heat map", le="+Inf"), total, 1e-9)
e = value("Errors by status", disk=edisk, op="write", status="BLK_STS_NOSPC")
assert e > 0, "no BLK_STS_NOSPC writes of %s" % edisk
ratio = value("Error ratio by disk", disk=edisk)
assert 0 < ratio <= 1, "error ratio of %s: %g" % (edisk, ratio)
print("panels: %s reads %.0f B/s of 4096 B, writes %.0f B/s of 65536 B; %s: %.2f NOSPC writes/s, "
      "%.0f%% of its requests" % (disk, value("Throughput by op", disk=disk, op="read"),
      value("Throughput by op", disk=disk, op="write"), edisk, e, ratio * 100), file=sys.stderr)
PY
n=$(python3 "$CHECK" exprs "$DASH" | wc -l)
echo "ok: $n queries of the dashboard evaluated by Prometheus over a live exporter; the IOPS panel within 5% of the kernel and fio"
TRACER_PID=$EXP_PID
tracer_stop TERM
