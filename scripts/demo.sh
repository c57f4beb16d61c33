#!/bin/bash
# The main job: build iotap, then trace a real workload it makes itself on a
# temporary loop device with `iotap biolatency -D`, and clean up.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: run as root (tracing needs it)" >&2; exit 1; }
"$top/scripts/deps.sh" build
iotap=$("$top/scripts/build.sh")
make -s -C "$top/build" tests/progs/dio >/dev/null

work=$(mktemp -d /tmp/iotap-demo.XXXXXX)
loop=""
cleanup() {
	[ -n "${tracer:-}" ] && kill "$tracer" 2>/dev/null || true
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
truncate -s 256M "$work/disk.img"
loop=$(losetup -f --show "$work/disk.img")
disk=$(basename "$loop")
echo "demo: tracing $disk while 5000 direct 4 KiB reads and 500 O_DSYNC writes run on it" >&2

"$iotap" biolatency -D -d "$disk" --percentiles -e >"$work/out" &
tracer=$!
until [ -s "$work/out" ]; do sleep 0.05; done
"$top/build/tests/progs/dio" read "$loop" 5000 4096 rand >/dev/null
"$top/build/tests/progs/dio" dsync "$loop" 500 4096 >/dev/null
sleep 0.3
kill -INT "$tracer"
wait "$tracer"
tracer=""
cat "$work/out"
