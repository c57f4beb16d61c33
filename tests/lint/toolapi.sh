#!/bin/bash
# toolapi.sh - fail when a file of src/tools/ sees the session: includes session.h, itself
# or through a header it includes, or names ctx->sess or struct session (tests/lint/toolapi.py).
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
exec python3 "$SRC/tests/lint/toolapi.py" --srcdir "$SRC"
