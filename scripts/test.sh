#!/bin/bash
# The test suite: install what is missing, build with -Werror, run every test
# (cmocka units, live tests as root, VM tests on Debian kernels when qemu can run).
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
fi
"$top/scripts/build.sh" "$dir" "${cfg[@]}" >/dev/null
cd "$dir"
# Build in parallel, test serially: live tests share the kernel's tracing state
# and assert exact counts, so they must not load the machine for each other.
make -j"$(nproc)" check TESTS= >/dev/null
if [ "${1:-}" = --asan ]; then
	# The workloads are not under test: build them plain so their stacks are real.
	rm -f tests/progs/*.o tests/progs/dio tests/progs/uprobe_target tests/progs/stacky_fp tests/progs/stacky_dwarf
	make -j"$(nproc)" CFLAGS="-O2 -g" \
		tests/progs/dio tests/progs/uprobe_target tests/progs/stacky_fp tests/progs/stacky_dwarf >/dev/null
fi
# failed_tests - the tests whose last run failed
failed_tests() {
	grep -l '^:test-result: \(FAIL\|ERROR\)' $(find tests -name '*.trs') 2>/dev/null |
		sed 's/\.trs$//'
}

# show_failures - the end of each failed test's log
show_failures() {
	for t in $(failed_tests); do echo "=== $t.log"; tail -50 "$t.log"; done
}

if ! make check; then
	failed=$(failed_tests | tr '\n' ' ')
	show_failures
	# A freshly enabled tracepoint sampling event can, rarely, miss an event on a
	# loaded machine (see README, "Known issues"); live and VM tests get one
	# more run, unit tests none. A second failure fails the suite.
	case " $failed" in *tests/unit/*|*no-cmocka*) exit 1 ;; esac
	echo "scripts/test.sh: re-running once, after a first failure of: $failed"
	make check TESTS="$(echo $failed | sed 's/\([^ ]*\)/\1.sh/g; s/\.sh\.sh/.sh/g')" || { show_failures; exit 1; }
	echo "scripts/test.sh: passed on the second run: $failed (first-run failure shown above)"
fi
