#!/bin/bash
# perf.data in: perf record and iotap record around the same N direct reads give iotap report
# the same biolatency and biosnoop; -g files feed the stack tools.
. "$(dirname "$0")/lib.sh"
require_root
command -v perf >/dev/null || skip "no perf (apt-get install linux-perf)"

DEV=$(loop_create perfdata 64)
D=$(basename "$DEV")
N=500
P=$LIVE_TMP/perf.data
G=$LIVE_TMP/perf-g.data
R=$LIVE_TMP/r.iotap

# iotap records while perf records while dio reads: both see the very same requests.
"$IOTAP" record -o "$R" -- perf record -q -o "$P" -e block:block_rq_issue -e block:block_rq_complete \
	-e block:block_io_start -a -- "$IOTAP_PROGS/dio" read "$DEV" $N 4096 rand >"$LIVE_TMP/offsets" \
	2>"$LIVE_TMP/rec.err" || fail "recording failed: $(cat "$LIVE_TMP/rec.err")"
for what in perf iotap; do
	in=$P; [ $what = iotap ] && in=$R
	"$IOTAP" report -i "$in" biolatency -D -d "$D" >"$LIVE_TMP/$what.lat" 2>"$LIVE_TMP/$what.err" ||
		fail "report -i $what biolatency failed: $(cat "$LIVE_TMP/$what.err")"
	[ ! -s "$LIVE_TMP/$what.err" ] || fail "report -i $what said: $(cat "$LIVE_TMP/$what.err")"
	got=$(hist_total "$LIVE_TMP/$what.lat" "$D")
	[ "$got" = $N ] || fail "biolatency over the $what recording counted $got, expected $N"
	[ "$(hist_sections "$LIVE_TMP/$what.lat")" = "$D" ] || fail "$what sections: $(hist_sections "$LIVE_TMP/$what.lat")"
	# biosnoop: the sectors dio read, each once.
	"$IOTAP" report -i "$in" biosnoop -d "$D" | awk 'NR > 1 { print $6 }' | sort -n >"$LIVE_TMP/$what.sectors"
done
awk '{ print $1 / 512 }' "$LIVE_TMP/offsets" | sort -n >"$LIVE_TMP/want.sectors"
cmp -s "$LIVE_TMP/perf.sectors" "$LIVE_TMP/want.sectors" || fail "biosnoop over perf.data: sectors differ from dio's"
cmp -s "$LIVE_TMP/iotap.sectors" "$LIVE_TMP/want.sectors" || fail "biosnoop over the recording: sectors differ from dio's"
echo "ok: perf.data and the iotap recording both give biolatency $N and biosnoop dio's $N sectors"

# Without a submitter's event (an exporter's dump without --queue-time is one): the tools
# that only attribute with it say so once and show each request with the task that issued
# it; -Q, which times from it, refuses.
P2=$LIVE_TMP/perf-rq.data
perf record -q -o "$P2" -e block:block_rq_issue -e block:block_rq_complete -a -- \
	"$IOTAP_PROGS/dio" read "$DEV" $N 4096 rand >/dev/null 2>"$LIVE_TMP/rec2.err" ||
	fail "perf record failed: $(cat "$LIVE_TMP/rec2.err")"
"$IOTAP" report -i "$P2" biosnoop -d "$D" >"$LIVE_TMP/bs2.out" 2>"$LIVE_TMP/bs2.err" ||
	fail "biosnoop over issue and completion alone failed: $(cat "$LIVE_TMP/bs2.err")"
grep -q 'no block_io_start or block_rq_insert events: requests are shown with the task that issued them' \
	"$LIVE_TMP/bs2.err" || fail "biosnoop did not say it has no submitter's event: $(cat "$LIVE_TMP/bs2.err")"
got=$(awk -v d="$D" '$2 == "dio" && $4 == d && $5 == "R" && $7 == 4096' "$LIVE_TMP/bs2.out" | wc -l)
[ "$got" = $N ] || fail "biosnoop without a submitter's event: $got reads by dio, expected $N"
for t in biotop bitesize seeksize bioerr; do
	"$IOTAP" report -i "$P2" $t >/dev/null 2>"$LIVE_TMP/$t.err" ||
		fail "$t over issue and completion alone failed: $(cat "$LIVE_TMP/$t.err")"
done
"$IOTAP" report -i "$P2" --html "$LIVE_TMP/rq.html" 2>"$LIVE_TMP/html2.err" ||
	fail "report --html over issue and completion alone failed: $(cat "$LIVE_TMP/html2.err")"
! "$IOTAP" report -i "$P2" biosnoop -Q >/dev/null 2>"$LIVE_TMP/q.err" ||
	fail "biosnoop -Q ran without a submitter's event"
[ "$(wc -l <"$LIVE_TMP/q.err")" = 1 ] || fail "biosnoop -Q: not one line: $(cat "$LIVE_TMP/q.err")"
echo "ok: without a submitter's event, biosnoop shows dio's $N reads and says why; -Q refuses in one line"

# -g: the stack tools take perf's callchains, and name the kernel frames from perf's build-id cache.
perf record -q -g -o "$G" -e block:block_io_start -e block:block_rq_issue -e block:block_rq_complete \
	-e block:block_bio_queue -a -- "$IOTAP_PROGS/stacky_fp" "$DEV" 20 >/dev/null 2>"$LIVE_TMP/rec.err" ||
	fail "perf record -g failed: $(cat "$LIVE_TMP/rec.err")"
"$IOTAP" report -i "$G" biostacks -d "$D" >"$LIVE_TMP/stacks" 2>"$LIVE_TMP/stacks.err" ||
	fail "biostacks failed: $(cat "$LIVE_TMP/stacks.err")"
got=$(awk '/^\[/ { n += $3 } END { print n + 0 }' "$LIVE_TMP/stacks")
[ "$got" = 20 ] || fail "biostacks over perf.data -g counted $got, expected 20"
grep -q '^    submit_bio' "$LIVE_TMP/stacks" || fail "no named kernel frames: $(head -20 "$LIVE_TMP/stacks")"
grep -q '^    outer_fn' "$LIVE_TMP/stacks" || fail "no named user frames: $(head -30 "$LIVE_TMP/stacks")"
"$IOTAP" report -i "$G" iostack -f >"$LIVE_TMP/folded" || fail "iostack -f failed"
got=$(awk -v d="$D" 'index($0, d ";") == 1 { n += $NF } END { print n + 0 }' "$LIVE_TMP/folded")
[ "$got" = $((20 * 4096)) ] || fail "iostack -f over perf.data -g: $got bytes on $D, expected $((20 * 4096))"
echo "ok: perf record -g feeds biostacks (20 reads, named frames) and iostack"

# A perf.data without callchains: a stack tool says what is missing, in one line.
rc=0; "$IOTAP" report -i "$P" biostacks 2>"$LIVE_TMP/err" >/dev/null || rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "biostacks without -g: rc $rc, $(cat "$LIVE_TMP/err")"
grep -q "perf record -g" "$LIVE_TMP/err" || fail "biostacks without -g said: $(cat "$LIVE_TMP/err")"
echo "ok: a file without -g is refused by a stack tool in one line"
