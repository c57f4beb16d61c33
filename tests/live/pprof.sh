#!/bin/bash
# --pprof live and from a recording: go tool pprof reads each profile; its totals per sample
# type equal the tool's own (folded stacks, tables), the workload's bytes and the kernel's
# counters (/sys/block/DEV/stat), and its traces are the workload's own frames, with file
# and line. Bad paths give one error line and leave no file.
. "$(dirname "$0")/lib.sh"
require_root
command -v go >/dev/null || skip "no go (apt-get install golang-go): go tool pprof reads the profiles"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
if "$IOTAP" --version | grep -q '^pprof output: not built in'; then
	rc=0
	"$IOTAP" biostacks --pprof "$LIVE_TMP/x.pb.gz" >/dev/null 2>"$LIVE_TMP/np.err" || rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$LIVE_TMP/np.err")" = 1 ] &&
		grep -q 'this iotap has no pprof output' "$LIVE_TMP/np.err" ||
		fail "a build without pprof output: exit $rc, $(cat "$LIVE_TMP/np.err")"
	skip "this iotap has no pprof output (one error line says so)"
fi
export PPROF_TMPDIR=$LIVE_TMP HOME=${HOME:-$LIVE_TMP}

DEV=$(loop_create pp 64)
D=$(basename "$DEV")
N=300
FP=$IOTAP_PROGS/stacky_fp
[ -x "$FP" ] || fail "no stacky_fp in $IOTAP_PROGS"
# Room for every stack sample of a run: what is checked is the profile, not whether the
# reader kept up on a busy machine (a stack perf drops still counts, without frames).
PAGES=4096
# The PIDs of the iotap processes that trace: none may leave its instance or events in
# tracefs (named iotap_PID; other runs on the machine may come and go meanwhile).
OURS=

# trace OUT ARGS - tracer_start, its PID kept
trace() {
	tracer_start "$@"
	OURS="$OURS $TRACER_PID"
}

# iot ARGS - iotap in the foreground, its PID kept
iot() {
	local p
	"$IOTAP" "$@" &
	p=$!
	OURS="$OURS $p"
	wait $p
}

# ptotal FILE TYPE [PPROF ARGS...] - "FOCUSED TOTAL" of one sample type as go tool pprof -top
# gives them: what the filters among the arguments keep, and the whole profile's total
ptotal() {
	local f=$1 t=$2 u=
	shift 2
	case $t in bytes) u=-unit=B ;; latency) u=-unit=ns ;; esac
	go tool pprof -top -sample_index="$t" $u -nodefraction=0 -nodecount=100000 "$@" "$f" \
		2>"$LIVE_TMP/pprof.err" |
		sed -n 's/^Showing nodes accounting for \([0-9]*\)[a-zA-Z]*, .* of \([0-9]*\)[a-zA-Z]* total$/\1 \2/p'
}

# total FILE TYPE - the whole profile's total of one sample type
total() {
	local t
	t=$(ptotal "$1" "$2")
	[ -n "$t" ] || fail "go tool pprof -top -sample_index=$2 $1: $(cat "$LIVE_TMP/pprof.err")"
	echo "${t#* }"
}

# has_chain FILE - whether go tool pprof -traces shows the workload's frames, innermost
# first, each with its file and line in stacky.c
has_chain() {
	go tool pprof -traces -lines "$1" 2>/dev/null | awk '
		/^-----------/ { want = 1; next }
		{ f = $NF ~ /:[0-9]+$/ ? $(NF - 1) : $NF }
		f == "inner_fn" && $NF ~ /stacky\.c:[0-9]+$/ { want = 2; next }
		want == 2 && f == "middle_fn" && $NF ~ /stacky\.c:[0-9]+$/ { want = 3; next }
		want == 3 && f == "outer_fn" && $NF ~ /stacky\.c:[0-9]+$/ { want = 4; next }
		want == 4 && f == "main" { ok = 1 }
		END { exit !ok }'
}

# has_label FILE KEY VALUE - whether a trace carries the label
has_label() {
	go tool pprof -traces "$1" 2>/dev/null | grep -Eq "^ +$2: +$3\$"
}

# folded_sum FILE - the total weight of folded lines
folded_sum() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

# devstat FIELD - one field of the loop device's /sys/block/DEV/stat
devstat() {
	awk -v f="$1" '{ print $f }' "/sys/block/$D/stat"
}

# near NS US COUNT - whether a total in ns is a total of COUNT values cut to whole us
near() {
	[ "$2" -le $(($1 / 1000)) ] && [ $(($1 / 1000)) -le $(($2 + $3)) ]
}

# held - stacky_fp waiting on a FIFO before its reads, so that a tracer started after it sees
# only the reads (its loader's own are over); HELD is its PID, go() lets it read
held() {
	rm -f "$LIVE_TMP/go"
	mkfifo "$LIVE_TMP/go"
	"$FP" "$DEV" $N 4096 wait <>"$LIVE_TMP/go" &
	HELD=$!
	LIVE_PIDS="$LIVE_PIDS $HELD"
	sleep 0.2
}
go_read() {
	echo go >"$LIVE_TMP/go"
	wait $HELD || fail "stacky_fp failed"
}

# biostacks: requests, bytes and latency of N direct reads of 4 KiB, against its folded
# stacks and the kernel's counters; the traces are stacky's chain over the kernel read path.
P=$LIVE_TMP/bs.pb.gz
r0=$(devstat 1) s0=$(devstat 3)
trace "$LIVE_TMP/bs.out" biostacks -d "$D" -f --mmap-pages $PAGES --pprof "$P"
"$FP" "$DEV" $N
tracer_stop
reqs=$(($(devstat 1) - r0)) bytes=$((($(devstat 3) - s0) * 512))
[ $reqs = $N ] && [ $bytes = $((N * 4096)) ] || fail "the disk's counters: $reqs reads, $bytes bytes"
[ "$(total "$P" requests)" = $N ] && [ "$(folded_sum "$LIVE_TMP/bs.out")" = $N ] ||
	fail "biostacks requests: profile $(total "$P" requests), folded $(folded_sum "$LIVE_TMP/bs.out"), disk $N"
[ "$(total "$P" bytes)" = $bytes ] || fail "biostacks bytes: profile $(total "$P" bytes), disk $bytes"
has_chain "$P" || fail "biostacks: no inner_fn/middle_fn/outer_fn/main in stacky.c: $(go tool pprof -traces -lines "$P" 2>&1 | head -40)"
go tool pprof -traces "$P" 2>/dev/null | grep -B30 -m1 '^ *inner_fn$' | grep -Eq '^ *(vfs_read|__x64_sys_pread64|blkdev_read_iter)$' ||
	fail "biostacks: no kernel read path under inner_fn: $(go tool pprof -traces "$P" 2>&1 | head -40)"
has_label "$P" disk "$D" && has_label "$P" op read && has_label "$P" comm stacky_fp ||
	fail "biostacks: labels: $(go tool pprof -traces "$P" 2>&1 | head -12)"
echo "ok: biostacks --pprof: $N requests and $bytes bytes (folded, /sys/block/$D/stat), stacky's frames with lines over the kernel's, labels"

trace "$LIVE_TMP/bl.out" biostacks -d "$D" -f --weight latency --mmap-pages $PAGES --pprof "$P"
"$FP" "$DEV" $N
tracer_stop
lat=$(total "$P" latency) us=$(folded_sum "$LIVE_TMP/bl.out")
[ "$(total "$P" requests)" = $N ] && near "$lat" "$us" $N ||
	fail "biostacks latency: profile $lat ns, folded $us us over $N requests"
echo "ok: biostacks --pprof latency: $lat ns, the folded $us us of $N requests in whole us"

# iostack: bios and bytes against its folded bytes; stacky's own by its pid label (every
# process's bios are counted, and one whose stack perf dropped is there without frames).
P=$LIVE_TMP/is.pb.gz
trace "$LIVE_TMP/is.out" iostack -U -f --mmap-pages $PAGES --pprof "$P"
"$FP" "$DEV" $N &
sp=$!
wait $sp || fail "stacky_fp failed"
tracer_stop
set -- $(ptotal "$P" bytes "-tagfocus=pid=^$sp\$")
[ "${1:-}" = $((N * 4096)) ] || fail "iostack: ${1:-no} bytes of pid $sp, want $((N * 4096))"
[ "${2:-}" = "$(folded_sum "$LIVE_TMP/is.out")" ] ||
	fail "iostack bytes: profile ${2:-none}, folded $(folded_sum "$LIVE_TMP/is.out")"
set -- $(ptotal "$P" requests "-tagfocus=pid=^$sp\$")
[ "${1:-}" = $N ] || fail "iostack: ${1:-no} bios of pid $sp, want $N"
has_chain "$P" && has_label "$P" disk "$D" || fail "iostack: $(go tool pprof -traces -lines "$P" 2>&1 | head -30)"
echo "ok: iostack --pprof: $N bios, $((N * 4096)) bytes of stacky's pid, its frames; totals equal its folded bytes"

# fileio_totals FILE PID - "CALLS BYTES TOTAL_us" of a process's rows of fileio's table
fileio_totals() {
	awk -v pid="$2" '$1 == pid { c += $3 + $4; b += ($5 + $6) * 1024; t += $7 * 1000 } END { printf "%d %d %.0f\n", c, b, t }' "$1"
}

# fileio: calls, bytes and latency against its table; the syscalls' stacks are user frames.
P=$LIVE_TMP/fi.pb.gz
held
trace "$LIVE_TMP/fi.out" fileio -C -p $HELD --mmap-pages $PAGES --pprof "$P" 3600
go_read
tracer_stop
set -- $(fileio_totals "$LIVE_TMP/fi.out" $HELD)
[ "$1" = $N ] && [ "$2" = $((N * 4096)) ] || fail "fileio's table: $1 calls, $2 bytes: $(cat "$LIVE_TMP/fi.out")"
[ "$(total "$P" requests)" = "$1" ] && [ "$(total "$P" bytes)" = "$2" ] ||
	fail "fileio: profile $(total "$P" requests) calls, $(total "$P" bytes) bytes; table $1, $2"
lat=$(total "$P" latency)
# The table's TOTAL_ms has three decimals: one rounding per row.
[ $(((lat + 500) / 1000 - $3)) -le 1 ] && [ $(($3 - (lat + 500) / 1000)) -le 1 ] ||
	fail "fileio latency: profile $lat ns, table $3 us"
has_chain "$P" && has_label "$P" op read && has_label "$P" pid $HELD ||
	fail "fileio: $(go tool pprof -traces -lines "$P" 2>&1 | head -30)"
echo "ok: fileio --pprof: $1 calls, $2 bytes, $lat ns as its table; stacky's frames with lines"

# iosb_totals FILE - "CALLS REQS BYTES TOTAL_us" summed over iostackbreakdown's syscall rows
iosb_totals() {
	sed -n '/^per syscall/,/^$/p' "$1" |
		awk '$2 ~ /^[0-9]+$/ { c += $2; r += $6; t += $3; b += ($11 + $12) * 1024 } END { print c + 0, r + 0, b + 0, t + 0 }'
}

# iostackbreakdown: calls, block requests, bytes and latency against its per-syscall rows.
P=$LIVE_TMP/ib.pb.gz
held
r0=$(devstat 1)
trace "$LIVE_TMP/ib.out" iostackbreakdown -p $HELD --mmap-pages $PAGES --pprof "$P"
go_read
tracer_stop
set -- $(iosb_totals "$LIVE_TMP/ib.out")
[ "$1" = $N ] && [ "$2" = $N ] && [ "$2" = $(($(devstat 1) - r0)) ] && [ "$3" = $((N * 4096)) ] ||
	fail "iostackbreakdown's rows: $*, disk reads $(($(devstat 1) - r0)): $(cat "$LIVE_TMP/ib.out")"
[ "$(total "$P" calls)" = "$1" ] && [ "$(total "$P" requests)" = "$2" ] && [ "$(total "$P" bytes)" = "$3" ] ||
	fail "iostackbreakdown: profile $(total "$P" calls) calls, $(total "$P" requests) requests, $(total "$P" bytes) bytes; rows $*"
near "$(total "$P" latency)" "$4" 1 || fail "iostackbreakdown latency: profile $(total "$P" latency) ns, rows $4 us"
has_chain "$P" && has_label "$P" op pread64 || fail "iostackbreakdown: $(go tool pprof -traces -lines "$P" 2>&1 | head -30)"
echo "ok: iostackbreakdown --pprof: $1 calls, $2 requests (/sys/block/$D/stat), $3 bytes, latency as its rows"

# A recording with stacks, of a process that was running before it, then each tool's
# report with --pprof: the same totals as the report's own output.
R=$LIVE_TMP/rec.iotap
held
iot record -g --mmap-pages $PAGES -o "$R" --tools biostacks,iostack,fileio,iostackbreakdown -- \
	sh -c "echo go >'$LIVE_TMP/go'; while kill -0 $HELD 2>/dev/null; do sleep 0.02; done" \
	2>"$LIVE_TMP/rec.err" || fail "record -g failed: $(cat "$LIVE_TMP/rec.err")"
wait $HELD || fail "stacky_fp failed"
rep() {
	"$IOTAP" report -i "$R" "$@" >"$LIVE_TMP/rep.out" 2>"$LIVE_TMP/rep.err" ||
		fail "report $*: $(cat "$LIVE_TMP/rep.err")"
}
P=$LIVE_TMP/r.pb.gz
rep biostacks -d "$D" -f --pprof "$P"
[ "$(total "$P" requests)" = $N ] && [ "$(folded_sum "$LIVE_TMP/rep.out")" = $N ] &&
	[ "$(total "$P" bytes)" = $((N * 4096)) ] && has_chain "$P" ||
	fail "report biostacks: $(total "$P" requests) requests, $(total "$P" bytes) bytes"
rep biostacks -d "$D" -f --weight latency --pprof "$P"
near "$(total "$P" latency)" "$(folded_sum "$LIVE_TMP/rep.out")" $N ||
	fail "report biostacks latency: $(total "$P" latency) ns, folded $(folded_sum "$LIVE_TMP/rep.out") us"
rep iostack -U -f --pprof "$P"
[ "$(total "$P" bytes)" = "$(folded_sum "$LIVE_TMP/rep.out")" ] &&
	[ "$(ptotal "$P" bytes "-tagfocus=pid=^$HELD\$" | cut -d' ' -f1)" = $((N * 4096)) ] && has_chain "$P" ||
	fail "report iostack: $(ptotal "$P" bytes "-tagfocus=pid=^$HELD\$"), folded $(folded_sum "$LIVE_TMP/rep.out")"
rep fileio -C -p $HELD --pprof "$P" 3600
set -- $(fileio_totals "$LIVE_TMP/rep.out" $HELD)
[ "$1" = $N ] && [ "$(total "$P" requests)" = "$1" ] && [ "$(total "$P" bytes)" = "$2" ] && has_chain "$P" ||
	fail "report fileio: profile $(total "$P" requests) calls, $(total "$P" bytes) bytes; table $*"
rep iostackbreakdown -p $HELD --pprof "$P"
set -- $(iosb_totals "$LIVE_TMP/rep.out")
[ "$1" = $N ] && [ "$(total "$P" calls)" = "$1" ] && [ "$(total "$P" requests)" = "$2" ] &&
	[ "$(total "$P" bytes)" = "$3" ] && near "$(total "$P" latency)" "$4" 1 && has_chain "$P" ||
	fail "report iostackbreakdown: profile $(total "$P" calls) calls, $(total "$P" requests) requests; rows $*"
echo "ok: from a recording: each tool's profile has its report's totals ($N reads, $((N * 4096)) bytes) and stacky's frames"

# Bad paths: one error line, exit 1, no file. A directory that is not there, a directory as
# the file, and a recording without stacks.
iot record -o "$LIVE_TMP/nog.iotap" --tools biostacks -- "$FP" "$DEV" 10 2>/dev/null ||
	fail "record without -g failed"
for args in "biostacks --pprof $LIVE_TMP/no/such/dir/p.pb.gz" "iostack --pprof $LIVE_TMP" \
	"report -i $LIVE_TMP/nog.iotap biostacks --pprof $LIVE_TMP/nog.pb.gz"; do
	rc=0
	"$IOTAP" $args >/dev/null 2>"$LIVE_TMP/e.err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/e.err")" = 1 ] || fail "'$args': exit $rc, stderr: $(cat "$LIVE_TMP/e.err")"
	echo "  $args: $(cat "$LIVE_TMP/e.err")"
done
[ ! -e "$LIVE_TMP/nog.pb.gz" ] || fail "a profile was written from a recording without stacks"
# Its directory gone by the end: the report still printed, one line about the profile, exit 2.
mkdir "$LIVE_TMP/gone"
trace "$LIVE_TMP/gone.out" biostacks -d "$D" --pprof "$LIVE_TMP/gone/p.pb.gz"
"$FP" "$DEV" 20
rmdir "$LIVE_TMP/gone"
sleep 0.3
kill -INT $TRACER_PID
rc=0
wait $TRACER_PID || rc=$?
[ $rc = 2 ] || fail "biostacks exited $rc without its profile, not 2"
[ "$(grep -c 'p\.pb\.gz' "$LIVE_TMP/gone.out.err")" = 1 ] &&
	grep -q "cannot create $LIVE_TMP/gone/p.pb.gz: No such file or directory" "$LIVE_TMP/gone.out.err" &&
	grep -q '^@usecs\[' "$LIVE_TMP/gone.out" || fail "profile's directory gone: $(cat "$LIVE_TMP/gone.out.err")"
echo "  its directory gone by the end: $(grep 'p\.pb\.gz' "$LIVE_TMP/gone.out.err")"
ls -a "$LIVE_TMP" | grep -q '^\.[a-z]*\.pb\.gz\.' && fail "a temporary profile was left behind"
echo "ok: bad paths give one error line, exit 1, and no file"

snap=$(tracefs_snapshot)
for p in $OURS; do
	! grep -qw "iotap_$p" <<<"$snap" || fail "iotap $p left in tracefs: $(grep -w "iotap_$p" <<<"$snap")"
done
echo "ok: no instance or dynamic event of the $(wc -w <<<"$OURS") tracing runs left in tracefs"
