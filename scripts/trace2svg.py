#!/usr/bin/env python3
# trace2svg.py TRACE.json OUT.svg [FROM_MS TO_MS] - draw an iotap --timeline file as a plain SVG:
# one row per lane, grouped by track (disks first, then processes), queued time in amber,
# device time in blue, flushes in purple, errors in red. For pictures and quick looks where
# ui.perfetto.dev or chrome://tracing cannot be opened.
import json
import sys
from xml.sax.saxutils import escape

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
lo = float(sys.argv[3]) * 1000 if len(sys.argv) > 4 else None
hi = float(sys.argv[4]) * 1000 if len(sys.argv) > 4 else None
pnames, tnames, order = {}, {}, {}
for e in events:
    if e["ph"] != "M":
        continue
    if e["name"] == "process_name":
        pnames[e["pid"]] = e["args"]["name"]
    elif e["name"] == "thread_name":
        tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    elif e["name"] == "process_sort_index":
        order[e["pid"]] = e["args"]["sort_index"]
slices = [e for e in events if e["ph"] == "X" and (lo is None or lo <= e["ts"] <= hi)]
marks = [e for e in events if e["ph"] == "i" and (lo is None or lo <= e["ts"] <= hi)]
if lo is None:
    lo = min(e["ts"] for e in slices)
    hi = max(e["ts"] + e["dur"] for e in slices)
lanes = sorted(tnames, key=lambda k: (order.get(k[0], 0), tnames[k]))
lanes = [k for k in lanes if any((e["pid"], e["tid"]) == k for e in slices)]
left, width, row, top = 170, 1000, 16, 50
height = top + len(lanes) * row + 60
x = lambda t: left + (t - lo) / (hi - lo) * width
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
       f'font-family="Verdana, sans-serif" font-size="11">',
       f'<rect width="100%" height="100%" fill="white"/>',
       f'<text x="{left + width / 2}" y="20" text-anchor="middle" font-size="15">'
       f'iotap biosnoop --timeline: {len([s for s in slices if s["name"] == "device"])} requests, '
       f'{(hi - lo) / 1000:.1f} ms</text>',
       f'<text x="{left + width / 2}" y="38" text-anchor="middle">queued (amber) and device (blue) '
       f'time per request; flushes purple, errors red; one row per request in flight at once</text>']
colour = {"queued": "#f0a030", "device": "#3070c0", "flush": "#8040a0", "request": "#c8d4e4"}
for i, k in enumerate(lanes):
    y = top + i * row
    if k[1] == k[0] or tnames[k].endswith(" lane 0"):
        out.append(f'<line x1="0" x2="{left + width}" y1="{y}" y2="{y}" stroke="#bbb"/>')
    out.append(f'<text x="{left - 6}" y="{y + row - 4}" text-anchor="end">{escape(tnames[k])}</text>')
    for e in slices:
        if (e["pid"], e["tid"]) != k:
            continue
        c = colour.get(e["cat"], "#999")
        if "(error)" in e["name"]:
            c = "#d02020"
        w = max(x(e["ts"] + e["dur"]) - x(e["ts"]), 0.5)
        out.append(f'<rect x="{x(e["ts"]):.2f}" y="{y + 2}" width="{w:.2f}" height="{row - 4}" '
                   f'fill="{c}"><title>{escape(e["name"])}: {e["dur"]:.3f} us</title></rect>')
    for e in marks:
        if (e["pid"], e["tid"]) == k:
            out.append(f'<path d="M{x(e["ts"]):.2f} {y + 2} l4 -6 h-8 z" fill="#8040a0"/>')
y = top + len(lanes) * row
for j in range(11):
    t = lo + (hi - lo) * j / 10
    out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{y}" y2="{y + 5}" stroke="#666"/>')
    out.append(f'<text x="{x(t):.1f}" y="{y + 18}" text-anchor="middle">{t / 1000:.2f}</text>')
out.append(f'<text x="{left + width / 2}" y="{y + 36}" text-anchor="middle">time (ms)</text></svg>')
open(sys.argv[2], "w").write("\n".join(out) + "\n")
