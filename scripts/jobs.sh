#!/bin/sh
# jobs.sh GIB - how many jobs that each need GIB GiB of memory and one CPU to run at once: one
# per CPU, as many as MemAvailable allows, at least one. scripts/test.sh runs the VM tests so
# (a qemu of 1 GiB, two for systemd-vm) and tests/fuzz/run.sh its fuzzers (-rss_limit_mb=2048).
set -eu
[ $# = 1 ] && [ "$1" -ge 1 ] 2>/dev/null || { echo "usage: jobs.sh GIB (1 or more)" >&2; exit 2; }
awk -v cpus="$(nproc)" -v kib=$(($1 * 1048576)) '$1 == "MemAvailable:" {
	j = int($2 / kib); print (j < 1 ? 1 : j < cpus ? j : cpus); found = 1 }
	END { if (!found) print 1 }' /proc/meminfo
