#!/usr/bin/env python3
# htmldom.py DOM - what the page shows once its script ran (chromium --dump-dom), as lines
# for a shell test: "disk NAME ios=N reads=N writes=N", "proc COMM DISK reads=N writes=N",
# "head events=N lost=N undelivered=N", "layer TOOL 0|1" (its report shown), "hist ID LO HI N" (a histogram's rows), "lat MS" (the
# slowest requests' latencies, %.2f as biosnoop prints them), "trigger TEXT", "slow N",
# "flame N" (frames in the
# flame graph's frame), "scripts N" (script elements: the page's own one only), "ready 0|1".
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.scripts, self.slow, self.flame = [], 0, 0, 0
        self.ready, self.in_trig, self.trig, self.procs = '0', 0, '', set()
        self.hist = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get('class') or '').split()
        if tag == 'script':
            self.scripts += 1
        if tag == 'body':
            self.ready = a.get('data-ready', '0')
        if tag == 'section' and 'disk' in cls:
            self.out.append('disk %s ios=%s reads=%s writes=%s' % (
                a['data-disk'], a['data-ios'], a['data-reads'], a['data-writes']))
        if tag == 'tr' and 'proc' in cls:
            # Each row is in both tables (by bytes, by time): count it once.
            row = 'proc %s %s pid=%s reads=%s writes=%s bytes=%s' % (
                a['data-comm'], a['data-disk'], a['data-pid'], a['data-reads'],
                a['data-writes'], a['data-bytes'])
            if row not in self.procs:
                self.procs.add(row)
                self.out.append(row)
        if tag == 'div' and 'layer' in cls:
            self.out.append('layer %s %s' % (a['data-tool'], a['data-recorded']))
        if tag == 'div' and 'hist' in cls:
            self.hist = a['data-hist']
        if tag == 'tr' and self.hist and 'data-lo' in a:
            self.out.append('hist %s %s %s %s' % (self.hist, a['data-lo'], a['data-hi'], a['data-n']))
        if tag == 'tr' and 'slow' in cls:
            self.slow += 1
            self.out.append('lat %.2f' % (int(a['data-lat-ns']) / 1e6))
        if tag == 'header':
            self.out.append('head events=%s lost=%s undelivered=%s' % (
                a['data-events'], a['data-lost'], a['data-undelivered']))
        if tag == 'div' and a.get('id') == 'trigger':
            self.in_trig = 1
        elif self.in_trig:
            self.in_trig += 1
        if tag == 'iframe' and 'srcdoc' in a:
            self.flame = len(re.findall(r'<g><title>', a['srcdoc']))

    def handle_endtag(self, tag):
        if tag == 'div' and self.hist and not self.in_trig:
            self.hist = None
        if self.in_trig:
            self.in_trig -= 1

    def handle_data(self, data):
        if self.in_trig:
            self.trig += data


p = Page()
p.feed(open(sys.argv[1], encoding='utf-8').read())
for line in p.out:
    print(line)
if p.trig:
    print('trigger ' + ' '.join(p.trig.split()))
print('slow %d' % p.slow)
print('flame %d' % p.flame)
print('scripts %d' % p.scripts)
print('ready %s' % p.ready)
