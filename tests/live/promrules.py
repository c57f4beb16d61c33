#!/usr/bin/env python3
"""promrules.py - checks of contrib/prometheus's rules beside promtool's, and what the
dashboard's checks (grafana.py) need to know of them.

  promrules.py coverage RULES... -- TESTS...
      every alert of RULES has a promtool unit test in TESTS where it fires and one where
      it does not
  promrules.py sources SRCDIR RULES...
      every metric a rule reads is one src/ names, Prometheus' own, or one a rule records,
      but for those of PLANNED, which src/ must not name yet; every recorded name is
      level:metric:operations
"""
import glob
import os
import re
import sys

# The rules the project ships, beside this file's tree.
RULES = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                      "contrib", "prometheus", "*.yml")))

# Metrics a rule reads that the exporter does not serve yet, and what will serve them.
# Take each off as the exporter gains it: one still listed once src/ names it fails.
PLANNED = {
}
# Series Prometheus makes itself.
PROMETHEUS_OWN = {"up"}

# PromQL's words that look like metric names: aggregations, keywords, the le label.
PROMQL_WORDS = {"sum", "rate", "increase", "histogram_quantile", "by", "without", "on", "ignoring",
                "group_left", "group_right", "and", "or", "unless", "avg", "max", "min", "count",
                "topk", "bottomk", "irate", "delta", "label_values", "offset", "bool", "le"}


def metrics_of(expr):
    """The metric names an expression reads (recorded ones too)."""
    bare = re.sub(r'"(\\.|[^"\\])*"', '""', expr)          # strings
    bare = re.sub(r"\{[^}]*\}", "{}", bare)                 # label matchers
    bare = re.sub(r"\[[^]]*\]", "[]", bare)                 # ranges
    bare = re.sub(r"\boffset\s+-?\w+", "", bare)            # offsets
    bare = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", bare)
    bare = re.sub(r"(?<![\w:.])\d[\d.]*(e[+-]?\d+)?\b", "", bare)  # numbers, 1e6 too
    names = set()
    for m in re.finditer(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\(?)", bare):
        name, call = m.group(1), m.group(2)
        if call or name in PROMQL_WORDS:
            continue
        names.add(name)
    return names


def load(paths):
    """Every rule of the files at paths, as promtool reads them: a list of dicts."""
    import yaml
    rules = []
    for path in paths:
        for g in yaml.safe_load(open(path))["groups"]:
            for r in g["rules"]:
                rules.append(dict(r, file=path, group=g["name"]))
    return rules


def recorded(paths=None):
    """{recorded name: the metrics its expressions read}, over every file's rules."""
    out = {}
    for r in load(RULES if paths is None else paths):
        if "record" in r:
            out.setdefault(r["record"], set()).update(metrics_of(r["expr"]))
    return out


def raw_metrics(names, rec):
    """names with each recorded one replaced by what it reads, down to the exporter's."""
    out, todo, seen = set(), list(names), set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in rec:
            todo.extend(rec[n])
        else:
            out.add(n)
    return out


def family(name):
    """A series name's metric family: histogram series without their suffix."""
    return re.sub(r"_(bucket|sum|count)$", "", name)


def src_names(srcdir):
    """Whether src/ names a metric (as a C string), as a function of its name."""
    text = ""
    for f in glob.glob(srcdir + "/src/**/*.c", recursive=True):
        text += open(f, errors="replace").read()
    return lambda n: '"%s"' % family(n) in text or '"%s"' % n in text


def sources(srcdir, paths):
    errs = []
    rules = load(paths)
    rec = recorded(paths)
    named = src_names(srcdir)
    read = set()
    for r in rules:
        what = r.get("record") or r.get("alert")
        if "record" in r and not re.match(r"^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$", r["record"]):
            errs.append("%s: a recorded name is level:metric:operations" % what)
        for n in sorted(metrics_of(r["expr"])):
            read.add(n)
            if n in rec or n in PROMETHEUS_OWN:
                continue
            if n in PLANNED and named(n):
                errs.append("%s is in PLANNED, but src/ names it: take it off the list" % n)
            elif n not in PLANNED and not named(n):
                errs.append("%s reads %s, which src/ never names and no rule records" % (what, n))
    for n in sorted(set(PLANNED) - read):
        errs.append("%s is in PLANNED, but no rule reads it" % n)
    return errs, read


def coverage(rule_paths, test_paths):
    """Every alert fires in some test and stays quiet in another."""
    import yaml
    fired, quiet = set(), set()
    for path in test_paths:
        for t in yaml.safe_load(open(path)).get("tests", []):
            for a in t.get("alert_rule_test", []):
                (fired if a.get("exp_alerts") else quiet).add(a["alertname"])
    errs = []
    alerts = [r["alert"] for r in load(rule_paths) if "alert" in r]
    for a in alerts:
        if a not in fired:
            errs.append("alert %s fires in no unit test" % a)
        if a not in quiet:
            errs.append("alert %s has no unit test where it does not fire" % a)
    for a in sorted((fired | quiet) - set(alerts)):
        errs.append("a unit test expects alert %s, which no rules file has" % a)
    return errs, alerts


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "coverage":
        cut = args.index("--")
        errs, alerts = coverage(args[:cut], args[cut + 1:])
        ok = "%d alerts, each fired and not fired in the unit tests" % len(alerts)
    elif cmd == "sources":
        errs, read = sources(args[0], args[1:])
        ok = "%d metrics read, %d of them planned" % (len(read), len(read & set(PLANNED)))
    else:
        sys.exit("FAIL: unknown command " + cmd)
    for e in errs:
        print("rules: " + e, file=sys.stderr)
    if not errs:
        print(ok, file=sys.stderr)
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
