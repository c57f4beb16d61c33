#!/bin/bash
# errors.sh - fail on the error shapes the tree left behind (doc/architecture.md: Errors):
# an int function reports an error as -errno, so 'return -1;' is either a sentinel (an index or
# "none", written down as such in errors.allow) or a failure that lost its errno; and a
# pointer function reports one as NULL with errno set, so a 'int *err' parameter beside a
# pointer result is a second channel for the same fact.
# Usage: errors.sh [--allow FILE] [ROOT]  (default: the tree, tests/lint/errors.allow);
# it reads the .c and .h files of ROOT's src/, kernel/ and parsers/.
# errors.allow: '<path> <function>   # why', one per line; a function named there may
# return -1 or take an int *err. A line whose function no longer does is named, to delete.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
ALLOW=$SRC/tests/lint/errors.allow
if [ "${1:-}" = --allow ]; then
	ALLOW=$2
	shift 2
fi
ROOT=${1:-$SRC}
[ -f "$ALLOW" ] || { echo "FAIL: no allow file $ALLOW"; exit 1; }
dirs=()
for d in src kernel parsers; do
	[ -d "$ROOT/$d" ] && dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "FAIL: no src/, kernel/ or parsers/ under $ROOT"; exit 1; }

# Every site as '<path> <function> <line> <shape>': the function is the name before the
# first '(' of the last line that starts a declaration at column 0 (a definition, or a
# prototype, whose parameters may go on over the next lines).
# shellcheck disable=SC2016 # an awk program: its $0 is awk's
sites=$(cd "$ROOT" && find "${dirs[@]}" -name '*.[ch]' -type f -print0 | sort -z |
	xargs -0 -r awk '
		FNR == 1 { fn = "(file scope)" }
		/^[A-Za-z_][^#;]*[A-Za-z0-9_][ \t]*\(/ && !/^(typedef|return|if|for|while|switch)\b/ {
			s = $0
			sub(/[ \t]*\(.*/, "", s)
			n = split(s, w, /[ \t*]+/)
			fn = w[n]
		}
		/(^|[^A-Za-z0-9_])return[ \t]*\(?[ \t]*-1[ \t]*\)?[ \t]*;/ {
			print FILENAME, fn, FNR, "return-1"
		}
		/(^|[(,])[ \t]*int[ \t]*\*[ \t]*err[A-Za-z0-9_]*[ \t]*[,)]/ {
			print FILENAME, fn, FNR, "int-err"
		}')

allowed=$(sed 's/#.*//' "$ALLOW" | awk 'NF')
bad=0
while read -r path fn line shape; do
	[ -n "$path" ] || continue
	if ! awk -v p="$path" -v f="$fn" '$1 == p && $2 == f { found = 1 } END { exit !found }' \
		<<<"$allowed"; then
		case $shape in
		return-1) echo "FAIL: $path:$line: $fn: 'return -1;': return -errno (or, for a sentinel, list $fn in ${ALLOW#"$SRC"/} with why)" ;;
		int-err) echo "FAIL: $path:$line: $fn: an int *err parameter: return NULL with errno set (or 0/-errno, the result through a pointer)" ;;
		esac
		bad=$((bad + 1))
	fi
done <<<"$sites"
n=0
while read -r path fn _; do
	[ -n "$path" ] || continue
	n=$((n + 1))
	awk -v p="$path" -v f="$fn" '$1 == p && $2 == f { found = 1 } END { exit !found }' \
		<<<"$sites" || echo "note: ${ALLOW#"$SRC"/}: '$path $fn' returns no -1 and takes no int *err any more; delete its line"
done <<<"$allowed"
if [ "$bad" -gt 0 ]; then
	echo "$bad site(s) of an old error shape: 0/-errno for ints, NULL with errno for pointers (doc/architecture.md: Errors)"
	exit 1
fi
echo "ok: no 'return -1;' or int *err outside $n allowed function(s) in ${dirs[*]}"
