#!/bin/bash
# guards-selftest.sh - the guard check fails on a guard named for another file (the stale
# name a renamed header keeps), on a #define that differs from its #ifndef and on a header
# without a guard, and passes guards named for their files, '-' becoming '_'.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(bash "$SRC/tests/lint/guards.sh")
T=$(mktemp -d /tmp/iotap-guards.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# guard FILE NAME [DEFINE] - a header guarded by NAME (#define DEFINE, default NAME)
guard() {
	printf '/* SPDX */\n#ifndef %s\n#define %s\nint x;\n#endif\n' "$2" "${3:-$2}" >"$1"
}

mkdir -p "$T/good" "$T/stale" "$T/define" "$T/none"
guard "$T/good/container.h" IOTAP_CONTAINER_H
guard "$T/good/container-local.h" IOTAP_CONTAINER_LOCAL_H
expect 0 '^ok: 2 headers' "guards named for their files pass" "${CHECK[@]}" "$T/good"
cp "$T/good/"*.h "$T/stale/"
guard "$T/stale/container.h" IOTAP_RECFILE_H
expect 1 "container.h: guard 'IOTAP_RECFILE_H IOTAP_RECFILE_H', want IOTAP_CONTAINER_H" \
	"a guard named for another file fails" "${CHECK[@]}" "$T/stale"
guard "$T/define/sections.h" IOTAP_SECTIONS_H IOTAP_SECTION_H
expect 1 "sections.h: guard 'IOTAP_SECTIONS_H IOTAP_SECTION_H'" \
	"a #define that is not its #ifndef fails" "${CHECK[@]}" "$T/define"
printf '#pragma once\nint x;\n' >"$T/none/prefetch.h"
expect 1 "prefetch.h: guard '(none)', want IOTAP_PREFETCH_H" "a header without a guard fails" \
	"${CHECK[@]}" "$T/none"
expect 0 '^ok:' "the real tree passes" "${CHECK[@]}"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the guard check fails on guards not named for their files"
