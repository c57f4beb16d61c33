#!/bin/bash
# --cgroup and children born straight into a cgroup v2 directory (clone3 with
# CLONE_INTO_CGROUP, as systemd and container runtimes start what they run): counted in the
# cgroup they were born into, not their parent's, live (their /proc/PID/cgroup read when the
# birth, task:task_newtask with that clone flag, is delivered) and from a recording made with
# --cgroups (which writes what it read), reported by nobody; the kernel's diskstats agree.
# Children gone before their cgroup could be read are counted and said in one line, the same
# by the recorder and by its report.
. "$(dirname "$0")/lib.sh"
require_root

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup v2 mount"
[ -e "$CG/cgroup.procs" ] || skip "$CG is not a cgroup v2 root"
[ -e /sys/kernel/tracing/events/task/task_newtask ] || skip "no task:task_newtask tracepoint"
TOP="$CG/iotap-clone.$$"
mkdir "$TOP" "$TOP/born" || skip "cannot create cgroups under $CG"
PUB=""
cg_cleanup() {
	cgroup_remove "$TOP/born" "$CG"
	cgroup_remove "$TOP" "$CG"
	[ -z "$PUB" ] || rm -rf "$PUB"
	live_cleanup
}
trap cg_cleanup EXIT

DEV=$(loop_create cgclone 64)
D=$(basename "$DEV")
CLONE=$IOTAP_PROGS/cgclone
R=$LIVE_TMP/clone.iotap
N=300 NOUT=150
"$CLONE" "$TOP/born" "$DEV" 0 </dev/null >/dev/null ||
	skip "clone3 CLONE_INTO_CGROUP refused here (a kernel before 5.7?)"
# disk_reads - the kernel's count of completed reads on the disk (/sys/block/D/stat, field 1)
disk_reads() { awk '{ print $1 }' "/sys/block/$D/stat"; }
# top_io FILE PID - the I/O biotop counted for PID, over all its intervals
top_io() { awk -v p="$2" '$1 == p && $2 == "cgclone" { n += $7 } END { print n + 0 }' "$1"; }

tracer_start "$LIVE_TMP/snoop.out" biosnoop -d "$D" --cgroup "$TOP/born"
S_PID=$TRACER_PID
tracer_start "$LIVE_TMP/top.out" biotop -C --cgroup "$TOP/born" 1
T_PID=$TRACER_PID
tracer_start "$LIVE_TMP/show.out" biosnoop -d "$D" --show-cgroup
W_PID=$TRACER_PID
# record_start OUT ERR - record --cgroups in the background until SIGINT, once events flow
record_start() {
	rm -f "$LIVE_TMP/rec.go"
	"$IOTAP" record -o "$1" --cgroups -- sh -c "touch '$LIVE_TMP/rec.go'; exec sleep 600" \
		>/dev/null 2>"$2" &
	R_PID=$!
	LIVE_PIDS="$LIVE_PIDS $R_PID"
	for i in $(seq 1 200); do [ -e "$LIVE_TMP/rec.go" ] && return 0; sleep 0.05; done
	fail "record --cgroups did not start: $(cat "$2")"
}
record_start "$R" "$LIVE_TMP/rec.err"
before=$(disk_reads)

# N reads by a child born into born (held as a zombie until the tracers are done, so that
# each finds its /proc/PID/cgroup however late it reads it); NOUT by a reader outside.
mkfifo "$LIVE_TMP/hold"
"$CLONE" -H "$TOP/born" "$DEV" $N <"$LIVE_TMP/hold" >"$LIVE_TMP/child" &
c=$!
exec 4>"$LIVE_TMP/hold"
"$IOTAP_PROGS/dio" read "$DEV" $NOUT 4096 rand >/dev/null &
o=$!
wait $o || fail "the reader outside failed"
for i in $(seq 1 100); do [ -s "$LIVE_TMP/child" ] && break; sleep 0.05; done
child=$(cat "$LIVE_TMP/child")
[ -n "$child" ] || fail "cgclone made no child"
# The child reads, then exits: a zombie once its stat says Z.
for i in $(seq 1 200); do [ "$(awk '{ print $3 }' "/proc/$child/stat" 2>/dev/null)" = Z ] && break; sleep 0.05; done
reads=$(($(disk_reads) - before))
[ "$reads" = $((N + NOUT)) ] || fail "diskstats counted $reads reads, the workload made $((N + NOUT))"

for p in $S_PID $T_PID $W_PID; do TRACER_PID=$p; tracer_stop; done
kill -INT $R_PID; wait $R_PID || fail "record --cgroups failed: $(cat "$LIVE_TMP/rec.err")"
exec 4>&-
wait $c || fail "cgclone's child failed"

got=$(awk -v d="$D" -v p="$child" '$4 == d && $3 == p && $2 == "cgclone"' "$LIVE_TMP/snoop.out" | wc -l)
all=$(awk -v d="$D" '$4 == d' "$LIVE_TMP/snoop.out" | wc -l)
[ "$got" = $N ] && [ "$all" = $N ] ||
	fail "biosnoop --cgroup born: $got lines of the child $child, $all in all; the child read $N"
got=$(top_io "$LIVE_TMP/top.out" "$child")
[ "$got" = $N ] || fail "biotop --cgroup born: $got I/O of the child $child, expected $N: $(cat "$LIVE_TMP/top.out")"
rel=${TOP#"$CG"}/born
got=$(awk -v d="$D" -v c="$rel" '$4 == d && $NF == c' "$LIVE_TMP/show.out" | wc -l)
[ "$got" = $N ] || fail "biosnoop --show-cgroup: $got lines in $rel, expected $N"
echo "ok: live, the child born into $rel counts its $N reads there (biosnoop, biotop, --show-cgroup); diskstats $reads with $NOUT from outside"

# The recording says what the recorder read: the same counts, reported by nobody.
PUB=$(mktemp -d /tmp/iotap-pub.XXXXXX)
cp "$R" "$PUB/r.iotap"
chmod 755 "$PUB"; chown nobody "$PUB/r.iotap"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" "$@"; }
nobody report -i "$PUB/r.iotap" biosnoop -d "$D" --cgroup "$TOP/born" >"$LIVE_TMP/rsnoop.out" \
	2>"$LIVE_TMP/rep.err" || fail "report as nobody: $(cat "$LIVE_TMP/rep.err")"
got=$(awk -v d="$D" -v p="$child" '$4 == d && $3 == p' "$LIVE_TMP/rsnoop.out" | wc -l)
all=$(awk -v d="$D" '$4 == d' "$LIVE_TMP/rsnoop.out" | wc -l)
[ "$got" = $N ] && [ "$all" = $N ] || fail "report biosnoop --cgroup born: $got of the child, $all in all"
nobody report -i "$PUB/r.iotap" biotop -C --cgroup "$TOP/born" 1 >"$LIVE_TMP/rtop.out" \
	2>"$LIVE_TMP/rep.err" || fail "report biotop as nobody: $(cat "$LIVE_TMP/rep.err")"
got=$(top_io "$LIVE_TMP/rtop.out" "$child")
[ "$got" = $N ] || fail "report biotop --cgroup born: $got I/O of the child, expected $N"
got=$(nobody report -i "$PUB/r.iotap" biosnoop -d "$D" --show-cgroup 2>/dev/null |
	awk -v d="$D" -v c="$rel" '$4 == d && $NF == c' | wc -l)
[ "$got" = $N ] || fail "report biosnoop --show-cgroup: $got lines in $rel, expected $N"
echo "ok: report as nobody from the recording: the child's $N reads in $rel (biosnoop, biotop, --show-cgroup)"

# Children reaped at once, before a tracer may read their cgroup: whatever was missed is
# counted in one line, and a report of the recording says what the recorder said.
tracer_start "$LIVE_TMP/gone.out" biosnoop -d "$D" --cgroup "$TOP/born"
G_PID=$TRACER_PID
record_start "$R.2" "$LIVE_TMP/rec2.err"
"$CLONE" -n 50 "$TOP/born" "$DEV" 0 </dev/null >/dev/null || fail "cgclone -n 50 failed"
TRACER_PID=$G_PID; tracer_stop
kill -INT $R_PID; wait $R_PID || fail "record --cgroups failed: $(cat "$LIVE_TMP/rec2.err")"
# said LOG - the number of the line saying how many children had gone (0: no such line)
said() {
	local n
	n=$(grep -c 'CLONE_INTO_CGROUP' "$1" || true)
	[ "$n" -le 1 ] || fail "said $n times: $(cat "$1")"
	sed -n 's/.* \([0-9][0-9]*\) tasks* created straight into a cgroup.*/\1/p' "$1" | grep . || echo 0
}
live=$(said "$LIVE_TMP/gone.out.err") rec=$(said "$LIVE_TMP/rec2.err")
[ "$live" -le 50 ] && [ "$rec" -le 50 ] || fail "more children gone than were born: $live, $rec"
"$IOTAP" report -i "$R.2" biosnoop -d "$D" --cgroup "$TOP/born" >/dev/null 2>"$LIVE_TMP/rep2.err" ||
	fail "report: $(cat "$LIVE_TMP/rep2.err")"
[ "$(said "$LIVE_TMP/rep2.err")" = "$rec" ] ||
	fail "the recorder said $rec children had gone, its report $(said "$LIVE_TMP/rep2.err"): $(cat "$LIVE_TMP/rec2.err" "$LIVE_TMP/rep2.err")"
echo "ok: of 50 children reaped at once, $live were gone before biosnoop read their cgroup, $rec before the recorder did (its report says $rec too)"
