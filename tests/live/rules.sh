#!/bin/bash
# contrib/prometheus's rules live: a real Prometheus on loopback loads them and scrapes
# `iotap exporter` with its default options (but the address) while fio reads a loop device
# at a fixed rate and writes it, for longer than the rules' 5-minute window; the recorded
# IOPS of the reads equal the kernel's count of them (/sys/block/DEV/stat: adjacent reads
# may merge) and fio's rate within 5%, the recorded throughput the kernel's bytes, and the
# recorded quantiles the same quantiles computed from the raw buckets; every rule evaluates
# without error; writes that fail on a second device fire IotapBlockIOErrors, and nothing
# else fires; every panel of the Grafana dashboard without data over this exporter says what
# it needs (its noValue); the exporter stopped, IotapExporterDown is pending.
. "$(dirname "$0")/lib.sh"
require_root
# It tests the rules, over six minutes of one workload: under the sanitizers (the second
# pass of CI) the exporter they read is the one tests/live/exporter.sh already runs there.
[ -z "${ASAN_OPTIONS:-}" ] ||
	skip "the rules are tested once, in the plain build's pass (the exporter under the sanitizers: exporter.sh)"
for t in prometheus curl fio python3; do
	command -v $t >/dev/null || skip "no $t: scripts/deps.sh test"
done
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
RULES=("$SRC"/contrib/prometheus/*.yml)

# The workload: fio reads RATE random 4 KiB blocks a second and writes 20 of 64 KiB, for RUN
# seconds; the recorded series are read WIN seconds past the window's length (300 s) into it.
RATE=100
RUN=312
WIN=300

EDEV=""
# rules_cleanup - the loop device over the small tmpfs, then the mount, then the rest
rules_cleanup() {
	for p in $LIVE_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	[ -z "$EDEV" ] || losetup -d "$EDEV" 2>/dev/null || true
	umount "$LIVE_TMP/small" 2>/dev/null || true
	live_cleanup
}
trap rules_cleanup EXIT

DEV=$(loop_create rules 128)
D=$(basename "$DEV")
# Writes past the space of a 1 MiB tmpfs fail (BLK_STS_NOSPC).
mkdir "$LIVE_TMP/small"
mount -t tmpfs -o size=1M none "$LIVE_TMP/small" || fail "cannot mount a tmpfs"
truncate -s 16M "$LIVE_TMP/small/img"
EDEV=$(losetup -f --show "$LIVE_TMP/small/img") || fail "losetup"
E=$(basename "$EDEV")

EP=$(free_port)
tracer_start "$LIVE_TMP/e.out" exporter -l "127.0.0.1:$EP"
EXP_PID=$TRACER_PID
prom_config "127.0.0.1:$EP" "$LIVE_TMP/prom.yml" "${RULES[@]}"
prom_start "$LIVE_TMP/prom.yml"
prom_wait_up

# The kernel's completed reads and sectors read and written of the disk, stamped, every 0.1 s.
(
	while :; do
		read -r r _ rs _ _ _ ws _ </sys/block/$D/stat
		echo "$(date +%s.%N) $r $rs $ws"
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

wait $FIO_PID || fail "fio failed: $(cat "$LIVE_TMP/fio.json")"
# The instant the recorded series are read: their window lies inside the run.
at=$(python3 -c "print('%.3f' % ($t0 + $RUN - 2))")

# The recorded series against the kernel's counts over their own window, fio and the raw series.
python3 - "$PROM" "$at" "$WIN" "$LIVE_TMP/stat" "$LIVE_TMP/fio.json" "$D" "$RATE" <<'PY' || fail "the recorded series"
import bisect, json, sys, urllib.parse, urllib.request
prom, at, win, stat, fio, disk, rate = (sys.argv[1], float(sys.argv[2]), float(sys.argv[3]),
                                        sys.argv[4], json.load(open(sys.argv[5])), sys.argv[6],
                                        float(sys.argv[7]))

def query(expr, t):
    q = urllib.parse.urlencode({"query": expr, "time": "%.3f" % t})
    r = json.load(urllib.request.urlopen("%s/api/v1/query?%s" % (prom, q), timeout=10))
    assert r["status"] == "success", "%s: %s" % (expr, r)
    return r["data"]["result"]

def one(expr, t):
    """The one sample of expr at t: its value and when the rule recorded it."""
    res = query("timestamp(%s)" % expr, t)
    assert len(res) == 1, "%s: %s" % (expr, res)
    when = float(res[0]["value"][1])
    v = query(expr, t)
    assert len(v) == 1, "%s: %s" % (expr, v)
    return float(v[0]["value"][1]), when

ts, cols = [], []
for line in open(stat):
    f = line.split()
    ts.append(float(f[0]))
    cols.append([int(x) for x in f[1:]])

def kernel(col, t):
    i = bisect.bisect_left(ts, t)
    assert 0 < i < len(ts), "no /sys/block stat sample around %.3f" % t
    a, b = cols[i - 1][col], cols[i][col]
    return a + (b - a) * (t - ts[i - 1]) / (ts[i] - ts[i - 1])

def over_window(col, when):
    return (kernel(col, when) - kernel(col, when - win)) / win

def near(what, got, want, tol=0.05):
    assert abs(got - want) <= tol * want, "%s: %g, expected %g within %g%%" % (what, got, want, tol * 100)

sel = '{disk="%s",op="read"}' % disk
iops, when = one("instance_disk_op:iotap_block_request_latency_seconds_count:rate5m" + sel, at)
k_iops = over_window(0, when)
fio_iops = [j for j in fio["jobs"] if j["jobname"] == "r"][0]["read"]["iops"]
print("recorded IOPS: %s reads %.2f/s at %.3f; the kernel %.2f/s over its %g s; fio %.2f/s (asked %g)"
      % (disk, iops, when, k_iops, win, fio_iops, rate), file=sys.stderr)
near("recorded reads/s against the kernel's", iops, k_iops)
near("recorded reads/s against fio's", iops, fio_iops)
near("fio's reads/s against the rate asked", fio_iops, rate)

bps, when = one("instance_disk_op:iotap_block_request_size_bytes_sum:rate5m" + sel, at)
near("recorded read bytes/s against the kernel's", bps, over_window(1, when) * 512)
wsel = '{disk="%s",op="write"}' % disk
wbps, when = one("instance_disk_op:iotap_block_request_size_bytes_sum:rate5m" + wsel, at)
near("recorded write bytes/s against the kernel's", wbps, over_window(2, when) * 512)
near("recorded write bytes/s against fio's", wbps, 20 * 65536)
print("recorded throughput: %s reads %.0f B/s, writes %.0f B/s" % (disk, bps, wbps), file=sys.stderr)

name = "instance_disk_op:iotap_block_request_latency_seconds:histogram_quantile_rate5m"
q = []
for quantile in ("0.5", "0.99", "0.999"):
    v, when = one('%s{disk="%s",op="read",quantile="%s"}' % (name, disk, quantile), at)
    raw = query('histogram_quantile(%s, sum by (instance, job, disk, op, le) '
                '(rate(iotap_block_request_latency_seconds_bucket%s[5m])))' % (quantile, sel), when)
    assert len(raw) == 1, raw
    near("recorded p%g against the raw buckets'" % (float(quantile) * 100), v, float(raw[0]["value"][1]), 1e-9)
    q.append(v)
assert 0 < q[0] <= q[1] <= q[2], "p50, p99, p99.9 of %s's reads: %s" % (disk, q)
print("recorded read latency of %s: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, as from the raw buckets"
      % (disk, q[0] * 1e6, q[1] * 1e6, q[2] * 1e6), file=sys.stderr)
PY
echo "ok: the recorded IOPS, throughput and quantiles of $D equal the kernel's, fio's and the raw series'"

# The dashboard over this exporter with its default options: every panel without data says
# what it needs in place of "No data".
vars=$(printf '{"instance": "127.0.0.1:%s", "disk": "(%s|%s)", "device": ".*", "__rate_interval": "15s", "__interval": "1s", "__range": "%ss"}' \
	"$EP" "$D" "$E" "$WIN")
python3 "$SRC/tests/live/grafana.py" empty "$SRC/contrib/grafana/iotap.json" "$PROM" "$(date +%s.%N)" "$vars" \
	2>"$LIVE_TMP/empty" || { cat "$LIVE_TMP/empty" >&2; fail "dashboard panels show No data over a default exporter"; }
cat "$LIVE_TMP/empty" >&2
echo "ok: over a default exporter, $(grep -c '^empty panel' "$LIVE_TMP/empty") dashboard panels without data say what they need"

# Writes to E fill its tmpfs, then fail: the first failures fire the errors alert though their
# counter appears with them (Prometheus has scraped the exporter for the rule's 5 minutes).
rc=0
dio write "$EDEV" 400 4096 seq 4194304 >/dev/null 2>"$LIVE_TMP/dio.err" || rc=$?
[ $rc = 1 ] || fail "the writes to $E did not fail as they should (dio exited $rc: $(cat "$LIVE_TMP/dio.err"))"

# alerts - Prometheus' alerts now, one "NAME STATE LABELS-JSON" line each
alerts() {
	curl -sf "$PROM/api/v1/alerts" | python3 -c 'import json, sys
for a in json.load(sys.stdin)["data"]["alerts"]:
    l = dict(a["labels"])
    print(l.pop("alertname"), a["state"], json.dumps(l, sort_keys=True))'
}
for i in $(seq 1 100); do
	alerts >"$LIVE_TMP/alerts" || fail "no alerts from Prometheus"
	grep -q "^IotapBlockIOErrors firing .*\"disk\": \"$E\".*BLK_STS_NOSPC" "$LIVE_TMP/alerts" && break
	[ $i = 100 ] && { cat "$LIVE_TMP/alerts" >&2; fail "IotapBlockIOErrors does not fire for $E's failed writes"; }
	sleep 0.1
done
echo "ok: IotapBlockIOErrors fires for $E's failed writes: $(grep "^IotapBlockIOErrors firing .*\"$E\"" "$LIVE_TMP/alerts")"

# Every rule evaluated, none with an error; no alert fires but the errors'.
curl -sf "$PROM/api/v1/rules" | python3 -c 'import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
bad = ["%s: %s %s" % (r["name"], r["health"], r.get("lastError", "")) for r in rules if r["health"] != "ok"]
assert len(groups) == 2 and not bad, "rules not ok: %s (groups %s)" % (bad, [g["name"] for g in groups])
print("ok: %d rules in %d groups evaluate without error" % (len(rules), len(groups)))' ||
	fail "the rules' health"
alerts >"$LIVE_TMP/alerts" || fail "no alerts from Prometheus"
if grep -v '^IotapBlockIOErrors ' "$LIVE_TMP/alerts" | grep -q ' firing '; then
	cat "$LIVE_TMP/alerts" >&2
	fail "alerts fire over a sound exporter"
fi

# The exporter gone, its target is down: IotapExporterDown is pending (it fires after 5m).
TRACER_PID=$EXP_PID
tracer_stop TERM
for i in $(seq 1 100); do
	alerts >"$LIVE_TMP/alerts" || fail "no alerts from Prometheus"
	grep -q "^IotapExporterDown pending .*127.0.0.1:$EP" "$LIVE_TMP/alerts" && break
	[ $i = 100 ] && { cat "$LIVE_TMP/alerts" >&2; fail "IotapExporterDown is not pending once the exporter stopped"; }
	sleep 0.1
done
echo "ok: IotapExporterDown pending for 127.0.0.1:$EP once the exporter stopped"
