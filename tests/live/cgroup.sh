#!/bin/bash
# --cgroup: I/O counted for the cgroup its submitter was in when it submitted it (never the
# completing task's, bcc#3741), below a parent too, following a task that moves; CGROUP columns.
. "$(dirname "$0")/lib.sh"
require_root

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup v2 mount"
[ -e "$CG/cgroup.procs" ] || skip "$CG is not a cgroup v2 root"
TOP="$CG/iotap-test.$$"
mkdir "$TOP" "$TOP/a" "$TOP/b" || skip "cannot create cgroups under $CG"
cg_cleanup() {
	# Whatever is left in the test cgroups goes back to the root before they are removed.
	cgroup_remove "$TOP/a" "$CG"
	cgroup_remove "$TOP/b" "$CG"
	cgroup_remove "$TOP" "$CG"
	live_cleanup
}
trap cg_cleanup EXIT

DEV=$(loop_create cgroup 64)
D=$(basename "$DEV")
DIO=$IOTAP_PROGS/dio
R=$LIVE_TMP/cg.iotap

tracer_start "$LIVE_TMP/a.out" biolatency -d "$D" --cgroup "$TOP/a"
A_PID=$TRACER_PID
tracer_start "$LIVE_TMP/b.out" biolatency -d "$D" --cgroup "$TOP/b/"
B_PID=$TRACER_PID
tracer_start "$LIVE_TMP/top.out" biolatency -d "$D" --cgroup "$TOP"
T_PID=$TRACER_PID
tracer_start "$LIVE_TMP/snoop.out" biosnoop -d "$D" --show-cgroup
S_PID=$TRACER_PID
"$IOTAP" record -o "$R" --cgroups -- sleep 30 >/dev/null 2>"$LIVE_TMP/rec.err" &
R_PID=$!
LIVE_PIDS="$LIVE_PIDS $R_PID"
sleep 1

# Three readers of the same disk at once: 300 reads in a; 200 in b, then the same shell moves
# itself to a and its next child reads 100 more; 150 from the root cgroup, counted by neither.
sh -c "echo \$\$ >'$TOP/a/cgroup.procs' && exec '$DIO' read '$DEV' 300 4096 rand" >/dev/null &
p1=$!
sh -c "echo \$\$ >'$TOP/b/cgroup.procs' && '$DIO' read '$DEV' 200 4096 rand &&
	echo \$\$ >'$TOP/a/cgroup.procs' && '$DIO' read '$DEV' 100 4096 rand" >/dev/null &
p2=$!
"$DIO" read "$DEV" 150 4096 rand >/dev/null &
p3=$!
wait $p1 $p2 $p3 || fail "a reader failed"

for p in $A_PID $B_PID $T_PID $S_PID; do TRACER_PID=$p; tracer_stop; done
kill -INT $R_PID; wait $R_PID || fail "record --cgroups failed: $(cat "$LIVE_TMP/rec.err")"

a=$(hist_total "$LIVE_TMP/a.out"); b=$(hist_total "$LIVE_TMP/b.out"); t=$(hist_total "$LIVE_TMP/top.out")
[ "$a" = 400 ] || fail "--cgroup a counted $a, expected 400 (300 + 100 after the move)"
[ "$b" = 200 ] || fail "--cgroup b counted $b, expected 200"
[ "$t" = 600 ] || fail "--cgroup of their parent counted $t, expected 600"
echo "ok: --cgroup counts a 400, b 200 (a task that moved counted where it submitted), parent 600"

rel=${TOP#"$CG"}
got=$(awk -v c="$rel/a" '$NF == c' "$LIVE_TMP/snoop.out" | wc -l)
[ "$got" = 400 ] || fail "biosnoop --show-cgroup: $got lines in $rel/a, expected 400"
got=$(awk -v c="$rel/b" '$NF == c' "$LIVE_TMP/snoop.out" | wc -l)
[ "$got" = 200 ] || fail "biosnoop --show-cgroup: $got lines in $rel/b, expected 200"
got=$(awk 'NR > 2 && $NF !~ /iotap-test/' "$LIVE_TMP/snoop.out" | wc -l)
[ "$got" -ge 150 ] || fail "biosnoop --show-cgroup: $got lines outside the test cgroups, expected 150 or more"
echo "ok: biosnoop --show-cgroup names the submitter's cgroup on every line"

# The recording carries the cgroups: the same counts from a report.
for c in a b; do
	got=$("$IOTAP" report -i "$R" biolatency -d "$D" --cgroup "$TOP/$c" 2>"$LIVE_TMP/rep.err" |
		hist_total /dev/stdin)
	want=400; [ $c = b ] && want=200
	[ "$got" = $want ] || fail "report --cgroup $c counted $got, expected $want: $(cat "$LIVE_TMP/rep.err")"
done
echo "ok: report -i --cgroup from a recording made with --cgroups: a 400, b 200"

# A cgroup that does not exist is one error line when tracing live.
rc=0; "$IOTAP" biolatency --cgroup "$CG/no-such-cgroup.$$" 2>"$LIVE_TMP/err" >/dev/null || rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "bad --cgroup: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: a missing cgroup is refused in one line"
