#!/usr/bin/env python3
"""funclen.py - fail when a C function definition is longer than the limit.

A definition is read in this tree's kernel style: its '{' alone at column 0, after a
header whose name line starts at column 0 (its return type on the line before it, or
before the name on that line; parameters continued on indented lines), and closed by the
first '}' at column 0. It is counted from its first header line to that '}', both in.
What this reader cannot place (a '{' at column 0 after no ')' or before the last one
closed, a definition never closed) fails too: a rule it cannot read is no rule.

Usage: funclen.py [--max N] PATH...  (files, or folders searched for *.c and *.h)
"""
import argparse
import os
import re
import sys

NAME = re.compile(r'([A-Za-z_]\w*)\s*\(')


def sources(paths):
    """sources - the .c and .h files under PATHS (a file is taken as named), sorted"""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for d, dirs, files in os.walk(p):
                dirs.sort()
                out += [os.path.join(d, f) for f in sorted(files) if f.endswith(('.c', '.h'))]
        else:
            out.append(p)
    return out


def strip_attributes(text):
    """strip_attributes - TEXT without its __attribute__((...)) parts (their parentheses balanced)"""
    while True:
        at = text.find('__attribute__')
        if at < 0:
            return text
        i = text.find('(', at)
        if i < 0:
            return text[:at]
        depth = 0
        for j in range(i, len(text)):
            depth += {'(': 1, ')': -1}.get(text[j], 0)
            if depth == 0:
                break
        text = text[:at] + text[j + 1:]


def is_type_line(line):
    """is_type_line - whether LINE can be a return type alone above a name at column 0"""
    s = line.rstrip()
    if not s or s[0] in ' \t#/*' or s.startswith('}'):
        return False
    return not s.endswith((';', '{', '}', '*/', '\\', ','))


def header_start(lines, brace):
    """header_start - index of the first line of the header before the '{' at BRACE, or None"""
    i = brace - 1
    while i >= 0 and lines[i][:1] in (' ', '\t'):
        i -= 1
    if i < 0 or not lines[i].strip():
        return None
    if re.match(r'[A-Za-z_]\w*\s*\(', lines[i]) and i > 0 and is_type_line(lines[i - 1]):
        i -= 1
    return i


def definitions(path, lines):
    """definitions - (first line, name, length) of each definition in LINES, and the errors"""
    defs, errors = [], []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != '{':
            i += 1
            continue
        start = header_start(lines, i)
        header = ' '.join(l.strip() for l in lines[start:i]) if start is not None else ''
        m = NAME.search(strip_attributes(header))
        if start is None or not header.endswith(')') or not m:
            errors.append(f'{path}:{i + 1}: a {{ at column 0 after no function header')
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith(('}', '{')):
            end += 1
        if end == len(lines) or lines[end].startswith('{'):
            errors.append(f'{path}:{start + 1}: {m.group(1)} is not closed by a }} at column 0')
            i = end
            continue
        defs.append((start + 1, m.group(1), end - start + 1))
        i = end + 1
    return defs, errors


def main():
    """main - check every definition under the paths named; exit 1 on any too long"""
    ap = argparse.ArgumentParser()
    ap.add_argument('--max', type=int, default=150)
    ap.add_argument('--root', help='paths are printed relative to this folder')
    ap.add_argument('paths', nargs='+')
    args = ap.parse_args()
    files = sources(args.paths)
    bad = total = 0
    for f in files:
        name = os.path.relpath(f, args.root) if args.root else f
        with open(f, encoding='utf-8', errors='replace') as fh:
            lines = fh.read().split('\n')
        defs, errors = definitions(name, lines)
        for e in errors:
            print(f'FAIL: {e}')
        bad += len(errors)
        for line, func, n in defs:
            if n > args.max:
                print(f'FAIL: {name}:{line}: {func} is {n} lines (at most {args.max})')
                bad += 1
        total += len(defs)
    if not total:
        print(f'FAIL: no function definitions found under {" ".join(args.paths)}')
        return 1
    if bad:
        print(f'{bad} of {total} functions are too long or cannot be read')
        return 1
    print(f'ok: {total} functions in {len(files)} files, none over {args.max} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
