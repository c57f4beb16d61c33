#!/usr/bin/env python3
# mkseeds-stream.py - the seeds of fuzz_stream: for each (head, tool) pair of the harness,
# its byte followed by the first records of that head's own recording (whole records, at
# most LIMIT bytes; from a few records before its first born record, 0x10003, when it has
# one), so the fuzzer starts from streams the tools accept.
# Usage: tests/fuzz/mkseeds-stream.py  (from the source tree; rewrites tests/fuzz/corpus-stream)
import os
import re
import struct
import zlib

LIMIT = 6144
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
src = open(os.path.join(TOP, 'tests/fuzz/fuzz_stream.c')).read()
heads = re.findall(r'^\t"(tests/[^"]+\.iotap)",', src, re.M)
pairs = re.findall(r'^\t\{ (\d+), \{ ([^}]*) \} \},', src, re.M)
out = os.path.join(TOP, 'tests/fuzz/corpus-stream')
os.makedirs(out, exist_ok=True)
for name in os.listdir(out):
    os.unlink(os.path.join(out, name))


def records(path):
    d = open(os.path.join(TOP, path), 'rb').read()
    off = 20
    while off + 24 <= len(d):
        _, t, _, clen = struct.unpack_from('<4sIII', d, off)
        if t == 0x53545645:     # EVTS
            raw = zlib.decompress(d[off + 24:off + 24 + clen])[8:]
            at = []     # where each whole record of the chunk starts
            pos = 0
            while pos + 8 <= len(raw):
                size = struct.unpack_from('<H', raw, pos + 6)[0]
                if size < 8 or pos + size > len(raw):
                    break
                at.append(pos)
                pos += size
            born = [i for i, p in enumerate(at) if struct.unpack_from('<I', raw, p)[0] == 0x10003]
            begin = at[max(born[0] - 4, 0)] if born else 0
            end = begin
            for p in at:
                size = struct.unpack_from('<H', raw, p + 6)[0]
                if p >= begin:
                    if p + size - begin > LIMIT:
                        break
                    end = p + size
            return raw[begin:end]
        off += 24 + clen
    raise SystemExit(path + ': no EVTS')


for k, (head, argv) in enumerate(pairs):
    tool = re.sub(r'[^A-Za-z0-9]+', '-', argv.replace('NULL', 'info').replace('"', '')).strip('-')
    open(os.path.join(out, '%02d-%s' % (k, tool)), 'wb').write(
        bytes([k]) + records(heads[int(head)]))
