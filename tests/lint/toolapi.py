#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# toolapi.py - fail when a tool sees the session: a file of src/tools/ that includes
# session.h, itself or through the headers it includes, or that names the session (ctx->sess,
# struct session or one of its structs) in its code. What a tool needs of the session is a
# named call of the tool API (src/core/iotap.h); a header that names struct session only for
# a pointer declares it (struct session;) and leaves the include to its .c.
#
# '#include "x.h"' is followed as the compiler finds it: beside the including file first,
# then in src/ and the folders of IOTAP_INCLUDES in Makefile.am, in their order. Headers not
# found there (the system's, a library's) are not followed.
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# A tool that reaches into the session: its pointer in the context, or its structs by name.
TOUCH = re.compile(r'->\s*sess\b|\bstruct\s+session\w*')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
TARGET = "session.h"


def include_dirs(srcdir):
    """include_dirs - src/ and the IOTAP_INCLUDES folders of Makefile.am, in order"""
    with open(os.path.join(srcdir, "Makefile.am")) as f:
        text = f.read()
    m = re.search(r'^IOTAP_INCLUDES\s*=((?:.*\\\n)*.*)$', text, re.M)
    if not m:
        sys.exit(f"FAIL: {srcdir}/Makefile.am sets no IOTAP_INCLUDES")
    dirs = ["src"] + re.findall(r'-I\$\(top_srcdir\)/(\S+)', m.group(1))
    return [os.path.join(srcdir, d) for d in dirs]


def resolve(name, including, dirs):
    """resolve - the file '#include "name"' in including finds, or None"""
    for d in [os.path.dirname(including)] + dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def includes(path, dirs, cache):
    """includes - (name as written, file found) for each quoted include of path"""
    if path not in cache:
        with open(path, errors="replace") as f:
            names = INCLUDE.findall(f.read())
        cache[path] = [(n, p) for n in names if (p := resolve(n, path, dirs))]
    return cache[path]


def session_chain(path, dirs, cache):
    """session_chain - the shortest list of headers from path to session.h, or None"""
    seen = {path: None}
    queue = [path]
    while queue:
        cur = queue.pop(0)
        for name, found in includes(cur, dirs, cache):
            if found in seen:
                continue
            seen[found] = (cur, name)
            if os.path.basename(found) == TARGET:
                chain = []
                at = cur
                while seen[at]:
                    at, name_at = seen[at][0], seen[at][1]
                    chain.append(name_at)
                return chain[::-1]
            queue.append(found)
    return None


def touches(path):
    """touches - (line, text) of each place path's code names the session"""
    with open(path, errors="replace") as f:
        text = f.read()
    # Comments blanked, their newlines kept, so that line numbers stay right.
    code = COMMENT.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    return [(code.count("\n", 0, m.start()) + 1, m.group(0)) for m in TOUCH.finditer(code)]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--srcdir", required=True)
    args = ap.parse_args()
    srcdir = os.path.abspath(args.srcdir)
    dirs = include_dirs(srcdir)
    tools = os.path.join(srcdir, "src", "tools")
    files = sorted(f for f in os.listdir(tools) if f.endswith((".c", ".h")))
    if not files:
        sys.exit(f"FAIL: no sources in {tools}")
    cache = {}
    bad = 0
    for f in files:
        path = os.path.join(tools, f)
        rel = os.path.relpath(path, srcdir)
        chain = session_chain(path, dirs, cache)
        if chain is not None:
            how = f"through {' -> '.join(chain)}" if chain else "directly"
            print(f"FAIL: {rel} includes {TARGET} ({how})")
            bad += 1
        for line, what in touches(path):
            print(f"FAIL: {rel}:{line} touches the session ({what}): ask the tool API")
            bad += 1
    if bad:
        print(f"{bad} place(s) in src/tools/ see the session")
        return 1
    print(f"ok: {len(files)} files of src/tools/ see the session only through the tool API")
    return 0


if __name__ == "__main__":
    sys.exit(main())
