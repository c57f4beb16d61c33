#!/bin/bash
# flood live: iotap's exporter beside Debian's node_exporter, in one run, under the same
# floods from the scraper's own address (127.0.0.1): 60 and 1,000 connections that send
# half a request, 1,000 that trickle one byte a second, and over TLS 1,000 handshakes never
# finished, each reconnected at once when the server closes it. Through every flood, every
# scrape from 127.0.0.1 is answered 200 within 1 s by both servers. iotap runs under
# systemd's default soft fd limit (1024), which it raises for its connections; and under a
# hard limit of 400 (room for 80 connections) the same 1,000 make it evict, the oldest
# without a whole head first, while the scrapes still pass and the evictions are counted on
# the page. The exporter's peak memory stays bounded; both servers' figures are printed.
. "$(dirname "$0")/lib.sh"
require_root
NODE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -n "$NODE" ] || skip "no node_exporter: apt-get install prometheus-node-exporter (scripts/deps.sh test)"
command -v openssl >/dev/null || skip "no openssl: apt-get install openssl (scripts/deps.sh test)"
command -v curl >/dev/null || skip "no curl"
FLOOD="python3 $(dirname "$0")/flood.py"
SECS=5
MAX_RSS_KIB=$((96 * 1024))
# Under AddressSanitizer freed memory waits in its quarantine (256 MiB by default): the bound
# is the plain build's, and the sanitizer build is run for its errors.
if grep -qa __asan_report "$IOTAP"; then
	MAX_RSS_KIB=
	echo "note: $IOTAP is built with AddressSanitizer: its peak memory is printed, not bounded"
fi
# An instance a killed run left is reaped at start: not ours to compare.
before=$(tracefs_snapshot | grep -v "^iotap_[0-9]*$" || true)

W=$LIVE_TMP/web
mkdir -p "$W"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/s.key" \
	-out "$W/s.crt" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	>/dev/null 2>&1 || fail "openssl could not make a test certificate"
# One web configuration, read by both servers (the exporter toolkit's format).
printf 'tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n' >"$W/web.yml"

# serve NAME SCHEME CMD... - start a server in the background under systemd's default soft
# fd limit, @PORT@ in CMD its port; sets PORT_NAME and PID_NAME; waits until it answers
serve() {
	local name=$1 scheme=$2 port pid i
	shift 2
	port=$(free_port)
	(ulimit -Sn 1024 && exec "${@//@PORT@/$port}" >"$LIVE_TMP/$name.out" 2>&1) &
	pid=$!
	LIVE_PIDS="$LIVE_PIDS $pid"
	printf -v "PORT_$name" %s "$port"
	printf -v "PID_$name" %s "$pid"
	for i in $(seq 1 100); do
		curl -skf -m 1 -o /dev/null "$scheme://127.0.0.1:$port/metrics" && return 0
		kill -0 $pid 2>/dev/null || fail "$name exited early: $(cat "$LIVE_TMP/$name.out")"
		sleep 0.1
	done
	fail "$name did not answer on $port: $(cat "$LIVE_TMP/$name.out")"
}

# stop NAME - SIGTERM, and the exit status 0
stop() {
	local pid=PID_$1 rc=0
	kill -TERM "${!pid}"
	wait "${!pid}" || rc=$?
	# Go's servers exit 143 on SIGTERM; iotap's exporter ends cleanly with 0.
	[ $rc = 0 ] || [ "$1" = node ] || fail "$1 exited $rc after SIGTERM: $(cat "$LIVE_TMP/$1.out")"
}

# flood NAME ARGS... - one flood (flood.py's MODE N [--tls]) beside scrapes of NAME's
# server; every scrape 200 within 1 s; iotap's peak resident memory bounded
flood() {
	local name=$1 port=PORT_$1 pid=PID_$1 out rss
	shift
	out=$($FLOOD 127.0.0.1 "${!port}" "$1" "$2" $SECS "${@:3}" --pid "${!pid}") ||
		fail "$name, flood $*: $out"
	echo "ok: $name: $out"
	rss=$(sed -n 's/.*peak rss \([0-9]*\) KiB.*/\1/p' <<<"$out")
	[ "$name" != iotap ] || [ -z "$MAX_RSS_KIB" ] || [ "$rss" -lt "$MAX_RSS_KIB" ] ||
		fail "iotap's exporter grew to $rss KiB under the flood (bound $MAX_RSS_KIB)"
}

# page NAME SERIES - one series' value from a scrape of iotap's exporter
page() {
	local port=PORT_$1
	curl -skf -m 5 "$2://127.0.0.1:${!port}/metrics" | awk -v s="$3" '$1 == s { print $2 }'
}

NODE_ARGS=(--collector.disable-defaults --collector.diskstats)
serve iotap http "$IOTAP" exporter -l 127.0.0.1:@PORT@
serve node http "$NODE" --web.listen-address=127.0.0.1:@PORT@ "${NODE_ARGS[@]}"
for f in "half 60" "half 1000" "trickle 1000"; do
	# shellcheck disable=SC2086
	flood iotap $f
	# shellcheck disable=SC2086
	flood node $f
done
[ "$(page iotap http iotap_exporter_http_connections_evicted_total)" = 0 ] ||
	fail "iotap evicted connections with room for 1,000"
stop iotap
stop node

serve iotap https "$IOTAP" exporter -l 127.0.0.1:@PORT@ --web.config.file "$W/web.yml"
serve node https "$NODE" --web.listen-address=127.0.0.1:@PORT@ "${NODE_ARGS[@]}" \
	--web.config.file="$W/web.yml"
flood iotap hello 1000 --tls
flood node hello 1000 --tls
[ "$(page iotap https iotap_exporter_http_connections_evicted_total)" = 0 ] ||
	fail "TLS: iotap evicted connections with room for 1,000"
# More than it holds (1,024): the oldest stuck handshakes make room, reconnected at once
# as fast as the flood can, and a scraper's handshake (milliseconds) still completes.
flood iotap hello 1500 --tls
flood node hello 1500 --tls
n=$(page iotap https iotap_exporter_http_connections_evicted_total)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "TLS: a full server evicted '$n' connections"
echo "ok: TLS, 1,500 stuck handshakes: $n evicted, every scrape answered"
stop iotap
stop node

# Room for 80 connections only (a hard fd limit of 400): the 1,000 make it evict, and the
# scrapes still pass, the scraper's head coming before 80 newer connections do.
serve iotap http prlimit --nofile=400:400 "$IOTAP" exporter -l 127.0.0.1:@PORT@
flood iotap half 1000
n=$(page iotap http iotap_exporter_http_connections_evicted_total)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "a full server evicted '$n' connections"
echo "ok: with room for 80 connections, $n evicted, every scrape answered"
stop iotap

[ "$(tracefs_snapshot)" = "$before" ] || fail "tracefs not as found after the exporters: $(tracefs_snapshot)"
echo "ok: tracefs as found"
