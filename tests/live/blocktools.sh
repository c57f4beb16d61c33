#!/bin/bash
# bitesize, seeksize, biopattern, iosched live: exact counts from direct I/O on loop devices.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create a 64)
OTHER=$(loop_create b 16)
D=$(basename "$DEV")
O=$(basename "$OTHER")
command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true

# row FILE SECTION LOW - the count of the "LOW -> ..." row in "... = SECTION" (0 if absent)
row() {
	awk -v want="$2" -v low="$3" '
		/ = / && !/ -> / { cur = $NF; next }
		/ -> .*: [0-9]+ +\|/ && cur == want && $1 == low { split($0, a, ":"); split(a[2], b, " "); n = b[1] }
		END { print n + 0 }' "$1"
}

# total FILE [SECTION] - the sum of a section's rows (of every section without one)
total() {
	awk -v want="${2:-}" '
		/ = / && !/ -> / { cur = $NF; next }
		/ -> .*: [0-9]+ +\|/ && (want == "" || cur == want) { split($0, a, ":"); split(a[2], b, " "); n += b[1] }
		END { print n + 0 }' "$1"
}

# sections FILE - the section values, one per line
sections() {
	awk '/ = / && !/ -> / { print $NF }' "$1"
}

# started FILE PID - wait until the run at PID, backgrounded by the test, prints its banner
started() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || fail "$1: the run exited early"
		sleep 0.05
	done
	fail "$1: the run did not start tracing"
}

# pattern FILE DISK COLUMN - a biopattern column (2 %RND, 3 %SEQ, 4 COUNT, 5 KBYTES) of DISK
pattern() {
	awk -v d="$2" -v c="$3" '$1 == d { print $c }' "$1"
}

# --- bitesize ---------------------------------------------------------------------------
# A 64 KiB direct read stays one request when the queue takes it whole.
msk=$(cat /sys/block/"$D"/queue/max_sectors_kb)
[ "$msk" -ge 64 ] || skip "$D max_sectors_kb is $msk: 64 KiB reads would be split"
cp "$IOTAP_PROGS/dio" "$LIVE_TMP/diobig"
tracer_start "$LIVE_TMP/bs.out" bitesize -d "$D"
dio read "$DEV" 300 4096 >/dev/null
"$LIVE_TMP/diobig" read "$DEV" 200 65536 >/dev/null
dio read "$OTHER" 100 4096 >/dev/null
tracer_stop
grep -q '^     Kbytes              : count     distribution$' "$LIVE_TMP/bs.out" || fail "bitesize header"
[ "$(sections "$LIVE_TMP/bs.out" | tr '\n' ' ')" = "dio diobig " ] ||
	fail "bitesize sections: $(sections "$LIVE_TMP/bs.out" | tr '\n' ' ')"
grep -q '^Process Name = dio$' "$LIVE_TMP/bs.out" || fail "bitesize section line"
[ "$(row "$LIVE_TMP/bs.out" dio 4)" = 300 ] && [ "$(total "$LIVE_TMP/bs.out" dio)" = 300 ] ||
	fail "bitesize dio: 4 -> 7 has $(row "$LIVE_TMP/bs.out" dio 4) of $(total "$LIVE_TMP/bs.out" dio), expected 300"
[ "$(row "$LIVE_TMP/bs.out" diobig 64)" = 200 ] && [ "$(total "$LIVE_TMP/bs.out" diobig)" = 200 ] ||
	fail "bitesize diobig: 64 -> 127 has $(row "$LIVE_TMP/bs.out" diobig 64), expected 200"
echo "ok: bitesize counts 300 x 4 KiB in 4 -> 7 and 200 x 64 KiB in 64 -> 127, per process, -d $D"

tracer_start "$LIVE_TMP/bc.out" bitesize -c diobig
dio read "$DEV" 150 4096 >/dev/null
"$LIVE_TMP/diobig" read "$DEV" 50 65536 >/dev/null
tracer_stop
[ "$(sections "$LIVE_TMP/bc.out")" = diobig ] && [ "$(row "$LIVE_TMP/bc.out" diobig 64)" = 50 ] ||
	fail "bitesize -c: $(sections "$LIVE_TMP/bc.out" | tr '\n' ' ')"
echo "ok: bitesize -c keeps only that process name"

ln -s "$IOTAP" "$LIVE_TMP/bitesize"
timeout 10 "$LIVE_TMP/bitesize" -T -d "$D" 0.5 2 >"$LIVE_TMP/bi.out" &
ipid=$!
started "$LIVE_TMP/bi.out" $ipid
dio read "$DEV" 100 4096 >/dev/null
wait $ipid || fail "bitesize interval run did not exit by itself with 0"
[ "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} *$' "$LIVE_TMP/bi.out")" = 2 ] || fail "bitesize -T lines"
[ "$(total "$LIVE_TMP/bi.out")" = 100 ] || fail "bitesize intervals counted $(total "$LIVE_TMP/bi.out")"
echo "ok: bitesize -T interval count, argv[0] alias"

# --- seeksize ---------------------------------------------------------------------------
# Sequential: every request but the first on the disk starts where the last one ended.
tracer_start "$LIVE_TMP/ss.out" seeksize -d "$D"
dio read "$DEV" 1000 4096 >/dev/null
tracer_stop
grep -q '^     sectors             : count     distribution$' "$LIVE_TMP/ss.out" || fail "seeksize header"
[ "$(total "$LIVE_TMP/ss.out" dio)" = 999 ] || fail "seeksize seq counted $(total "$LIVE_TMP/ss.out" dio), expected 999"
zero=$(row "$LIVE_TMP/ss.out" dio 0)
[ $((zero * 100)) -ge $((999 * 99)) ] || fail "seeksize seq: only $zero of 999 in 0 -> 1"
echo "ok: seeksize sequential pass: $zero of 999 seeks in 0 -> 1"

tracer_start "$LIVE_TMP/sr.out" seeksize -d "$D"
dio read "$DEV" 500 4096 rand >/dev/null
tracer_stop
[ "$(total "$LIVE_TMP/sr.out" dio)" = 499 ] || fail "seeksize rand counted $(total "$LIVE_TMP/sr.out" dio), expected 499"
zero=$(row "$LIVE_TMP/sr.out" dio 0)
[ "$zero" -le 5 ] || fail "seeksize rand: $zero of 499 seeks are 0"
echo "ok: seeksize random pass: $zero of 499 seeks in 0 -> 1"

# -p: another process's reads move the disk's position but are not counted.
mkfifo "$LIVE_TMP/go"
(read -r _ <"$LIVE_TMP/go"; exec "$IOTAP_PROGS/dio" read "$DEV" 400 4096 >/dev/null) &
target=$!
tracer_start "$LIVE_TMP/sp.out" seeksize -p $target -d "$D"
dio read "$DEV" 250 4096 seq 8388608 >/dev/null
echo go >"$LIVE_TMP/go"
wait $target
tracer_stop
[ "$(total "$LIVE_TMP/sp.out")" = 400 ] && [ "$(row "$LIVE_TMP/sp.out" dio 0)" = 399 ] ||
	fail "seeksize -p: $(row "$LIVE_TMP/sp.out" dio 0) of $(total "$LIVE_TMP/sp.out"), expected 399 of 400"
# The first read, at 0, seeks back from the end of the other process's reads.
[ "$(row "$LIVE_TMP/sp.out" dio 16384)" = 1 ] || fail "seeksize -p: first seek not 18384 sectors"
echo "ok: seeksize -p counts the target's 400 seeks, from the disk's position"

tracer_start "$LIVE_TMP/so.out" seeksize -d "$O"
dio read "$DEV" 300 4096 rand >/dev/null
tracer_stop
[ "$(total "$LIVE_TMP/so.out")" = 0 ] || fail "seeksize -d other disk counted I/O"
echo "ok: seeksize -d filters other disks"

# --- biopattern -------------------------------------------------------------------------
tracer_start "$LIVE_TMP/bp.out" biopattern
dio read "$DEV" 1000 4096 >/dev/null
dio read "$OTHER" 300 4096 rand >/dev/null
tracer_stop
grep -q '^DISK     %RND  %SEQ    COUNT     KBYTES$' "$LIVE_TMP/bp.out" || fail "biopattern header"
[ "$(pattern "$LIVE_TMP/bp.out" "$D" 4)" = 1000 ] && [ "$(pattern "$LIVE_TMP/bp.out" "$D" 5)" = 4000 ] ||
	fail "biopattern $D: $(grep "^$D " "$LIVE_TMP/bp.out")"
[ "$(pattern "$LIVE_TMP/bp.out" "$D" 3)" -ge 99 ] || fail "biopattern seq: $(grep "^$D " "$LIVE_TMP/bp.out")"
[ "$(pattern "$LIVE_TMP/bp.out" "$O" 4)" = 300 ] && [ "$(pattern "$LIVE_TMP/bp.out" "$O" 2)" -ge 95 ] ||
	fail "biopattern rand: $(grep "^$O " "$LIVE_TMP/bp.out")"
echo "ok: biopattern $(grep "^$D " "$LIVE_TMP/bp.out" | tr -s ' '); $(grep "^$O " "$LIVE_TMP/bp.out" | tr -s ' ')"

timeout 10 "$IOTAP" biopattern -T -d "$O" 0.5 2 >"$LIVE_TMP/bt.out" &
ipid=$!
started "$LIVE_TMP/bt.out" $ipid
dio read "$OTHER" 200 4096 >/dev/null
dio read "$DEV" 200 4096 >/dev/null
wait $ipid || fail "biopattern interval run did not exit by itself with 0"
grep -q '^TIME      DISK     %RND  %SEQ    COUNT     KBYTES$' "$LIVE_TMP/bt.out" || fail "biopattern -T header"
[ "$(grep -vcE "^([0-9]{2}:[0-9]{2}:[0-9]{2} +$O |TIME|Tracing)" "$LIVE_TMP/bt.out")" = 0 ] ||
	fail "biopattern -T -d rows: $(cat "$LIVE_TMP/bt.out")"
[ "$(awk '$2 == "'"$O"'" { n += $5 } END { print n + 0 }' "$LIVE_TMP/bt.out")" = 200 ] ||
	fail "biopattern intervals lost I/O: $(cat "$LIVE_TMP/bt.out")"
echo "ok: biopattern -T -d interval count: 200 reads on $O only"

# --- iosched ----------------------------------------------------------------------------
# The scheduler is read when tracing starts: set it first.
echo mq-deadline >/sys/block/"$D"/queue/scheduler 2>/dev/null ||
	skip "$D cannot take the mq-deadline scheduler: $(cat /sys/block/"$D"/queue/scheduler)"
tracer_start "$LIVE_TMP/is.out" iosched -d "$D"
dio read "$DEV" 700 4096 rand >/dev/null
dio read "$OTHER" 100 4096 >/dev/null
tracer_stop
echo none >/sys/block/"$D"/queue/scheduler
[ "$(sections "$LIVE_TMP/is.out")" = mq-deadline ] || fail "iosched sections: $(sections "$LIVE_TMP/is.out")"
grep -q '^sched = mq-deadline$' "$LIVE_TMP/is.out" || fail "iosched section line"
[ "$(total "$LIVE_TMP/is.out" mq-deadline)" = 700 ] ||
	fail "iosched counted $(total "$LIVE_TMP/is.out" mq-deadline), expected 700"
echo "ok: iosched counts the 700 reads under mq-deadline on $D"

echo mq-deadline >/sys/block/"$D"/queue/scheduler
tracer_start "$LIVE_TMP/im.out" iosched -m -d "$O"
dio read "$DEV" 300 4096 >/dev/null
tracer_stop
echo none >/sys/block/"$D"/queue/scheduler
[ "$(total "$LIVE_TMP/im.out")" = 0 ] || fail "iosched -d other disk counted I/O"
echo "ok: iosched -d filters other disks"

echo mq-deadline >/sys/block/"$D"/queue/scheduler
tracer_start "$LIVE_TMP/ms.out" iosched -m -d "$D"
dio read "$DEV" 50 4096 >/dev/null
tracer_stop
echo none >/sys/block/"$D"/queue/scheduler
grep -q '^     msecs               : count     distribution$' "$LIVE_TMP/ms.out" || fail "iosched -m header"
[ "$(total "$LIVE_TMP/ms.out" mq-deadline)" = 50 ] || fail "iosched -m counted $(total "$LIVE_TMP/ms.out")"
echo "ok: iosched -m prints milliseconds"

# --- errors -----------------------------------------------------------------------------
for t in "bitesize -d nosuchdisk" "seeksize -d nosuchdisk" "biopattern -d nosuchdisk" \
	"iosched -d nosuchdisk" "seeksize -p 999999"; do
	rc=0
	$IOTAP $t >"$LIVE_TMP/e.out" 2>"$LIVE_TMP/e.err" || rc=$?
	[ $rc = 1 ] && [ ! -s "$LIVE_TMP/e.out" ] && [ "$(wc -l <"$LIVE_TMP/e.err")" = 1 ] ||
		fail "'$t': exit $rc, $(cat "$LIVE_TMP/e.err")"
	grep -qE "unknown disk 'nosuchdisk'|no process with PID 999999" "$LIVE_TMP/e.err" ||
		fail "'$t' said: $(cat "$LIVE_TMP/e.err")"
done
echo "ok: unknown disks and PIDs give one error line"
