#!/usr/bin/env python3
# readme.py - fail when the README or a page of doc/ sends its reader nowhere: a relative
# link (or image) whose file is not in the tree, or whose #anchor names no heading of the
# Markdown page it points at (GitHub's anchors: the heading's text in lower case, spaces
# as '-', punctuation dropped, '-1', '-2' for repeats); a doc/*.md the README does not
# link to, or that Makefile.am does not distribute; and a README whose set-up section is
# not on its first screen, or quotes a command that is no executable script of the tree.
# Links in code (fenced, indented or `spans`) are text, not links. A link that leaves the
# tree (../ past its top) fails: it cannot resolve in a distributed tarball.
# The README's links are read from the top of the tree wherever the file is.
# Usage: readme.py --srcdir DIR [--readme FILE] [--makefile FILE] [--first-screen LINES]
import argparse
import glob
import os
import re
import sys
import unicodedata

FENCE = re.compile(r'^ {0,3}(```+|~~~+)')
ATX = re.compile(r'^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
CODESPAN = re.compile(r'(`+)(.+?)(?<!`)\1(?!`)', re.S)
LINK = re.compile(r'!?\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]*)'
                  r'(?:\s+(?:"[^"\n]*"|\'[^\'\n]*\'))?\s*\)')
REFDEF = re.compile(r'^ {0,3}\[([^\]]+)\]:\s*(<[^>\n]*>|\S+)', re.M)
HTMLREF = re.compile(r'\b(?:href|src)\s*=\s*"([^"]*)"')
HTMLID = re.compile(r'<a\b[^>]*\b(?:name|id)\s*=\s*"([^"]+)"', re.I)
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')
SETUP = re.compile(r'^set up\b', re.I)


def prose(text, spans=True):
    """text with its code blanked (fenced and indented blocks; spans too unless not spans),
    line breaks kept"""
    out, fence, prev_blank, in_code = [], None, True, False
    for ln in text.split('\n'):
        m = FENCE.match(ln)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append('')
            continue
        if m:
            fence = m.group(1)
            out.append('')
            continue
        if (prev_blank or in_code) and re.match(r'^(?: {4}|\t)', ln) and ln.strip():
            in_code = True
            out.append('')
            continue
        in_code = in_code and not ln.strip()
        prev_blank = not ln.strip()
        out.append(ln)
    joined = '\n'.join(out)
    if not spans:
        return joined
    return CODESPAN.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), joined)


def slug(title):
    """GitHub's anchor for a heading's text"""
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', title)
    t = re.sub(r'<[^>]+>', '', t)
    t = t.replace('`', '')
    t = re.sub(r'(?<![\w])_(\S(?:.*?\S)?)_(?![\w])', r'\1', t)
    t = ''.join(c for c in t.lower()
                if c in ' -_' or unicodedata.category(c)[0] in 'LNM')
    return t.replace(' ', '-')


def anchors(path):
    """every anchor a Markdown page has: its headings', and <a name/id> ones"""
    with open(path, encoding='utf-8') as f:
        lines = prose(f.read(), spans=False).split('\n')
    seen, out = {}, set()
    for i, ln in enumerate(lines):
        m = ATX.match(ln)
        title = m.group(2) if m else None
        if title is None and i + 1 < len(lines) and ln.strip() and SETEXT.match(lines[i + 1]) \
                and not ATX.match(ln) and (i == 0 or not lines[i - 1].strip()):
            title = ln.strip()
        if title is not None:
            base = slug(title)
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f'{base}-{n}')
        out.update(a for a in HTMLID.findall(ln))
    return out


def links(path):
    """(line number, target) of every link, image and reference of a page outside code"""
    with open(path, encoding='utf-8') as f:
        text = prose(f.read())
    found = []
    for rx in (LINK, REFDEF, HTMLREF):
        for m in rx.finditer(text):
            target = m.group(m.lastindex).strip('<>')
            found.append((text.count('\n', 0, m.start()) + 1, target))
    return sorted(found)


def check_links(src, pages, say, top=False):
    """every relative link of pages resolves (from the top of the tree when top, as for a
    README given from elsewhere); returns (links, with anchors, files linked)"""
    nlinks = nanchors = 0
    linked = set()
    cache = {}
    for page in pages:
        rel = os.path.basename(page) if top else os.path.relpath(page, src)
        here = src if top else os.path.dirname(page)
        for n, target in links(page):
            if not target or SCHEME.match(target) or target.startswith('//'):
                continue
            nlinks += 1
            path, _, frag = target.partition('#')
            dest = os.path.normpath(os.path.join(here, path)) if path else page
            where = f'{rel}:{n}: link {target!r}'
            if os.path.isabs(path) or os.path.relpath(dest, src).startswith('..'):
                say(f'{where} leaves the tree')
                continue
            if not os.path.exists(dest):
                say(f'{where} does not resolve: no {os.path.relpath(dest, src)}')
                continue
            linked.add(os.path.relpath(dest, src))
            if frag and dest.endswith('.md') and os.path.isfile(dest):
                nanchors += 1
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if frag not in cache[dest]:
                    say(f'{where}: {os.path.relpath(dest, src)} has no heading '
                        f'with the anchor #{frag}')
    return nlinks, nanchors, linked


def setup_commands(readme):
    """(first line of the set-up section or None, [(line number, command)])"""
    with open(readme, encoding='utf-8') as f:
        lines = f.read().split('\n')
    start = None
    for i, ln in enumerate(lines):
        m = ATX.match(ln)
        if m and len(m.group(1)) == 2 and SETUP.match(m.group(2)):
            start = i
            break
    if start is None:
        return None, []
    cmds, fence, prev_blank = [], None, True
    for i in range(start + 1, len(lines)):
        ln = lines[i]
        m = ATX.match(ln)
        if not fence and m and len(m.group(1)) <= 2:
            break
        f = FENCE.match(ln)
        if fence:
            if f and f.group(1)[0] == fence[0]:
                fence = None
            elif ln.strip():
                cmds.append((i + 1, ln.strip()))
            continue
        if f:
            fence = f.group(1)
            continue
        if (prev_blank or (cmds and cmds[-1][0] == i)) and re.match(r'^(?: {4}|\t)\S', ln):
            cmds.append((i + 1, ln.strip()))
            continue
        prev_blank = not ln.strip()
    return start + 1, cmds


def check_command(src, cmd):
    """None when cmd runs an executable script of the tree, else why not"""
    cmd = re.sub(r'^[#$]\s+', '', cmd)
    word = cmd.split()[0] if cmd.split() else ''
    if '/' not in word:
        return f'{word!r} is not a path to a script of the tree'
    path = os.path.normpath(os.path.join(src, word))
    if os.path.isabs(word) or os.path.relpath(path, src).startswith('..'):
        return f'{word!r} is not in the tree'
    if not os.path.isfile(path):
        return f'{word!r} is not in the tree'
    if not os.access(path, os.X_OK):
        return f'{word!r} is not executable'
    with open(path, 'rb') as f:
        if f.read(2) != b'#!':
            return f"{word!r} is no script (no '#!' line)"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--srcdir', required=True)
    ap.add_argument('--readme')
    ap.add_argument('--makefile')
    ap.add_argument('--first-screen', type=int, default=40)
    a = ap.parse_args()
    src = os.path.abspath(a.srcdir)
    readme = a.readme or os.path.join(src, 'README.md')
    makefile = a.makefile or os.path.join(src, 'Makefile.am')
    docs = sorted(glob.glob(os.path.join(src, 'doc', '*.md')))
    bad = []
    say = bad.append
    if not os.path.isfile(readme):
        print(f'FAIL: no {readme}')
        return 1
    nlinks, nanchors, _ = check_links(src, docs, say)
    n, m, linked = check_links(src, [readme], say, top=True)
    nlinks += n
    nanchors += m
    for d in docs:
        rel = os.path.relpath(d, src)
        if rel not in linked:
            say(f'README.md links to no {rel}')
    if os.path.isfile(makefile):
        with open(makefile, encoding='utf-8') as f:
            listed = set(re.findall(r'(?<![\w/.-])(doc/[\w.-]+\.md)\b', f.read()))
        for d in docs:
            rel = os.path.relpath(d, src)
            if rel not in listed:
                say(f'{os.path.basename(makefile)} does not distribute {rel} (EXTRA_DIST)')
    first, cmds = setup_commands(readme)
    if first is None:
        say("README.md has no '## Set up' section")
    else:
        if first > a.first_screen:
            say(f"README.md:{first}: '## Set up' is past the first screen "
                f"(line {a.first_screen})")
        if not cmds:
            say(f"README.md:{first}: '## Set up' quotes no command")
        for n, cmd in cmds:
            why = check_command(src, cmd)
            if why:
                say(f"README.md:{n}: set-up command '{cmd}': {why}")
    for b in bad:
        print(f'FAIL: {b}')
    if bad:
        print(f'{len(bad)} finding(s): the README and doc/ send their reader nowhere')
        return 1
    print(f'ok: {nlinks} relative links of README.md and {len(docs)} doc pages resolve '
          f'({nanchors} with an anchor); the {len(cmds)} set-up commands are scripts of the tree')
    return 0


if __name__ == '__main__':
    sys.exit(main())
