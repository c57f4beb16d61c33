#!/bin/bash
# --originator live: writeback charged to the processes that dirtied the pages, exactly.
# Two programs of distinct names write 3 MiB and 5 MiB to files of a fresh ext4 on a loop
# device, and 1 and 2 MiB to a third file they share, then one sync writes them back from the
# flusher: each program must get exactly its bytes of each file, the journal its own row, all rows together what the disk's counters
# say was written; without --originator the flusher keeps them; recorded equals live.
. "$(dirname "$0")/lib.sh"
require_root
[ -d $TRACEFS/events/writeback ] || skip "kernel has no writeback tracepoints"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"

DEV=$(loop_create orig 256)
D=$(basename "$DEV")
MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" "$LIVE_TMP/bin"
# No lazy init: its thread would write the disk meanwhile.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" || fail "mkfs.ext4 failed"
mount -o noinit_itable "$DEV" "$MNT" || fail "mount failed"
trap 'umount "$MNT" 2>/dev/null || true; live_cleanup' EXIT
# What mounting writes (the superblock, from a worker) is done before tracing starts.
sync
sleep 1
sync
# dd under two names: the names are what the rows must show.
cp "$(command -v dd)" "$LIVE_TMP/bin/wbwrite_a"
cp "$(command -v dd)" "$LIVE_TMP/bin/wbwrite_b"
cat >"$LIVE_TMP/work.sh" <<EOF
#!/bin/sh
"$LIVE_TMP/bin/wbwrite_a" if=/dev/zero of="$MNT/a" bs=1M count=3 2>/dev/null &
echo \$! >"$LIVE_TMP/pid_a"
"$LIVE_TMP/bin/wbwrite_b" if=/dev/zero of="$MNT/b" bs=1M count=5 2>/dev/null &
echo \$! >"$LIVE_TMP/pid_b"
# One file both write: the first MiB by one, the next two by the other.
"$LIVE_TMP/bin/wbwrite_a" if=/dev/zero of="$MNT/s" bs=1M count=1 conv=notrunc 2>/dev/null &
"$LIVE_TMP/bin/wbwrite_b" if=/dev/zero of="$MNT/s" bs=1M seek=1 count=2 conv=notrunc 2>/dev/null &
wait
sync
EOF
chmod +x "$LIVE_TMP/work.sh"

# wsectors - sectors written on the loop device so far (its kernel counters)
wsectors() {
	awk '{ print $7 }' "/sys/block/$D/stat"
}

# The disk's counters before biotop starts and after it stops: it saw every write between.
w0=$(wsectors)
tracer_start "$LIVE_TMP/top.out" biotop --originator -r 1000 -C 3600 1
t_top=$TRACER_PID
tracer_start "$LIVE_TMP/o.json" iostackbreakdown -T blk --originator -d "$D" --json
t_o=$TRACER_PID
tracer_start "$LIVE_TMP/s.json" iostackbreakdown -T blk -d "$D" --json
t_s=$TRACER_PID
"$IOTAP" record --tools iostackbreakdown,biotop,fileio -o "$LIVE_TMP/rec.iotap" -- "$LIVE_TMP/work.sh" \
	2>"$LIVE_TMP/rec.err" || fail "record failed: $(cat "$LIVE_TMP/rec.err")"
sync
TRACER_PID=$t_top
tracer_stop
w1=$(wsectors)
for TRACER_PID in $t_o $t_s; do tracer_stop; done
pa=$(cat "$LIVE_TMP/pid_a")
pb=$(cat "$LIVE_TMP/pid_b")
ino_a=$(stat -c %i "$MNT/a")
maj=$(( $(stat -c '0x%t' "$DEV") ))
min=$(( $(stat -c '0x%T' "$DEV") ))
ino_b=$(stat -c %i "$MNT/b")

# rows FILE - the originator rows: comm pid inode requests bytes, one a line
rows() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"):
        continue
    o = json.loads(l)
    if "originator" in o:
        print("%s\t%d\t%s\t%d\t%d\t%s" % (o["originator"], o["pid"], o["inode"], o["blk_requests"], o["bytes"], o["file"] or "-"))
' "$1"
}
rows "$LIVE_TMP/o.json" >"$LIVE_TMP/o.rows"
echo "--- live rows:"; cat "$LIVE_TMP/o.rows"
got_a=$(awk -F'\t' -v p="$pa" '$1 == "wbwrite_a" && $2 == p { b += $5 } END { print b + 0 }' "$LIVE_TMP/o.rows")
got_b=$(awk -F'\t' -v p="$pb" '$1 == "wbwrite_b" && $2 == p { b += $5 } END { print b + 0 }' "$LIVE_TMP/o.rows")
ino_s=$(stat -c %i "$MNT/s")
# Split pro rata by dirty pages: every page dirtied once, so each gets exactly its own.
got_sa=$(awk -F'\t' -v i="$maj:$min ino $ino_s" '$1 == "wbwrite_a" && $3 == i { b += $5 } END { print b + 0 }' "$LIVE_TMP/o.rows")
got_sb=$(awk -F'\t' -v i="$maj:$min ino $ino_s" '$1 == "wbwrite_b" && $3 == i { b += $5 } END { print b + 0 }' "$LIVE_TMP/o.rows")
[ "$got_sa" = $((1 << 20)) ] && [ "$got_sb" = $((2 << 20)) ] ||
	fail "the shared file: wbwrite_a $got_sa, wbwrite_b $got_sb bytes; expected $((1 << 20)) and $((2 << 20))"
[ "$got_a" = $((3 << 20)) ] || fail "wbwrite_a (pid $pa) charged $got_a bytes, expected $((3 << 20))"
[ "$got_b" = $((5 << 20)) ] || fail "wbwrite_b (pid $pb) charged $got_b bytes, expected $((5 << 20))"
grep -qP "^wbwrite_a\t$pa\t$maj:$min ino $ino_a\t" "$LIVE_TMP/o.rows" || fail "wbwrite_a's row names no inode $maj:$min ino $ino_a"
grep -qP "^wbwrite_b\t$pb\t$maj:$min ino $ino_b\t" "$LIVE_TMP/o.rows" || fail "wbwrite_b's row names no inode $maj:$min ino $ino_b"
[ "$(grep -c '^wbwrite' "$LIVE_TMP/o.rows")" = 4 ] || fail "not one row per writer and file"
# Files named by the write that dirtied them first (the path as dd opened it).
for f in a b s; do
	awk -F'\t' -v f="$MNT/$f" -v i="$maj:$min ino $(stat -c %i "$MNT/$f")" '$3 == i && $6 != f { exit 1 }' \
		"$LIVE_TMP/o.rows" || fail "inode of $MNT/$f not named so: $(cat "$LIVE_TMP/o.rows")"
done
awk -F'\t' '$1 == "[jbd2 journal]" && $2 == 0 && $5 > 0' "$LIVE_TMP/o.rows" | grep -q . ||
	fail "no [jbd2 journal] row"
echo "ok: wbwrite_a $got_a, wbwrite_b $got_b bytes; of the shared file $got_sa and $got_sb; journal apart"

# Without --originator: by submitter, as before: the flusher has the files' bytes.
python3 -c '
import json, sys
kw = sum(o["bytes"] for o in map(json.loads, filter(lambda l: l.startswith("{"), open(sys.argv[1])))
         if o.get("outside_syscalls", "").startswith("kworker"))
sys.exit(not kw >= 8 << 20)
' "$LIVE_TMP/s.json" || fail "without --originator the flusher's row lacks the 8 MiB"
! grep -q '"originator"' "$LIVE_TMP/s.json" || fail "originator rows without --originator"
echo "ok: without --originator the flusher (kworker) keeps its writes"

# biotop --originator: the same bytes, in Kbytes, with the inode.
line_a=$(awk -v p="$pa" '$1 == p && $2 == "wbwrite_a"' "$LIVE_TMP/top.out")
line_b=$(awk -v p="$pb" '$1 == p && $2 == "wbwrite_b"' "$LIVE_TMP/top.out")
sk=$(awk -v i="$maj:$min/$ino_s" '$2 ~ /^wbwrite_/ && $NF == i { print $2, $8 }' "$LIVE_TMP/top.out" | sort | tr '\n' ' ')
[ "$sk" = "wbwrite_a 1024 wbwrite_b 2048 " ] || fail "biotop, the shared file: $sk"
echo "$line_a" | awk -v d="$D" -v i="$maj:$min/$ino_a" '{ exit !($3 == "W" && $6 == d && $8 == 3072 && $10 == i) }' ||
	fail "biotop wbwrite_a: '$line_a'"
echo "$line_b" | awk -v d="$D" -v i="$maj:$min/$ino_b" '{ exit !($3 == "W" && $6 == d && $8 == 5120 && $10 == i) }' ||
	fail "biotop wbwrite_b: '$line_b'"
grep -q '^0  *\[jbd2 journal\] *W ' "$LIVE_TMP/top.out" || fail "biotop: no [jbd2 journal] row: $(cat "$LIVE_TMP/top.out")"
# Every written byte is on a row (ext4 here has 1 KiB blocks: Kbytes add up exactly).
# From the line's end: a label's space ("[jbd2 journal]") shifts the fields before.
total=$(awk -v d="$D" 'NF >= 9 && $(NF-7) == "W" && $(NF-4) == d { k += $(NF-2) } END { print k + 0 }' "$LIVE_TMP/top.out")
! awk -v d="$D" '$2 ~ /^kworker/ && $3 == "W" && $6 == d' "$LIVE_TMP/top.out" | grep . ||
	fail "biotop: the flusher kept writes"
[ "$total" = $(( (w1 - w0) / 2 )) ] ||
	fail "biotop's write rows sum to $total Kbytes; the disk wrote $(( (w1 - w0) / 2 )): $(cat "$LIVE_TMP/top.out")"
echo "ok: biotop --originator: wbwrite_a 3072, wbwrite_b 5120 Kbytes; rows = the disk's $total written Kbytes"

# Recorded, then reported: the writers' rows as live.
"$IOTAP" report -i "$LIVE_TMP/rec.iotap" iostackbreakdown -T blk --originator -d "$D" --json \
	>"$LIVE_TMP/r.json" 2>"$LIVE_TMP/r.err" || fail "report failed: $(cat "$LIVE_TMP/r.err")"
rows "$LIVE_TMP/r.json" >"$LIVE_TMP/r.rows"
echo "--- recorded rows:"; cat "$LIVE_TMP/r.rows"
diff <(grep '^wbwrite' "$LIVE_TMP/o.rows") <(grep '^wbwrite' "$LIVE_TMP/r.rows") ||
	fail "recorded writers' rows differ from live"
# Its warnings apart: the whole machine's writeback, other disks' too, may have some to say.
"$IOTAP" report -i "$LIVE_TMP/rec.iotap" biotop --originator -r 1000 -C 3600 1 >"$LIVE_TMP/rtop.out" \
	2>"$LIVE_TMP/rtop.err" || fail "report biotop failed: $(cat "$LIVE_TMP/rtop.err")"
diff <(grep -E ' wbwrite_[ab] ' "$LIVE_TMP/top.out" | awk '{ print $1, $2, $3, $7, $8, $10 }') \
	<(grep -E ' wbwrite_[ab] ' "$LIVE_TMP/rtop.out" | awk '{ print $1, $2, $3, $7, $8, $10 }') ||
	fail "recorded biotop writers' rows differ from live"
# A recording without the tool named has no writeback events: one clear error.
"$IOTAP" record -o "$LIVE_TMP/plain.iotap" -- true 2>/dev/null || fail "plain record failed"
if "$IOTAP" report -i "$LIVE_TMP/plain.iotap" biotop --originator >"$LIVE_TMP/p.out" 2>&1; then
	fail "biotop --originator over a recording without writeback events succeeded"
fi
grep -q 'originator needs writeback:writeback_dirty_folio' "$LIVE_TMP/p.out" ||
	fail "no clear error: $(cat "$LIVE_TMP/p.out")"
echo "ok: recorded then reported equals live; a recording without the events is refused"
