# Shared functions of the guest scripts (sourced there as /iotap/guest-lib.sh: vm-run copies
# this file into every guest). They run under the guest's /bin/sh: busybox ash in the
# initramfs, dash under --rootfs; POSIX sh plus local.

# traced OUT ARGS... - start iotap ARGS in the background, out to OUT and OUT.err; wait
# (bounded) until it prints its banner (on stderr when stdout carries data); its PID in t
traced() {
	local out=$1
	shift
	iotap "$@" >"$out" 2>"$out.err" &
	t=$!
	for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' "$out" "$out.err" && return 0; sleep 0.1; done
	echo "iotap did not start: $(cat "$out.err")"
	exit 1
}

# untraced - end the tracer started last, once the workload settled
untraced() {
	sleep 0.5
	kill -INT $t
	wait $t
}

# started FILE - wait (bounded) until a background iotap whose output (both streams) goes to
# FILE printed its banner
started() {
	for i in $(seq 1 200); do grep -q 'Hit Ctrl-C' "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "iotap did not start: $(cat "$1")"
	exit 1
}
