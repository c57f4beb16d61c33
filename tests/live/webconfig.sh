#!/bin/bash
# exporter --web.config.file live: a real Prometheus scrapes `iotap exporter` over TLS with
# basic auth, and its stored counts equal a known workload and the kernel's own count in
# /sys/block/DEV/stat; a wrong password gets 401, plain HTTP to the TLS port a closed
# connection, client certificates are checked against the CA; 200 slow clients from other
# loopback addresses are each refused or closed while every scrape answers within a second
# and Prometheus' up stays 1; each bad configuration is one line and exit status 2, with
# nothing left in tracefs.
. "$(dirname "$0")/lib.sh"
require_root
command -v prometheus >/dev/null || skip "no prometheus: apt-get install prometheus (scripts/deps.sh test)"
command -v curl >/dev/null || skip "no curl"
command -v openssl >/dev/null || skip "no openssl: apt-get install openssl (scripts/deps.sh test)"
command -v htpasswd >/dev/null || skip "no htpasswd: apt-get install apache2-utils (scripts/deps.sh test)"

DEV=$(loop_create web 64)
D=$(basename "$DEV")
before=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)


# A CA, a server certificate it signs for 127.0.0.1, a client certificate it signs, and one
# it does not; then a password and its bcrypt hash from htpasswd.
W=$LIVE_TMP/web
mkdir -p "$W"
(
	cd "$W"
	key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
	key ca.key && openssl req -x509 -key ca.key -days 2 -subj /CN=iotap-test-ca -out ca.crt &&
	key server.key && openssl req -new -key server.key -subj /CN=127.0.0.1 -out server.csr &&
	echo "subjectAltName=IP:127.0.0.1" >san.cnf &&
	openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
		-extfile san.cnf -out server.crt 2>/dev/null &&
	key client.key && openssl req -new -key client.key -subj /CN=scraper -out client.csr &&
	openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
		-out client.crt 2>/dev/null &&
	key stranger.key && openssl req -x509 -key stranger.key -days 2 -subj /CN=stranger \
		-out stranger.crt
) >/dev/null || fail "openssl could not make the test certificates"
PASS=s3cret-$RANDOM
HASH=$(htpasswd -nbBC 10 prom "$PASS" | cut -d: -f2)
[[ $HASH == '$2y$10$'* ]] || fail "htpasswd made no bcrypt hash: $HASH"
# Relative paths: from the file's folder, wherever iotap runs.
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: %s\n' \
	"'$HASH'" >"$W/web.yml"

# refused NAME TEXT EXPECT - a configuration TEXT: exit 2, one line containing EXPECT,
# before tracing (no instance of its own left)
refused() {
	local rc=0 pid
	printf '%s' "$2" >"$W/$1.yml"
	"$IOTAP" exporter -l "127.0.0.1:$(free_port)" --web.config.file "$W/$1.yml" 1 \
		>"$LIVE_TMP/bad.out" 2>"$LIVE_TMP/bad.err" &
	pid=$!
	LIVE_PIDS="$LIVE_PIDS $pid"
	wait $pid || rc=$?
	# Another run's instance, reaped at start, is said in a line of its own.
	sed -i '/tracefs instances left by a killed iotap/d' "$LIVE_TMP/bad.err"
	[ $rc = 2 ] || fail "config $1: exit status $rc, expected 2: $(cat "$LIVE_TMP/bad.err")"
	[ "$(wc -l <"$LIVE_TMP/bad.err")" = 1 ] || fail "config $1: not one line: $(cat "$LIVE_TMP/bad.err")"
	grep -qF -- "$3" "$LIVE_TMP/bad.err" || fail "config $1: said '$(cat "$LIVE_TMP/bad.err")', expected '$3'"
	[ ! -s "$LIVE_TMP/bad.out" ] || fail "config $1: wrote to stdout"
	[ ! -e "$TRACEFS/instances/iotap_$pid" ] || fail "config $1: left iotap_$pid"
	echo "ok: config $1 refused: $(cat "$LIVE_TMP/bad.err")"
}
refused yaml $'tls_server_config:\n  cert_file: [server.crt\n' "not YAML"
refused unknown $'tls_server_config: {cert_file: server.crt, key_file: server.key, min_version: TLS13}\n' \
	"unknown or unsupported key 'min_version'"
refused nocert $'tls_server_config: {cert_file: missing.crt, key_file: server.key}\n' \
	"missing.crt: No such file or directory"
refused notcert $'tls_server_config: {cert_file: server.csr, key_file: server.key}\n' \
	"no PEM CERTIFICATE"
refused badhash $'basic_auth_users:\n  prom: plaintext\n' "user 'prom': not a bcrypt hash"
refused nokey $'tls_server_config: {cert_file: server.crt}\n' "missing key_file"
# A key that is not the certificate's: libmicrohttpd (GnuTLS) refuses it at start.
refused mismatch $'tls_server_config: {cert_file: server.crt, key_file: client.key}\n' \
	"cannot listen on"
rc=0
"$IOTAP" exporter -l "127.0.0.1:$(free_port)" --web.config.file "$W/none.yml" 1 \
	>/dev/null 2>"$LIVE_TMP/bad.err" || rc=$?
sed -i '/tracefs instances left by a killed iotap/d' "$LIVE_TMP/bad.err"
[ $rc = 2 ] && [ "$(cat "$LIVE_TMP/bad.err")" = \
	"iotap exporter: --web.config.file: $W/none.yml: No such file or directory" ] ||
	fail "missing config file: rc $rc: $(cat "$LIVE_TMP/bad.err")"
echo "ok: a missing file: $(cat "$LIVE_TMP/bad.err")"

EP=$(free_port)
URL=https://127.0.0.1:$EP/metrics
tracer_start "$LIVE_TMP/e.out" exporter -l "127.0.0.1:$EP" --web.config.file "$W/web.yml" 0.2
EXP_PID=$TRACER_PID
grep -q "serving metrics on https://127.0.0.1:$EP/metrics" "$LIVE_TMP/e.out.err" ||
	fail "no https in: $(cat "$LIVE_TMP/e.out.err")"

printf '%s\n' "global:" "  scrape_interval: 1s" "  scrape_timeout: 900ms" "scrape_configs:" \
	"  - job_name: iotap" "    scheme: https" "    tls_config:" "      ca_file: $W/ca.crt" \
	"    basic_auth:" "      username: prom" "      password: '$PASS'" "    static_configs:" \
	"      - targets: ['127.0.0.1:$EP']" >"$LIVE_TMP/prom.yml"
prom_start "$LIVE_TMP/prom.yml"

# query EXPR - EXPR's value now, from Prometheus ("" when it has none)
query() {
	python3 - "$PP" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": sys.argv[2]})
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], q)))
res = r["data"]["result"]
print(res[0]["value"][1] if res else "")
PY
}

# promql EXPR AFTER - EXPR's value once the sample it reads was scraped after AFTER (unix s)
promql() {
	local i ts
	for i in $(seq 1 75); do
		ts=$(query "timestamp($1)")
		if [ -n "$ts" ] && python3 -c 'import sys; sys.exit(float(sys.argv[1]) <= float(sys.argv[2]))' "$ts" "$2"; then
			query "$1"
			return 0
		fi
		sleep 0.2
	done
	echo "no sample of $1 scraped after $2"
	return 1
}

# reads - the disk's reads completed, as the kernel counts them
reads() {
	awk '{ print $1 }' "/sys/block/$D/stat"
}

# later - a time 0.3 s from now (unix s): samples scraped after it hold what came before
later() {
	python3 -c 'import time; print(time.time() + 0.3)'
}

# get ARGS... - curl over TLS trusting the test CA: "CODE TIME"
get() {
	curl -s -o "$LIVE_TMP/body" -D "$LIVE_TMP/headers" -w '%{http_code} %{time_total}' \
		--cacert "$W/ca.crt" -m 5 "$@" || true
}

# Exact counts through TLS and basic auth: Prometheus' samples equal the workload and the
# kernel's count of the same reads.
SEL="disk=\"$D\",op=\"read\""
c0=$(promql "iotap_block_request_latency_seconds_count{$SEL} or vector(0)" "$(later)") || fail "PromQL: $c0"
k0=$(reads)
N=900
dio read "$DEV" $N 4096 >/dev/null
k1=$(reads)
c1=$(promql "iotap_block_request_latency_seconds_count{$SEL}" "$(later)") || fail "PromQL: $c1"
[ $((k1 - k0)) = $N ] || fail "the kernel counted $((k1 - k0)) reads, the workload made $N"
[ $((c1 - c0)) = $N ] || fail "Prometheus stored $((c1 - c0)) reads over TLS, the kernel counted $N"
echo "ok: Prometheus over TLS with basic auth stores $N reads, as /sys/block/$D/stat counts"

# Who is let in.
r=$(get -u "prom:$PASS" "$URL")
[ "${r% *}" = 200 ] && grep -q '^iotap_build_info' "$LIVE_TMP/body" || fail "right password: $r"
r=$(get -u "prom:wrong" "$URL")
[ "${r% *}" = 401 ] || fail "wrong password: $r"
grep -qi '^WWW-Authenticate: Basic realm="iotap exporter"' "$LIVE_TMP/headers" ||
	fail "401 without WWW-Authenticate: $(cat "$LIVE_TMP/headers")"
! grep -q iotap_ "$LIVE_TMP/body" || fail "a wrong password got metrics"
r=$(get "$URL")
[ "${r% *}" = 401 ] || fail "no password: $r"
r=$(get -u "nobody:$PASS" "$URL")
[ "${r% *}" = 401 ] || fail "unknown user: $r"
r=$(get -u "prom:$PASS" "https://127.0.0.1:$EP/")
[ "${r% *}" = 200 ] || fail "index: $r"
rc=0
out=$(curl -s -m 5 -w '%{http_code}' -o /dev/null "http://127.0.0.1:$EP/metrics") || rc=$?
[ $rc != 0 ] && [ "$out" = 000 ] || fail "plain HTTP to the TLS port: curl $rc, status $out"
echo "ok: right password 200; wrong, none and unknown user 401 with WWW-Authenticate; plain HTTP closed (curl $rc)"

# 200 slow clients from four other loopback addresses, for 8 s: each connection refused
# or closed within 5 s; meanwhile every scrape answers within a second, and Prometheus
# (from 127.0.0.1, as this test's scrapes) never misses one.
t0=$(date +%s.%N)
python3 "$(dirname "$0")/slowclients.py" 127.0.0.1 "$EP" 200 8 \
	127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 --tls >"$LIVE_TMP/slow.out" 2>&1 &
SLOW=$!
LIVE_PIDS="$LIVE_PIDS $SLOW"
: >"$LIVE_TMP/times"
sleep 1
while kill -0 $SLOW 2>/dev/null; do
	get -u "prom:$PASS" "$URL" >>"$LIVE_TMP/times"
	echo >>"$LIVE_TMP/times"
	sleep 0.2
done
rc=0
wait $SLOW || rc=$?
cat "$LIVE_TMP/slow.out"
bad=$(awk '$1 != 200 || $2 >= 1' "$LIVE_TMP/times" | wc -l)
[ $rc = 0 ] && [ "$bad" = 0 ] || fail "$(cat "$LIVE_TMP/slow.out"); $bad of" \
	"$(wc -l <"$LIVE_TMP/times") scrapes meanwhile failed or took 1 s or more"
n=$(wc -l <"$LIVE_TMP/times")
[ "$n" -ge 10 ] || fail "only $n scrapes during the slow clients"
slowest=$(sort -k2 -g "$LIVE_TMP/times" | tail -1 | cut -d' ' -f2)
t1=$(date +%s.%N)
sleep 1.5
span=$(python3 -c 'import sys; print(int(float(sys.argv[2]) - float(sys.argv[1])) + 2)' "$t0" "$t1")
up=$(query "min_over_time(up{job=\"iotap\"}[${span}s])")
ups=$(query "count_over_time(up{job=\"iotap\"}[${span}s])")
dur=$(query "max_over_time(scrape_duration_seconds{job=\"iotap\"}[${span}s])")
[ "$up" = 1 ] || fail "Prometheus' up fell to '$up' during the slow clients"
[ "${ups:-0}" -ge $((span - 3)) ] || fail "Prometheus scraped $ups times in ${span} s"
echo "ok: $n scrapes during 200 slow clients, all 200, slowest ${slowest} s; Prometheus up=1 over" \
	"$ups scrapes, slowest $dur s"
# Each connection the server closed as too slow is counted on the page.
closed=$(sed -n 's/.* \([0-9]*\) closed by the server.*/\1/p' "$LIVE_TMP/slow.out")
r=$(get -u "prom:$PASS" "$URL")
late=$(awk '$1 == "iotap_exporter_http_slow_connections_closed_total" { print $2 }' "$LIVE_TMP/body")
[ -n "$closed" ] && [ -n "$late" ] && [ "$late" -ge "$closed" ] ||
	fail "iotap_exporter_http_slow_connections_closed_total is '$late', the clients saw $closed closed"
echo "ok: iotap_exporter_http_slow_connections_closed_total $late (the clients saw $closed closed)"

# The workload again after the storm: still exact.
k0=$(reads)
c0=$c1
M=300
dio read "$DEV" $M 65536 rand >/dev/null
k1=$(reads)
c1=$(promql "iotap_block_request_latency_seconds_count{$SEL}" "$(later)") || fail "PromQL: $c1"
[ $((k1 - k0)) = $M ] && [ $((c1 - c0)) = $M ] ||
	fail "after the slow clients: kernel $((k1 - k0)), Prometheus $((c1 - c0)), expected $M"
echo "ok: after the slow clients, Prometheus still stores exactly the $M reads the kernel counts"

kill $PROM_PID
wait $PROM_PID 2>/dev/null || true
TRACER_PID=$EXP_PID
tracer_stop TERM
[ ! -e "$TRACEFS/instances/iotap_$EXP_PID" ] || fail "the exporter left iotap_$EXP_PID"

# Client certificates: RequireAndVerifyClientCert lets in only a certificate the CA signed.
printf '%s\n' "tls_server_config:" "  cert_file: $W/server.crt" "  key_file: $W/server.key" \
	"  client_ca_file: ca.crt" "  client_auth_type: RequireAndVerifyClientCert" >"$W/mtls.yml"
EP=$(free_port)
URL=https://127.0.0.1:$EP/metrics
tracer_start "$LIVE_TMP/m.out" exporter -l "127.0.0.1:$EP" --web.config.file "$W/mtls.yml"
r=$(get --cert "$W/client.crt" --key "$W/client.key" "$URL")
[ "${r% *}" = 200 ] || fail "a client certificate the CA signed: $r"
r=$(get "$URL")
[ "${r% *}" = 403 ] || fail "no client certificate: $r"
r=$(get --cert "$W/stranger.crt" --key "$W/stranger.key" "$URL")
[ "${r% *}" = 403 ] || [ "${r% *}" = 000 ] || fail "a certificate the CA did not sign: $r"
echo "ok: RequireAndVerifyClientCert: the CA's client 200, none 403, a stranger's ${r% *}"
tracer_stop TERM

after=$(tracefs_snapshot | grep -v '^iotap_[0-9]*$' || true)
[ "$after" = "$before" ] || { diff <(echo "$before") <(echo "$after") >&2; fail "tracefs changed"; }
echo "ok: SIGTERM exits 0 and leaves tracefs as found"
