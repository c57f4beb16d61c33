#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.py - fail on an upward dependency or a circle between modules, at include and at
# symbol level.
#
# A module is a source path without its extension (src/core/session.c + .h =
# src/core/session); its layer is its folder, ranked by the order file (bottom up), which
# names folders only: a module that needs a rank of its own is in the wrong folder. A
# private header x-local.h belongs to module x, whose files share it. Edges:
#   include  '#include "x.h"', resolved beside the including file first, then in src/ and
#            the layer folders (the -I path of Makefile.am), where no two folders may
#            hold a header of the same name;
#   symbol   an undefined symbol of one object that another object defines (nm), so
#            calls and data that no #include line shows count too: the objects of
#            libiotap.a and those linked only into the binary (main.o and the CLI's front
#            ends), so the files of one link use each other in no circle either.
# A rule is broken by an edge to a higher layer, or by a circle: a set of modules (or of
# layers) that reach each other. The allow file names known edges, one per line
# ("<include|symbol> <from> <to>"): an allowed edge is left out of both rules, so removing
# its line makes the check see it again. --edges reads "<kind> <from> <to>" lines instead
# of scanning a tree, so the rules can be tested on crafted graphs.
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
KINDS = ("include", "symbol")


def read_lines(path):
    """read_lines - the words of each line of path, comments and blank lines dropped"""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                out.append((n, words))
    return out


def read_order(path):
    """read_order - the layers (folders), bottom up, mapped to their rank"""
    order = {}
    for n, words in read_lines(path):
        if len(words) != 1 or words[0] in order:
            sys.exit(f"{path}:{n}: want one new folder per line")
        order[words[0]] = len(order)
    if not order:
        sys.exit(f"{path}: no layers")
    return order


def read_allow(path):
    """read_allow - the allowed edges as (kind, from, to) mapped to their line number"""
    allow = {}
    for n, words in read_lines(path):
        if len(words) != 3 or words[0] not in KINDS:
            sys.exit(f"{path}:{n}: want '<include|symbol> <from> <to>  # why'")
        allow[tuple(words)] = n
    return allow


def module_of(path):
    """module_of - the module of a source path: no extension, x-local.h is x's"""
    mod = os.path.splitext(path)[0]
    return mod[:-len("-local")] if path.endswith("-local.h") else mod


def source_files(srcdir, order):
    """source_files - every .c and .h in the layer folders, relative to srcdir"""
    files = []
    for folder in order:
        d = os.path.join(srcdir, folder)
        if not os.path.isdir(d):
            sys.exit(f"{folder}: a layer is a folder, and {d} is none")
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")) and os.path.isfile(os.path.join(d, name)):
                files.append(f"{folder}/{name}")
    return files


def include_edges(srcdir, order, files):
    """include_edges - (from, to) modules for every '#include "x.h"' inside the tree"""
    edges = set()
    search = ["src"] + list(order)
    for f in files:
        here = os.path.dirname(f)
        with open(os.path.join(srcdir, f), errors="replace") as fp:
            text = fp.read()
        for inc in INCLUDE.findall(text):
            for d in [here] + search:
                p = os.path.normpath(os.path.join(d, inc))
                if os.path.isfile(os.path.join(srcdir, p)):
                    edges.add((module_of(f), module_of(p)))
                    break
            # not found: a system or generated header (config.h)
    return edges


def object_source(obj, member, by_base):
    """object_source - the source (no extension) an object was compiled from: by its
    path under the build folder when it is a file of its own, else by its name, without
    the target prefix automake gives objects built with flags of their own (x_a-name.o)"""
    base = os.path.basename(obj)[:-2]
    where = by_base.get(base, [])
    if not where and "-" in base:
        where = by_base.get(base.split("-", 1)[1], [])
    if not member and len(where) > 1:
        stem = obj[:-2].replace(os.sep, "/")
        where = [w for w in where if stem.endswith("/" + w) or stem == w] or where
    if len(where) != 1:
        sys.exit(f"object {obj} matches {len(where)} sources ({where})")
    return where[0]


def symbol_edges(files, lib, objs):
    """symbol_edges - (user, definer) modules for every symbol one object (of lib, or of
    objs) takes from another, and the number of objects read"""
    by_base = {}
    for f in files:
        if f.endswith(".c"):
            by_base.setdefault(os.path.basename(f)[:-2], []).append(f[:-2])
    nm = subprocess.run(["nm", "-A", "-P"] + ([lib] if lib else []) + list(objs),
                        capture_output=True, text=True)
    if nm.returncode:
        sys.exit(f"nm {lib or ''} {' '.join(objs)} failed: {nm.stderr.strip()}")
    member = re.compile(r"^.*\[([^\]]+\.o)\]:$")
    defs, uses, modules, known = {}, [], set(), {}
    for line in nm.stdout.splitlines():
        words = line.split()
        if len(words) < 3:
            continue
        m = member.match(words[0])
        if m:
            obj, in_lib = m.group(1), True
        elif words[0].endswith(".o:"):
            obj, in_lib = words[0][:-1], False
        else:
            sys.exit(f"nm: unexpected line: {line}")
        if (obj, in_lib) not in known:
            known[obj, in_lib] = object_source(obj, in_lib, by_base)
        mod, name, kind = known[obj, in_lib], words[1], words[2]
        modules.add(mod)
        if kind in "Uw":
            uses.append((mod, name))
        elif kind.isupper() or kind in "vi":
            defs[name] = mod
    edges = {(mod, defs[name]) for mod, name in uses if name in defs and defs[name] != mod}
    return edges, len(modules)


def header_clashes(files):
    """header_clashes - the header names found in more than one layer folder, with their
    paths: on one -I path, '#include "x.h"' would take whichever folder comes first"""
    where = {}
    for f in files:
        if f.endswith(".h"):
            where.setdefault(os.path.basename(f), []).append(f)
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def layer_of(mod, order):
    """layer_of - the layer a module is in: its folder"""
    d = os.path.dirname(mod)
    return d if d in order else None


def circles(nodes, edges):
    """circles - the strongly connected sets of more than one node (Tarjan, iterative)"""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = counter
                counter += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(succ[nxt]))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return out


def check(edges, order, allow, nodes):
    """check - print every broken rule; the number of them"""
    bad = 0
    for kind in KINDS:
        mine = {(a, b) for k, a, b in edges if k == kind and a != b}
        kept = {(a, b) for a, b in mine if (kind, a, b) not in allow}
        for a, b in sorted(kept):
            la, lb = layer_of(a, order), layer_of(b, order)
            if la is None or lb is None:
                print(f"FAIL: {kind} {a} -> {b}: {a if la is None else b} is in no layer")
                bad += 1
            elif order[lb] > order[la]:
                print(f"FAIL: {kind} {a} -> {b}: upward, {la} uses {lb}")
                bad += 1
        for comp in circles(nodes, kept):
            inner = sorted((a, b) for a, b in kept if a in comp and b in comp)
            print(f"FAIL: {kind} circle between modules {' '.join(comp)}:")
            for a, b in inner:
                print(f"  {kind} {a} {b}")
            bad += 1
        layered = {(layer_of(a, order), layer_of(b, order)) for a, b in kept}
        layered = {(a, b) for a, b in layered if a and b and a != b}
        for comp in circles(set(order), layered):
            print(f"FAIL: {kind} circle between layers {' '.join(comp)}")
            bad += 1
    return bad


def main():
    """main - scan the tree (or read --edges), check the rules, report"""
    ap = argparse.ArgumentParser()
    ap.add_argument("--srcdir", default=".")
    ap.add_argument("--lib", help="the built libiotap.a (symbol level)")
    ap.add_argument("--obj", action="append", default=[],
                    help="an object linked outside the library, the binary's (symbol level)")
    ap.add_argument("--order", required=True)
    ap.add_argument("--allow", required=True)
    ap.add_argument("--edges", help="check '<kind> <from> <to>' lines instead of a tree")
    ap.add_argument("--min-modules", type=int, default=0)
    ap.add_argument("--print-edges", action="store_true")
    args = ap.parse_args()
    order, allow = read_order(args.order), read_allow(args.allow)
    edges, clashes = set(), {}
    if args.edges:
        for n, words in read_lines(args.edges):
            if len(words) != 3 or words[0] not in KINDS:
                sys.exit(f"{args.edges}:{n}: want '<include|symbol> <from> <to>'")
            edges.add(tuple(words))
        nodes = {w for _, a, b in edges for w in (a, b)}
        objects = 0
    else:
        files = source_files(args.srcdir, order)
        clashes = header_clashes(files)
        nodes = {module_of(f) for f in files}
        edges |= {("include", a, b) for a, b in include_edges(args.srcdir, order, files)}
        if args.lib or args.obj:
            sym, objects = symbol_edges(files, args.lib, args.obj)
            edges |= {("symbol", a, b) for a, b in sym}
        else:
            objects = 0
    if args.print_edges:
        for e in sorted(edges):
            print(*e)
        return 0
    if len(nodes) < args.min_modules or ((args.lib or args.obj) and objects < args.min_modules):
        print(f"FAIL: found {len(nodes)} modules, {objects} objects: want {args.min_modules}")
        return 1
    bad = check(edges, order, allow, nodes)
    for name, paths in sorted(clashes.items()):
        print(f"FAIL: {name} is in more than one layer folder: {' '.join(paths)}")
        bad += 1
    for e in sorted(set(allow) - edges, key=allow.get):
        print(f"note: {args.allow}:{allow[e]}: allowed edge '{' '.join(e)}' is gone; "
              f"delete its line")
    if bad:
        print(f"{bad} layering rule(s) broken: fix the dependency, or, if it is meant, "
              f"add the edge with why to {args.allow}")
        return 1
    n = {k: sum(1 for e in edges if e[0] == k) for k in KINDS}
    print(f"ok: {len(nodes)} modules in {len(order)} layers, {n['include']} include and "
          f"{n['symbol']} symbol edges ({objects} objects), {len(allow)} allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
