#!/bin/bash
# VM tier: the tools below the block layer (nvmelatency, scsilatency, scsiresult, bioerr)
# on real NVMe and scsi_debug disks with injected medium errors, live and recorded, under
# Debian's 5.10, 6.1 and 6.12 kernels (5.10 traces NVMe completions by their bare tag and no
# SCSI driver tag); the recordings are then reported here, unprivileged. The
# exporter runs beside them live: its NVMe and SCSI command histograms equal theirs.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"

# The workload: N reads, M writes and one flush on nvme0n1; NS good direct reads on sda,
# then K reads inside scsi_debug's medium error range (from LBA 0x1234, its default).
N=100 M=50 NS=50 K=5 ERR_LBA=4660
# scsi_debug answers every command after 5 ms: no latency sits below the [4K, 8K) us row.
SCSI_PARAMS="scsi_debug dev_size_mb=64 delay=0 ndelay=5000000 opts=2 medium_error_start=$ERR_LBA medium_error_count=40"

cat >"$LIVE_TMP/workload.sh" <<WORKLOAD
dio read /dev/nvme0n1 $N 4096 >/dev/null
dio write /dev/nvme0n1 $M 4096 seq 1048576 >/dev/null
dio fsync /dev/nvme0n1 1 0
dio read /dev/sda $NS 4096 >/dev/null
for i in \$(seq 0 $((K - 1))); do
	dio read /dev/sda 1 4096 seq \$(( ($ERR_LBA + i * 8) * 512 )) >/dev/null 2>&1 && echo "read \$i did not fail"
done
exit 0
WORKLOAD

cat >"$LIVE_TMP/guest.sh" <<'GUEST'
# started FILE - wait (bounded) until a background iotap printed its banner
started() {
	for i in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	echo "iotap did not start: $(cat "$1")"
	exit 1
}
echo "== write_cache $(cat /sys/block/nvme0n1/queue/write_cache)"
for tool in nvmelatency scsilatency scsiresult bioerr; do
	iotap $tool >/tmp/$tool.out 2>/tmp/$tool.err &
	eval pid_$tool=$!
	started /tmp/$tool.out
done
iotap exporter --textfile /tmp/exporter.prom 600 >/tmp/exporter.out 2>&1 &
pid_exporter=$!
started /tmp/exporter.out
sh /iotap/workload.sh
sleep 0.5
for tool in nvmelatency scsilatency scsiresult bioerr; do
	eval kill -INT \$pid_$tool
	eval wait \$pid_$tool
	echo "== live $tool"
	cat /tmp/$tool.out /tmp/$tool.err
done
kill -INT $pid_exporter
wait $pid_exporter
echo "== live exporter-log"
cat /tmp/exporter.out
echo "== live exporter"
cat /tmp/exporter.prom
iotap record -o /tmp/rec.iotap --tools nvmelatency,scsilatency,scsiresult,bioerr,exporter -- sh /iotap/workload.sh 2>/tmp/rec.err
echo "== record $(cat /tmp/rec.err)"
for tool in nvmelatency scsilatency scsiresult bioerr; do
	echo "== guest-report $tool"
	iotap $tool -i /tmp/rec.iotap 2>&1
done
# Admin commands: a namespace rescan sends Identify on queue 0; -A times them.
iotap nvmelatency -A >/tmp/adm.out 2>&1 &
t=$!
started /tmp/adm.out
echo 1 >/sys/class/nvme/nvme0/rescan_controller
sleep 2
kill -INT $t
wait $t
echo "== admin"
cat /tmp/adm.out
echo "== recording"
base64 /tmp/rec.iotap
echo "== dynamic_events"
cat /sys/kernel/tracing/dynamic_events
ls /sys/kernel/tracing/instances
echo "== end"
GUEST

# bt_total FILE KEY - the sum of one bpftrace histogram's rows (@usecs[KEY]:)
bt_total() {
	awk -v key="$2" '
		/^@[a-z]+\[/ { on = index($0, key "]:") > 0; next }
		on && /^\[/ { sub(/^[^)\]]*[)\]] */, ""); n += $1 }
		/^$/ { on = 0 }
		END { print n + 0 }' "$1"
}

# bt_bucket FILE KEY LABEL - the count of one row of one bpftrace histogram
bt_bucket() {
	awk -v key="$2" -v row="$3" '
		/^@[a-z]+\[/ { on = index($0, key "]:") > 0; next }
		on && index($0, row) == 1 { sub(/^[^)\]]*[)\]] */, ""); n += $1 }
		/^$/ { on = 0 }
		END { print n + 0 }' "$1"
}

# check_counts KERNEL LABEL DIR - the exact figures, from the outputs of one run
check_counts() {
	local k=$1 what=$2 d=$3 v
	[ "$(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_read")" = $N ] ||
		fail "$k $what: nvme_cmd_read $(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_read"), expected $N"
	[ "$(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_write")" = $M ] ||
		fail "$k $what: nvme_cmd_write $(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_write"), expected $M"
	[ "$(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_flush")" = 1 ] ||
		fail "$k $what: nvme_cmd_flush $(bt_total "$d/nvmelatency" "nvme0n1, nvme_cmd_flush"), expected 1"
	v=$(grep -c '^@usecs\[nvme0n1' "$d/nvmelatency")
	[ "$v" = 3 ] || fail "$k $what: $v nvme0n1 histograms, expected read, write and flush only"
	grep -q '^@admin\[' "$d/nvmelatency" && fail "$k $what: admin commands during the workload?"
	v=$(( $(bt_total "$d/scsilatency" ", READ_10") + $(bt_total "$d/scsilatency" ", READ_16") ))
	[ "$v" = $((NS + K)) ] || fail "$k $what: READ_10/16 on sda $v, expected $((NS + K))"
	grep -q "^@[a-z]*\\[[0-9:]*, WRITE" "$d/scsilatency" && fail "$k $what: writes on sda?"
	grep -q "^@\[DID_OK, SAM_STAT_GOOD\]: $NS$" "$d/scsiresult" ||
		fail "$k $what: SAM_STAT_GOOD count: $(cat "$d/scsiresult")"
	grep -q "^@\[DID_OK, SAM_STAT_CHECK_CONDITION\]: $K$" "$d/scsiresult" ||
		fail "$k $what: CHECK_CONDITION count: $(cat "$d/scsiresult")"
	[ "$(grep -c '^@\[' "$d/scsiresult")" = 2 ] || fail "$k $what: other results: $(cat "$d/scsiresult")"
	v=$(awk '$4 == "sda" && $NF == "BLK_STS_MEDIUM" { print $6 }' "$d/bioerr" | tr '\n' ' ')
	[ "$v" = "$(for i in $(seq 0 $((K - 1))); do printf '%d ' $((ERR_LBA + i * 8)); done)" ] ||
		fail "$k $what: bioerr sectors '$v': $(cat "$d/bioerr")"
	[ "$(grep -c ' BLK_STS_\| errno ' "$d/bioerr")" = $K ] || fail "$k $what: bioerr lines: $(cat "$d/bioerr")"
	awk '$4 == "sda" { if ($2 != "dio" || $7 != 4096 || $5 !~ /^R/) exit 1 }' "$d/bioerr" ||
		fail "$k $what: bioerr comm/bytes/rwbs: $(cat "$d/bioerr")"
}

# check_exporter KERNEL DIR BUCKETS - the exporter's command histograms count the workload
# exactly, as nvmelatency and scsilatency do; with BUCKETS=1 (outputs of one recording)
# they equal theirs bucket by bucket too. Live tracers each stamp an event in a ring of
# their own, a few ns apart, enough to move a command across a bucket edge.
check_exporter() {
	local k=$1 d=$2 buckets=$3 addr
	addr=$(sed -n 's/^@usecs\[\([0-9:]*\), READ_10\]:.*/\1/p' "$d/scsilatency")
	[ -n "$addr" ] || fail "$k: no READ_10 device in scsilatency: $(cat "$d/scsilatency")"
	python3 - "$d" "$addr" $N $M $NS $K $buckets <<'PY' || fail "$k: exporter against nvmelatency/scsilatency, above"
import re, sys
d, addr = sys.argv[1], sys.argv[2]
mult = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
def bt(path, key):
    """The rows of bpftrace histogram @usecs[key] as (upper bound in us, count)."""
    rows, on = [], False
    for line in open(path):
        if line.startswith('@'):
            on = line.startswith('@usecs[' + key + ']:')
            continue
        m = re.match(r'\[(\d+)([KMG]?)(?:, (\d+)([KMG]?)\))?\]?\s+(\d+)', line) if on else None
        if m:
            hi = int(m[3]) * mult[m[4]] if m[3] else int(m[1]) * mult[m[2]] + 1
            rows.append((hi, int(m[5])))
    return rows
prom = {}
for line in open(d + '/exporter'):
    if not line.startswith('#'):
        name, value = line.rsplit(' ', 1)
        prom[name] = float(value)
def check(metric, labels, path, keys, want):
    rows = [r for k in keys for r in bt(path, k)]
    count = prom.get('%s_count{%s}' % (metric, labels))
    if count != want or sum(n for _, n in rows) != want:
        sys.exit('%s{%s}: exporter %s, %s %d, workload %d' %
                 (metric, labels, count, path, sum(n for _, n in rows), want))
    for i in range(1, 28 if buckets else 1):
        le = prom['%s_bucket{%s,le="%.9g"}' % (metric, labels, (1 << i) * 1e-6)]
        below = sum(n for hi, n in rows if hi <= 1 << i)
        if le != below:
            sys.exit('%s{%s} le=%d us: exporter %d, %s %d' % (metric, labels, 1 << i, le, path, below))
n, m, ns, k, buckets = (int(x) for x in sys.argv[3:])
nv = d + '/nvmelatency'
check('iotap_nvme_command_latency_seconds', 'disk="nvme0n1",op="read"', nv, ['nvme0n1, nvme_cmd_read'], n)
check('iotap_nvme_command_latency_seconds', 'disk="nvme0n1",op="write"', nv, ['nvme0n1, nvme_cmd_write'], m)
check('iotap_nvme_command_latency_seconds', 'disk="nvme0n1",op="flush"', nv, ['nvme0n1, nvme_cmd_flush'], 1)
check('iotap_scsi_command_latency_seconds', 'device="%s",op="read"' % addr, d + '/scsilatency',
      [addr + ', READ_10', addr + ', READ_16'], ns + k)
if [x for x in prom if x.startswith('iotap_nvme_command_latency_seconds_count{disk="nvme0n1"')] != [
        'iotap_nvme_command_latency_seconds_count{disk="nvme0n1",op="%s"}' % o for o in ('flush', 'read', 'write')]:
    sys.exit('nvme0n1 series other than read, write and flush: %s' % [x for x in prom if 'nvme0n1' in x and '_count' in x])
if any(x.startswith('iotap_scsi_command_latency_seconds_count{device="%s",op="write"' % addr) for x in prom):
    sys.exit('writes on %s?' % addr)
PY
}

for k in $VM_KERNELS $(vm_newest 1); do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" \
		--mod "$SCSI_PARAMS" --file "$LIVE_TMP/workload.sh:/iotap/workload.sh" \
		--timeout 170 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q "did not fail" "$out" && fail "$k: an injected read succeeded: $(grep 'did not fail' "$out")"
	mkdir -p "$LIVE_TMP/live-$k" "$LIVE_TMP/guest-$k" "$LIVE_TMP/host-$k"
	for t in nvmelatency scsilatency scsiresult bioerr; do
		section "$out" "live $t" >"$LIVE_TMP/live-$k/$t"
		section "$out" "guest-report $t" >"$LIVE_TMP/guest-$k/$t"
	done
	check_counts $k live "$LIVE_TMP/live-$k"
	# 5.10's scsi_dispatch_cmd_start has no driver_tag (added about 6.0): the tool says how it
	# pairs instead. No tool may have seen completions and paired none.
	v=$(grep -c '^iotap scsilatency: this kernel does not trace the driver tag: commands are paired per device in dispatch order$' \
		"$LIVE_TMP/live-$k/scsilatency" || true)
	[ "$v" = "$(case $k in 5.10) echo 1 ;; *) echo 0 ;; esac)" ] ||
		fail "$k: scsilatency said $v times that the driver tag is not traced: $(cat "$LIVE_TMP/live-$k/scsilatency")"
	grep -q 'none paired' "$out" && fail "$k: a tool paired nothing: $(grep 'none paired' "$out")"
	section "$out" "live exporter" >"$LIVE_TMP/live-$k/exporter"
	section "$out" "live exporter-log" | grep -q "no .* events in this kernel" &&
		fail "$k: the exporter found no command events: $(section "$out" "live exporter-log")"
	check_exporter $k "$LIVE_TMP/live-$k" 0
	# scsi_debug's 5 ms delay is a floor: no command may be paired under 4 ms (a completion
	# paired with the wrong dispatch would be). A busy host may answer late, so the good
	# reads need only sit mostly in the [4K, 8K) us row; check_counts has their exact number.
	v=$(bt_bucket "$LIVE_TMP/live-$k/scsilatency" ", READ_10" "[4K, 8K)")
	[ "$v" -ge $((NS / 2)) ] || fail "$k: $v READ_10 in [4K, 8K), expected most of $NS: $(cat "$LIVE_TMP/live-$k/scsilatency")"
	v=$(awk '/^\[/ && !/^\[([4-9]|[1-9][0-9]+)K, / &&
		!/^\[[0-9]+M, / { sub(/^[^)\]]*[)\]] */, ""); n += $1 } END { print n + 0 }' \
		"$LIVE_TMP/live-$k/scsilatency")
	[ "$v" = 0 ] || fail "$k: $v sda commands under 4 ms, below scsi_debug's delay: $(cat "$LIVE_TMP/live-$k/scsilatency")"
	check_counts $k guest-report "$LIVE_TMP/guest-$k"
	section "$out" admin >"$LIVE_TMP/admin-$k"
	v=$(bt_total "$LIVE_TMP/admin-$k" "nvme0, nvme_admin_identify")
	[ "$v" -ge 1 ] || fail "$k: -A timed no nvme_admin_identify on a rescan: $(cat "$LIVE_TMP/admin-$k")"
	grep -q '^@usecs\[nvme0n1' "$LIVE_TMP/admin-$k" && fail "$k: I/O commands during the rescan?"
	grep -q "0 lost" "$out" || fail "$k: record lost events: $(section "$out" record)"
	section "$out" recording | base64 -d >"$LIVE_TMP/rec-$k.iotap" || fail "$k: recording not decoded"
	chmod 644 "$LIVE_TMP/rec-$k.iotap"
	chmod 755 "$LIVE_TMP"
	for t in nvmelatency scsilatency scsiresult bioerr; do
		setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAP" $t -i "$LIVE_TMP/rec-$k.iotap" \
			>"$LIVE_TMP/host-$k/$t" 2>&1 || fail "$k: host report $t failed: $(cat "$LIVE_TMP/host-$k/$t")"
		cmp -s "$LIVE_TMP/host-$k/$t" "$LIVE_TMP/guest-$k/$t" ||
			fail "$k: $t reports differently here: $(diff "$LIVE_TMP/guest-$k/$t" "$LIVE_TMP/host-$k/$t")"
	done
	check_counts $k host-report "$LIVE_TMP/host-$k"
	"$IOTAP" exporter -i "$LIVE_TMP/rec-$k.iotap" --textfile "$LIVE_TMP/host-$k/exporter" \
		>"$LIVE_TMP/host-$k/exporter.log" 2>&1 ||
		fail "$k: exporter -i failed: $(cat "$LIVE_TMP/host-$k/exporter.log")"
	check_exporter $k "$LIVE_TMP/host-$k" 1
	section "$out" dynamic_events | grep -q iotap && fail "$k: tracefs left dirty: $(section "$out" dynamic_events)"
	echo "ok: $k: exporter's NVMe and SCSI command counts equal the workload's and nvmelatency's and scsilatency's, live (read=$N write=$M flush=1, sda read=$((NS + K))); over the recording bucket by bucket"
	echo "ok: $k: a rescan's admin commands timed apart with -A ($v nvme_admin_identify)"
	echo "ok: $k: nvme read=$N write=$M flush=1, sda READ=$((NS + K)), none under 4 ms, results GOOD=$NS CHECK_CONDITION=$K, bioerr $K BLK_STS_MEDIUM at the injected sectors; live, recorded, reported here unprivileged"
done
