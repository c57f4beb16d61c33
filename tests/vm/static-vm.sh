#!/bin/bash
# VM tier: the one-file iotap (scripts/build.sh --static) on Debian 11's 5.10 kernel, in a guest
# that holds no shared library at all: that file and a static dio, nothing else but busybox.
# There it says what it leaves out, refuses a trace.dat in one line, counts exactly the direct
# reads dio made on the NVMe disk (biolatency -D), serves them to a scrape of the exporter
# (libmicrohttpd without gnutls; --web.config.file is refused in one line), and records them:
# the recording comes back through the console and the normal dynamic build reports the same
# here, byte for byte.
# The static binary is $IOTAP_STATIC when set, else scripts/build.sh --static builds (or
# brings up to date) build-static/ in the source tree; it skips only when the static
# libraries are missing (scripts/deps.sh static installs them; CI does).
. "$(dirname "$0")/../live/lib.sh"
[ "$(id -u)" = 0 ] || skip "VM tests need root for apt-get download of the kernel"
[ -x "${IOTAP_SRCDIR:-.}/tests/vm/vm-run" ] || skip "no vm-run"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
command -v file >/dev/null || skip "no file (apt-get install file)"

STATIC=${IOTAP_STATIC:-}
if [ -z "$STATIC" ]; then
	"$IOTAP_SRCDIR/scripts/build.sh" --static >"$LIVE_TMP/build.out" 2>&1 || {
		grep -q 'static libraries not found' "$LIVE_TMP/build.out" &&
			skip "$(grep -o 'static libraries not found.*' "$LIVE_TMP/build.out")"
		cat "$LIVE_TMP/build.out"
		fail "scripts/build.sh --static failed"
	}
	STATIC=$(tail -n1 "$LIVE_TMP/build.out")
fi
[ -x "$STATIC" ] || fail "no static iotap at $STATIC"
DIO=$IOTAP_PROGS/dio_static
[ -x "$DIO" ] || fail "no $DIO (make check builds it)"
# vm-run copies what ldd lists beside each --bin: for these two files, nothing.
for f in "$STATIC" "$DIO"; do
	file -L "$f" | grep -q 'statically linked' || fail "$f is not statically linked: $(file -L "$f")"
	ldd "$f" 2>&1 | grep -q 'not a dynamic executable' || fail "ldd lists libraries of $f: $(ldd "$f" 2>&1)"
done
TRACEDAT=$IOTAP_SRCDIR/tests/fuzz/corpus-tracedat/block-10-reads.dat
[ -f "$TRACEDAT" ] || fail "no $TRACEDAT"

N=300 M=200 E=100
cat >"$LIVE_TMP/guest.sh" <<GUEST
N=$N M=$M E=$E
GUEST
cat >>"$LIVE_TMP/guest.sh" <<'GUEST'
. /iotap/guest-lib.sh
echo "== libs"
find / -xdev \( -name '*.so' -o -name '*.so.*' \) 2>/dev/null
echo "== version"
iotap --version 2>&1
echo "rc=$?"
echo "== tracedat"
iotap report -i /iotap/files/block-10-reads.dat biolatency 2>&1
echo "rc=$?"
traced /tmp/bl.out biolatency -D
dio read /dev/nvme0n1 $N 4096 >/dev/null
untraced
echo "== biolatency"
cat /tmp/bl.out /tmp/bl.out.err
ip link set lo up
traced /tmp/ex.out exporter -l 127.0.0.1:10033 0.2
dio read /dev/nvme0n1 $E 4096 >/dev/null
sleep 1
wget -q -O /tmp/metrics http://127.0.0.1:10033/metrics
echo "wget rc=$?"
untraced
echo "== metrics"
grep nvme0n1 /tmp/metrics
echo "== webconfig"
echo 'basic_auth_users: {}' >/tmp/web.yml
iotap exporter -l 127.0.0.1:10034 --web.config.file /tmp/web.yml 2>&1
echo "rc=$?"
iotap record -o /tmp/x.iotap -- /usr/local/bin/dio read /dev/nvme0n1 $M 4096 >/dev/null 2>/tmp/rec.err
echo "== record rc=$?"
cat /tmp/rec.err
echo "== guest-report"
iotap report -i /tmp/x.iotap biolatency -D 2>&1
echo "== recording"
base64 /tmp/x.iotap
echo "== end"
GUEST

k=5.10
vm_boot $k --bin "$STATIC" --file "$DIO:/usr/local/bin/dio" \
	--file "$TRACEDAT" --disk nvme --timeout 150 -- "$LIVE_TMP/guest.sh"
out=$LIVE_TMP/vm-$k.out
[ -z "$(section "$out" libs)" ] || fail "$k: the guest has shared libraries: $(section "$out" libs)"
section "$out" version >"$LIVE_TMP/version"
grep -q '^iotap .*; static binary)$' "$LIVE_TMP/version" && grep -qx 'rc=0' "$LIVE_TMP/version" ||
	fail "$k: --version: $(cat "$LIVE_TMP/version")"
grep -qx 'trace.dat input: not built in (static binary)' "$LIVE_TMP/version" ||
	fail "$k: --version does not say trace.dat input is left out: $(cat "$LIVE_TMP/version")"
section "$out" tracedat >"$LIVE_TMP/tracedat"
[ "$(wc -l <"$LIVE_TMP/tracedat")" = 2 ] &&
	grep -q "^iotap biolatency: cannot read '/iotap/files/block-10-reads.dat': trace.dat input is not built into this iotap (static binary)$" "$LIVE_TMP/tracedat" &&
	! grep -qx 'rc=0' "$LIVE_TMP/tracedat" || fail "$k: a trace.dat: $(cat "$LIVE_TMP/tracedat")"
section "$out" biolatency >"$LIVE_TMP/bl"
[ "$(hist_total "$LIVE_TMP/bl" nvme0n1)" = $N ] ||
	fail "$k: biolatency -D counts $(hist_total "$LIVE_TMP/bl" nvme0n1) reads on nvme0n1, expected $N: $(cat "$LIVE_TMP/bl")"
grep -qx 'wget rc=0' "$out" || fail "$k: no scrape of the exporter: $(cat "$out")"
got=$(section "$out" metrics | awk '$1 == "iotap_block_request_latency_seconds_count{disk=\"nvme0n1\",op=\"read\"}" { print $2 }')
[ "$got" = $E ] || fail "$k: the exporter counts '$got' reads on nvme0n1, expected $E: $(section "$out" metrics)"
section "$out" webconfig >"$LIVE_TMP/webconfig"
[ "$(cat "$LIVE_TMP/webconfig")" = "iotap exporter: --web.config.file is not supported: this iotap is built without TLS
rc=2" ] || fail "$k: --web.config.file: $(cat "$LIVE_TMP/webconfig")"
grep -q '^== record rc=0$' "$out" || fail "$k: record failed: $(section "$out" record)"
section "$out" recording | base64 -d >"$LIVE_TMP/x.iotap" || fail "$k: recording not decoded"
"$IOTAP" report -i "$LIVE_TMP/x.iotap" biolatency -D >"$LIVE_TMP/host" 2>&1 || fail "$k: host report failed: $(cat "$LIVE_TMP/host")"
[ "$(hist_total "$LIVE_TMP/host" nvme0n1)" = $M ] ||
	fail "$k: the host reports $(hist_total "$LIVE_TMP/host" nvme0n1) reads of the recording on nvme0n1, expected $M: $(cat "$LIVE_TMP/host")"
section "$out" guest-report >"$LIVE_TMP/guest"
cmp -s "$LIVE_TMP/guest" "$LIVE_TMP/host" ||
	fail "$k: the recording reports differently here: $(diff "$LIVE_TMP/guest" "$LIVE_TMP/host")"
echo "ok: $k: $(stat -c %s "$STATIC") bytes, statically linked, alone in a guest without shared libraries: --version and a trace.dat say what it leaves out; biolatency -D nvme0n1=$N exact, the exporter's scrape $E exact, its --web.config.file refused in one line; its recording of $M reads reports the same with the dynamic build here"
