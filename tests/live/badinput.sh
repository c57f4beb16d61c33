#!/bin/bash
# Every bad value refused: every tool and command, every option (from the option tables,
# 'iotap completion table', so a new option is covered without editing this file) and the
# positional arguments, with every class of bad value of its type (negative, zero, below
# the minimum, above the maximum, huge, non-numeric, exponent and hex forms, empty,
# missing, extra arguments, paths that do not exist or cannot be written). Each must exit
# non-zero with exactly one line on stderr, nothing on stdout, and never start tracing.
# Root: the tools run live, so values that only the kernel's state can refuse (a PID that
# does not run, a disk that does not exist) are refused there, before tracing.
. "$(dirname "$0")/lib.sh"
require_root

SRC=${IOTAP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
L=$SRC/tests/data/recordings/linux-6.18-loop.iotap
CASES=$LIVE_TMP/cases
: >"$CASES"

# add ARGS... - one case: iotap ARGS (each word shell-quoted)
add() {
	printf '%q ' "$@" >>"$CASES"
	echo >>"$CASES"
}

# values TYPE MIN MAX - the bad values of an option type, one per line ('' is empty)
values() {
	case $1 in
	uint)
		printf '%s\n' -1 abc 1e3 0x10 1.5 99999999999999999999999 ''
		[ "$2" -ge 1 ] && echo 0
		[ "$3" -gt 0 ] && echo $(($3 + 1))
		;;
	pid) printf '%s\n' -1 0 abc 1e3 99999999999 999999999 '' ;;
	choice|list) printf '%s\n' bogus '' ;;
	disk) printf '%s\n' nosuchdisk '' ;;
	str) printf '%s\n' '' ;;
	outfile) printf '%s\n' /nonexistent/f / /proc/iotap-bad '' ;;
	dir) printf '%s\n' /nonexistent /etc/passwd '' ;;
	esac
}

# The positional arguments of each kind, bad.
bad_positional() {
	local name=$1
	case $2 in
	interval)
		for v in -1 0 0.001 1e-12 1e3 abc 99999999999 0x10 inf; do add "$name" "$v"; done
		add "$name" 1 0
		add "$name" 1 -1
		add "$name" 1 abc
		add "$name" 1 1e3
		add "$name" 1 1 1
		;;
	duration)
		for v in -1 0 0.001 1e-12 1e3 abc 99999999999; do add "$name" "$v"; done
		add "$name" 1 1
		;;
	none) add "$name" extra ;;
	spec)
		add "$name"
		add "$name" p:a p:b
		;;
	esac
}

declare -A seen
# The tables: "NAME args KIND" and "NAME opt SPELLING TYPE MIN MAX" lines.
"$IOTAP" completion table >"$LIVE_TMP/table" || fail "iotap completion table"
while IFS=$'\t' read -r name what a b c d; do
	if [ "$what" = args ]; then
		bad_positional "$name" "$a"
		continue
	fi
	spelling=$a type=$b min=$c max=$d
	# report and record options come before their tool or command; a value of -i must
	# name a recording for the report to get as far as the tool.
	pre=()
	[ "$name" = report ] && [ "$spelling" != --input ] && pre=(-i "$L")
	if [ "$type" = flag ]; then
		[ "$spelling" = "${spelling#--}" ] || add "$name" "${pre[@]}" "$spelling=x"
		continue
	fi
	# A peer's flag iotap does not take is refused as it stands.
	if [ "$type" = refuse ]; then
		add "$name" "${pre[@]}" "$spelling"
		continue
	fi
	[ "$type" != "?" ] || fail "iotap completion table gives $name $spelling no type"
	add "$name" "${pre[@]}" "$spelling"	# the value missing
	# An option shared by many tools (the common ones) goes through one parser: every
	# value on the first tool that has it, the first bad value on the others.
	key="$spelling $type $min $max"
	k=0
	while IFS= read -r v; do
		[ $k = 0 ] || [ -z "${seen[$key]:-}" ] || break
		add "$name" "${pre[@]}" "$spelling" "$v"
		k=$((k + 1))
	done < <(values "$type" "$min" "$max")
	seen[$key]=1
done <"$LIVE_TMP/table"

# Commands and their own arguments.
add --version x
add list x
add help biolatency x
add help nosuchtool
add completion
add completion zsh
add man
add man nosuchtool
add nosuchtool
add record -D 1
add record -o "$LIVE_TMP/r.iotap" --tools nosuchtool -D 1
add report -i "$L"
add report -i "$L" nosuchtool
add report -i "$L" --info biolatency
add report -i /nonexistent.iotap biolatency
add report -i /etc/passwd biolatency
add report -i / biolatency
add report -i "$L" biolatency -d nosuchdisk
add report -i "$L" biolatency 1e-12

# Serially: in parallel the runs would see each other's tracefs instances. A run that
# finds an instance a killed iotap left (another test's, on this shared kernel) says so
# on a line of its own, which is not about the bad input: that line is not counted.
n=0 bad=0
while IFS= read -r line; do
	eval "set -- $line"
	n=$((n + 1))
	rc=0
	timeout 10 "$IOTAP" "$@" >"$LIVE_TMP/out" 2>"$LIVE_TMP/err" </dev/null || rc=$?
	mapfile -t err < <(grep -v 'tracefs instances left by a killed iotap' "$LIVE_TMP/err")
	why=
	if [ $rc = 124 ]; then
		why="accepted: still running after 10 s"
	elif [ $rc = 0 ]; then
		why="exit 0"
	elif [ $rc -gt 2 ]; then
		why="exit $rc (a crash or signal?)"
	elif [ ${#err[@]} != 1 ]; then
		why="stderr has ${#err[@]} lines"
	elif [ -s "$LIVE_TMP/out" ]; then
		why="printed to stdout"
	fi
	if [ -n "$why" ]; then
		echo "FAIL: iotap $line: $why: ${err[*]:0:3}" >&2
		bad=$((bad + 1))
	fi
done <"$CASES"

# A filter over a recording that never saw the process: the (empty) report is printed, then
# one line says nothing could match, and the exit status says so.
rc=0
"$IOTAP" report -i "$L" biolatency -p 999999999 >/dev/null 2>"$LIVE_TMP/err" || rc=$?
n=$((n + 1))
[ $rc = 1 ] && [ "$(wc -l <"$LIVE_TMP/err")" = 1 ] &&
	grep -q "PID 999999999 does not appear in" "$LIVE_TMP/err" || {
	echo "FAIL: report -p of a PID the recording never saw: rc $rc, $(cat "$LIVE_TMP/err")" >&2
	bad=$((bad + 1))
}
# Whereas one it saw is fine.
pid=$("$IOTAP" report -i "$L" biosnoop | awk 'NR > 1 && $3 ~ /^[0-9]+$/ { print $3; exit }')
[ -n "$pid" ] || fail "no PID in biosnoop's output of the recording"
"$IOTAP" report -i "$L" biolatency -p "$pid" >/dev/null 2>&1 || fail "report -p $pid (seen) failed"
n=$((n + 1))

[ $bad = 0 ] || fail "$bad of $n bad inputs were not refused with one line"
echo "ok: $n bad inputs refused, each with one line on stderr and a non-zero exit"
