#!/usr/bin/env python3
# tracecheck.py FILE - check a Trace Event Format file as iotap writes it: every event has
# ph, ts, pid, tid; complete events on a thread nest; each disk request has one device slice.
# Prints: requests device-slices flushes errors lanes queued-slices overlap, where overlap is
# the most requests in flight at once on one disk: the fewest lanes that can hold them.
import json
import sys

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
names = {}
for e in events:
    for k in ("ph", "ts", "pid", "tid"):
        assert k in e, ("missing " + k, e)
    assert e["ph"] in ("X", "i", "M"), e
    if e["ph"] == "M" and e["name"] == "process_name":
        names[e["pid"]] = e["args"]["name"]
disk_pids = {p for p, n in names.items() if n.startswith("disk ")}
assert disk_pids, "no disk track"

# Per thread: sort slices by start (longest first) and check each lies inside the
# enclosing open slice or after it, in integer nanoseconds.
ns = lambda v: round(float(v) * 1000)
threads = {}
for e in events:
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
        threads.setdefault((e["pid"], e["tid"]), []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e))
for key, sl in threads.items():
    sl.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for start, end, e in sl:
        while stack and stack[-1][1] <= start:
            stack.pop()
        if stack:
            assert end <= stack[-1][1], ("slices overlap without nesting", key, stack[-1][2], e)
        stack.append((start, end, e))

requests = [e for e in events if e["ph"] == "X" and e["pid"] in disk_pids and e["cat"] in ("request", "flush")]
device = [e for e in events if e["ph"] == "X" and e["pid"] in disk_pids and e["name"] == "device"]
queued = [e for e in events if e["ph"] == "X" and e["pid"] in disk_pids and e["name"] == "queued"]
for r in requests:
    a = r["args"]
    assert ns(a["device_us"]) + ns(a["queued_us"]) == ns(r["dur"]), r
proc = [e for e in events if e["ph"] == "X" and e["pid"] not in disk_pids]
assert len(proc) == len(requests), (len(proc), len(requests))
flushes = [e for e in events if e["ph"] == "i" and e["name"] == "flush"]
assert len(flushes) == sum(1 for r in requests if r["cat"] == "flush")
errors = [e for e in events if e["ph"] == "i" and e["name"].startswith("error")]
lanes = len({(e["pid"], e["tid"]) for e in requests})
overlap = 0
for p in disk_pids:
    edges = sorted([(ns(r["ts"]) + ns(r["dur"]), -1) for r in requests if r["pid"] == p] +
                   [(ns(r["ts"]), 1) for r in requests if r["pid"] == p])
    now = 0
    for _, d in edges:
        now += d
        overlap = max(overlap, now)
print(len(requests), len(device), len(flushes), len(errors), lanes, len(queued), overlap)
