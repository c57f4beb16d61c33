#!/bin/bash
# VM tier: the block tools side by side on real NVMe (scheduler none: requests are issued
# without an insert) and SCSI (mq-deadline) disks, one boot per kernel (Debian's 5.10, 6.1
# and 6.12; none of them has block_io_start). biolatency -Q -D, biosnoop, bitesize, biotop,
# biopattern, seeksize, iosched and biostages -j trace one workload at once, and each count
# must equal what the kernel's own /sys/block/DEV/stat counted; biosnoop's PID column must
# be the process that read, on both disks; biostages has every stage of sda's requests, and
# on nvme0n1 all but G2I and I2D, which it says a scheduler none does not show. Then a
# cgroup under io.max riops reads nvme0n1: blk-throttle's worker starts requests it held,
# and biosnoop names the reader on every one (the kprobe on the throttle's entry). Last, a
# child born straight into a cgroup (clone3 CLONE_INTO_CGROUP) reads sda: biosnoop
# --cgroup counts its reads there, live and from a recording made with --cgroups, as the
# kernel's diskstats do (task_newtask's clone_flags keeps the flag on this kernel). sda, as
# before 6.5 a request's submitter is known at its insert, which nvme0n1's none has not.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"

N=200 NS=100
TOOLS="biolatency biosnoop bitesize biotop biopattern seeksize iosched biostages"
TN=200 TIOPS=100
BN=150
cat >"$LIVE_TMP/guest.sh" <<GUEST
N=$N NS=$NS TOOLS="$TOOLS" TN=$TN TIOPS=$TIOPS BN=$BN
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
echo "== sched nvme0n1 $(cat /sys/block/nvme0n1/queue/scheduler) sda $(cat /sys/block/sda/queue/scheduler)"
for n in $TOOLS; do
	case $n in
		biolatency) args="-Q -D" ;;
		biotop) args="-C 60 1" ;;
		biopattern) args="60 1" ;;
		biostages) args="-j" ;;
		*) args="" ;;
	esac
	# shellcheck disable=SC2086 # the tool's arguments, split on purpose
	iotap $n $args >/tmp/$n.out 2>/tmp/$n.err &
	echo $! >/tmp/$n.pid
done
for n in $TOOLS; do
	for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/$n.out /tmp/$n.err && break; sleep 0.1; done
	grep -qs 'Hit Ctrl-C' /tmp/$n.out /tmp/$n.err || { echo "iotap $n did not start: $(cat /tmp/$n.err)"; exit 1; }
done
echo "== stat-before nvme0n1 $(cat /sys/block/nvme0n1/stat)"
echo "== stat-before sda $(cat /sys/block/sda/stat)"
dio read /dev/nvme0n1 $N 4096 >/dev/null &
p=$!
wait $p
echo "== pid nvme0n1 $p"
dio read /dev/sda $NS 4096 >/dev/null &
p=$!
wait $p
echo "== pid sda $p"
echo "== stat-after nvme0n1 $(cat /sys/block/nvme0n1/stat)"
echo "== stat-after sda $(cat /sys/block/sda/stat)"
sleep 0.5
for n in $TOOLS; do kill -INT "$(cat /tmp/$n.pid)"; done
wait
for n in $TOOLS; do
	echo "== $n"
	cat /tmp/$n.out /tmp/$n.err
done
# blk-throttle on the whole disk: a cgroup under io.max riops reads nvme0n1, so the throttle
# holds its bios and its worker starts their requests; the kprobe on the throttle's entry
# (kprobes and BTF here) names the reader.
echo +io >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p /sys/fs/cgroup/slow &&
	echo "$(cat /sys/block/nvme0n1/dev) riops=$TIOPS" >/sys/fs/cgroup/slow/io.max || exit 1
iotap biosnoop -v -d nvme0n1 >/tmp/th.out 2>/tmp/th.err &
t=$!
for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/th.out /tmp/th.err && break; sleep 0.1; done
echo "== stat-before throttled $(cat /sys/block/nvme0n1/stat)"
sh -c "echo \$\$ >/sys/fs/cgroup/slow/cgroup.procs && exec dio read /dev/nvme0n1 $TN 4096 rand" >/dev/null &
p=$!
wait $p
echo "== stat-after throttled $(cat /sys/block/nvme0n1/stat)"
echo "== pid throttled $p"
sleep 0.5
kill -INT $t
wait $t
echo "== throttle"
cat /tmp/th.out /tmp/th.err
rmdir /sys/fs/cgroup/slow
# A child born into a cgroup of its own: held as a zombie for 2 s after its reads, so that
# each tracer reads its /proc/PID/cgroup however late the birth is delivered.
echo "== newtask $(grep clone_flags /sys/kernel/tracing/events/task/task_newtask/format)"
mkdir /sys/fs/cgroup/born || exit 1
iotap biosnoop -d sda --cgroup /sys/fs/cgroup/born >/tmp/born.out 2>/tmp/born.err &
b=$!
for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/born.out /tmp/born.err && break; sleep 0.1; done
echo "== stat-before born $(cat /sys/block/sda/stat)"
iotap record -o /tmp/born.iotap --cgroups -- sh -c "sleep 2 | cgclone -H /sys/fs/cgroup/born /dev/sda $BN >/tmp/born.pid" \
	>/tmp/born-rec.out 2>&1
echo "== stat-after born $(cat /sys/block/sda/stat)"
echo "== pid born $(cat /tmp/born.pid)"
sleep 0.5
kill -INT $b
wait $b
echo "== born"
cat /tmp/born.out /tmp/born.err /tmp/born-rec.out
echo "== born-report"
iotap report -i /tmp/born.iotap biosnoop -d sda --cgroup /sys/fs/cgroup/born 2>&1
rmdir /sys/fs/cgroup/born
echo "== instances"
ls /sys/kernel/tracing/instances
echo "== end"
GUEST

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/dio" --bin "$IOTAP_PROGS/cgclone" \
		--timeout 150 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q '^== sched nvme0n1 .*\[none\].* sda .*\[mq-deadline\]' "$out" ||
		fail "$k: schedulers are not none and mq-deadline: $(grep '^== sched' "$out")"
	rn=$(stat_reads "$out" nvme0n1) rs=$(stat_reads "$out" sda)
	[ "$rn" = $N ] && [ "$rs" = $NS ] || fail "$k: diskstats counted $rn and $rs reads, the workload made $N and $NS"
	pn=$(awk '$2 == "pid" && $3 == "nvme0n1" { print $4 }' "$out")
	ps=$(awk '$2 == "pid" && $3 == "sda" { print $4 }' "$out")
	for n in $TOOLS; do section "$out" $n >"$LIVE_TMP/$n-$k"; done
	f=$LIVE_TMP/biolatency-$k
	[ "$(hist_total "$f" nvme0n1)" = "$rn" ] && [ "$(hist_total "$f" sda)" = "$rs" ] ||
		fail "$k: biolatency -Q -D counted $(hist_total "$f" nvme0n1) and $(hist_total "$f" sda): $(cat "$f")"
	f=$LIVE_TMP/biosnoop-$k
	[ "$(awk -v p="$pn" '$4 == "nvme0n1" && $2 == "dio" && $3 == p' "$f" | wc -l)" = "$rn" ] ||
		fail "$k: biosnoop's nvme0n1 rows are not $rn of dio, pid $pn: $(awk '$4 == "nvme0n1"' "$f" | sort -k3 | uniq -c -f2 | head)"
	[ "$(awk -v p="$ps" '$4 == "sda" && $2 == "dio" && $3 == p' "$f" | wc -l)" = "$rs" ] ||
		fail "$k: biosnoop's sda rows are not $rs of dio, pid $ps: $(awk '$4 == "sda"' "$f" | head)"
	[ "$(awk '$4 == "nvme0n1" || $4 == "sda"' "$f" | wc -l)" = $((rn + rs)) ] || fail "$k: biosnoop has other rows: $(cat "$f")"
	f=$LIVE_TMP/bitesize-$k
	[ "$(grep '^Process Name = ' "$f")" = "Process Name = dio" ] && [ "$(hist_total "$f")" = $((rn + rs)) ] ||
		fail "$k: bitesize counted $(hist_total "$f"): $(cat "$f")"
	f=$LIVE_TMP/biotop-$k
	grep -q "^$pn  *dio  *R 259 0  *nvme0n1  *$rn  *$((rn * 4)) " "$f" &&
		grep -q "^$ps  *dio  *R 8  *0  *sda  *$rs  *$((rs * 4)) " "$f" || fail "$k: biotop: $(cat "$f")"
	f=$LIVE_TMP/biopattern-$k
	grep -q "^nvme0n1  *[0-9]*  *[0-9]*  *$rn  *$((rn * 4))$" "$f" &&
		grep -q "^sda  *[0-9]*  *[0-9]*  *$rs  *$((rs * 4))$" "$f" || fail "$k: biopattern: $(cat "$f")"
	# A disk's first request has no seek to measure.
	f=$LIVE_TMP/seeksize-$k
	[ "$(grep '^Process Name = ' "$f")" = "Process Name = dio" ] && [ "$(hist_total "$f")" = $((rn + rs - 2)) ] ||
		fail "$k: seeksize counted $(hist_total "$f"): $(cat "$f")"
	# nvme0n1's scheduler is none: only sda's requests spend time in one.
	f=$LIVE_TMP/iosched-$k
	[ "$(hist_total "$f" mq-deadline)" = "$rs" ] && [ "$(hist_sections "$f")" = mq-deadline ] ||
		fail "$k: iosched: $(cat "$f")"
	# Each disk's reads, every stage where the kernel shows it (block_getrq, merges: all three).
	f=$LIVE_TMP/biostages-$k
	python3 - "$f" "$rn" "$rs" <<'PY' || fail "$k: biostages: $(cat "$f")"
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("{"):
        o = json.loads(line)
        rows[(o["disk"], o["op"])] = o
want = {"nvme0n1": int(sys.argv[2]), "sda": int(sys.argv[3])}
for disk, n in want.items():
    o = rows.get((disk, "read"))
    if o is None:
        sys.exit("no %s read row" % disk)
    full = disk == "sda"
    for key in ("requests", "bios", "bios_queued"):
        if o[key] != n:
            sys.exit("%s %s %s, diskstats %d" % (disk, key, o[key], n))
    for key in ("back_merges", "front_merges", "request_merges", "splits", "requeues"):
        if o[key] != 0:
            sys.exit("%s %s %s, expected 0" % (disk, key, o[key]))
    for st, c in o["stages"].items():
        if full or st not in ("G2I", "I2D"):
            if c["count"] != n:
                sys.exit("%s %s count %d, diskstats %d" % (disk, st, c["count"], n))
        elif c["count"] or c["unavailable"] != "no insert: scheduler none":
            sys.exit("%s %s: %s" % (disk, st, c))
others = [k for k in rows if k[1] == "read" and k[0] not in want]
if others:
    sys.exit("other disks read: %s" % others)
PY
	# The throttled reads: every row the reader's, the join made (-v says how often), no worker.
	rt=$(stat_reads "$out" throttled)
	pt=$(awk '$2 == "pid" && $3 == "throttled" { print $4 }' "$out")
	section "$out" throttle >"$LIVE_TMP/throttle-$k"
	f=$LIVE_TMP/throttle-$k
	[ "$rt" = $TN ] || fail "$k: diskstats counted $rt throttled reads, the workload made $TN"
	[ "$(awk -v p="$pt" '$4 == "nvme0n1" && $5 == "R" && $2 == "dio" && $3 == p' "$f" | wc -l)" = "$rt" ] &&
		[ "$(awk '$4 == "nvme0n1" && $5 == "R"' "$f" | wc -l)" = "$rt" ] ||
		fail "$k: biosnoop's throttled rows are not $rt of dio, pid $pt: $(awk '$4 == "nvme0n1"' "$f" | awk '{ print $2, $3 }' | sort | uniq -c)"
	tj=$(sed -n 's/.* \([0-9]*\) requests started by another task (blk-throttle.s worker) are charged to the task that sent their bio$/\1/p' "$f")
	[ -n "$tj" ] && [ "$tj" -gt 0 ] || fail "$k: biosnoop -v says blk-throttle's worker started none of the throttled reads: $(grep iotap "$f")"
	! grep -q 'per-CPU kernel worker' "$f" || fail "$k: the worker was named: $(grep iotap "$f")"
	# The child born into a cgroup: every read of it in biosnoop --cgroup, live and reported.
	rb=$(stat_reads "$out" born)
	pb=$(awk '$2 == "pid" && $3 == "born" { print $4 }' "$out")
	nt=$(awk '$1 == "==" && $2 == "newtask" { $1 = $2 = ""; print }' "$out" | sed 's/^ *//')
	[ "$rb" = $BN ] || fail "$k: diskstats counted $rb reads of the born child, it made $BN"
	for part in born born-report; do
		f=$LIVE_TMP/$part-$k
		section "$out" $part >"$f"
		[ "$(awk -v p="$pb" '$4 == "sda" && $2 == "cgclone" && $3 == p' "$f" | wc -l)" = "$rb" ] &&
			[ "$(awk '$4 == "sda"' "$f" | wc -l)" = "$rb" ] ||
			fail "$k: $part: biosnoop --cgroup born has not the $rb reads of child $pb ($nt): $(cat "$f")"
	done
	echo "ok: $k: a child born into a cgroup (clone3 CLONE_INTO_CGROUP) counts its $rb reads there, live and reported (task_newtask: $nt)"
	[ -z "$(section "$out" instances)" ] || fail "$k: instances left: $(section "$out" instances)"
	echo "ok: $k: $rt reads of nvme0n1 under io.max riops=$TIOPS, all the reader's in biosnoop ($tj started by blk-throttle's worker, joined through the kprobe on its entry)"
	echo "ok: $k: nvme0n1 (none) $rn and sda (mq-deadline) $rs reads as diskstats counted them, in biolatency -Q -D, biosnoop (pids $pn and $ps), bitesize, biotop, biopattern, seeksize ($((rn + rs - 2)) seeks), iosched ($rs through mq-deadline) and biostages (every stage; nvme0n1 without an insert)"
done
