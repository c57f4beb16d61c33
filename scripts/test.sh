#!/bin/bash
# The test suite: install what is missing, build with -Werror, run every test
# (make check: cmocka units, golden outputs, lint, formats; make check-live: live tests as
# root; make check-vm: VM tests on Debian kernels when qemu can run).
# Usage: scripts/test.sh [--asan]   --asan: build and run under -fsanitize=address,undefined
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" test
dir=$top/build
cfg=()
if [ "${1:-}" = --asan ]; then
	dir=$top/build-asan
	cfg=(CC=clang "CFLAGS=-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all")
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
	export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
fi
"$top/scripts/build.sh" "$dir" "${cfg[@]}" >/dev/null
cd "$dir"
if [ "${1:-}" = --asan ]; then
	# The workloads are not under test: build them plain (first, so the sanitizer flags
	# never reach them) so that their stacks are real and the static one links.
	rm -f tests/progs/*.o $(make -s print-test-progs)
	make -j"$(nproc)" CFLAGS="-O2 -g" $(make -s print-test-progs) >/dev/null
fi
# Build in parallel, test serially: live tests share the kernel's tracing state
# and assert exact counts, so they must not load the machine for each other. The VM tests
# trace kernels of their own, each in a qemu that uses one CPU and 1 GiB (systemd-vm boots
# two): one per CPU at a time, as many as 2 GiB each of the memory available allows.
make -j"$(nproc)" check TESTS= >/dev/null
vm_jobs=$("$top/scripts/jobs.sh" 2)
# Each test runs once: a failure is a defect to find, in the product or the test.
# check: units, golden, lint, formats; check-live: this kernel; check-vm: Debian's in qemu.
if ! { make check && make check-live && make -j"$vm_jobs" check-vm; }; then
	for t in $(grep -l '^:test-result: \(FAIL\|ERROR\)' $(find tests -name '*.trs')); do
		echo "=== ${t%.trs}.log"
		tail -50 "${t%.trs}.log"
	done
	exit 1
fi
