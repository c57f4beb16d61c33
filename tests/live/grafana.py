#!/usr/bin/env python3
"""grafana.py - checks of contrib/grafana/iotap.json for tests/live/dashboard.sh.

  grafana.py lint DASHBOARD
      the dashboard's structure: what an import into Grafana 10 or 11 needs, and what
      makes every panel follow the variables
  grafana.py exprs DASHBOARD
      one line per panel target: "PANEL-ID<TAB>REFID<TAB>TITLE<TAB>EXPR"
  grafana.py sources DASHBOARD SRCDIR
      every metric a panel reads is named in the exporter's sources, but for those of
      NOT_YET_EXPORTED, which must not be
  grafana.py eval DASHBOARD PROM-URL TIME VARS-JSON METRICS-FILE HOST-JSON
      every target's expr, variables substituted, evaluated by Prometheus at TIME: valid
      PromQL always, and data (a finite sample) whenever the exporter serves every metric
      it reads; a metric it does not serve must be in NOT_YET_EXPORTED or in HOST-JSON
      ({metric: why this host cannot have it})
  grafana.py queries DASHBOARD VARS-JSON
      one line per target, "PANEL-ID/REFID QUERY-STRING", its expr substituted and
      URL-encoded, for a Prometheus the test cannot reach (one in a VM)
  grafana.py judge DASHBOARD RESULTS-DIR VARS-JSON METRICS-FILE HOST-JSON
      eval over the answers to those queries, one file per target in RESULTS-DIR
      (PANEL-ID-REFID.json)
  grafana.py vars DASHBOARD PROM-URL VARS-JSON WANT-JSON
      every variable's label_values() query, through Prometheus' series API, offers the
      values WANT-JSON ({variable: [values]}) names
  grafana.py empty DASHBOARD PROM-URL TIME VARS-JSON
      the panels none of whose targets has data at TIME: each must say what it needs in
      place of "No data" (its noValue)

A series recorded by contrib/prometheus's rules (tests/live/promrules.py reads them) stands
for the exporter's series it is recorded from.
"""
import json
import math
import re
import sys
import urllib.parse
import urllib.request

from promrules import metrics_of, raw_metrics, recorded, src_names

# What Grafana itself substitutes: not dashboard variables.
BUILTINS = {"__rate_interval", "__interval", "__interval_ms", "__range", "__range_s",
            "__range_ms", "__from", "__to", "__dashboard", "__name", "__org", "__user"}
VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\[\[([A-Za-z_]\w*)\]\]")

# Metrics panels read that this tree's exporter does not serve yet. Their panels are checked
# as valid PromQL only, and listed as waiting. Take each off as the exporter gains it: one
# still listed once served fails both tests (dashboard.sh and tests/lint/grafana.sh).
NOT_YET_EXPORTED = {
}

# Series only an exporter run with an option serves: a panel that reads them says so in
# place of "No data" (its noValue), and so does one over recorded series, which need the rules.
NEEDS = (
    ("iotap_block_request_queue_seconds", "--queue-time"),
    ("iotap_block_request_stage_seconds", "--stages"),
    ("iotap_flight_", "--ring"),
    ("iotap_cgroup_", "--cgroups"),
)
RECORDED_NEEDS = "recording rules"


def fail(msg):
    sys.exit("FAIL: " + msg)


def all_panels(dash):
    """Every panel, rows' nested ones too."""
    out = []
    for p in dash.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []))
    return out


def var_refs(text):
    return {a or b or c for a, b, c in VAR_RE.findall(text)}


def targets(dash):
    for p in all_panels(dash):
        for t in p.get("targets", []):
            yield p, t


def lint(dash):
    errs = []
    inputs = {i["name"]: i for i in dash.get("__inputs", [])}
    ds_inputs = [n for n, i in inputs.items()
                 if i.get("type") == "datasource" and i.get("pluginId") == "prometheus"]
    if len(ds_inputs) != 1:
        errs.append("__inputs: want one Prometheus datasource input, have %s" % list(inputs))
    want_ds = {"type": "prometheus", "uid": "${%s}" % (ds_inputs[0] if ds_inputs else "?")}
    if not isinstance(dash.get("schemaVersion"), int) or not 36 <= dash["schemaVersion"] <= 39:
        errs.append("schemaVersion %r: Grafana 10 and 11 write 36 to 39" % dash.get("schemaVersion"))
    if dash.get("id") is not None:
        errs.append("id must be null in a dashboard for import")
    if not dash.get("uid") or not dash.get("title"):
        errs.append("no uid or title")
    # Every ${...} of the whole file is an input or a variable.
    names = [v["name"] for v in dash.get("templating", {}).get("list", [])]
    if len(set(names)) != len(names):
        errs.append("variables named twice: %s" % names)
    defined = set(names) | BUILTINS
    text = json.dumps(dash)
    for ref in sorted(var_refs(text)):
        if ref not in defined and ref not in inputs:
            errs.append("${%s} is neither a variable, an input nor Grafana's" % ref)
    for v in dash.get("templating", {}).get("list", []):
        if v.get("datasource") != want_ds:
            errs.append("variable %s: datasource %r, want %r" % (v["name"], v.get("datasource"), want_ds))
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        if not q or not re.match(r"^label_values\(.*,\s*\w+\)$", q):
            errs.append("variable %s: query %r is not label_values(SELECTOR, LABEL)" % (v["name"], q))
        elif v.get("definition") != q:
            errs.append("variable %s: definition differs from its query" % v["name"])
    used = set()
    for p, t in targets(dash):
        used |= var_refs(t.get("expr", ""))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        used |= var_refs(q.get("query") if isinstance(q, dict) else q or "")
    for n in names:
        if n not in used:
            errs.append("variable %s is used by no query" % n)
    rec = recorded()
    ids = [p.get("id") for p in all_panels(dash)]
    if len(set(ids)) != len(ids) or None in ids:
        errs.append("panel ids not unique: %s" % ids)
    cells = {}
    for p in all_panels(dash):
        what = "panel %s %r" % (p.get("id"), p.get("title"))
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "xywh") or g["w"] < 1 or g["h"] < 1 or \
                g["x"] < 0 or g["x"] + g["w"] > 24:
            errs.append("%s: bad gridPos %r" % (what, g))
            continue
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    errs.append("%s overlaps panel %s" % (what, cells[(x, y)]))
                    break
                cells[(x, y)] = p.get("id")
        if p.get("type") == "row":
            if p.get("targets"):
                errs.append("%s: a row with queries" % what)
            continue
        if not p.get("title") or not p.get("description"):
            errs.append("%s: no title or description" % what)
        if p.get("datasource") != want_ds:
            errs.append("%s: datasource %r, want %r" % (what, p.get("datasource"), want_ds))
        ts = p.get("targets", [])
        if not ts:
            errs.append("%s: no targets" % what)
        refs = [t.get("refId") for t in ts]
        if len(set(refs)) != len(refs) or None in refs:
            errs.append("%s: refIds not unique: %s" % (what, refs))
        for t in ts:
            e = t.get("expr", "")
            if t.get("datasource") != want_ds:
                errs.append("%s %s: datasource %r" % (what, t.get("refId"), t.get("datasource")))
            if not e:
                errs.append("%s %s: no expr" % (what, t.get("refId")))
                continue
            refs_e = var_refs(e)
            raw = raw_metrics(metrics_of(e), rec)
            if "instance" not in refs_e:
                errs.append("%s %s: does not follow $instance: %s" % (what, t.get("refId"), e))
            # Every series with a disk label follows $disk; SCSI devices follow $device.
            if any(m.startswith(("iotap_block_", "iotap_nvme_", "iotap_cgroup_"))
                   for m in raw) and "disk" not in refs_e:
                errs.append("%s %s: does not follow $disk: %s" % (what, t.get("refId"), e))
            if any(m.startswith("iotap_scsi_") for m in raw) and "device" not in refs_e:
                errs.append("%s %s: does not follow $device: %s" % (what, t.get("refId"), e))
            novalue = p.get("fieldConfig", {}).get("defaults", {}).get("noValue", "")
            for prefix, flag in NEEDS:
                if any(m.startswith(prefix) for m in raw) and flag not in novalue:
                    errs.append("%s %s: reads %s, which needs %s, and its noValue %r does not say "
                                "so" % (what, t.get("refId"), prefix, flag, novalue))
            if metrics_of(e) & set(rec) and RECORDED_NEEDS not in novalue:
                errs.append("%s %s: reads recorded series, and its noValue %r does not say they "
                            "need the %s" % (what, t.get("refId"), novalue, RECORDED_NEEDS))
            if p.get("type") == "heatmap":
                if t.get("format") != "heatmap" or not re.search(r"_bucket\{", e) or \
                        not re.search(r"by \(le\)", e) or t.get("legendFormat") != "{{le}}":
                    errs.append("%s: a heat map target is format heatmap, sums _bucket by (le), "
                                "legend {{le}}" % what)
    types = {r["id"] for r in dash.get("__requires", []) if r.get("type") == "panel"}
    for p in all_panels(dash):
        if p.get("type") != "row" and p.get("type") not in types:
            errs.append("panel type %s not in __requires" % p.get("type"))
    return errs


def substitute(expr, values):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            fail("no value for $%s in %s" % (name, expr))
        return values[name]
    return VAR_RE.sub(one, expr)


def query(url, expr, at):
    q = urllib.parse.urlencode({"query": expr, "time": at})
    try:
        r = json.load(urllib.request.urlopen("%s/api/v1/query?%s" % (url, q), timeout=10))
    except urllib.error.HTTPError as e:
        return {"status": "error", "error": e.read().decode(errors="replace")}
    return r


def exposed_names(path):
    names = set()
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


def sources(dash, srcdir):
    """Every metric read is named in src/ (as a C string), but for NOT_YET_EXPORTED ones, or
    recorded by a rule."""
    src_named = src_names(srcdir)
    rec = recorded()
    errs, read = [], set()
    for p, t in targets(dash):
        read |= metrics_of(t["expr"])
    for n in sorted(read):
        if ":" in n:
            if n not in rec:
                errs.append("a panel reads %s, which no rule of contrib/prometheus records" % n)
            continue
        named = src_named(n)
        if n in NOT_YET_EXPORTED and named:
            errs.append("%s is in NOT_YET_EXPORTED, but src/ names it: take it off the list" % n)
        elif n not in NOT_YET_EXPORTED and not named:
            errs.append("a panel reads %s, which src/ never names" % n)
    for n in sorted(NOT_YET_EXPORTED):
        if n not in read:
            errs.append("%s is in NOT_YET_EXPORTED, but no panel reads it" % n)
    return errs, read


def evaluate(dash, fetch, values, metrics_file, host):
    exposed = exposed_names(metrics_file)
    absent = dict(NOT_YET_EXPORTED, **host)
    rec = recorded()
    errs, lines, results = [], [], {}
    read = set()
    for p, t in targets(dash):
        e = t["expr"]
        names = raw_metrics(metrics_of(e), rec)
        read |= names
        missing = sorted(n for n in names if n not in exposed)
        for n in missing:
            if n not in absent:
                errs.append("panel %r reads %s, which the exporter does not serve (and no list "
                            "says why)" % (p["title"], n))
        r = fetch(p, t, substitute(e, values))
        tag = "panel %d %r %s" % (p["id"], p["title"], t["refId"])
        if r.get("status") != "success":
            errs.append("%s: Prometheus rejects %s: %s" % (tag, e, r.get("error")))
            continue
        res = r["data"]["result"]
        finite = [s for s in res if math.isfinite(float(s["value"][1]))]
        results["%d/%s" % (p["id"], t["refId"])] = [
            {"metric": s["metric"], "value": float(s["value"][1])} for s in finite]
        if missing:
            lines.append("wait  %s: needs %s (%s)" % (tag, ", ".join(missing),
                                                      "; ".join(sorted({absent[n] for n in missing}))))
        elif not finite:
            errs.append("%s: no data (%d series, none finite): %s" % (tag, len(res),
                                                                    substitute(e, values)))
        else:
            lines.append("data  %s: %d series" % (tag, len(finite)))
    for n in sorted(NOT_YET_EXPORTED):
        if n in exposed:
            errs.append("%s is in NOT_YET_EXPORTED, but the exporter serves it: take it off "
                        "the list" % n)
    return errs, lines, results


def report(errs, lines, results):
    """What evaluate found: its lines and errors on stderr, the results as JSON on stdout;
    exits 1 on any error."""
    for l in lines:
        print(l, file=sys.stderr)
    for e in errs:
        print("dashboard: " + e, file=sys.stderr)
    json.dump(results, sys.stdout)
    sys.exit(1 if errs else 0)


def main():
    cmd, dash = sys.argv[1], json.load(open(sys.argv[2]))
    if cmd == "lint":
        errs = lint(dash)
        for e in errs:
            print("dashboard: " + e, file=sys.stderr)
        sys.exit(1 if errs else 0)
    if cmd == "sources":
        errs, read = sources(dash, sys.argv[3])
        for e in errs:
            print("dashboard: " + e, file=sys.stderr)
        print("%d metrics read, %d of them not yet exported" %
              (len(read), len(read & set(NOT_YET_EXPORTED))), file=sys.stderr)
        sys.exit(1 if errs else 0)
    if cmd == "exprs":
        for p, t in targets(dash):
            print("%d\t%s\t%s\t%s" % (p["id"], t["refId"], p["title"], t["expr"]))
        return
    if cmd == "queries":
        values = json.loads(sys.argv[3])
        for p, t in targets(dash):
            print("%d-%s %s" % (p["id"], t["refId"],
                                urllib.parse.urlencode({"query": substitute(t["expr"], values)})))
        return
    if cmd == "judge":
        rdir, values, host = sys.argv[3], json.loads(sys.argv[4]), json.loads(sys.argv[6])

        def answer(p, t, e):
            try:
                return json.load(open("%s/%d-%s.json" % (rdir, p["id"], t["refId"])))
            except (OSError, ValueError) as x:
                return {"status": "error", "error": "no answer: %s" % x}
        report(*evaluate(dash, answer, values, sys.argv[5], host))
    if cmd == "eval":
        url, at, values = sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
        host = json.loads(sys.argv[7])
        report(*evaluate(dash, lambda p, t, e: query(url, e, at), values, sys.argv[6], host))
    if cmd == "empty":
        url, at, values = sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
        bad = 0
        for p in all_panels(dash):
            if p.get("type") == "row":
                continue
            data = False
            for t in p["targets"]:
                r = query(url, substitute(t["expr"], values), at)
                if r.get("status") != "success":
                    fail("panel %d %r %s: Prometheus rejects it: %s" % (p["id"], p["title"], t["refId"],
                                                                     r.get("error")))
                data |= any(math.isfinite(float(x["value"][1])) for x in r["data"]["result"])
            if data:
                continue
            novalue = p.get("fieldConfig", {}).get("defaults", {}).get("noValue")
            print("empty panel %d %r: %s" % (p["id"], p["title"],
                                             "shows %r" % novalue if novalue else "No data"),
                  file=sys.stderr)
            bad |= not novalue
        sys.exit(bad)
    if cmd == "vars":
        url, values, want = sys.argv[3], json.loads(sys.argv[4]), json.loads(sys.argv[5])
        bad = 0
        for v in dash["templating"]["list"]:
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            sel, label = re.match(r"^label_values\((.*),\s*(\w+)\)$", q).groups()
            q = urllib.parse.urlencode({"match[]": substitute(sel, values)})
            r = json.load(urllib.request.urlopen("%s/api/v1/series?%s" % (url, q), timeout=10))
            got = sorted({s.get(label) for s in r["data"] if s.get(label)})
            for w in want.get(v["name"], []):
                if w not in got:
                    print("dashboard: variable %s offers %s, not %s" % (v["name"], got, w),
                          file=sys.stderr)
                    bad = 1
            print("variable %s: %s" % (v["name"], " ".join(got) or "(none)"), file=sys.stderr)
        sys.exit(bad)
    fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
