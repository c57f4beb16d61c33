#!/bin/bash
# The disk fills under `record --switch-output`: the part that cannot be written is said and
# removed (never left cut short), the recording goes on, and once there is room again a new
# part is written whole and the recording says so, with how many events were not written;
# SIGINT then exits 0 with every part on disk whole. (A ring dump onto a full disk: ring.sh.)
. "$(dirname "$0")/lib.sh"
require_root

DEV=$(loop_create disk 64)
D=$(basename "$DEV")
M=$LIVE_TMP/small
ERR=$LIVE_TMP/rec.err
mkdir "$M"
mount -t tmpfs -o size=2M none "$M"

# disk_cleanup - the recorder, then the small tmpfs, then the rest
disk_cleanup() {
	for p in $LIVE_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	umount "$M" 2>/dev/null || true
	live_cleanup
}
trap disk_cleanup EXIT

# wait_for TEXT - until the recorder's stderr has TEXT (a grep pattern)
wait_for() {
	local i
	for i in $(seq 1 100); do
		grep -q "$1" "$ERR" && return
		sleep 0.1
	done
	fail "the recorder never said '$1': $(cat "$ERR")"
}

B=$M/rot
"$IOTAP" record -o "$B" --switch-output 40K --max-files 2 2>"$ERR" &
REC=$!
LIVE_PIDS="$LIVE_PIDS $REC"
sleep 1.5
kill -0 $REC 2>/dev/null || fail "record exited: $(cat "$ERR")"
head -c 2M /dev/zero >"$M/filler" 2>/dev/null || true
dio read "$DEV" 3000 4096 rand >/dev/null
wait_for "^iotap record: cannot write '$B\.[0-9]*': No space left on device; the part is removed, and the recording goes on in a new part once there is room$"
kill -0 $REC 2>/dev/null || fail "the recorder stopped on a full disk: $(cat "$ERR")"
gone=$(sed -n "s/^iotap record: cannot write '\([^']*\)'.*/\1/p" "$ERR" | head -1)
[ ! -e "$gone" ] || fail "the part that could not be written was left: $gone"
echo "ok: a full disk: $(basename "$gone") is said and removed, the recording goes on"

rm "$M/filler"
sleep 1.2
dio read "$DEV" 4000 4096 rand >/dev/null
wait_for "^iotap record: warning: '$B\.[0-9]*' is written whole: the recording is back; [0-9]* events were not written$"
kill -INT $REC 2>/dev/null || { rc=0; wait $REC || rc=$?; fail "the recorder ended by itself, status $rc: $(cat "$ERR")"; }
rc=0; wait $REC || rc=$?
[ $rc = 0 ] || fail "record exited $rc after SIGINT: $(cat "$ERR")"
grep -q "^iotap record: [0-9]* events in .* written to $B\.\*, [0-9]* lost$" "$ERR" || fail "no summary: $(cat "$ERR")"
n=0
for f in "$B".*; do
	"$IOTAP" report -i "$f" --info | grep -q "^complete:   yes$" || fail "$f is not whole"
	n=$((n + 1))
done
[ $n -ge 1 ] && [ $n -le 2 ] || fail "$n parts on disk with --max-files 2"
[ ! -e "$TRACEFS/instances/iotap_$REC" ] || fail "the recorder left iotap_$REC"
echo "ok: room again: $(grep -o "is written whole.*" "$ERR" | head -1); $n parts on disk, each whole"
