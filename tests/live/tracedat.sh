#!/bin/bash
# trace.dat in: trace-cmd record, iotap record and a live iotap biosnoop around the same direct
# I/O; every block tool over the trace.dat counts what iotap counted, and as nobody.
. "$(dirname "$0")/lib.sh"
require_root
command -v trace-cmd >/dev/null || skip "no trace-cmd (apt-get install trace-cmd)"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"

DEV=$(loop_create tracedat 64)
D=$(basename "$DEV")
command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true
# A scheduler, so that requests are inserted before they are issued (iosched).
echo mq-deadline >/sys/block/"$D"/queue/scheduler || skip "$D takes no mq-deadline scheduler"
DD=$(stat -L -c '%t:%T' "$DEV" | while IFS=: read -r ma mi; do echo $((16#$ma)):$((16#$mi)); done)
NR=300
NW=100
T=$LIVE_TMP/trace.dat
R=$LIVE_TMP/r.iotap
EVENTS="-e block:block_rq_insert -e block:block_rq_issue -e block:block_rq_complete"
for e in block_io_start block_io_done; do
	[ -d $TRACEFS/events/block/$e ] && EVENTS="$EVENTS -e block:$e"
done

# trace-cmd records in the top-level buffer and resets it as it exits: put back what it changes.
clock=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock)
tracing_on=$(cat $TRACEFS/tracing_on)
[ -z "$(cat $TRACEFS/set_event)" ] || skip "the top-level buffer has events enabled: someone else traces with it"
toplevel_restore() {
	echo >$TRACEFS/set_event
	echo "$clock" >$TRACEFS/trace_clock
	echo "$tracing_on" >$TRACEFS/tracing_on
	live_cleanup
}
trap toplevel_restore EXIT

# -d: this kernel refuses the function tracer's files; --no-filter: trace-cmd's own pid filter
# writes set_ftrace_pid, which it refuses too (trace-cmd 3.1.6 then crashes). -C mono: the
# clock iotap's own runs use; -b 8192 and --mmap-pages 1024: no loss on a busy machine. Its banner says when it records; stdbuf lets it out at once.
# shellcheck disable=SC2086
stdbuf -oL trace-cmd record -d --no-filter -C mono -b 8192 $EVENTS -o "$T" >"$LIVE_TMP/tc.out" 2>&1 &
TC=$!
LIVE_PIDS="$LIVE_PIDS $TC"
for i in $(seq 1 100); do
	grep -q 'Hit Ctrl^C to stop recording' "$LIVE_TMP/tc.out" && break
	kill -0 $TC 2>/dev/null || fail "trace-cmd record exited early: $(cat "$LIVE_TMP/tc.out")"
	sleep 0.05
done
tracer_start "$LIVE_TMP/live.snoop" biosnoop -d "$D"
# iotap records while the workload runs, as trace-cmd and the live biosnoop do.
"$IOTAP" record --mmap-pages 1024 -o "$R" -- sh -c "'$IOTAP_PROGS/dio' read '$DEV' $NR 4096 rand >'$LIVE_TMP/offsets' &&
	'$IOTAP_PROGS/dio' write '$DEV' $NW 8192 rand >/dev/null" 2>"$LIVE_TMP/rec.out" ||
	fail "iotap record failed: $(cat "$LIVE_TMP/rec.out")"
tracer_stop
kill -INT $TC
# It records, then fails to reset the function tracer's files on this kernel: exit 1 is that.
rc=0; wait $TC || rc=$?
[ $rc -le 1 ] || fail "trace-cmd record exited with $rc: $(cat "$LIVE_TMP/tc.out")"
[ -s "$T" ] || fail "trace-cmd wrote no $T: $(cat "$LIVE_TMP/tc.out")"

# The reader is nobody, with the file and a copy of iotap in a directory it may read.
PUB=$(mktemp -d /tmp/iotap-tracedat.XXXXXX)
trap 'rm -rf "$PUB"; toplevel_restore' EXIT
cp "$T" "$IOTAP" "$PUB/"
chmod 755 "$PUB"
chmod 644 "$PUB/trace.dat"
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PUB/iotap" "$@"
}
[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups id -u)" = 65534 ] || fail "setpriv did not drop to uid 65534"

# report IN TOOL ARGS... - a report over IN (trace.dat as nobody), its stderr must be empty
report() {
	local in=$1 out=$LIVE_TMP/$(basename "$1").$2
	shift
	if [ "$in" = "$T" ]; then
		nobody report -i "$PUB/trace.dat" "$@" >"$out" 2>"$out.err" ||
			fail "report -i trace.dat $* as nobody: $(cat "$out.err"); as root: $("$IOTAP" report -i "$T" "$@" 2>&1 >/dev/null); trace-cmd said: $(cat "$LIVE_TMP/tc.out")"
	else
		"$IOTAP" report -i "$in" "$@" >"$out" 2>"$out.err" || fail "report -i $in $*: $(cat "$out.err")"
	fi
	# bioerr's summary is its only output, on stderr.
	[ ! -s "$out.err" ] || [ "$1" = bioerr ] || fail "report -i $in $* said: $(cat "$out.err")"
	echo "$out"
}

# count TOOL FILE - what the tool counted on the disk
count() {
	case $1 in
	biosnoop) awk '$1 ~ /^[0-9.]+$/' "$2" | wc -l ;;
	biotop) awk -v d="$3" '$6 == d { n += $7 } END { print n + 0 }' "$2" ;;
	biopattern) awk -v d="$3" '$1 == d { print $4 }' "$2" ;;
	bioerr) sed -n 's/^iotap bioerr: \([0-9]*\) failed requests$/\1/p' "$2" ;;
	*) hist_total "$2" ;;
	esac
}

total=$((NR + NW))
live=$(count biosnoop "$LIVE_TMP/live.snoop")
[ "$live" = $total ] || fail "live biosnoop counted $live requests, expected $total"
for tool in biolatency biosnoop biotop bitesize seeksize biopattern iosched bioerr; do
	# trace.dat names the disk by number; the iotap recording by name.
	case $tool in
	biotop) targs=(-C); rargs=(-C); want=$total ;;
	biopattern) targs=(); rargs=(); want=$total ;;
	bioerr) targs=(); rargs=(); want=0 ;;
	seeksize) targs=(-d "$DD"); rargs=(-d "$D"); want= ;;
	*) targs=(-d "$DD"); rargs=(-d "$D"); want=$total ;;
	esac
	to=$(report "$T" $tool "${targs[@]}")
	ro=$(report "$R" $tool "${rargs[@]}")
	[ $tool = bioerr ] && to=$to.err ro=$ro.err
	got=$(count $tool "$to" "$DD")
	mine=$(count $tool "$ro" "$D")
	[ -n "$got" ] && [ "$got" = "$mine" ] || fail "$tool: trace.dat $got, iotap's recording $mine"
	[ -z "$want" ] || [ "$got" = "$want" ] || fail "$tool over trace.dat counted $got, expected $want"
	echo "ok: $tool: trace.dat $got = iotap $mine${want:+ = $want}"
done
# The very requests: the sectors dio read, each once.
awk '$5 == "R" { print $6 }' "$LIVE_TMP/trace.dat.biosnoop" | sort -n >"$LIVE_TMP/t.sectors"
awk '{ print $1 / 512 }' "$LIVE_TMP/offsets" | sort -n >"$LIVE_TMP/want.sectors"
cmp -s "$LIVE_TMP/t.sectors" "$LIVE_TMP/want.sectors" || fail "biosnoop over trace.dat: read sectors differ from dio's"
grep -q "^[0-9.]* *dio " "$LIVE_TMP/trace.dat.biosnoop" || fail "biosnoop over trace.dat names no dio: $(head -3 "$LIVE_TMP/trace.dat.biosnoop")"

# Losses are reported per CPU (none here); a stack tool is refused in one line.
nobody report -i "$PUB/trace.dat" --info >"$LIVE_TMP/info" 2>&1 || fail "report --info: $(cat "$LIVE_TMP/info")"
grep -q '^lost: *0$' "$LIVE_TMP/info" || fail "report --info: $(cat "$LIVE_TMP/info")"
rc=0; nobody report -i "$PUB/trace.dat" biostacks >/dev/null 2>"$LIVE_TMP/err" || rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "biostacks over trace.dat: rc $rc, $(cat "$LIVE_TMP/err")"
echo "ok: trace.dat of trace-cmd $(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }') reported as uid 65534"
