#!/bin/bash
# record --ring: a flight recorder's dumps hold exactly the I/O of their window; triggers; failures.
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create ring 64)
D=$(basename "$DEV")
B=$LIVE_TMP/fr
ERR=$LIVE_TMP/fr.err

EDEV=""

# ring_cleanup - the loop device over the small tmpfs, then the mounts, then the rest
ring_cleanup() {
	for p in $LIVE_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	[ -z "$EDEV" ] || losetup -d "$EDEV" 2>/dev/null || true
	umount "$LIVE_TMP/full" "$LIVE_TMP/small" 2>/dev/null || true
	live_cleanup
}

# ring_start ARGS... - a flight recorder in the background, tracing once it has said nothing for a while
ring_start() {
	"$IOTAP" record -o "$B" "$@" 2>"$ERR" &
	RING_PID=$!
	LIVE_PIDS="$LIVE_PIDS $RING_PID"
	sleep 1.5
	kill -0 $RING_PID 2>/dev/null || fail "record $* exited: $(cat "$ERR")"
}

# dump_wait N - until the recorder says it wrote dump N; prints the file
dump_wait() {
	local i
	for i in $(seq 1 100); do
		if grep -q "^iotap record: dump $1: " "$ERR"; then
			sed -n "s/^iotap record: dump $1: \([^:]*\): .*/\1/p" "$ERR"
			return
		fi
		sleep 0.1
	done
	fail "no dump $1: $(cat "$ERR")"
}

# fail_wait - until the recorder says a dump failed
fail_wait() {
	local i
	for i in $(seq 1 100); do
		grep -q "cannot write the dump" "$ERR" && return
		sleep 0.1
	done
	fail "no failed dump: $(cat "$ERR")"
}

# count FILE TOOL - requests on the test disk in a dump
count() {
	"$IOTAP" report -i "$1" "$2" -d "$D" | hist_total /dev/stdin
}

# reads N - N direct 4 KiB reads of the test disk
reads() {
	"$IOTAP_PROGS/dio" read "$DEV" "$1" 4096 rand >/dev/null
}

# The window: 500 reads, 4 s later 700 reads, SIGUSR2: a 3 s ring holds the 700 only.
ring_start --ring 3
reads 500
sleep 4
reads 700
kill -USR2 $RING_PID
f1=$(dump_wait 1)
[ -f "$f1" ] || fail "dump 1 names '$f1': $(cat "$ERR")"
[ "$(count "$f1" biolatency)" = 700 ] || fail "dump 1: biolatency counts $(count "$f1" biolatency), expected 700"
[ "$(count "$f1" bitesize)" = 700 ] || fail "dump 1: bitesize counts $(count "$f1" bitesize), expected 700"
"$IOTAP" report -i "$f1" --info >"$LIVE_TMP/info" || fail "--info of dump 1"
grep -q "^trigger:    SIGUSR2$" "$LIVE_TMP/info" || fail "--info trigger: $(cat "$LIVE_TMP/info")"
grep -q "^window:     3.000 s before the trigger to 0.000 s after it$" "$LIVE_TMP/info" || fail "--info window"
grep -q "^complete:   yes$" "$LIVE_TMP/info" || fail "dump 1 is not complete"
echo "ok: a 3 s ring's dump holds the 700 reads of its window, not the 500 before it"

# A second dump in a row: past the first window, 300 reads, SIGUSR2.
sleep 3.5
reads 300
kill -USR2 $RING_PID
f2=$(dump_wait 2)
[ -f "$f2" ] && [ "$f2" != "$f1" ] || fail "dump 2 names '$f2'"
[ "$(count "$f2" biolatency)" = 300 ] || fail "dump 2: biolatency counts $(count "$f2" biolatency), expected 300"
echo "ok: a second dump holds its own 300 reads"
kill -INT $RING_PID; wait $RING_PID || fail "the recorder exited $?"
rm -f "$B".*

# A dump onto a full file system is reported, and the ring goes on.
mkdir "$LIVE_TMP/full"
mount -t tmpfs -o size=64M none "$LIVE_TMP/full"
trap ring_cleanup EXIT
head -c 64M /dev/zero >"$LIVE_TMP/full/filler" 2>/dev/null || true
B=$LIVE_TMP/full/fr
ring_start --ring 2
reads 200
kill -USR2 $RING_PID
fail_wait
grep -q "^iotap record: cannot write the dump '$B\.[0-9]*': No space left on device; the ring goes on$" "$ERR" ||
	fail "a dump onto a full tmpfs: $(cat "$ERR")"
[ -z "$(ls "$B".* 2>/dev/null)" ] || fail "the failed dump left $(ls "$B".*)"
kill -0 $RING_PID || fail "the recorder stopped after a failed dump"
rm "$LIVE_TMP/full/filler"
sleep 2.5
reads 250
kill -USR2 $RING_PID
f=$(dump_wait 1)
[ "$(count "$f" biolatency)" = 250 ] || fail "the dump after a failed one counts $(count "$f" biolatency), expected 250"
kill -INT $RING_PID; wait $RING_PID || true
echo "ok: a dump onto a full tmpfs is reported; the ring goes on and the next dump holds its 250 reads"
B=$LIVE_TMP/fr

# latency>: every request of the disk is slower than a microsecond; one dump, --max-dumps 1 ends it.
ring_start --ring 2 --trigger 'latency>0.001' -d "$D" --max-dumps 1
reads 50
for i in $(seq 1 50); do kill -0 $RING_PID 2>/dev/null || break; sleep 0.1; done
kill -0 $RING_PID 2>/dev/null && fail "--max-dumps 1 did not stop the recorder"
f=$(dump_wait 1)
grep -q "dump 1: .*: latency [0-9.]* ms > 0.001 ms: $D RS\? sector [0-9]*, 4096 bytes, pid [0-9]* (dio)" "$ERR" ||
	fail "latency dump line: $(cat "$ERR")"
"$IOTAP" report -i "$f" --info | grep -q "^trigger:    latency .* $D RS\? sector" || fail "--info of the latency dump"
[ "$(count "$f" biolatency)" -ge 1 ] || fail "the latency dump holds no request of $D"
echo "ok: latency>0.001 -d $D fires on a read of $D; --max-dumps 1 stops the recorder"

# error: writes past the space of a loop device's full tmpfs fail.
mkdir "$LIVE_TMP/small"
mount -t tmpfs -o size=1M none "$LIVE_TMP/small"
truncate -s 16M "$LIVE_TMP/small/img"
EDEV=$(losetup -f --show "$LIVE_TMP/small/img") || fail "losetup"
rm -f "$B".*
ring_start --ring 2 --trigger error --max-dumps 1
"$IOTAP_PROGS/dio" write "$EDEV" 400 4096 seq 4194304 >/dev/null 2>&1 && fail "the writes did not fail"
f=$(dump_wait 1)
grep -q "dump 1: .*: error -28 (BLK_STS_NOSPC): $(basename "$EDEV") WS\? sector [0-9]*, 4096 bytes" "$ERR" ||
	fail "error dump line: $(cat "$ERR")"
"$IOTAP" report -i "$f" bioerr -d "$(basename "$EDEV")" >"$LIVE_TMP/bioerr" 2>/dev/null || fail "bioerr over the dump"
grep -q "BLK_STS_NOSPC" "$LIVE_TMP/bioerr" || fail "the error dump has no failed request: $(cat "$LIVE_TMP/bioerr")"
echo "ok: --trigger error dumps the failed write"

# A cap that binds: 8M holds seconds of 100,000 reads, not the 60 s asked. It says so once,
# holds at most the cap, and a dump holds the reads of its last seconds.
ring_start --ring 60 --ring-size 8M
reads 100000
sleep 1.5
[ "$(grep -c -- "--ring-size 8M binds: the ring holds the last" "$ERR")" = 1 ] ||
	fail "a binding cap is not said once: $(cat "$ERR")"
rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$RING_PID/status)
reads 300
kill -USR2 $RING_PID
f=$(dump_wait 1)
n=$(count "$f" biolatency)
[ "$n" -ge 300 ] && [ "$n" -lt 100300 ] || fail "the capped ring's dump counts $n reads"
kill -INT $RING_PID; wait $RING_PID || fail "the recorder exited $?"
rm -f "$B".*
echo "ok: --ring-size 8M binds, said once (RSS $rss kB); the dump holds the last $n reads"

# Bad expressions: one line each, usage status.
for e in 'latency>' 'latency>0' 'latency>abc' 'latency>1.1234567' 'error,error' 'latency<5' 'latency>5,'; do
	rc=0; "$IOTAP" record -o "$B" --ring 5 --trigger "$e" -D 1 2>"$LIVE_TMP/err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] && grep -q "bad --trigger" "$LIVE_TMP/err" ||
		fail "--trigger '$e': rc $rc, $(cat "$LIVE_TMP/err")"
done
rc=0; "$IOTAP" record -o "$B" --trigger error -D 1 2>"$LIVE_TMP/err" || rc=$?
[ $rc = 1 ] && grep -q "need --ring" "$LIVE_TMP/err" || fail "--trigger without --ring: rc $rc"
echo "ok: bad trigger expressions are refused with one line"
