#!/bin/bash
# VM tier: restricted hosts under Debian's 5.10 and 6.1 (qemu; exit 77 when the VM cannot run).
# Boot 1, lockdown=integrity: root counts exactly, so does a user with CAP_PERFMON and
# CAP_DAC_OVERRIDE, and one with CAP_DAC_OVERRIDE alone running biolatency, which opens no
# perf event; kernel.perf_event_paranoid 3 (Debian's default), a missing capability,
# a closed or unmounted tracefs, and lockdown raised to confidentiality each give their one
# line. Boot 2, lockdown=confidentiality: tracing and record are refused in one line, before
# anything is made; reports of a recording still work, byte for byte as on the host.
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
SETPRIV=$(command -v setpriv) || skip "no setpriv (util-linux) to drop privileges in the guest"
REC=$IOTAP_SRCDIR/tests/golden/mixed.iotap

# Shared by both guests: how a refused run is shown to the host.
cat >"$LIVE_TMP/common.sh" <<'GUEST'
# refused NAME CMD... - run CMD; print its exit status, stdout size and stderr
refused() {
	local name=$1 rc=0
	shift
	"$@" >/tmp/r.out 2>/tmp/r.err || rc=$?
	echo "== $name"
	echo "rc=$rc stdout=$(wc -c </tmp/r.out)"
	cat /tmp/r.err
}
# user CMD... - CMD as uid 1000, without capabilities
user() { setpriv --reuid 1000 --regid 1000 --clear-groups -- "$@"; }
GUEST

cat "$LIVE_TMP/common.sh" - >"$LIVE_TMP/integrity.sh" <<'GUEST'
# traced OUT CMD... - start the tracer CMD in the background, out to OUT; wait for its banner
traced() {
	local out=$1
	shift
	"$@" >"$out" 2>"$out.err" &
	t=$!
	for i in $(seq 1 100); do grep -qs 'Hit Ctrl-C' "$out" "$out.err" && return 0; sleep 0.1; done
	echo "tracer did not start: $(cat "$out.err")"
	exit 1
}
# untraced OUT - end the tracer, once the workload settled; print what it wrote
untraced() {
	sleep 0.5
	kill -INT $t
	wait $t
	cat "$1" "$1.err"
}
echo "== lockdown"
cat /sys/kernel/security/lockdown
echo "== root"
traced /tmp/root.out iotap biolatency -D
dio read /dev/nvme0n1 300 4096 >/dev/null
untraced /tmp/root.out
# Upstream's strictest level: events on a whole CPU need CAP_PERFMON, tracefs is root's.
echo 2 >/proc/sys/kernel/perf_event_paranoid
echo "== user with caps"
# setpriv by path: the prelude's function would put a shell between $t and iotap.
traced /tmp/user.out /usr/local/bin/setpriv --reuid 1000 --regid 1000 --clear-groups \
	--inh-caps +perfmon,+dac_override --ambient-caps +perfmon,+dac_override -- \
	/usr/local/bin/iotap biolatency -D
dio read /dev/nvme0n1 200 4096 >/dev/null
untraced /tmp/user.out
# biolatency names no process: it opens no perf event, so tracefs access is all it needs.
echo "== user without perfmon"
traced /tmp/noperf.out /usr/local/bin/setpriv --reuid 1000 --regid 1000 --clear-groups \
	--inh-caps +dac_override --ambient-caps +dac_override -- /usr/local/bin/iotap biolatency -D
dio read /dev/nvme0n1 100 4096 >/dev/null
untraced /tmp/noperf.out
# biosnoop names each request's process: perf's side-band, which needs CAP_PERFMON here.
refused no-perfmon setpriv --reuid 1000 --regid 1000 --clear-groups \
	--inh-caps +dac_override --ambient-caps +dac_override -- /usr/local/bin/iotap biosnoop
refused no-dac-override user /usr/local/bin/iotap biolatency
# Debian's level 3: CAP_PERFMON is not enough, root without CAP_SYS_ADMIN is refused too.
echo 3 >/proc/sys/kernel/perf_event_paranoid
refused paranoid-3 setpriv --bounding-set -sys_admin -- /usr/local/bin/iotap biostacks
umount /sys/kernel/tracing
refused unmounted user /usr/local/bin/iotap biolatency
mount -t tracefs nodev /sys/kernel/tracing
echo "== leftovers"
ls /sys/kernel/tracing/instances
cat /sys/kernel/tracing/dynamic_events
# Lockdown only goes up: from here on this kernel refuses tracefs to root.
echo confidentiality >/sys/kernel/security/lockdown
refused raised iotap biolatency
echo "== raised instances"
ls /sys/kernel/tracing/instances
echo "== end"
GUEST

cat "$LIVE_TMP/common.sh" - >"$LIVE_TMP/confidentiality.sh" <<'GUEST'
echo "== lockdown"
cat /sys/kernel/security/lockdown
refused tool iotap biolatency -D
refused record iotap record -o /tmp/rec.iotap -- true
echo "== record file"
ls /tmp/rec.iotap 2>&1
# Lockdown at boot: tracefs has no files at all, so there is nothing to leave behind.
echo "== tracefs"
ls -A /sys/kernel/tracing
echo "== report"
iotap report -i /iotap/files/mixed.iotap --info >/dev/null && echo "info rc=0"
iotap biolatency -i /iotap/files/mixed.iotap -D
echo "== report end"
# Without securityfs iotap cannot read the mode; the empty tracefs still points at it.
umount /sys/kernel/security
refused no-securityfs iotap biolatency
echo "== end"
GUEST

# section OUT NAME - the lines after "== NAME" up to the next "== " line
section() {
	awk -v want="== $2" '$0 == want { on = 1; next } on && /^== / { exit } on' "$1"
}
# expect_refused OUT NAME LINE - the run exited 2, printed nothing on stdout and LINE alone
expect_refused() {
	local got
	got=$(section "$1" "$2")
	[ "$(echo "$got" | head -n1)" = "rc=2 stdout=0" ] || fail "$k: $2: $(echo "$got" | head -n1), expected rc=2 stdout=0"
	[ "$(echo "$got" | sed 1d)" = "$3" ] || fail "$k: $2: said
$(echo "$got" | sed 1d)
expected
$3"
}
# vm KERNEL MODE [ARGS...] - boot KERNEL with lockdown=MODE and run MODE.sh; out in $k-MODE.out
vm() {
	local k=$1 mode=$2 rc=0
	shift 2
	"$IOTAP_SRCDIR/tests/vm/vm-run" --kernel "$k" --disk nvme --append "lockdown=$mode" \
		--bin "$IOTAP" --bin "$IOTAP_PROGS/dio" --bin "$SETPRIV" --timeout 150 "$@" \
		-- "$LIVE_TMP/$mode.sh" >"$LIVE_TMP/$k-$mode.out" 2>"$LIVE_TMP/$k-$mode.err" || rc=$?
	[ $rc = 125 ] && { cat "$LIVE_TMP/$k-$mode.err" >&2; skip "VM for $k could not run: $(tail -1 "$LIVE_TMP/$k-$mode.err")"; }
	[ $rc = 0 ] || { cat "$LIVE_TMP/$k-$mode.out" "$LIVE_TMP/$k-$mode.err"; fail "$k: guest script failed under lockdown=$mode ($rc)"; }
}

LOCKDOWN="kernel lockdown is 'confidentiality': the kernel refuses tracefs to every user, root included, and iotap traces through it; boot with lockdown=integrity or none to trace here (reports of recordings still work)"

# Debian 11's 5.10 (the fleets' kernel) and 12's 6.1; 6.12 behaves as 6.1 here.
kernels=""
for k in 5.10 6.1; do case " $VM_KERNELS " in *" $k "*) kernels="$kernels $k" ;; esac; done
[ -n "$kernels" ] || skip "IOTAP_VM_KERNELS names neither 5.10 nor 6.1"
for k in $kernels; do
	vm "$k" integrity
	out=$LIVE_TMP/$k-integrity.out
	[ "$(section "$out" lockdown)" = "none [integrity] confidentiality" ] ||
		fail "$k: lockdown=integrity not in force: $(section "$out" lockdown)"
	section "$out" root >"$LIVE_TMP/root"
	[ "$(hist_total "$LIVE_TMP/root" nvme0n1)" = 300 ] || { cat "$out"; fail "$k: root under integrity: nvme0n1 count $(hist_total "$LIVE_TMP/root" nvme0n1), expected 300"; }
	section "$out" "user with caps" >"$LIVE_TMP/user"
	[ "$(hist_total "$LIVE_TMP/user" nvme0n1)" = 200 ] || { cat "$out"; fail "$k: uid 1000 with CAP_PERFMON, CAP_DAC_OVERRIDE: nvme0n1 count $(hist_total "$LIVE_TMP/user" nvme0n1), expected 200"; }
	section "$out" "user without perfmon" >"$LIVE_TMP/noperf"
	[ "$(hist_total "$LIVE_TMP/noperf" nvme0n1)" = 100 ] || { cat "$out"; fail "$k: uid 1000 with CAP_DAC_OVERRIDE alone: biolatency's nvme0n1 count $(hist_total "$LIVE_TMP/noperf" nvme0n1), expected 100"; }
	expect_refused "$out" no-perfmon "iotap biosnoop: perf_event_open refused: kernel.perf_event_paranoid is 2, where perf events on a whole CPU need CAP_PERFMON or CAP_SYS_ADMIN, which this process lacks; run as root, or give iotap CAP_PERFMON"
	expect_refused "$out" no-dac-override "iotap biolatency: tracefs at /sys/kernel/tracing (mode 0700, owner uid 0, group 0) is closed to uid 1000: run as root, or give iotap CAP_DAC_OVERRIDE (with CAP_PERFMON for perf)"
	expect_refused "$out" paranoid-3 "iotap biostacks: perf_event_open refused: kernel.perf_event_paranoid is 3, where this kernel leaves perf to CAP_SYS_ADMIN (CAP_PERFMON is not enough), and iotap reads process names and stacks through perf; run as root or with CAP_SYS_ADMIN, or set kernel.perf_event_paranoid=2 and give iotap CAP_PERFMON"
	expect_refused "$out" unmounted "iotap biolatency: tracefs is not mounted and this process may not mount it (that needs CAP_SYS_ADMIN); as root: mount -t tracefs nodev /sys/kernel/tracing"
	[ -z "$(section "$out" leftovers)" ] || fail "$k: left in tracefs: $(section "$out" leftovers)"
	expect_refused "$out" raised "iotap biolatency: $LOCKDOWN"
	[ -z "$(section "$out" "raised instances")" ] || fail "$k: instances under raised lockdown: $(section "$out" "raised instances")"
	echo "ok: $k: lockdown=integrity: root 300, uid 1000 with CAP_PERFMON+CAP_DAC_OVERRIDE 200 and with CAP_DAC_OVERRIDE alone (biolatency, no perf) 100 exact; paranoid 3, no CAP_PERFMON, closed and unmounted tracefs, raised lockdown: one line each, exit 2, nothing left"

	vm "$k" confidentiality --file "$REC"
	out=$LIVE_TMP/$k-confidentiality.out
	[ "$(section "$out" lockdown)" = "none integrity [confidentiality]" ] ||
		fail "$k: lockdown=confidentiality not in force: $(section "$out" lockdown)"
	expect_refused "$out" tool "iotap biolatency: $LOCKDOWN"
	expect_refused "$out" record "iotap record: $LOCKDOWN"
	section "$out" "record file" | grep -q 'No such file' || fail "$k: record left a file: $(section "$out" "record file")"
	[ -z "$(section "$out" tracefs)" ] || fail "$k: tracefs under boot lockdown: $(section "$out" tracefs)"
	"$IOTAP" biolatency -i "$REC" -D >"$LIVE_TMP/host-report" || fail "$k: report on the host"
	section "$out" report | sed 1d >"$LIVE_TMP/guest-report"
	[ "$(section "$out" report | head -n1)" = "info rc=0" ] || fail "$k: report --info under lockdown: $(section "$out" report | head -n1)"
	cmp -s "$LIVE_TMP/host-report" "$LIVE_TMP/guest-report" ||
		fail "$k: report under lockdown differs from the host's: $(diff "$LIVE_TMP/host-report" "$LIVE_TMP/guest-report" | head)"
	expect_refused "$out" no-securityfs "iotap biolatency: cannot read /sys/kernel/tracing/events/header_page: No such file or directory; kernel lockdown 'confidentiality' does this to root too (securityfs is not mounted, so /sys/kernel/security/lockdown cannot tell)"
	echo "ok: $k: lockdown=confidentiality: tools and record refused in one line with exit 2, no file, empty tracefs; reports of a recording as on the host; without securityfs the line still names lockdown"
done
