#!/bin/bash
# VM tier: the Debian package's exporter unit started by a real systemd, sandbox and all, on
# Debian 12 booted with systemd as PID 1 (vm-run --rootfs) under Debian's 6.1 and 6.12 kernels.
# The package is built from the distributed files with dpkg-buildpackage (debian/ as shipped)
# and installed with dpkg in the guest. There: systemctl enable --now iotap-exporter with the
# shipped defaults, direct reads on the NVMe disk, a scrape of /metrics that counts exactly
# the reads /sys/block/nvme0n1/stat counted; no failed start, no restart; systemctl stop
# leaves tracefs as found. The unit's defaults run the exporter with a flight recorder's ring;
# dump_step configures it as an administrator would (/etc/default/iotap-exporter: --ring 30,
# -o in the unit's StateDirectory) and checks that systemctl kill -s USR2 writes a dump that
# reports the workload exactly (IOTAP_SYSTEMD_DUMP=0 leaves that step out).
# The package is cached per content of the distributed tree under $IOTAP_VM_CACHE/iotap-deb:
# the sanitizer pass builds the same tree and so installs the same plain package (a service
# unit runs the packaged binary, not the build tree's). The two kernels boot in parallel.
# Time on this 2-vCPU host under other jobs' load: about 2 min warm; a cold cache adds the
# package build (20 s idle, 40-70 s loaded), mmdebstrap of the root file system (30-55 s,
# once per machine) and the root image per kernel (2 s).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
for t in qemu-system-x86_64 mmdebstrap mkfs.ext4 dpkg-buildpackage dh flock; do
	command -v $t >/dev/null || skip "no $t: run scripts/deps.sh test (qemu-system-x86, mmdebstrap, e2fsprogs, dpkg-dev, debhelper)"
done
CACHE=${IOTAP_VM_CACHE:-/var/cache/iotap-vm}
KERNELS=
for k in $VM_KERNELS; do case $k in 6.1|6.12) KERNELS="$KERNELS $k" ;; esac; done
[ -n "$KERNELS" ] || skip "IOTAP_VM_KERNELS names neither 6.1 nor 6.12"
N=400	# direct 4 KiB reads under the exporter
M=300	# and under the exporter with a flight recorder's ring, dumped on SIGUSR2

# The package: the distributed tree, hashed, names its build; built once per content. Tests
# and benchmarks are left out of the hash: a nocheck build reads none of them.
build=$(dirname "$IOTAP")
version=$("$IOTAP" --version | sed -n 's/^iotap \([^ ]*\) .*/\1/p')
[ -n "$version" ] || fail "iotap --version printed no version"
src=$LIVE_TMP/iotap-$version
make -s -C "$build" distdir distdir="$src" >/dev/null || fail "make distdir failed"
key=$(cd "$src" && find . -type f ! -path './tests/*' ! -path './bench/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
debdir=$CACHE/iotap-deb/$key
mkdir -p "$CACHE/iotap-deb" || skip "cannot create $CACHE/iotap-deb"
exec 9>"$CACHE/iotap-deb/.lock"
flock 9
if [ ! -f "$debdir/.complete" ]; then
	find "$CACHE/iotap-deb" -mindepth 1 -maxdepth 1 -type d -mtime +7 -exec rm -rf {} + 2>/dev/null || true
	t0=$SECONDS
	# Not make check's MAKEFLAGS: its TESTS=... would reach the package's own test run; the
	# units ran in make check already.
	(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$LIVE_TMP/build.log" 2>&1 ||
		{ tail -30 "$LIVE_TMP/build.log" >&2; fail "dpkg-buildpackage failed"; }
	rm -rf "$debdir.new" && mkdir -p "$debdir.new"
	cp "$LIVE_TMP"/iotap_*_amd64.deb "$debdir.new/" || fail "no iotap .deb after dpkg-buildpackage"
	touch "$debdir.new/.complete"
	rm -rf "$debdir" && mv "$debdir.new" "$debdir"
	echo "built the package in $((SECONDS - t0))s"
fi
exec 9>&-
touch "$debdir"
deb=$(ls "$debdir"/iotap_*_amd64.deb)
# The guest has no network: the root file system holds what the package depends on.
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/[[:space:]]//g' | grep -v '^libc6$' | paste -sd,)
pkgs=fio,curl,$deps

cat >"$LIVE_TMP/guest.sh" <<GUEST
N=$N M=$M DUMP=${IOTAP_SYSTEMD_DUMP:-1}
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
T=/sys/kernel/tracing
U=iotap-exporter
URL=http://127.0.0.1:10033/metrics
# snap - what a tracer may change in tracefs, as one text to compare. Under 6.1 the first
# event enabled in any instance expands the top-level buffer from its boot-time minimum
# ("7 (expanded: 1408)" becomes "7": the kernel's flag, which nothing can clear), so the
# size is compared without that note; the change is printed apart.
snap() {
	ls $T/instances
	for f in tracing_on current_tracer set_event dynamic_events kprobe_events uprobe_events \
		trace_clock buffer_size_kb set_ftrace_filter trace_options; do
		echo "$f: $(cat $T/$f 2>/dev/null | sed '/^#/d; s/ (expanded: [0-9]*)$//' | tr '\n' ' ')"
	done
	grep -l '^1' $T/events/*/enable 2>/dev/null
}
# reads - requests read from nvme0n1 so far, by the kernel's count
reads() { awk '{ print $1 }' /sys/block/nvme0n1/stat; }
# scraped - the exporter's count of read requests on nvme0n1 in its last publication
scraped() {
	curl -fsS "$URL" >/tmp/metrics || return 1
	awk '$1 == "iotap_block_request_latency_seconds_count{disk=\"nvme0n1\",op=\"read\"}" { n = $2 }
		END { print n + 0 }' /tmp/metrics
}
# log - this start's journal of the unit
log() { journalctl -q --no-pager -o cat _SYSTEMD_INVOCATION_ID="$(systemctl show $U -p InvocationID --value)"; }
# started - wait (bounded) until the unit's tracer prints its banner to the journal
started() {
	end=$(($(cut -d. -f1 /proc/uptime) + 90))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		log | grep -q 'Hit Ctrl-C' && return 0
		case $(systemctl show $U -p SubState --value) in failed|auto-restart|dead) break ;; esac
		sleep 0.2
	done
	echo "the exporter did not start:"
	systemctl status --no-pager -l $U
	journalctl -q -u $U --no-pager -o cat
	return 1
}
# cs - centiseconds since boot
cs() { awk '{ print int($1 * 100) }' /proc/uptime; }
# settled PREV - the exporter's count once it differs from PREV and has held for 2.5 s, which
# spans two publications (one a second by default); PREV is what it was before the workload
settled() {
	last=$(scraped) || return 1
	t=$(cs)
	end=$((t + 3000))
	while [ "$(cs)" -lt $end ]; do
		sleep 0.5
		b=$(scraped) || return 1
		if [ "$b" != "$last" ]; then
			last=$b t=$(cs)
		elif [ "$b" != "$1" ] && [ $(($(cs) - t)) -ge 250 ]; then
			break
		fi
	done
	echo "$last"
}
# show - the unit's state, one property a line
show() { systemctl show $U -p ActiveState,Result,NRestarts,ExecMainStatus,ExecMainCode; }

echo "== setup"
echo "up $(cut -d' ' -f1 /proc/uptime)s"
echo "perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) systemd=$(systemctl --version | head -1)"
dpkg --force-unsafe-io -i /iotap/files/iotap.deb >/tmp/dpkg.out 2>&1 || { cat /tmp/dpkg.out; exit 1; }
echo "enabled-after-install: $(systemctl is-enabled $U 2>&1)"
snap >/tmp/tracefs.before
top=$(cat $T/buffer_size_kb)
echo "== exporter"
systemctl enable --now $U 2>&1 || { journalctl -q -u $U --no-pager -o cat; exit 1; }
started || exit 1
echo "instance: $(ls $T/instances | grep -c "^iotap_$(systemctl show $U -p MainPID --value)\$")"
a=$(settled "-") || { echo "no scrape: $(curl -sS "$URL" 2>&1 | head -3)"; exit 1; }
r0=$(reads)
dd if=/dev/nvme0n1 of=/dev/null bs=4096 count=$N iflag=direct 2>/dev/null
r1=$(reads)
b=$(settled "$a") || exit 1
echo "kernel=$((r1 - r0)) exporter=$((b - a))"
show
echo "== dump"
dump_step() {
	# The unit's StateDirectory: the one place ProtectSystem=strict leaves it to write.
	echo 'IOTAP_EXPORTER_ARGS="--listen 127.0.0.1:10033 -o /var/lib/iotap-exporter/dump --ring 30"' >/etc/default/$U
	rm -f /var/lib/iotap-exporter/dump.*
	systemctl restart $U
	started || return 1
	a=$(settled "-") || return 1
	r0=$(reads)
	fio --name=dump --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--size=64M --io_size=$((M * 4096)) --randrepeat=1 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; return 1; }
	r1=$(reads)
	# Every completion is in the ring (the scrape counts it) before the dump is asked for.
	b=$(settled "$a") || return 1
	echo "kernel=$((r1 - r0)) exporter=$((b - a))"
	systemctl kill -s USR2 $U
	end=$(($(cut -d. -f1 /proc/uptime) + 60))
	until log | grep -q 'dump 1: .*SIGUSR2' || [ "$(cut -d. -f1 /proc/uptime)" -ge $end ]; do sleep 0.2; done
	set -- /var/lib/iotap-exporter/dump.*
	[ $# = 1 ] && [ -f "$1" ] || { echo "expected one dump, got: $*"; log; return 1; }
	echo "dump: $1 $(stat -c '%U %a' "$1")"
	log | grep 'dump 1:'
	echo "-- biolatency"
	iotap report -i "$1" biolatency -D 2>&1
	echo "-- biosnoop"
	iotap report -i "$1" biosnoop >/tmp/biosnoop.out 2>&1
	awk '$4 == "nvme0n1" && $5 == "R" && $7 == 4096' /tmp/biosnoop.out | wc -l
	echo "-- biosnoop's first lines"
	head -n 5 /tmp/biosnoop.out
	echo "--"
	show
}
if [ "$DUMP" != 0 ]; then dump_step || exit 1; fi
echo "== stop"
systemctl stop $U
show
snap >/tmp/tracefs.after
diff /tmp/tracefs.before /tmp/tracefs.after && echo "tracefs: as found"
echo "top-level buffer_size_kb: $top, after: $(cat $T/buffer_size_kb)"
echo "== journal"
echo "up $(cut -d' ' -f1 /proc/uptime)s"
journalctl -q -u $U --no-pager -o cat
echo "== end"
GUEST

# prop OUT SECTION NAME - a property systemctl show printed in that section
prop() { section "$1" "$2" | sed -n "s/^$3=//p" | tail -n1; }

pids=
for k in $KERNELS; do
	"$IOTAP_SRCDIR/tests/vm/vm-run" --kernel $k --rootfs "$pkgs" --disk nvme --timeout 300 \
		--file "$deb:/iotap/files/iotap.deb" -- "$LIVE_TMP/guest.sh" \
		>"$LIVE_TMP/vm-$k.out" 2>"$LIVE_TMP/vm-$k.err" &
	pids="$pids $!"
done
# shellcheck disable=SC2086 # one word a pid
set -- $pids
for k in $KERNELS; do
	rc=0
	wait "$1" || rc=$?
	shift
	echo $rc >"$LIVE_TMP/vm-$k.rc"
	[ -z "${IOTAP_VM_KEEP:-}" ] || cp "$LIVE_TMP/vm-$k.out" "$IOTAP_VM_KEEP/systemd-$k.out"
done
for k in $KERNELS; do
	rc=$(cat "$LIVE_TMP/vm-$k.rc")
	out=$LIVE_TMP/vm-$k.out
	[ $rc = 125 ] && { cat "$LIVE_TMP/vm-$k.err" >&2; skip "VM for $k could not run: $(tail -1 "$LIVE_TMP/vm-$k.err")"; }
	[ $rc = 0 ] || { cat "$out" "$LIVE_TMP/vm-$k.err"; fail "guest script failed on $k ($rc)"; }
	grep -qx 'enabled-after-install: disabled' "$out" || fail "$k: the unit is not disabled after install: $(grep enabled-after "$out")"
	section "$out" exporter >"$LIVE_TMP/ex-$k"
	grep -qx 'instance: 1' "$LIVE_TMP/ex-$k" || fail "$k: no tracefs instance of the unit's process: $(cat "$out")"
	grep -qx "kernel=$N exporter=$N" "$LIVE_TMP/ex-$k" ||
		fail "$k: $N direct reads of nvme0n1: $(grep '^kernel=' "$LIVE_TMP/ex-$k"), expected kernel=$N exporter=$N"
	for p in ActiveState=active Result=success NRestarts=0; do
		[ "$(prop "$out" exporter "${p%%=*}")" = "${p#*=}" ] || fail "$k: after the start, $(section "$out" exporter | grep "^${p%%=*}="), expected $p"
	done
	section "$out" dump >"$LIVE_TMP/dump-$k"
	if [ "${IOTAP_SYSTEMD_DUMP:-1}" = 0 ]; then
		dump="left out (IOTAP_SYSTEMD_DUMP=0)"
	else
		grep -qx "kernel=$M exporter=$M" "$LIVE_TMP/dump-$k" ||
			fail "$k: fio's reads of nvme0n1: $(grep '^kernel=' "$LIVE_TMP/dump-$k"), expected kernel=$M exporter=$M"
		grep -q '^dump: /var/lib/iotap-exporter/dump\.[^ ]* root 600$' "$LIVE_TMP/dump-$k" ||
			fail "$k: no dump of root's, mode 600, in the StateDirectory: $(cat "$LIVE_TMP/dump-$k")"
		sed -n '/^-- biolatency$/,/^-- biosnoop$/p' "$LIVE_TMP/dump-$k" >"$LIVE_TMP/dump-bl-$k"
		[ "$(hist_total "$LIVE_TMP/dump-bl-$k" nvme0n1)" = $M ] ||
			fail "$k: biolatency over the SIGUSR2 dump counts $(hist_total "$LIVE_TMP/dump-bl-$k" nvme0n1) reads on nvme0n1, expected $M: $(cat "$LIVE_TMP/dump-$k")"
		[ "$(sed -n '/^-- biosnoop$/{n;p}' "$LIVE_TMP/dump-$k")" = $M ] ||
			fail "$k: biosnoop over the SIGUSR2 dump shows $(sed -n '/^-- biosnoop$/{n;p}' "$LIVE_TMP/dump-$k") 4 KiB reads of nvme0n1, expected $M"
		for p in ActiveState=active Result=success NRestarts=0; do
			[ "$(prop "$out" dump "${p%%=*}")" = "${p#*=}" ] || fail "$k: with the ring, $(section "$out" dump | grep "^${p%%=*}="), expected $p"
		done
		dump="$M fio reads counted by the scrape, and by biolatency and biosnoop over the SIGUSR2 dump"
	fi
	section "$out" stop >"$LIVE_TMP/stop-$k"
	grep -qx 'tracefs: as found' "$LIVE_TMP/stop-$k" || fail "$k: systemctl stop left tracefs changed: $(cat "$LIVE_TMP/stop-$k")"
	# SIGTERM ends the tracer as Ctrl-C does: it exits 0.
	for p in ActiveState=inactive Result=success NRestarts=0 ExecMainStatus=0; do
		[ "$(prop "$out" stop "${p%%=*}")" = "${p#*=}" ] || fail "$k: after the stop, $(grep "^${p%%=*}=" "$LIVE_TMP/stop-$k"), expected $p"
	done
	echo "ok: $k: $(grep -m1 '^perf_event_paranoid=' "$out"); iotap-exporter.service under systemd: nvme0n1=$N exact by the kernel and the scrape, no restart; $dump; stopped, tracefs as found"
done
