#!/bin/bash
# iouring live: fio's io_uring engine on a loop device; the tool's request count equals fio's
# issued count, its attributed block requests the disk's own counters, inline, punted
# (--force_async: every request through io-wq) and SQPOLL; a recording reports as live did.
. "$(dirname "$0")/lib.sh"
require_root
[ -d $TRACEFS/events/io_uring ] || skip "kernel has no io_uring tracepoints"
command -v fio >/dev/null || skip "no fio (apt-get install fio)"
fio --enghelp 2>/dev/null | grep -qw io_uring || skip "fio has no io_uring engine"
N=800
DEV=$(loop_create iouring 64)
D=${DEV#/dev/}
# A name of our own: other fio runs on the machine are not ours to count.
FIO=$LIVE_TMP/fioiou
cp "$(command -v fio)" "$FIO"

# reads - completed reads of the disk, from its own counters
reads() {
	awk '{ print $1 }' /sys/block/$D/stat
}

# run_fio ARGS - N random 4k direct reads at iodepth 8 through io_uring, plus ARGS
run_fio() {
	"$FIO" --name=iou --filename="$DEV" --ioengine=io_uring --direct=1 --rw=randread \
		--bs=4k --iodepth=8 --number_ios=$N --size=60M --randrepeat=0 "$@" \
		>"$LIVE_TMP/fio.out" || fail "fio failed"
	grep -q "issued rwts: total=$N," "$LIVE_TMP/fio.out" || fail "fio did not issue $N reads"
}

# field FILE WHAT - the number before WHAT on the count lines ("punted to io-wq" ...)
field() {
	grep -o "[0-9]* $2" "$1" | head -1 | awk '{ print $1 }'
}

# via FILE NAME - the attributed block requests of one kind (inline, io-wq, sqpoll)
via() {
	grep -o "$2 [0-9]*" "$1" | head -1 | awk '{ print $2 }'
}

# check FILE KIND [PUNTED SQPOLL] - one run's counts: every request and block request seen
check() {
	local out=$1 kind=$2 blk=$3
	[ "$(field "$out" completed)" = $N ] || fail "$kind: $(field "$out" completed) requests, fio issued $N"
	[ "$(hist_total "$out")" = $N ] || fail "$kind: histograms hold $(hist_total "$out")"
	grep -q "= fioiou \[[0-9]*\] READ$" "$out" || fail "$kind: no fioiou READ section"
	[ "$(field "$out" attributed)" = "$blk" ] ||
		fail "$kind: $(field "$out" attributed) block requests attributed, the disk did $blk"
	[ "$(via "$out" "$kind")" = "$blk" ] || fail "$kind: not all block requests were $kind"
	[ "$(field "$out" "unattributed")" = 0 ] || fail "$kind: unattributed block requests"
	[ "$(field "$out" "without block I/O")" = 0 ] || fail "$kind: requests without block I/O"
}

for mode in inline io-wq sqpoll; do
	case $mode in
	inline) args=() ;;
	io-wq) args=(--force_async=1) ;;
	sqpoll) args=(--sqthread_poll=1) ;;
	esac
	out=$LIVE_TMP/$mode.out
	tracer_start "$out" iouring -d "$D" -c fioiou
	before=$(reads)
	run_fio "${args[@]}"
	tracer_stop
	blk=$(( $(reads) - before ))
	check "$out" "$mode" "$blk"
	case $mode in
	inline) want="0 0" ;;
	io-wq) want="$N 0" ;;
	sqpoll) want="0 $N" ;;
	esac
	got="$(field "$out" "punted to io-wq") $(field "$out" "submitted by SQPOLL")"
	[ "$got" = "$want" ] || fail "$mode: punted, SQPOLL counts $got, want $want"
	echo "ok: $mode: $N requests, $blk block requests all attributed"
done

# Buffered writes with an fsync every 10: the requests are fio's writes and fsyncs, each
# fsync punted (it blocks), the writes' block I/O left to the fsyncs and the flusher.
out=$LIVE_TMP/fsync.out
tracer_start "$out" iouring -d "$D" -c fioiou
"$FIO" --name=iouw --filename="$DEV" --ioengine=io_uring --rw=randwrite --bs=4k --iodepth=8 \
	--number_ios=200 --size=60M --randrepeat=0 --fsync=10 >"$LIVE_TMP/fio.out" || fail "fio failed"
tracer_stop
syncs=$(sed -n 's/.*issued rwts: total=0,200,0,\([0-9]*\) .*/\1/p' "$LIVE_TMP/fio.out")
[ -n "$syncs" ] && [ "$syncs" -gt 0 ] || fail "fio did not say its fsyncs: $(grep issued "$LIVE_TMP/fio.out")"
[ "$(field "$out" completed)" = $((200 + syncs)) ] ||
	fail "fsync: $(field "$out" completed) requests, fio issued 200 writes and $syncs fsyncs"
grep -q "= fioiou \[[0-9]*\] FSYNC$" "$out" || fail "fsync: no FSYNC section"
p=$(field "$out" "punted to io-wq")
[ "$p" -ge "$syncs" ] && [ "$p" -le $((200 + syncs)) ] || fail "fsync: $p punted, $syncs fsyncs"
[ "$(field "$out" unattributed)" = 0 ] || fail "fsync: unattributed block requests"
[ "$(via "$out" inline)" = 0 ] || fail "fsync: block I/O inline, from buffered writes"
echo "ok: buffered writes and $syncs fsyncs: $((200 + syncs)) requests, $p punted, $(via "$out" io-wq) block requests from io-wq"

# Recorded, then reported: what a live run beside it printed, the count lines and the
# sections with their totals (not each bucket: each tracefs instance stamps an event with its
# own clock read, nanoseconds apart, so a latency on a bucket's edge may fall either side),
# and --snoop has a line per request with its block request.
rec=$LIVE_TMP/iou.iotap
tracer_start "$LIVE_TMP/beside.out" iouring -d "$D" -c fioiou
"$IOTAP" record -o "$rec" --tools iouring -- "$FIO" --name=iou --filename="$DEV" \
	--ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=8 --number_ios=$N \
	--size=60M --randrepeat=0 --force_async=1 >"$LIVE_TMP/fio.out" 2>"$LIVE_TMP/rec.err" ||
	{ cat "$LIVE_TMP/rec.err" >&2; fail "record failed"; }
tracer_stop
"$IOTAP" iouring -i "$rec" -d "$D" -c fioiou >"$LIVE_TMP/rep.out" 2>&1 || fail "report failed"
check "$LIVE_TMP/rep.out" io-wq "$N"
# summary FILE - the count lines, and each section with its histogram's total
summary() {
	grep -E '^(io_uring requests|block requests|not timed):' "$1"
	awk '/ = / { if (sec != "") print sec ": " n; sec = $0; n = 0; next }
	     / -> .*: [0-9]+ +\|/ { split($0, a, ":"); split(a[2], b, " "); n += b[1] }
	     END { if (sec != "") print sec ": " n }' "$1"
}
diff <(summary "$LIVE_TMP/beside.out") <(summary "$LIVE_TMP/rep.out") ||
	fail "the recording's report differs from the live run beside it"
"$IOTAP" iouring -i "$rec" -d "$D" -c fioiou --snoop >"$LIVE_TMP/snoop.out" 2>&1 ||
	fail "report --snoop failed"
lines=$(awk '$2 == "fioiou" && $4 == "READ" && $7 == 4096 && $8 == 1 && $13 == "io-wq"' \
	"$LIVE_TMP/snoop.out" | wc -l)
[ "$lines" = $N ] || fail "--snoop: $lines lines of a 4 KiB read with one block request via io-wq"
echo "ok: recorded and reported as live: $N requests, $N block requests via io-wq, $N snoop lines"
[ ! -e "$TRACEFS/instances/iotap_$TRACER_PID" ] || fail "iotap_$TRACER_PID left in tracefs"
