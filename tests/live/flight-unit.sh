#!/bin/bash
# The flight recorder's systemd unit: systemd-analyze verify accepts it, its man pages included.
. "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (package systemd)"
[ -f systemd/iotap-flight-recorder.service ] || skip "the unit is not built here"

# The unit as installed, its ExecStart pointing at this build, and the man pages it names.
sed "s|^ExecStart=[^ ]*/iotap |ExecStart=$IOTAP |" systemd/iotap-flight-recorder.service \
	>"$LIVE_TMP/iotap-flight-recorder.service"
mkdir -p "$LIVE_TMP/man/man8" "$LIVE_TMP/man/man5"
cp doc/iotap-record.8 "$LIVE_TMP/man/man8/"
cp "${IOTAP_SRCDIR:-$(dirname "$0")/../..}/doc/iotap-recording.5" "$LIVE_TMP/man/man5/"
MANPATH=$LIVE_TMP/man systemd-analyze verify "$LIVE_TMP/iotap-flight-recorder.service" \
	>"$LIVE_TMP/out" 2>&1 || fail "systemd-analyze verify: $(cat "$LIVE_TMP/out")"
[ ! -s "$LIVE_TMP/out" ] || fail "systemd-analyze verify said: $(cat "$LIVE_TMP/out")"
grep -q "^EnvironmentFile=-/etc/default/iotap-flight-recorder$" "$LIVE_TMP/iotap-flight-recorder.service" ||
	fail "the unit does not read /etc/default/iotap-flight-recorder"
echo "ok: systemd-analyze verify accepts iotap-flight-recorder.service"
