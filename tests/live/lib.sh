# Shared helpers for the live tests (sourced). They need root and a kernel
# with block tracepoints; without root they skip with exit 77.
set -eu

IOTAP=${IOTAP:-$(pwd)/iotap}
IOTAP_PROGS=${IOTAP_PROGS:-$(pwd)/tests/progs}
TRACEFS=/sys/kernel/tracing
LIVE_TMP=$(mktemp -d /tmp/iotap-live.XXXXXX)
LIVE_PIDS=""

# The Debian kernels the VM tier boots (tests/vm/vm-run --kernel): Debian 11's 5.10, 12's 6.1
# and 6.12. IOTAP_VM_KERNELS narrows a run to some of them while working on one.
VM_KERNELS=${IOTAP_VM_KERNELS:-5.10 6.1 6.12}
# Debian's newest series (testing or unstable) and its PREEMPT_RT flavour (tests/vm/vm-run
# --kernel sid, sid-rt), which the tests named in tests/vm/README.md boot beside those;
# IOTAP_VM_NEWEST narrows them (empty: none), and a narrowed IOTAP_VM_KERNELS leaves them out.
if [ -n "${IOTAP_VM_NEWEST+set}" ]; then VM_NEWEST=$IOTAP_VM_NEWEST
elif [ -n "${IOTAP_VM_KERNELS:-}" ]; then VM_NEWEST=""
else VM_NEWEST="sid sid-rt"; fi
# vm_newest N - VM_NEWEST, or only its Nth kernel when IOTAP_VM_NEWEST_ONE is set: CI boots
# each test that takes them once, the tests sharing the kernels between them by N.
vm_newest() {
	if [ -n "${IOTAP_VM_NEWEST_ONE:-}" ]; then
		echo "$VM_NEWEST" | awk -v n="$1" '{ print $(NF < n ? NF : n) }'
	else
		echo "$VM_NEWEST"
	fi
}

# fail - report a failed assertion and stop the test
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# skip - this test cannot run here
skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# live_cleanup - stop tracers, detach loop devices, remove temp files
live_cleanup() {
	local p
	# Only a process still this shell's child: a pid that ended long ago may be another's
	# by now (a test that makes thousands of threads wraps pid_max within seconds). One
	# that ends between the look and the kill fails the kill: under set -e that would stop
	# the cleanup before its loop devices.
	for p in $LIVE_PIDS; do
		[ "$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' /proc/$p/stat 2>/dev/null)" = $$ ] &&
			{ kill -KILL "$p" 2>/dev/null || true; }
	done
	# loop_create runs in $(...): its devices are listed in a file, not a variable.
	for l in $(cat "$LIVE_TMP/loops" 2>/dev/null); do losetup -d "$l" 2>/dev/null || true; done
	rm -rf "$LIVE_TMP"
}
trap live_cleanup EXIT

# require_root - live tests need root; CI runs as root so they never skip there
require_root() {
	[ "$(id -u)" = 0 ] || skip "live tests need root (run make check as root)"
	[ -x "$IOTAP" ] || fail "no iotap binary at $IOTAP"
	if ! mountpoint -q $TRACEFS; then
		mount -t tracefs nodev $TRACEFS || skip "cannot mount tracefs"
	fi
	[ -d $TRACEFS/events/block ] || skip "kernel has no block tracepoints"
}

# loop_create NAME SIZE_MB - a loop device over a tmpfs file; prints /dev/loopN
loop_create() {
	local img="$LIVE_TMP/$1.img" dev
	truncate -s "${2}M" "$img"
	dev=$(losetup -f --show "$img") || fail "losetup failed"
	echo "$dev" >>"$LIVE_TMP/loops"
	echo "$dev"
}

# loop_partition DEV - one partition on DEV, p1 at sector 2048 (16 MiB), in a hand-made MBR;
# skips the test where the loop device shows none (no partition scan). The caller removes it
# (partx -d) before the device goes: partitions read with --rereadpt outlive its detach.
loop_partition() {
	local i
	le32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24)))"; }
	{ printf '\x00\xff\xff\xff\x83\xff\xff\xff'; le32 2048; le32 32768; } |
		dd of="$1" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$1" bs=1 seek=510 conv=notrunc status=none
	blockdev --rereadpt "$1" 2>/dev/null || partx -a "$1" 2>/dev/null || true
	for i in $(seq 1 50); do [ -b "${1}p1" ] && break; sleep 0.1; done
	[ -b "${1}p1" ] || skip "the loop device shows no partitions (no partition scan)"
}

# tracer_start OUTFILE ARGS... - run iotap in the background, wait until it traces
tracer_start() {
	local out=$1 i
	shift
	# The background job truncates its files only once it runs: an earlier
	# run's banner left in them must not pass for this one's.
	rm -f "$out" "$out.err"
	"$IOTAP" "$@" >"$out" 2>"$out.err" &
	TRACER_PID=$!
	LIVE_PIDS="$LIVE_PIDS $TRACER_PID"
	for i in $(seq 1 200); do
		# Started once the banner is out (on stderr where stdout must stay
		# machine-readable, e.g. folded stacks): the events are enabled by then.
		if grep -q 'Hit Ctrl-C to end' "$out" "$out.err" 2>/dev/null; then
			return 0
		fi
		kill -0 $TRACER_PID 2>/dev/null || { cat "$out.err" >&2; fail "iotap $* exited early"; }
		sleep 0.05
	done
	fail "iotap $* did not start tracing"
}

# tracer_stop [SIGNAL] - signal the background iotap and wait for a clean exit
tracer_stop() {
	local sig=${1:-INT} rc=0
	sleep 0.3
	kill -"$sig" $TRACER_PID
	wait $TRACER_PID || rc=$?
	[ $rc = 0 ] || fail "iotap exited with $rc after SIG$sig"
}

# hist_total FILE [SECTION] - sum of the counts of a BCC histogram (optionally one section)
hist_total() {
	awk -v want="${2:-}" '
		/^[a-z]+ = / { cur = $3; next }
		/ -> .*: [0-9]+ +\|/ {
			if (want == "" || cur == want) { split($0, a, ":"); split(a[2], b, " "); n += b[1] }
		}
		END { print n + 0 }' "$1"
}

# hist_sections FILE - the section names, one per line
hist_sections() {
	awk '/^[a-z]+ = / { print $3 }' "$1"
}

# tracefs_snapshot - everything iotap could leave behind in tracefs
tracefs_snapshot() {
	local f
	for f in dynamic_events uprobe_events kprobe_events set_event tracing_on current_tracer \
		events/enable set_event_pid; do
		[ -r $TRACEFS/$f ] && { echo "== $f"; cat $TRACEFS/$f; }
	done
	echo "== instances"
	ls $TRACEFS/instances
}

# dio ARGS - the direct I/O workload program
dio() {
	"$IOTAP_PROGS/dio" "$@"
}

# cg_throttle_setup NAME IOPS - two cgroups under one parent, "slow" with a limit of IOPS reads
# a second on a new loop disk's partition, "fast" free, on the hierarchy whose blk-throttle
# this host has: cgroup v2's io.max where the io controller is on, else cgroup v1 blkio's
# read_iops_device (a hybrid host); skips where neither is. Sets ROOT (the hierarchy's
# root), WHICH (it, as the tools name it), TOP ($ROOT/iotap-NAME.PID), DEV (/dev/loopN), D
# (its name) and MM (its MAJ:MIN), and an EXIT trap, cg_cleanup, that removes all of it.
cg_throttle_setup() {
	local v2 v1
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$v2" ] && grep -qw io "$v2/cgroup.controllers" 2>/dev/null; then
		echo +io >"$v2/cgroup.subtree_control" 2>/dev/null || true
		CG_V2=1
		ROOT=$v2
		WHICH="cgroup v2 ($v2)"
	elif [ -n "$v1" ] && [ -e "$v1/blkio.throttle.read_iops_device" ]; then
		CG_V2=
		ROOT=$v1
		WHICH="cgroup v1's blkio hierarchy ($v1)"
	else
		skip "no blk-throttle here: neither cgroup v2's io controller nor cgroup v1's blkio throttle"
	fi
	TOP=$ROOT/iotap-$1.$$
	DEV=
	mkdir "$TOP" || skip "cannot create $TOP"
	trap cg_cleanup EXIT
	if [ -n "$CG_V2" ]; then echo +io >"$TOP/cgroup.subtree_control" 2>/dev/null || true; fi
	mkdir "$TOP/slow" "$TOP/fast" || fail "cannot create cgroups under $TOP"
	DEV=$(loop_create "$1" 64)
	D=$(basename "$DEV")
	MM=$(cat "/sys/block/$D/dev")
	loop_partition "$DEV"
	if [ -n "$CG_V2" ]; then
		echo "$MM riops=$2" >"$TOP/slow/io.max"
	else
		echo "$MM $2" >"$TOP/slow/blkio.throttle.read_iops_device"
	fi || skip "cannot set a read IOPS limit on $D in $TOP/slow"
}

# cg_cleanup - cg_throttle_setup's EXIT trap: its cgroups, partition and loop disk go
cg_cleanup() {
	cgroup_remove "$TOP/slow" "$ROOT"
	cgroup_remove "$TOP/fast" "$ROOT"
	cgroup_remove "$TOP" "$ROOT"
	[ -z "$DEV" ] || partx -d "$DEV" 2>/dev/null || true
	live_cleanup
}

# kernel_reads CG MAJ:MIN, kernel_bytes CG MAJ:MIN - a cgroup's reads of a disk, and their
# bytes, as its own counters have them (v2 io.stat rios and rbytes, v1
# blkio.throttle.io_serviced and io_service_bytes)
kernel_reads() {
	if [ -n "$CG_V2" ]; then cg_io_stat "$1" "$2" rios; else cg_v1_read "$1/blkio.throttle.io_serviced" "$2"; fi
}
kernel_bytes() {
	if [ -n "$CG_V2" ]; then cg_io_stat "$1" "$2" rbytes; else cg_v1_read "$1/blkio.throttle.io_service_bytes" "$2"; fi
}
cg_io_stat() {
	awk -v d="$2" -v k="$3=" '$1 == d { for (i = 2; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1/io.stat"
}
cg_v1_read() {
	awk -v d="$2" '$1 == d && $2 == "Read" { print $3 }' "$1"
}

# cg_read_in CG COUNT - COUNT direct 4 KiB random reads of $DEV's partition by a task of CG;
# prints the seconds they took, as the reader timed them, and leaves each read's time in
# $LIVE_TMP/CG's name
cg_read_in() {
	DIO_ELAPSED=1 sh -c "echo \$\$ >'$1/cgroup.procs' &&
		exec '$IOTAP_PROGS/dio' read '${DEV}p1' $2 4096 rand" 2>"$LIVE_TMP/${1##*/}" >/dev/null ||
		fail "the reader in $1 failed: $(cat "$LIVE_TMP/${1##*/}")"
	awk '$1 == "elapsed" { print $2 }' "$LIVE_TMP/${1##*/}"
}

# cgroup_remove DIR ROOT - move what is left in cgroup DIR to ROOT (its hierarchy's root), then
# remove DIR (a test's cleanup: never fails)
cgroup_remove() {
	local p
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" >"$2/cgroup.procs" || true; done
	rmdir "$1" 2>/dev/null || true
}
# free_port - a TCP port nothing listens on now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# prom_config TARGET [FILE [RULES...]] - a Prometheus config scraping TARGET (host:port, plain
# http) every second as job iotap, into FILE ($LIVE_TMP/prom.yml by default), and evaluating
# the rules files RULES (paths as that Prometheus sees them) every second
prom_config() {
	local out=${2:-$LIVE_TMP/prom.yml} r
	cat >"$out" <<PROM
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
scrape_configs:
  - job_name: iotap
    static_configs:
      - targets: ['$1']
PROM
	[ $# -gt 2 ] || return 0
	echo "rule_files:" >>"$out"
	for r in "${@:3}"; do echo "  - '$r'" >>"$out"; done
}

# prom_start CONFIG - a real Prometheus on a free loopback port, its data in $LIVE_TMP/prom,
# ready when this returns (10 s at most); sets PP (its port), PROM (its URL) and PROM_PID
prom_start() {
	local i
	PP=$(free_port)
	PROM=http://127.0.0.1:$PP
	mkdir -p "$LIVE_TMP/prom"
	prometheus --config.file="$1" --storage.tsdb.path="$LIVE_TMP/prom" \
		--web.listen-address="127.0.0.1:$PP" --log.level=warn >"$LIVE_TMP/prom.log" 2>&1 &
	PROM_PID=$!
	LIVE_PIDS="$LIVE_PIDS $PROM_PID"
	for i in $(seq 1 100); do
		curl -sf "$PROM/-/ready" >/dev/null && return 0
		kill -0 $PROM_PID 2>/dev/null || { cat "$LIVE_TMP/prom.log" >&2; fail "prometheus exited"; }
		sleep 0.1
	done
	fail "prometheus not ready after 10 s"
}

# prom_wait_up - wait until Prometheus has scraped its target once: the first scrape comes up
# to 5 s after it is ready (target discovery is batched), and a rate over a window that starts
# before it would be extrapolated from a shorter one
prom_wait_up() {
	local i
	for i in $(seq 1 100); do
		curl -sf "$PROM/api/v1/query?query=up" | grep -q '"value"' && return 0
		sleep 0.1
	done
	fail "prometheus did not scrape the exporter in 10 s"
}

# vm_boot KERNEL VM-RUN-ARGS... - boot KERNEL under tests/vm/vm-run with those arguments (the
# guest script last), its output in $LIVE_TMP/vm-KERNEL.out and its errors in .err; skip when
# the VM cannot run here (vm-run's 125), fail showing both when the guest script failed. With
# IOTAP_VM_KEEP=DIR the output is also kept there, as TEST-KERNEL.out, failed or not.
vm_boot() {
	local k=$1 rc=0 name=${0##*/}
	shift
	"$IOTAP_SRCDIR/tests/vm/vm-run" --kernel "$k" "$@" >"$LIVE_TMP/vm-$k.out" 2>"$LIVE_TMP/vm-$k.err" ||
		rc=$?
	[ $rc = 125 ] && { cat "$LIVE_TMP/vm-$k.err" >&2; skip "VM for $k could not run: $(tail -1 "$LIVE_TMP/vm-$k.err")"; }
	[ -z "${IOTAP_VM_KEEP:-}" ] || cp "$LIVE_TMP/vm-$k.out" "$IOTAP_VM_KEEP/${name%-vm.sh}-$k.out"
	[ $rc = 0 ] || { cat "$LIVE_TMP/vm-$k.out" "$LIVE_TMP/vm-$k.err"; fail "guest script failed on $k ($rc)"; }
}

# section OUT NAME - the lines of one "== NAME" block of a guest's output (its header may
# go on with words of its own: "== NAME ARGS...")
section() {
	awk -v want="== $2" 'index($0, "== ") == 1 { on = $0 == want || index($0, want " ") == 1; next } on' "$1"
}

# stat_reads OUT KEY - reads the kernel completed between a guest's "== stat-before KEY" and
# "== stat-after KEY" lines, each followed by a /sys/block/DEV/stat (its field 1)
stat_reads() {
	local b a
	b=$(awk -v k="$2" '$1 == "==" && $2 == "stat-before" && $3 == k { print $4 }' "$1")
	a=$(awk -v k="$2" '$1 == "==" && $2 == "stat-after" && $3 == k { print $4 }' "$1")
	echo $((a - b))
}
