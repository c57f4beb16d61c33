#!/bin/bash
# VM tier: iotap-exporter.service's capabilities at Debian's kernel.perf_event_paranoid 3,
# under Debian's 5.10, 6.1 and 6.12 (about 30 s each). Root with the unit's bounding
# set (read from systemd/iotap-exporter.service) runs the exporter with its ring: its
# textfile counts 300 reads exactly and SIGUSR2 writes a dump that biolatency reads with
# 300 too; the bounding set the unit had before (CAP_PERFMON alone) is refused in one line
# (the ring's dumps name processes, so it takes the perf side-band; without the ring the
# exporter opens no perf event).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
SETPRIV=$(command -v setpriv) || skip "no setpriv (util-linux) to drop capabilities in the guest"
UNIT=$IOTAP_SRCDIR/systemd/iotap-exporter.service

# CAP_SYS_ADMIN CAP_PERFMON -> -all,+sys_admin,+perfmon (setpriv's spelling)
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || fail "no CapabilityBoundingSet in $UNIT"
bset=-all
for c in $caps; do
	c=${c#CAP_}
	bset="$bset,+$(echo "$c" | tr 'A-Z' 'a-z')"
done

cat >"$LIVE_TMP/guest.sh" <<GUEST
BSET=$bset
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
echo 3 >/proc/sys/kernel/perf_event_paranoid
echo "== paranoid"
cat /proc/sys/kernel/perf_event_paranoid
/usr/local/bin/setpriv --bounding-set "$BSET" -- /usr/local/bin/iotap exporter \
	--textfile /tmp/m.prom --ring 60 -o /tmp/dump 0.2 >/tmp/e.out 2>/tmp/e.err &
t=$!
for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/e.out /tmp/e.err && break; sleep 0.1; done
read r0 rest </sys/block/nvme0n1/stat
/usr/local/bin/dio read /dev/nvme0n1 300 4096 >/dev/null
read r1 rest </sys/block/nvme0n1/stat
echo "== reads"
echo $((r1 - r0))
sleep 1
kill -USR2 $t
for i in $(seq 1 100); do ls /tmp/dump.* >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1.5
echo "== count"
awk '$1 == "iotap_block_request_latency_seconds_count{disk=\"nvme0n1\",op=\"read\"}" { print $2 }' /tmp/m.prom
echo "== dumps metric"
awk '$1 == "iotap_flight_dumps_total{reason=\"signal\"}" { print $2 }' /tmp/m.prom
kill -TERM $t
wait $t
echo "== rc $?"
cat /tmp/e.err
echo "== report"
iotap report -i /tmp/dump.* biolatency -D 2>&1
echo "== old set"
/usr/local/bin/setpriv --bounding-set -all,+perfmon -- /usr/local/bin/iotap exporter \
	--textfile /tmp/old.prom --ring 60 -o /tmp/olddump >/tmp/o.out 2>/tmp/o.err
echo "rc=$?"
cat /tmp/o.err
echo "== leftovers"
ls /sys/kernel/tracing/instances
echo "== end"
GUEST

kernels=""
for k in 6.1 6.12 5.10; do case " $VM_KERNELS " in *" $k "*) kernels="$kernels $k" ;; esac; done
[ -n "$kernels" ] || skip "IOTAP_VM_KERNELS names no kernel this test boots"
for k in $kernels; do
	vm_boot "$k" --disk nvme --bin "$IOTAP" \
		--bin "$IOTAP_PROGS/dio" --bin "$SETPRIV" --timeout 200 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	[ "$(section "$out" paranoid)" = 3 ] || fail "$k: perf_event_paranoid is $(section "$out" paranoid), not 3"
	[ "$(section "$out" reads)" = 300 ] || { cat "$out"; fail "$k: the disk counted $(section "$out" reads) reads, not 300"; }
	[ "$(section "$out" count)" = 300 ] || { cat "$out"; fail "$k: with the unit's bounding set ($caps) the exporter counted '$(section "$out" count)', not 300"; }
	[ "$(section "$out" "dumps metric")" = 1 ] || { cat "$out"; fail "$k: iotap_flight_dumps_total{reason=\"signal\"} is '$(section "$out" "dumps metric")'"; }
	grep -q '^== rc 0$' "$out" || { cat "$out"; fail "$k: the exporter did not exit 0 on SIGTERM"; }
	section "$out" report >"$LIVE_TMP/report"
	[ "$(hist_total "$LIVE_TMP/report" nvme0n1)" = 300 ] || { cat "$out"; fail "$k: biolatency over the dump counted $(hist_total "$LIVE_TMP/report" nvme0n1), not 300"; }
	old=$(section "$out" "old set")
	[ "$(echo "$old" | head -n1)" = "rc=2" ] || { cat "$out"; fail "$k: CAP_PERFMON alone: $(echo "$old" | head -n1), expected rc=2"; }
	echo "$old" | grep -q 'perf_event_open refused: kernel.perf_event_paranoid is 3' ||
		{ cat "$out"; fail "$k: CAP_PERFMON alone was not refused for paranoid 3: $old"; }
	[ -z "$(section "$out" leftovers)" ] || fail "$k: left in tracefs: $(section "$out" leftovers)"
	echo "ok: $k: paranoid 3: the unit's bounding set ($caps) counts 300 reads and dumps them on SIGUSR2; CAP_PERFMON alone is refused in one line"
done
