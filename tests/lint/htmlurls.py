#!/usr/bin/env python3
# htmlurls.py - fail when an HTML page names anything outside itself: a URL scheme
# (http:, https:, file:, ftp:, ws:, javascript:...), a protocol-relative //host, an
# attribute that loads or links (src=, href=, srcset=, action=...) to anything but a
# #fragment or data:, a CSS url() or @import of the same. report --html pages must open
# air-gapped from a file. Usage: htmlurls.py PAGE...; prints each finding, exit 1 if any.
import re
import sys

RULES = [
    ('a URL scheme', re.compile(r'(?i)\b(?:https?|ftps?|file|wss?|javascript|blob|mailto):')),
    ('a protocol-relative //', re.compile(r'''(?:^|[\s"'(=:,])//''', re.M)),
    ('an attribute that loads or links outside the page',
     re.compile(r'''(?i)(?<![\w-])(?:src|href|xlink:href|srcset|action|formaction|poster|background|data|manifest|ping|cite|longdesc)\s*=\s*(?!\s*["']?\s*(?:#|data:))''')),
    ('a CSS url() outside the page', re.compile(r'''(?i)url\(\s*(?!["']?\s*(?:#|data:))''')),
    ('a CSS @import', re.compile(r'(?i)@import')),
]


def check(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    bad = 0
    for name, rule in RULES:
        for m in rule.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            ctx = text[max(0, m.start() - 30):m.end() + 30].replace('\n', ' ')
            print(f'FAIL: {path}:{line}: {name}: ...{ctx}...')
            bad += 1
    return bad


def main():
    if len(sys.argv) < 2:
        print('usage: htmlurls.py PAGE...')
        return 2
    bad = sum(check(p) for p in sys.argv[1:])
    if bad:
        print(f'{bad} reference(s) outside the page')
        return 1
    print(f'ok: {len(sys.argv) - 1} page(s) name nothing outside themselves')
    return 0


sys.exit(main())
