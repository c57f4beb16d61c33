#!/usr/bin/env python3
# architecture.py - fail when the architecture picture (doc/architecture.dot) names a
# folder or file that is gone, or leaves out a layer of tests/lint/layers.order, so that
# the picture keeps up with the tree. A node stands for code when its label's first line
# is a folder ending in '/' (from the top of the tree); names of .c and .h files on its
# other lines are in that folder, or from the top when they have a '/'. With --page, the
# Markdown page that tells of the picture (doc/architecture.md: its text and its drawing;
# with --section, only its section '## TITLE') names no path that is gone either: a path
# there starts with a top folder of a layer, or doc/ or tests/. Needs no Graphviz: only the
# labels are read.
# Usage: architecture.py --srcdir DIR --dot FILE --order FILE [--page FILE [--section TITLE]]
import argparse
import os
import re
import sys

LABEL = re.compile(r'\blabel\s*=\s*"((?:[^"\\]|\\.)*)"')
# Graphviz's line ends in a label: centred, left and right justified.
BREAK = re.compile(r'\\[nlr]')
SOURCE = re.compile(r'(?<![\w./-])((?:[\w-]+/)*[\w-]+\.[ch])(?![\w.])')
PATH = re.compile(r'(?<![\w./-])([\w-]+/[\w./-]*)')


def strip_comments(text):
    """The .dot text without its // and /* */ comments, strings kept whole."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith('//', i) or (c == '#' and (i == 0 or text[i - 1] == '\n')):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def code_nodes(text):
    """(folder, [file names]) of every label whose first line is a folder."""
    nodes = []
    for m in LABEL.finditer(strip_comments(text)):
        lines = [ln.strip() for ln in BREAK.split(m.group(1))]
        if not lines or not lines[0].endswith('/'):
            continue
        files = []
        for ln in lines[1:]:
            files += SOURCE.findall(ln)
        nodes.append((lines[0], files))
    return nodes


def layers(path):
    """The layer folders of the order file, bottom up."""
    out = []
    with open(path, encoding='utf-8') as f:
        for ln in f:
            ln = ln.split('#', 1)[0].strip()
            if ln:
                out.append(ln.split()[0].rstrip('/'))
    return out


def section(path, title):
    """(first line number, lines) of the page's section '## TITLE' past its title, or of
    the whole page when title is None; None when there is no such section."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    if title is None:
        return 1, lines
    try:
        start = lines.index('## ' + title)
    except ValueError:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith('## ')),
               len(lines))
    return start + 2, lines[start + 1:end]


def page_paths(first, lines, roots):
    """(line number, path) of every path in lines that starts with one of roots."""
    out = []
    for n, ln in enumerate(lines, first):
        for p in PATH.findall(ln):
            p = p.rstrip('.')
            if p.split('/', 1)[0] in roots:
                out.append((n, p))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--srcdir', required=True)
    ap.add_argument('--dot', required=True)
    ap.add_argument('--order', required=True)
    ap.add_argument('--page')
    ap.add_argument('--section')
    a = ap.parse_args()
    try:
        with open(a.dot, encoding='utf-8') as f:
            text = f.read()
    except OSError as e:
        print(f'FAIL: cannot read {a.dot}: {e.strerror}')
        return 1
    dot = os.path.relpath(a.dot, a.srcdir) if a.dot.startswith(a.srcdir + '/') else a.dot
    nodes = code_nodes(text)
    if not nodes:
        print(f"FAIL: {dot}: no node's label starts with a folder ending in '/'")
        return 1
    bad = 0
    named = set()
    for folder, files in nodes:
        name = folder.rstrip('/')
        named.add(name)
        if os.path.isabs(folder) or '..' in folder.split('/'):
            print(f'FAIL: {dot}: folder {folder} is not inside the tree')
            bad += 1
            continue
        if not os.path.isdir(os.path.join(a.srcdir, name)):
            print(f'FAIL: {dot}: names folder {folder}, which is not in the tree')
            bad += 1
            continue
        for f in files:
            path = f if '/' in f else os.path.join(name, f)
            if not os.path.isfile(os.path.join(a.srcdir, path)):
                print(f'FAIL: {dot}: node {folder} names {f}, which is not in the tree '
                      f'({path})')
                bad += 1
    order = layers(a.order)
    for layer in order:
        if layer not in named:
            print(f'FAIL: {dot}: layer {layer}/ of {os.path.basename(a.order)} is in no node')
            bad += 1
    said = ''
    if a.page:
        found = section(a.page, a.section)
        page = os.path.basename(a.page)
        where = f" '## {a.section}'" if a.section else ''
        if found is None:
            print(f"FAIL: {page} has no section '## {a.section}'")
            bad += 1
            found = (1, [])
        roots = {layer.split('/', 1)[0] for layer in order} | {'doc', 'tests'}
        paths = page_paths(*found, roots)
        for n, p in paths:
            if not os.path.exists(os.path.join(a.srcdir, p)):
                print(f"FAIL: {page}:{n}:{where} names {p}, which is not in the tree")
                bad += 1
        said = f'; {len(paths)} paths of {page} too'
    if bad:
        print(f'{bad} finding(s): the picture and the tree differ')
        return 1
    nfiles = sum(len(f) for _, f in nodes)
    print(f'ok: {len(nodes)} nodes name {len(named)} folders and {nfiles} files, '
          f'all in the tree; all {len(order)} layers drawn{said}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
