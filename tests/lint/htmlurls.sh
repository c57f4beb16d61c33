#!/bin/bash
# htmlurls.sh - every page report --html makes of the checked-in recordings names nothing
# outside itself (tests/lint/htmlurls.py: no URL scheme, no //host, no src=/href= but
# #fragments and data:), so it opens air-gapped from a file; and neither do the script and
# style every page embeds. Needs no root: reports only read files.
# Usage: htmlurls.sh [PAGE...]  (default: a page of each checked-in recording)
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
IOTAP=${IOTAP:-$PWD/iotap}
if [ $# -eq 0 ]; then
	T=$(mktemp -d /tmp/iotap-htmlurls.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	for r in "$SRC"/tests/golden/*.iotap "$SRC"/tests/data/recordings/*.iotap; do
		out=$T/$(basename "$r").html
		if ! "$IOTAP" report -i "$r" --symfs "$SRC/tests/golden/sysroot" --html "$out"; then
			echo "FAIL: iotap report -i $r --html failed"
			exit 1
		fi
		set -- "$@" "$out"
	done
	set -- "$@" "$SRC/src/output/html.js" "$SRC/src/output/html.css"
fi
# Not exec: the EXIT trap must still remove the pages.
python3 "$SRC/tests/lint/htmlurls.py" "$@"
