#!/bin/bash
# --cgroup on a cgroup v1 hierarchy (hybrid and v1 hosts: blkio on v1, as on RHEL 8 and on this
# project's CI): a blkio directory and a named hierarchy (name=systemd) are followed as a v2
# directory is, a task that was there before tracing began (its /proc line "N:blkio:/path")
# and one that moves in while tracing (cgroup_attach_task with that hierarchy's dst_root);
# the hierarchy's root counts what the kernel's diskstats count. A recording made with
# --cgroups at the same time holds blkio's and the named hierarchies: a report with the same
# directories counts what live counted, as nobody too; a v1 hierarchy it does not hold
# (memory) is refused in one line instead of counting nothing.
. "$(dirname "$0")/lib.sh"
require_root

V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$V1" ] || skip "no cgroup v1 blkio hierarchy mounted (a unified-only host): nothing to follow"
NAMED=$(awk '$3 == "cgroup" && $4 ~ /(^|,)name=/ { print $2; exit }' /proc/mounts)
TOP="$V1/iotap-v1.$$"
mkdir "$TOP" || skip "cannot create a cgroup under $V1"
cg_cleanup() {
	cgroup_remove "$TOP" "$V1"
	live_cleanup
}
trap cg_cleanup EXIT

DEV=$(loop_create cgv1 64)
D=$(basename "$DEV")
DIO=$IOTAP_PROGS/dio
# disk_reads - the kernel's count of completed reads on the disk (/sys/block/D/stat, field 1)
disk_reads() { awk '{ print $1 }' "/sys/block/$D/stat"; }

# A reader already in the cgroup before the tracers start: it waits for a file, then reads.
GO=$LIVE_TMP/go
sh -c "echo \$\$ >'$TOP/cgroup.procs' && while [ ! -e '$GO' ]; do sleep 0.05; done &&
	exec '$DIO' read '$DEV' 200 4096 rand" >/dev/null &
early=$!
LIVE_PIDS="$LIVE_PIDS $early"

tracer_start "$LIVE_TMP/cg.out" biolatency -d "$D" --cgroup "$TOP"
C_PID=$TRACER_PID
tracer_start "$LIVE_TMP/root.out" biolatency -d "$D" --cgroup "$V1"
R_PID=$TRACER_PID
if [ -n "$NAMED" ]; then
	tracer_start "$LIVE_TMP/named.out" biolatency -d "$D" --cgroup "$NAMED"
	N_PID=$TRACER_PID
fi
R=$LIVE_TMP/r.iotap
rm -f "$LIVE_TMP/rec.go"
"$IOTAP" record -o "$R" --cgroups -- sh -c "touch '$LIVE_TMP/rec.go'; exec sleep 600" \
	>/dev/null 2>"$LIVE_TMP/rec.err" &
REC_PID=$!
LIVE_PIDS="$LIVE_PIDS $REC_PID"
for i in $(seq 1 200); do [ -e "$LIVE_TMP/rec.go" ] && break; sleep 0.05; done
[ -e "$LIVE_TMP/rec.go" ] || fail "record --cgroups did not start: $(cat "$LIVE_TMP/rec.err")"
before=$(disk_reads)

# 200 reads by the early one, 300 by a shell that moves itself in, 150 from outside.
touch "$GO"
sh -c "echo \$\$ >'$TOP/cgroup.procs' && exec '$DIO' read '$DEV' 300 4096 rand" >/dev/null &
moved=$!
"$DIO" read "$DEV" 150 4096 rand >/dev/null &
outside=$!
wait $early $moved $outside || fail "a reader failed"
reads=$(($(disk_reads) - before))

for p in $C_PID $R_PID ${N_PID:-}; do TRACER_PID=$p; tracer_stop; done
kill -INT $REC_PID; wait $REC_PID || fail "record --cgroups failed: $(cat "$LIVE_TMP/rec.err")"
c=$(hist_total "$LIVE_TMP/cg.out"); r=$(hist_total "$LIVE_TMP/root.out")
[ "$c" = 500 ] || fail "--cgroup $TOP counted $c, expected 500 (200 there before, 300 moved in)"
[ "$r" = "$reads" ] || fail "--cgroup $V1 (the hierarchy's root) counted $r, diskstats $reads"
echo "ok: v1 blkio cgroup counts 500 (200 from a task there at the start, 300 from one that moved in); its root $r = diskstats"
if [ -n "$NAMED" ]; then
	n=$(hist_total "$LIVE_TMP/named.out")
	[ "$n" = "$reads" ] || fail "--cgroup $NAMED (a named hierarchy's root) counted $n, diskstats $reads"
	echo "ok: the named hierarchy $NAMED counts $n = diskstats"
fi

# The recording holds the blkio and named hierarchies: its report counts what live counted,
# reported by nobody (who reads nothing of this machine's cgroups to do it).
PUB=$(mktemp -d /tmp/iotap-pub.XXXXXX)
trap 'rm -rf "$PUB"; cg_cleanup' EXIT
cp "$R" "$PUB/r.iotap"
chmod 755 "$PUB"; chown nobody "$PUB/r.iotap"
# report_total CGROUP - biolatency's count of the disk's reads in CGROUP, reported by nobody
report_total() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTAP" report -i "$PUB/r.iotap" \
		biolatency -d "$D" --cgroup "$1" 2>"$LIVE_TMP/rep.err" | hist_total /dev/stdin
	[ ! -s "$LIVE_TMP/rep.err" ] || fail "report --cgroup $1 said: $(cat "$LIVE_TMP/rep.err")"
}
got=$(report_total "$TOP")
[ "$got" = "$c" ] || fail "report --cgroup $TOP counted $got, live $c"
got=$(report_total "$V1/")
[ "$got" = "$reads" ] || fail "report --cgroup $V1 counted $got, diskstats $reads"
if [ -n "$NAMED" ]; then
	got=$(report_total "$NAMED")
	[ "$got" = "$reads" ] || fail "report --cgroup $NAMED counted $got, diskstats $reads"
fi
echo "ok: as nobody, the recording's report counts $TOP $c and $V1 $reads${NAMED:+, $NAMED $reads}, as live did"
# Gone here: named by the recording machine's mount point, as on another machine.
cgroup_remove "$TOP" "$V1"
[ ! -d "$TOP" ] || fail "cannot remove $TOP"
got=$(report_total "$TOP")
[ "$got" = "$c" ] || fail "report --cgroup $TOP (removed) counted $got, live $c"
echo "ok: with $TOP removed, the report still counts $c in it"

# A v1 hierarchy the recording does not hold: one error line and the usage status (1), as a
# relative --cgroup gets.
OTHER=$(awk '$3 == "cgroup" && $4 !~ /(^|,)(blkio|name=[^,]*)(,|$)/ { print $2; exit }' /proc/mounts)
if [ -n "$OTHER" ]; then
	rc=0
	"$IOTAP" report -i "$R" biolatency --cgroup "$OTHER" >/dev/null 2>"$LIVE_TMP/rep.err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/rep.err")" = 1 ] &&
		grep -q "the recording holds the cgroup v1 hierarchies" "$LIVE_TMP/rep.err" ||
		fail "a report with a v1 --cgroup not recorded: status $rc, said: $(cat "$LIVE_TMP/rep.err")"
	echo "ok: a report refuses a v1 hierarchy it does not hold: $(cat "$LIVE_TMP/rep.err")"
fi
