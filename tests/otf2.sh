#!/bin/bash
# otf2.sh - report --otf2 over the checked-in recordings and perf.data files (no root): each
# archive read back by otf2-print and by python3-otf2 counts, per disk and per file, what
# iotap report counts on the same input, each location in time order; a DIR that is not new
# or empty, or a failed input, leaves nothing behind. A build without libotf2: --otf2 says so
# in one line. Skips without otf2-print or python3-otf2.
set -eu
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/..}" && pwd)
IOTAP=${IOTAP:-$PWD/iotap}
T=$(mktemp -d /tmp/iotap-otf2.XXXXXX)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $*" >&2
	exit 77
}
. "$SRC/tests/live/otf2lib.sh"

M=$SRC/tests/golden/mixed.iotap
if "$IOTAP" --version | grep -q '^OTF2 output: not built in'; then
	rc=0
	"$IOTAP" report -i "$M" --otf2 "$T/o" 2>"$T/err" || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q '^iotap report: --otf2: this iotap is built without OTF2 output (' "$T/err" ||
		fail "without libotf2: rc $rc, $(cat "$T/err")"
	[ ! -e "$T/o" ] || fail "without libotf2: $T/o was made"
	echo "ok: without libotf2, --otf2 says so in one line"
fi
otf2_tools

# Every input with block requests or file I/O: the whole pass, both readers, report's counts.
for f in tests/golden/files.iotap tests/golden/writeback.iotap tests/golden/devices.iotap \
	tests/golden/mixed.iotap tests/golden/stages.iotap tests/golden/iouring.iotap \
	tests/data/recordings/linux-6.18-loop.iotap tests/data/recordings/linux-6.1-vm.iotap \
	tests/data/perf/block-10-reads.data; do
	d=$T/$(basename "$f")
	"$IOTAP" report -i "$SRC/$f" --otf2 "$d" 2>"$d.err" || fail "$f: $(cat "$d.err")"
	grep -q "^iotap report: .* written to $d (open $d/traces.otf2)$" "$d.err" ||
		fail "$f: no summary line: $(cat "$d.err")"
	[ "$(ls -A "$d")" = "$(printf 'traces\ntraces.def\ntraces.otf2')" ] ||
		fail "$f: $d holds $(ls -A "$d" | tr '\n' ' ')"
	otf2-print --silent "$d/traces.otf2" >/dev/null 2>"$d.print.err" ||
		fail "$f: otf2-print finds the archive invalid: $(cat "$d.print.err")"
	otf2_compare "$SRC/$f" "$d"
	echo "ok: $f: as report counts it (disks: $(grep -c '^disk ' "$d.cmp.py"), named files: $(grep -c '^file ' "$d.cmp.py"))"
done

# The machine, the processes and their threads as the system tree has them.
d=$T/files.iotap
grep -qx 'machine (none)' "$d.cmp.py" || fail "files.iotap: machine: $(grep machine "$d.cmp.py")"
grep -qx 'group fileio (183)' "$d.cmp.py" && grep -qx 'thread 183 9 17 fileio (183)' "$d.cmp.py" ||
	fail "files.iotap: fileio's thread: $(grep -E '^(group|thread) ' "$d.cmp.py")"
grep -q 'Name: "IOTAP::UNAME::RELEASE" <[0-9]*>, Type: STRING, Value: "6.12.117+deb12-amd64"' "$d.defs" ||
	fail "files.iotap: no kernel release on the machine's node"
d=$T/block-10-reads.data
grep -qx 'machine vm' "$d.cmp.py" || fail "perf.data: machine: $(grep machine "$d.cmp.py")"
echo "ok: the machine, processes and threads are named as the inputs name them"

# A failed request completes with its size, as the kernel counts it, and its error.
grep -qx 'failed 3' "$T/devices.iotap.cmp.py" || fail "devices.iotap: $(grep failed "$T/devices.iotap.cmp.py")"
grep -q 'ADDITIONAL ATTRIBUTES: ("error" <0>; INT32; -61)' "$T/devices.iotap.events" ||
	fail "devices.iotap: no error attribute"
echo "ok: the 3 failed requests of devices.iotap carry their error"

# refused DIR WHY - --otf2 DIR fails with one line ending in WHY, exit 2, and changes nothing
refused() {
	local before rc=0
	before=$(ls -lAR "$1" 2>&1 || true)
	"$IOTAP" report -i "$M" --otf2 "$1" 2>"$T/err" || rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^iotap report: cannot write $1: $2$" "$T/err" ||
		fail "--otf2 $1: rc $rc, $(cat "$T/err") (want: $2)"
	[ "$(ls -lAR "$1" 2>&1 || true)" = "$before" ] || fail "--otf2 $1 changed it"
}
mkdir "$T/full"
echo x >"$T/full/keep"
refused "$T/full" "it exists and is not empty: give a new or an empty directory"
refused "$T/full/keep" "it exists and is not a directory"
refused "$T/none/o" "No such file or directory"
mkdir "$T/real"
ln -s real "$T/link"
refused "$T/link" "it is a symbolic link: give the directory itself"
echo "ok: a DIR that is not new or empty, or a link, is refused in one line and left as it was"

# An input that fails leaves no archive: a new DIR is removed, an empty one stays empty.
printf 'not a recording' >"$T/bad.iotap"
rc=0
"$IOTAP" report -i "$T/bad.iotap" --otf2 "$T/bad" 2>"$T/err" || rc=$?
[ $rc = 2 ] && [ ! -e "$T/bad" ] || fail "a bad input: rc $rc, $T/bad: $(ls -A "$T/bad" 2>&1)"
mkdir "$T/empty"
rc=0
"$IOTAP" report -i "$T/bad.iotap" --otf2 "$T/empty" 2>"$T/err" || rc=$?
[ $rc = 2 ] && [ -z "$(ls -A "$T/empty")" ] || fail "a bad input into an empty DIR: rc $rc, $(ls -A "$T/empty")"
echo "ok: a failed input leaves DIR as it was"

# An existing empty DIR takes the archive; a trailing slash names the same DIR.
"$IOTAP" report -i "$M" --otf2 "$T/empty/" 2>"$T/err" || fail "into an empty DIR: $(cat "$T/err")"
otf2_compare "$M" "$T/empty"
echo "ok: an existing empty DIR takes the archive"

# The reader is shown to fail: archives of python3-otf2's writer, one whose operation never
# ends, one whose location leaves its process's group out of the system tree.
"$OTF2_PY" - "$T/broken" <<'PY' || fail "cannot write the broken archives"
import sys

import otf2
from otf2.enums import IoHandleFlag, IoOperationFlag, IoOperationMode, IoParadigmClass, IoParadigmFlag

for name, bad in (("open", "open"), ("tree", "tree")):
    with otf2.writer.open(f"{sys.argv[1]}-{name}", timer_resolution=1000000000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("m", class_name="machine")
        node = defs.system_tree_node("p", class_name="process" if bad != "tree" else "cpu", parent=root)
        group = defs.location_group("p (1)", system_tree_parent=node)
        posix = defs.io_paradigm(identification="POSIX", name="POSIX I/O",
                                 io_paradigm_class=IoParadigmClass.PARALLEL,
                                 io_paradigm_flags=IoParadigmFlag.OS)
        handle = defs.io_handle("/f", file=defs.io_regular_file("/f", scope=root), io_paradigm=posix,
                                io_handle_flags=IoHandleFlag.PRE_CREATED)
        w = trace.event_writer("thread 1", group=group)
        w.io_operation_begin(100, handle, IoOperationMode.READ, IoOperationFlag.NONE, 10, 1)
        if bad != "open":
            w.io_operation_complete(200, handle, 10, 1)
PY
for b in "open:1 operations never ended" "tree:location group p (1): under cpu p"; do
	rc=0
	"$OTF2_PY" "$SRC/tests/live/otf2read.py" "$T/broken-${b%%:*}/traces.otf2" >/dev/null 2>"$T/err" || rc=$?
	[ $rc = 1 ] && grep -q "^otf2read: ${b#*:}" "$T/err" ||
		fail "otf2read.py passed a broken archive (${b%%:*}): rc $rc, $(cat "$T/err")"
done
echo "ok: otf2read.py fails an archive whose operation never ends, or whose tree is not iotap's"
