#!/usr/bin/env python3
# shrink-tracedat.py IN OUT [PAGES] - a small seed from a trace.dat of file version 6 written by
# trace-cmd record --file-version 6: the same headers and formats, no kallsyms or printk
# formats, and each CPU's first PAGES (default 1) pages of events.
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
pages = int(sys.argv[3]) if len(sys.argv) > 3 else 1
d = open(src, 'rb').read()
assert d[:10] == b'\x17\x08\x44tracing' and d[10:12] == b'6\0', 'not a version 6 trace.dat'
page = struct.unpack_from('<I', d, 14)[0]
out = bytearray(d[:18])
at = 18


def take(n):
    global at
    b = d[at:at + n]
    at += n
    return b


def sized(fmt):
    n = struct.unpack_from(fmt, d, at)[0]
    return take(struct.calcsize(fmt) + n)


for name in (b'header_page\0', b'header_event\0'):
    out += take(len(name))
    out += sized('<Q')
nr = struct.unpack_from('<I', d, at)[0]
out += take(4)
for _ in range(nr):
    out += sized('<Q')
nsys = struct.unpack_from('<I', d, at)[0]
out += take(4)
for _ in range(nsys):
    end = d.index(b'\0', at) + 1
    out += take(end - at)
    nr = struct.unpack_from('<I', d, at)[0]
    out += take(4)
    for _ in range(nr):
        out += sized('<Q')
for _ in range(2):          # kallsyms, printk formats: left empty
    sized('<I')
    out += struct.pack('<I', 0)
out += sized('<Q')          # saved cmdlines
cpus = struct.unpack_from('<I', d, at)[0]
out += take(4)
assert d[at:at + 10] == b'options  \0'
out += take(10)
while True:
    oid, size = struct.unpack_from('<HI', d, at)
    if oid == 0:
        out += take(2)
        break
    out += take(6 + size)
assert d[at:at + 10] == b'flyrecord\0'
out += take(10)
cpu = [struct.unpack_from('<QQ', d, at + 16 * i) for i in range(cpus)]
table = len(out)
out += bytes(16 * cpus)
for i, (off, size) in enumerate(cpu):
    keep = min(size, pages * page)
    out += bytes(-len(out) % page)
    struct.pack_into('<QQ', out, table + 16 * i, len(out), keep)
    out += d[off:off + keep]
open(dst, 'wb').write(out)
