#!/bin/bash
# toolapi-selftest.sh - the tool API check fails on what it must catch: a tool file that
# includes session.h, directly or through the headers of a lower layer (named in the
# message), or that reaches into ctx->sess or struct session; and passes a tool that only
# calls the API, a header that declares struct session for a pointer, and the real tree.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK="python3 $SRC/tests/lint/toolapi.py"
T=$(mktemp -d /tmp/iotap-toolapi.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# A tree: the core's session.h and iotap.h, a recorder header that declares the session
# for a pointer, and a tool that includes it and calls the API.
mkdir -p "$T/tree/src/core" "$T/tree/src/recorder" "$T/tree/src/tools"
printf 'IOTAP_INCLUDES = -I$(top_srcdir)/src/core \\\n\t-I$(top_srcdir)/src/recorder\n\nX = 1\n' \
	>"$T/tree/Makefile.am"
printf 'struct session { int opts; };\n' >"$T/tree/src/core/session.h"
printf 'struct iotap_ctx { struct session *sess; };\nint iotap_x(struct iotap_ctx *ctx);\n' \
	>"$T/tree/src/core/iotap.h"
printf '#include "iotap.h"\nstruct session;\nint fs_add(struct session *s);\n' \
	>"$T/tree/src/recorder/fs.h"
printf '#include "fs.h"\n' >"$T/tree/src/recorder/svc.h"
printf '#include <stdio.h>\n#include "svc.h"\n/* not ctx->sess: struct session stays hidden */\nint t(struct iotap_ctx *ctx) { return iotap_x(ctx); }\n' \
	>"$T/tree/src/tools/tool.c"
expect 0 '^ok: 1 files' "a tool that calls the API passes" $CHECK --srcdir "$T/tree"

cp -r "$T/tree" "$T/through"
printf '#include "iotap.h"\n#include "session.h"\nint fs_add(struct session *s);\n' \
	>"$T/through/src/recorder/fs.h"
expect 1 '^FAIL: src/tools/tool.c includes session.h (through svc.h -> fs.h)$' \
	"session.h through a lower layer's headers fails, naming them" $CHECK --srcdir "$T/through"

cp -r "$T/tree" "$T/direct"
printf '#include "session.h"\n' >"$T/direct/src/tools/tool.h"
expect 1 '^FAIL: src/tools/tool.h includes session.h (directly)$' \
	"a tool header including session.h fails" $CHECK --srcdir "$T/direct"

cp -r "$T/tree" "$T/touch"
printf '#include "svc.h"\nint u(struct iotap_ctx *ctx) { return ctx->sess->opts; }\n' \
	>"$T/touch/src/tools/u.c"
expect 1 '^FAIL: src/tools/u.c:2 touches the session (->sess)' \
	"a tool reading ctx->sess fails" $CHECK --srcdir "$T/touch"
printf '#include <stddef.h>\nsize_t o = offsetof(struct session_opts, input);\n' \
	>"$T/touch/src/tools/u.c"
expect 1 '^FAIL: src/tools/u.c:2 touches the session (struct session_opts)' \
	"a tool naming a session struct fails" $CHECK --srcdir "$T/touch"

# The real tree passes, and fails with the old include of the flight recorder's header put back.
expect 0 '^ok:' "the real tree passes" $CHECK --srcdir "$SRC"
mkdir -p "$T/real"
cp -r "$SRC/Makefile.am" "$SRC/src" "$T/real/"
sed -i 's|^#include "record-params.h"$|&\n#include "session.h"|' "$T/real/src/recorder/flightsvc.h"
expect 1 '^FAIL: src/tools/exporter-flight.c includes session.h (through flightsvc.h)$' \
	"the real tree with flightsvc.h including session.h fails" $CHECK --srcdir "$T/real"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the tool API check fails on tools that see the session"
