#!/bin/bash
# VM tier: --originator on Debian's kernels (5.10 has writeback_dirty_page, later ones
# writeback_dirty_folio): two programs write 3 and 5 MiB to ext4 over NVMe, one sync writes
# them back; each must be charged exactly its bytes, by iostackbreakdown and biotop. Then a
# writer in a cgroup whose writes io.max limits (wbps): cgroup writeback charges its inode's
# bios to that cgroup, blk-throttle holds them and its worker queues them outside any
# writeback, and the writer must still be charged its 3 MiB exactly: the flusher's bio is
# seen at blk-throttle's entry (a kprobe) inside the inode's writeback
# seen at blk-throttle's entry (a kprobe) inside the inode's writeback. cgtop, live and from a
# recording made with --cgroups, must give that cgroup the flusher's bios as io.stat counts them
# (the inode's owner, writeback_single_inode_start's cgroup_ino), with the throttle's time
# (qemu; exit 77 when it cannot run).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
MKE2FS=$(command -v mke2fs || true)
[ -n "$MKE2FS" ] || skip "no mke2fs (e2fsprogs)"

# coreutils' dd under two names (the guest's dd is a busybox applet): the names the rows show
cp "$(command -v dd)" "$LIVE_TMP/wbwrite_a"
cp "$(command -v dd)" "$LIVE_TMP/wbwrite_b"
cp "$(command -v dd)" "$LIVE_TMP/wbwrite_c"
cat >"$LIVE_TMP/guest.sh" <<'GUEST'
. /iotap/guest-lib.sh
mke2fs -q -t ext4 -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/nvme0n1 || exit 1
mkdir -p /mnt
mount -t ext4 -o noinit_itable /dev/nvme0n1 /mnt || exit 1
sync
iotap iostackbreakdown -T blk --originator -d nvme0n1 --json >/tmp/o.out 2>&1 &
t1=$!
started /tmp/o.out
iotap biotop --originator -r 1000 -C 3600 1 >/tmp/top.out 2>&1 &
t2=$!
started /tmp/top.out
/usr/local/bin/wbwrite_a if=/dev/zero of=/mnt/a bs=1M count=3 2>/dev/null &
pa=$!
/usr/local/bin/wbwrite_b if=/dev/zero of=/mnt/b bs=1M count=5 2>/dev/null &
pb=$!
wait $pa $pb
sync
sleep 0.5
kill -INT $t1 $t2
wait $t1 $t2
echo "== pids $pa $pb $(ls -i /mnt/a | awk "{ print \$1 }") $(ls -i /mnt/b | awk "{ print \$1 }")"
echo "== iostackbreakdown"
cat /tmp/o.out
echo "== biotop"
cat /tmp/top.out
# A writer whose cgroup io.max limits to 1 MiB/s of writes: writeback is its cgroup's.
echo "+io +memory" >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/wbslow
echo "$(cat /sys/block/nvme0n1/dev) wbps=1048576" >/sys/fs/cgroup/wbslow/io.max || echo "== no io.max"
iotap biotop --originator -r 1000 -C 3600 1 >/tmp/thr.out 2>&1 &
t3=$!
started /tmp/thr.out
iotap cgtop -C -d nvme0n1 3600 >/tmp/cg.out 2>&1 &
t4=$!
started /tmp/cg.out
mm=$(cat /sys/block/nvme0n1/dev)
echo "== iostat-before $(grep "^$mm " /sys/fs/cgroup/wbslow/io.stat)"
cat >/tmp/wbc.sh <<'WBC'
sh -c 'echo $$ >/sys/fs/cgroup/wbslow/cgroup.procs && exec /usr/local/bin/wbwrite_c if=/dev/zero of=/mnt/c bs=1M count=3 2>/dev/null' &
pc=$!
wait $pc
ts=$(date +%s)
sync
echo "$pc $(( $(date +%s) - ts ))" >/tmp/pc
WBC
# Recorded with --cgroups while it runs, for a report of it to give the same rows.
iotap record --cgroups -o /tmp/wb.iotap -- sh /tmp/wbc.sh >/tmp/rec.err 2>&1 || cat /tmp/rec.err
set -- $(cat /tmp/pc)
echo "== pidc $1 $(ls -i /mnt/c | awk "{ print \$1 }") $2"
echo "== iostat-after $(grep "^$mm " /sys/fs/cgroup/wbslow/io.stat)"
sleep 0.5
kill -INT $t3 $t4
wait $t3 $t4
echo "== biotop-throttled"
cat /tmp/thr.out
echo "== cgtop"
cat /tmp/cg.out
echo "== cgtop-reported"
iotap report -i /tmp/wb.iotap cgtop -C -d nvme0n1 3600 2>&1
echo "== end"
GUEST

# iostat_key LINE KEY - the value of KEY=V in an io.stat line (0 when absent)
iostat_key() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { v = $2 } END { print v + 0 }'; }

for k in $VM_KERNELS; do
	vm_boot $k --disk nvme --mod ext4 --bin "$IOTAP" \
		--bin "$MKE2FS" --bin "$LIVE_TMP/wbwrite_a" --bin "$LIVE_TMP/wbwrite_b" --bin "$LIVE_TMP/wbwrite_c" --timeout 240 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q '^== pids ' "$out" || { cat "$out" "$LIVE_TMP/vm-$k.err"; fail "$k: the guest did not finish"; }
	set -- $(grep '^== pids ' "$out")
	[ $# = 6 ] || { cat "$out" "$LIVE_TMP/vm-$k.err"; fail "$k: pids line: $*"; }
	pa=$3 pb=$4 ia=$5 ib=$6
	section "$out" "iostackbreakdown" >"$LIVE_TMP/o-$k"
	section "$out" "biotop" >"$LIVE_TMP/t-$k"
	for w in "wbwrite_a $pa $ia $((3 << 20))" "wbwrite_b $pb $ib $((5 << 20))"; do
		set -- $w
		got=$(python3 -c '
import json, sys
n, p, i = sys.argv[2], int(sys.argv[3]), sys.argv[4]
b = 0
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("originator") == n and o["pid"] == p and o["inode"].endswith(" ino " + i):
            b += o["bytes"]
print(b)
' "$LIVE_TMP/o-$k" "$1" "$2" "$3")
		[ "$got" = "$4" ] || { cat "$LIVE_TMP/o-$k"; fail "$k: $1 charged $got bytes, want $4"; }
		kb=$(awk -v p="$2" -v n="$1" '$1 == p && $2 == n && $3 == "W" { k += $8 } END { print k + 0 }' "$LIVE_TMP/t-$k")
		[ "$kb" = $(($4 / 1024)) ] || { cat "$LIVE_TMP/t-$k"; fail "$k: biotop $1: $kb Kbytes, want $(($4 / 1024))"; }
	done
	grep -q '"originator": "\[jbd2 journal\]"' "$LIVE_TMP/o-$k" || { cat "$LIVE_TMP/o-$k"; fail "$k: no journal row"; }
	echo "ok: $k: wbwrite_a 3 MiB, wbwrite_b 5 MiB exactly (iostackbreakdown, biotop); the journal apart"
	! grep -q '^== no io.max' "$out" || fail "$k: io.max refused a wbps limit on nvme0n1"
	set -- $(grep '^== pidc ' "$out")
	[ $# = 5 ] || { cat "$out" "$LIVE_TMP/vm-$k.err"; fail "$k: pidc line: $*"; }
	pc=$3 secs=$5
	# 3 MiB at 1 MiB/s: held, so blk-throttle's worker queued most of it
	[ "$secs" -ge 2 ] || fail "$k: sync wrote 3 MiB in $secs s: the wbps limit did not hold it"
	section "$out" "biotop-throttled" >"$LIVE_TMP/h-$k"
	kb=$(awk -v p="$pc" '$1 == p && $2 == "wbwrite_c" && $3 == "W" { k += $8 } END { print k + 0 }' "$LIVE_TMP/h-$k")
	[ "$kb" = 3072 ] || { cat "$LIVE_TMP/h-$k"; fail "$k: biotop --originator charged the throttled writer $kb Kbytes, want 3072"; }
	echo "ok: $k: a writer under io.max wbps charged its 3 MiB exactly though blk-throttle held it for $secs s"
	# cgtop: the flusher's bios are the inode's cgroup's, as io.stat counts them, live and
	# reported from a recording made with --cgroups
	before=$(grep '^== iostat-before ' "$out") after=$(grep '^== iostat-after ' "$out")
	wios=$(( $(iostat_key "$after" wios) - $(iostat_key "$before" wios) ))
	wkb=$(( ($(iostat_key "$after" wbytes) - $(iostat_key "$before" wbytes)) / 1024 ))
	[ "$wkb" -ge 3072 ] || fail "$k: io.stat counted $wkb KiB written by wbslow: $before / $after"
	for sec in cgtop cgtop-reported; do
		section "$out" "$sec" >"$LIVE_TMP/c-$k"
		# DISK READS WRITES R-KB W-KB REQS IOPS P50ms P99ms THROTms ... CONTAINER CGROUP
		row=$(awk '$1 == "nvme0n1" && $NF == "/wbslow" { print $3, $5, $10 }' "$LIVE_TMP/c-$k")
		[ "$row" != "" ] || { cat "$LIVE_TMP/c-$k"; fail "$k: $sec has no /wbslow row"; }
		set -- $row
		[ "$1" = "$wios" ] && [ "$2" = "$wkb" ] ||
			{ cat "$LIVE_TMP/c-$k"; fail "$k: $sec: /wbslow wrote $1 bios, $2 KiB; io.stat $wios, $wkb KiB"; }
		python3 -c "import sys; sys.exit(0 if $3 >= 1000 else 1)" ||
			{ cat "$LIVE_TMP/c-$k"; fail "$k: $sec: /wbslow's writeback held ${3} ms by blk-throttle, for a sync of $secs s"; }
		echo "ok: $k: $sec: /wbslow's writeback, sent by the flusher, in its own row: $1 bios and $2 KiB as io.stat counts, ${3} ms throttled"
	done
done
