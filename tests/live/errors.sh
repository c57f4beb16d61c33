#!/bin/bash
# Bad flags, disks, PIDs and values: one clear line on stderr and a non-zero exit.
. "$(dirname "$0")/lib.sh"
require_root

# expect_error CMD... - exit 1, nothing on stdout, exactly one stderr line matching $WANT
expect_error() {
	local rc=0
	"$IOTAP" "$@" >"$LIVE_TMP/out" 2>"$LIVE_TMP/err" || rc=$?
	[ $rc = 1 ] || fail "'$*' exited $rc, expected 1"
	[ ! -s "$LIVE_TMP/out" ] || fail "'$*' printed to stdout: $(cat "$LIVE_TMP/out")"
	[ "$(wc -l <"$LIVE_TMP/err")" = 1 ] || fail "'$*' stderr is not one line: $(cat "$LIVE_TMP/err")"
	grep -q -- "$WANT" "$LIVE_TMP/err" || fail "'$*' said: $(cat "$LIVE_TMP/err"), expected $WANT"
}

WANT="unknown option '-z'" expect_error biolatency -z
WANT="unknown disk 'nosuchdisk'" expect_error biolatency -d nosuchdisk
WANT="no process with PID 999999" expect_error biolatency -p 999999
WANT="invalid -p/--pid 'abc'" expect_error biolatency -p abc
WANT="invalid interval 'x'" expect_error biolatency x
WANT="can only use -D or -F" expect_error biolatency -D -F
WANT="unknown tool or command 'nosuchtool'" expect_error nosuchtool
WANT="expected a power of two" expect_error biolatency --mmap-pages 3
"$IOTAP" biolatency --help | grep -q '^usage: iotap biolatency \[options\] \[interval \[count\]\]$' ||
	fail "--help usage line"
echo "ok: every bad input gives one error line and exit 1"
