# selftest-lib.sh - what every lint's selftest shares (sourced): a check run that must
# exit with a code and say something, counted in fails.
fails=0

# expect RC PATTERN NAME CMD... - CMD exits RC and its output has PATTERN
expect() {
	local rc=$1 pat=$2 name=$3 out got
	shift 3
	out=$("$@" 2>&1)
	got=$?
	if [ "$got" -ne "$rc" ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "FAIL: $name: exit $got (want $rc), output lacks '$pat':"
		sed 's/^/  | /' <<<"$out"
		fails=$((fails + 1))
	else
		echo "ok: $name"
	fi
}
