#!/bin/bash
# run.sh - build the fuzzers with clang (libFuzzer, ASan, UBSan) from the sources and run each
# for a bounded time. Every tests/fuzz/fuzz_NAME.c is a harness, linked against the whole core
# (compiled once), with its seeds in tests/fuzz/corpus-NAME and what longer runs grew
# (bench/fuzz --save) in tests/fuzz/grown-NAME, when there are such folders:
#   fuzz_recfile  the recording container (src/recfile/container-*.c, inflate.c)
#   fuzz_report   the whole report path: open from memory, replay, then one of biolatency,
#                 iostack -K -f, biosnoop --cgroup, fileio, iostackbreakdown, --info
#   fuzz_stream   the records after a fixed recording head (a session opened once per head,
#                 session_reset for every input), replayed into one of eighteen tool runs
#                 (biolatency to fileio, iostack, --info)
#   fuzz_perfdata the perf.data reader (src/sources/perfdata-read.c) and its source (source-perfdata.c)
#                 under biolatency and iostack
#   fuzz_tracedat the trace.dat source (src/sources/source-tracedat.c, libtracecmd) under
#                 biolatency -D, biosnoop or --info (one an input)
#   fuzz_trigger  the flight recorder's --trigger expressions (src/recorder/trigger.c)
#   fuzz_http     the exporter's request handling (src/output/httpd.c) behind libmicrohttpd
#   fuzz_webconfig the exporter's --web.config.file: YAML (src/output/webconfig.c), users (webauth.c)
# FUZZ_ONLY="a b" runs only those harnesses (names without fuzz_).
# Environment: FUZZ_SECONDS per fuzzer (default 60), FUZZ_JOBS fuzzers at a time (default: the
# CPUs, fewer when memory is short), BUILDDIR holding config.h (default: the source tree),
# FUZZ_OUT for binaries, grown corpora and crash files (default: a temporary directory, removed
# unless something failed), CLANG (default clang), ASAN_OPTIONS (default
# quarantine_size_mb=16). FUZZ_OUT/fuzz_NAME.cpu_ms: the CPU time each harness used.
# Exit status: 0 when every fuzzer ran its time without a finding.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILDDIR=${BUILDDIR:-$TOP}
SECS=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
OUT=${FUZZ_OUT:-}
KEEP=1
if [[ -z $OUT ]]; then OUT=$(mktemp -d /tmp/iotap-fuzz.XXXXXX); KEEP=0; fi
mkdir -p "$OUT"

die() { echo "fuzz/run.sh: $*" >&2; exit 2; }
command -v "$CLANG" >/dev/null || die "no $CLANG (apt-get install clang)"
[[ -f $BUILDDIR/config.h ]] || die "no config.h in $BUILDDIR: run ./configure (or set BUILDDIR)"
# FUZZ_JOBS harnesses at a time (default: one per CPU, as many as 2 GiB each of the memory
# available allows, their -rss_limit_mb): each libFuzzer process uses one CPU, and each still
# runs its full FUZZ_SECONDS. Their reports are printed in harness order.
JOBS=${FUZZ_JOBS:-$("$TOP/scripts/jobs.sh" 2)}
((JOBS >= 1)) || die "FUZZ_JOBS must be 1 or more"

PKGS="libtracecmd libtraceevent libtracefs libdw libelf zlib libmicrohttpd yaml-0.1 libxcrypt gnutls"
# The libraries of what configure built in, whose code the core's first branches hold: the
# profile's encoder (protobuf-c, its generated code in BUILDDIR) and the OTF2 writer.
for p in libprotobuf-c otf2; do
	pkg-config --exists "$p" && PKGS="$PKGS $p"
done
# shellcheck disable=SC2207 # pkg-config output is whitespace-separated flags
SANITIZE=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-fno-omit-frame-pointer)
# iotap_includes - the layer folders' -I flags, in layer order, as Makefile.am lists them
iotap_includes() {
	awk '/^IOTAP_INCLUDES *=/ { on = 1 }
	     on { for (i = 1; i <= NF; i++) if ($i ~ /^-I/) { sub(/\$\(top_srcdir\)/, ENVIRON["TOP"], $i); print $i }
	          if ($NF != "\\") exit }' "$TOP/Makefile.am"
}
export TOP
# shellcheck disable=SC2207 # one flag per line
CFLAGS=("${SANITIZE[@]}" -include "$BUILDDIR/config.h" -I"$BUILDDIR" -I"$TOP/src"
	$(iotap_includes)
	-DIOTAP_FUZZ_DATA=\"$TOP/tests/data\"
	$(pkg-config --cflags $PKGS))
# shellcheck disable=SC2207
LIBS=($(pkg-config --libs $PKGS))

# lib_sources - the .c files of libiotap, as Makefile.am lists them: its list, and what an
# automake conditional adds in its first branch (everything built in, libtracecmd's
# trace.dat source too: the harnesses link it), not what its else branch adds instead
lib_sources() {
	[ -e "$BUILDDIR/pprof.pb-c.c" ] && echo "$BUILDDIR/pprof.pb-c.c"
	awk '/^if / { depth++; skip[depth] = 0; next }
	     /^else/ { skip[depth] = 1; next }
	     /^endif/ { depth--; next }
	     /^libiotap_a_SOURCES *\+?=/ { on = 1; for (d = 1; d <= depth; d++) if (skip[d]) on = 0 }
	     on { for (i = 1; i <= NF; i++) if ($i ~ /\.c$/) print ENVIRON["TOP"] "/" $i
	          if ($NF != "\\") on = 0 }' "$TOP/Makefile.am"
}

# unpack_seeds DIR OUTDIR - each recording also as the section list fuzz_report packs itself
unpack_seeds() {
	python3 - "$1" "$2" <<'PY'
import os, struct, sys, zlib
src, dst = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    d = open(os.path.join(src, name), 'rb').read()
    off, out = 20, bytearray()
    while off + 24 <= len(d):
        _, t, raw, clen = struct.unpack_from('<4sIII', d, off)
        if t:
            out += struct.pack('<II', t, raw) + zlib.decompress(d[off + 24:off + 24 + clen])
        off += 24 + clen
    open(os.path.join(dst, name + '.sections'), 'wb').write(out)
PY
}

# cpu_children - CPU_MS: milliseconds of CPU (user + system) the shell's finished children used
# (a file of this shell's own: harnesses run side by side, each in a subshell)
cpu_children() {
	local f=$OUT/times.$BASHPID	# this shell's PID: not the $() below's
	times >"$f"	# a builtin in a pipe or $() would report a subshell's
	CPU_MS=$(awk 'NR == 2 { t = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60000 + a[2] * 1000 }
		printf "%d\n", t }' "$f")
	rm -f "$f"
}

# The core once, as objects: every harness links all of it.
mkdir -p "$OUT/obj"
# An object is kept while it is newer than its source (a FUZZ_OUT used again), and no header
# changed since the last build: a struct that grew would otherwise differ between objects.
if [[ -e $OUT/obj/built ]] && [[ -n $(find "$TOP/src" "$TOP/parsers" "$TOP/kernel" "$BUILDDIR/config.h" \
	-name '*.h' -newer "$OUT/obj/built" -print -quit) ]]; then
	rm -f "$OUT"/obj/*.o
fi
echo "== building the core"
# shellcheck disable=SC2046 # one argument per source file
printf '%s\n' $(lib_sources) | xargs -P "$(nproc)" -I{} sh -c \
	'o="$0/obj/$(echo "{}" | tr / _).o"; [ "$o" -nt "{}" ] || exec "$@" -c -o "$o" "{}"' \
	"$OUT" "$CLANG" "${CFLAGS[@]}"
touch "$OUT/obj/built"
HARNESSES=()
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	f=${src##*/fuzz_}
	f=${f%.c}
	if [[ -n ${FUZZ_ONLY:-} && " $FUZZ_ONLY " != *" $f "* ]]; then continue; fi
	echo "== building fuzz_$f"
	# A harness's own link flags: a " * FUZZ_LDFLAGS: ..." line in its comment.
	# shellcheck disable=SC2207
	ldflags=($(sed -n 's/^ \* FUZZ_LDFLAGS: //p' "$src"))
	"$CLANG" "${CFLAGS[@]}" -o "$OUT/fuzz_$f" "$src" "$OUT"/obj/*.o "${LIBS[@]}" "${ldflags[@]}"
	HARNESSES+=("$f")
done

# ASan keeps 256 MB of freed memory unused by default, so every input runs in fresh pages
# (page faults, then munmap's TLB flushes): 16 MB still spans many inputs' frees and made
# fuzz_stream twice as fast.
ASAN_OPTS=${ASAN_OPTIONS:-quarantine_size_mb=16}

# harness_timeout NAME - seconds one input may take: 10, or a " * FUZZ_TIMEOUT: N" line of
# the harness's comment, for one whose inputs are slow under ASan for a reason it states
harness_timeout() {
	local t
	t=$(sed -n 's/^ \* FUZZ_TIMEOUT: //p' "$TOP/tests/fuzz/fuzz_$1.c")
	echo "${t:-10}"
}
# fuzz_one NAME - run one harness its time; its lines of the report in $OUT/fuzz_NAME.report,
# 0 when it ran without a finding. Run in a subshell of its own, so that `times` counts its
# fuzzer alone while others run beside it.
fuzz_one() {
	local f=$1 corpus=$OUT/corpus-$1 seeds=() status=0 cpu0 cpu execs cov
	mkdir -p "$corpus"
	# corpus-NAME: the seeds; grown-NAME: what longer runs found (bench/fuzz --save).
	for d in "$TOP/tests/fuzz/corpus-$f" "$TOP/tests/fuzz/grown-$f"; do
		if [[ -d $d ]]; then seeds+=("$d"); fi
	done
	if [[ $f == report ]]; then
		unpack_seeds "$TOP/tests/fuzz/corpus-report" "$corpus" || { echo "fuzz_$f: cannot unpack its seeds"; return 1; }
	fi
	cpu_children
	cpu0=$CPU_MS
	# New inputs go to the first corpus directory; the committed seeds stay as they are.
	LSAN_OPTIONS=suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0 ASAN_OPTIONS=$ASAN_OPTS \
		"$OUT/fuzz_$f" -max_total_time="$SECS" -timeout="$(harness_timeout "$f")" -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$OUT/$f-" \
		"$corpus" "${seeds[@]}" >"$OUT/fuzz_$f.log" 2>&1 || status=$?
	# The CPU it used: on a shared machine inputs per CPU-second compare better than per second.
	cpu_children
	cpu=$((CPU_MS - cpu0))
	echo "$cpu" >"$OUT/fuzz_$f.cpu_ms"
	# A child the code under test forks (the trace.dat source's guard) that a sanitizer
	# ends writes its input there too, and the harness goes on: that is a finding as well.
	if ((!status)) && compgen -G "$OUT/$f-*" >/dev/null; then
		status=1
		echo "a child process of fuzz_$f failed: $(cd "$OUT" && echo "$f"-*)"
	fi
	if ((status)); then
		echo "fuzz_$f FAILED; its log and the input are in $OUT:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$OUT/fuzz_$f.log" || \
			tail -20 "$OUT/fuzz_$f.log"
		return 1
	fi
	# The harness's own stats come last: a forked child that a sanitizer ends prints some first.
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz_$f.log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$OUT/fuzz_$f.log" | tail -1)
	echo "fuzz_$f: ${execs:-?} inputs in ${SECS}s ($(( ${execs:-0} / SECS ))/s," \
		"$(( ${execs:-0} * 1000 / (cpu ? cpu : 1) )) per CPU-second), $cov"
}

running=0
for f in "${HARNESSES[@]}"; do
	if ((running >= JOBS)); then
		wait -n || true
		running=$((running - 1))
	fi
	echo "== fuzz_$f for ${SECS}s"
	( st=0; fuzz_one "$f" >"$OUT/fuzz_$f.report" 2>&1 || st=$?; echo $st >"$OUT/fuzz_$f.status" ) &
	running=$((running + 1))
done
wait
rc=0
for f in "${HARNESSES[@]}"; do
	cat "$OUT/fuzz_$f.report"
	[[ $(cat "$OUT/fuzz_$f.status" 2>/dev/null) == 0 ]] || { rc=1; KEEP=1; }
done
if ((KEEP)); then echo "kept $OUT"; else rm -rf "$OUT"; fi
exit $rc
