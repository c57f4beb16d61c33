#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# otf2read.py - read an OTF2 archive back with python3-otf2 (libotf2's own reader): check it
# and print what it holds, one line each, for the tests to compare with iotap's own counts.
#
# Checked, failing with one line on stderr (exit 1): the clock properties, every event within
# them, each location's events in time order; each operation begun once and ended once on
# the location and handle that began it, issued only when non-blocking, and not before it
# began; locations in process location groups, each under a "process" system tree node below
# the one "machine" root; a disk's file under a "disk" node below "block devices", a file's
# on the machine.
#
# Printed:
#   machine NAME
#   locations N events N
#   group NAME                          (one per location group)
#   thread TID DISKOPS FILEOPS GROUP    (one per location: the operations it completed)
#   ops TID READS WRITES HANDLE         (one per location and handle it completed any on)
#   cancelled N                         (operations that ended without a result)
#   failed N                            (completed with the attribute "error")
#   disk READS RBYTES WRITES WBYTES NAME    (one per disk handle)
#   file READS RBYTES WRITES WBYTES NAME    (one per file handle named by a path)
#   files READS RBYTES WRITES WBYTES        (all file handles, those of unknown names too)
# Counts are of completed operations, bytes what they completed with: on a disk every
# request, failed or not, as the kernel's counters count them; on a file the calls that did
# not fail, as fileio counts them.
#
# otf2read.py --report BIOSNOOP_JSON FILEIO_SNOOP prints the disk, file and files lines
# of the same input as iotap report counts it: biosnoop -j's reads and writes (by their
# rwbs) and fileio --snoop's calls, for a diff.
import sys

import otf2
from otf2.enums import IoOperationFlag, IoOperationMode, LocationGroupType


def fail(msg):
    """fail - one line, exit 1"""
    print(f"otf2read: {msg}", file=sys.stderr)
    sys.exit(1)


def check_tree(defs):
    """check_tree - the system tree as iotap lays it out; the root's name"""
    roots = [n for n in defs.system_tree_nodes if n.parent is None]
    if len(roots) != 1 or roots[0].class_name != "machine":
        fail(f"system tree roots: {[(n.name, n.class_name) for n in roots]}")
    root = roots[0]
    for g in defs.location_groups:
        node = g.system_tree_parent
        if g.location_group_type != LocationGroupType.PROCESS:
            fail(f"location group {g.name}: type {g.location_group_type}")
        if node.class_name != "process" or node.parent is not root:
            fail(f"location group {g.name}: under {node.class_name} {node.name}")
        if not g.name.startswith(node.name + " ("):
            fail(f"location group {g.name} is not named by its process {node.name}")
    for h in defs.io_handles:
        scope = h.file.scope
        if h.io_paradigm.identification == "block_io":
            if scope.class_name != "disk" or scope.parent is None or \
               scope.parent.name != "block devices" or scope.parent.parent is not root:
                fail(f"disk handle {h.name}: its file is under {scope.class_name} {scope.name}")
        elif h.io_paradigm.identification == "POSIX":
            if scope is not root:
                fail(f"file handle {h.name}: its file is under {scope.class_name} {scope.name}")
        else:
            fail(f"handle {h.name}: paradigm {h.io_paradigm.identification}")
    return root.name


class Counts:
    """Counts - the completed operations of one handle"""

    def __init__(self):
        self.n = {IoOperationMode.READ: 0, IoOperationMode.WRITE: 0}
        self.b = {IoOperationMode.READ: 0, IoOperationMode.WRITE: 0}
        self.cancelled = 0
        self.failed = 0


def read_events(trace, counts, per_loc):
    """read_events - every event checked in order, per_loc[loc] its [disk, file] completions; how many"""
    clock = trace.definitions.clock_properties
    lo, hi = clock.global_offset, clock.global_offset + clock.trace_length
    last = {}
    ops = {}
    nr = 0
    for loc, ev in trace.events:
        nr += 1
        name = type(ev).__name__
        if not lo <= ev.time <= hi:
            fail(f"{loc.name}: {name} at {ev.time}, outside the clock's {lo}..{hi}")
        if ev.time < last.get(loc, 0):
            fail(f"{loc.name}: {name} at {ev.time} after an event at {last[loc]}")
        last[loc] = ev.time
        if not name.startswith("IoOperation"):
            fail(f"{loc.name}: unexpected event {name}")
        key = (loc, ev.handle, ev.matching_id)
        if name == "IoOperationBegin":
            if key in ops:
                fail(f"{loc.name}: operation {ev.matching_id} on {ev.handle.name} begun twice")
            ops[key] = {"ev": ev, "issued": False}
            continue
        op = ops.get(key)
        if op is None:
            fail(f"{loc.name}: {name} of operation {ev.matching_id} on {ev.handle.name}, never begun")
        begin = op["ev"]
        if name == "IoOperationIssued":
            if not begin.operation_flags & IoOperationFlag.NON_BLOCKING or op["issued"]:
                fail(f"{loc.name}: operation {ev.matching_id} on {ev.handle.name} issued "
                     f"{'twice' if op['issued'] else 'but blocking'}")
            op["issued"] = True
            continue
        del ops[key]
        c = counts[ev.handle]
        if name == "IoOperationCancelled":
            c.cancelled += 1
        elif name == "IoOperationComplete":
            per_loc.setdefault(loc, [0, 0])[ev.handle.io_paradigm.identification != "block_io"] += 1
            rw = per_loc.setdefault((loc, ev.handle), [0, 0])
            rw[begin.mode != IoOperationMode.READ] += 1
            error = {a.name: v for a, v in (ev.attributes or {}).items()}.get("error")
            if error is not None:
                c.failed += 1
                if error >= 0:
                    fail(f"{loc.name}: operation {ev.matching_id} failed with {error}")
            if error is None or ev.handle.io_paradigm.identification == "block_io":
                c.n[begin.mode] += 1
                c.b[begin.mode] += ev.bytes_result
        else:
            fail(f"{loc.name}: unexpected event {name}")
    if ops:
        loc, h, mid = next(iter(ops))
        fail(f"{len(ops)} operations never ended, the first {mid} of {loc.name} on {h.name}")
    return nr


def print_counts(disks, files):
    """print_counts - the comparable lines: {name: [reads, rbytes, writes, wbytes]} of each kind"""
    total = [0, 0, 0, 0]
    # A handle with nothing completed on it (calls that all failed) has no row in report.
    for name in sorted(disks):
        if any(disks[name]):
            print("disk %d %d %d %d %s" % (*disks[name], name))
    for name in sorted(files):
        total = [a + b for a, b in zip(total, files[name])]
        if name.startswith("/") and any(files[name]):
            print("file %d %d %d %d %s" % (*files[name], name))
    print("files %d %d %d %d" % tuple(total))


def report_counts(biosnoop, snoop):
    """report_counts - what biosnoop -j and fileio --snoop printed, as print_counts takes it"""
    import json

    disks, files = {}, {}
    with open(biosnoop) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            rwbs = r["rwbs"]
            # A leading F before the operation's letter is a preflush (parsers/block.c).
            op = rwbs[1] if len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in "WRDFN" else rwbs[0]
            if op not in "RW":
                continue
            c = disks.setdefault(r["disk"], [0, 0, 0, 0])
            k = 0 if op == "R" else 2
            c[k] += 1
            c[k + 1] += r["bytes"]
    with open(snoop) as f:
        head = f.readline().split()
        # Its header comes with the first call: none, no calls.
        if head and head[:4] != ["TIME(s)", "COMM", "TID", "D"]:
            fail(f"{snoop}: not fileio --snoop's output: {head}")
        for line in f:
            # TIME COMM TID D BYTES LAT FILENAME: COMM is 14 columns wide, FILENAME the rest.
            rest = line[24:].split(None, 4)
            if len(rest) < 5:
                fail(f"{snoop}: cannot read {line!r}")
            c = files.setdefault(rest[4].rstrip("\n"), [0, 0, 0, 0])
            k = 0 if rest[1] == "R" else 2
            c[k] += 1
            c[k + 1] += int(rest[2])
    print_counts(disks, files)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--report":
        report_counts(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 2:
        print("usage: otf2read.py DIR/traces.otf2\n"
              "       otf2read.py --report BIOSNOOP_JSON FILEIO_SNOOP", file=sys.stderr)
        sys.exit(2)
    with otf2.reader.open(sys.argv[1]) as trace:
        defs = trace.definitions
        if defs.clock_properties.timer_resolution != 1000000000:
            fail(f"timer resolution {defs.clock_properties.timer_resolution}, want ns")
        host = check_tree(defs)
        counts = {h: Counts() for h in defs.io_handles}
        per_loc = {}
        nr = read_events(trace, counts, per_loc)
        declared = sum(loc.number_of_events for loc in defs.locations)
        if declared != nr:
            fail(f"the locations declare {declared} events, {nr} were read")
        print(f"machine {host}")
        print(f"locations {len(defs.locations)} events {nr}")
        for g in defs.location_groups:
            print(f"group {g.name}")
        for loc in defs.locations:
            if not loc.name.startswith("thread "):
                fail(f"location {loc.name}: not named by its thread")
            d, f = per_loc.get(loc, [0, 0])
            print(f"thread {loc.name[7:]} {d} {f} {loc.group.name}")
        for loc in defs.locations:
            for h in defs.io_handles:
                if (loc, h) in per_loc:
                    r, w = per_loc[loc, h]
                    print(f"ops {loc.name[7:]} {r} {w} {h.name}")
        print(f"cancelled {sum(c.cancelled for c in counts.values())}")
        print(f"failed {sum(c.failed for c in counts.values())}")
        r, w = IoOperationMode.READ, IoOperationMode.WRITE
        disks, files = {}, {}
        for h, c in counts.items():
            kind = disks if h.io_paradigm.identification == "block_io" else files
            kind[h.name] = [c.n[r], c.b[r], c.n[w], c.b[w]]
        print_counts(disks, files)


if __name__ == "__main__":
    main()
