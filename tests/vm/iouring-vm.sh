#!/bin/bash
# VM tier: iouring on real NVMe under Debian's 5.10, 6.1 and 6.12 (none has block_io_start;
# 5.10 names the submit event io_uring_submit_sqe and its io_uring_complete has no req, its
# io-wq workers are io_wqe_worker kthreads and its SQPOLL thread a kthread of its own).
# tests/progs/uring makes N direct random reads at iodepth 8, inline, punted (IOSQE_ASYNC)
# and by SQPOLL, and punted at iodepth 1: the requests counted equal N, the punted and SQPOLL
# counts N where they apply, and the block requests attributed equal the reads diskstats
# counted, all via the expected path. These kernels look a punted request's file up before
# the punt, so no event marks a worker starting it: at iodepth 8 the owner's waiting
# punted reads cannot be told apart, and those reads are counted as unattributed, never
# lost (attributed + unattributed = diskstats); at iodepth 1 there is one, and every read
# is attributed.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"

N=300
cat >"$LIVE_TMP/guest.sh" <<GUEST
N=$N
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
[ -d /sys/kernel/tracing/events/io_uring ] || { echo "== no io_uring events"; exit 0; }
for m in inline async sqpoll async1; do
	d=8
	[ $m = async1 ] && d=1
	iotap iouring -d nvme0n1 >/tmp/$m.out 2>/tmp/$m.err &
	p=$!
	for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/$m.out /tmp/$m.err && break; sleep 0.1; done
	grep -qs 'Hit Ctrl-C' /tmp/$m.out /tmp/$m.err || { echo "iotap did not start: $(cat /tmp/$m.err)"; exit 1; }
	echo "== stat-before $m $(cat /sys/block/nvme0n1/stat)"
	uring /dev/nvme0n1 $N $d ${m%1} || { echo "uring $m failed"; exit 1; }
	echo "== stat-after $m $(cat /sys/block/nvme0n1/stat)"
	sleep 0.5
	kill -INT $p
	wait $p
	echo "== $m"
	cat /tmp/$m.out /tmp/$m.err
done
iotap iouring -d nvme0n1 --snoop >/tmp/snoop.out 2>/tmp/snoop.err &
p=$!
for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' /tmp/snoop.out /tmp/snoop.err && break; sleep 0.1; done
uring /dev/nvme0n1 $N 8 inline >/dev/null || { echo "uring snoop failed"; exit 1; }
sleep 0.5
kill -INT $p
wait $p
echo "== snoop"
cat /tmp/snoop.out /tmp/snoop.err
echo "== instances"
ls /sys/kernel/tracing/instances
echo "== end"
GUEST

# num FILE WHAT - the number before WHAT on the count lines
num() {
	grep -o "[0-9]* $2" "$1" | head -1 | awk '{ print $1 }'
}

# via FILE NAME - the attributed block requests of one path (inline, io-wq, sqpoll)
via() {
	grep -o "$2 [0-9]*" "$1" | head -1 | awk '{ print $2 }'
}

for k in $VM_KERNELS; do
	vm_boot $k --bin "$IOTAP" --bin "$IOTAP_PROGS/uring" \
		--disk nvme --timeout 200 -- "$LIVE_TMP/guest.sh"
	out=$LIVE_TMP/vm-$k.out
	grep -q '^== no io_uring events' "$out" && { echo "ok: $k: no io_uring events, nothing to check"; continue; }
	msg=""
	for m in inline async sqpoll async1; do
		f=$LIVE_TMP/$m-$k
		section "$out" $m >"$f"
		r=$(stat_reads "$out" $m)
		[ "$r" = $N ] || fail "$k $m: diskstats counted $r reads, uring made $N"
		[ "$(num "$f" completed)" = $N ] || fail "$k $m: $(num "$f" completed) requests, not $N: $(cat "$f")"
		[ "$(hist_total "$f")" = $N ] || fail "$k $m: histograms hold $(hist_total "$f")"
		case $m in
		inline) want="0 0" path=inline ;;
		async*) want="$N 0" path=io-wq ;;
		sqpoll) want="0 $N" path=sqpoll ;;
		esac
		got="$(num "$f" "punted to io-wq") $(num "$f" "submitted by SQPOLL")"
		[ "$got" = "$want" ] || fail "$k $m: punted, SQPOLL $got, want $want: $(cat "$f")"
		a=$(num "$f" attributed) u=$(num "$f" unattributed)
		[ $((a + u)) = "$r" ] || fail "$k $m: $a attributed + $u unattributed, diskstats $r: $(cat "$f")"
		[ "$(via "$f" "$path")" = "$a" ] || fail "$k $m: not every attributed request via $path: $(cat "$f")"
		# Eight punted reads waiting, no worker seen starting one: most cannot be told apart.
		if [ $m != async ]; then
			[ "$a" = "$r" ] || fail "$k $m: $u block requests unattributed: $(cat "$f")"
		fi
		msg="$msg $m $a/$r"
	done
	# One line per read: its descriptor (uring opens the disk as fd 3), 4096 bytes, one
	# block request, inline.
	lines=$(section "$out" snoop | awk '$2 == "uring" && $4 == "READ" && $5 == 3 && $7 == 4096 &&
					  $8 == 1 && $13 == "inline"' | wc -l)
	[ "$lines" = $N ] || fail "$k: --snoop has $lines lines of a read of fd 3: $(section "$out" snoop | head)"
	[ -z "$(section "$out" instances)" ] || fail "$k: instances left: $(section "$out" instances)"
	echo "ok: $k: $N requests per mode; block requests attributed/diskstats:$msg; $N snoop lines"
done
