#!/bin/bash
# systemd-verify.sh - systemd-analyze verify passes on every unit in systemd/, with its
# ExecStart pointed at the iotap just built and its man page found in the build tree.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
IOTAP=${IOTAP:-$(pwd)/iotap}
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze (package systemd)"; exit 77; }
[ -x "$IOTAP" ] || { echo "FAIL: no iotap at $IOTAP"; exit 1; }
tmp=$(mktemp -d /tmp/iotap-units.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/man/man8" "$tmp/man/man5"
cp "$(dirname "$IOTAP")"/doc/*.8 "$SRC"/doc/*.8 "$tmp/man/man8/" 2>/dev/null
cp "$SRC"/doc/*.5 "$tmp/man/man5/" 2>/dev/null
n=0
for u in "$SRC"/systemd/*.service; do
	[ -e "$u" ] || continue
	grep -q '^ExecStart=/usr/bin/iotap ' "$u" || { echo "FAIL: $u: ExecStart is not /usr/bin/iotap"; exit 1; }
	sed "s|^ExecStart=/usr/bin/iotap |ExecStart=$IOTAP |" "$u" >"$tmp/$(basename "$u")"
	if ! out=$(MANPATH=$tmp/man systemd-analyze verify "$tmp/$(basename "$u")" 2>&1) || [ -n "$out" ]; then
		echo "FAIL: systemd-analyze verify $(basename "$u"):"
		echo "$out"
		exit 1
	fi
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "FAIL: no unit in $SRC/systemd"; exit 1; }
echo "ok: systemd-analyze verify passes on $n unit(s)"
