#!/bin/bash
# flags.sh - every flag of libbpf-tools' and BCC's block tools, as their users type them:
# accepted with the same meaning (the output equals iotap's own spelling's, over the
# checked-in recordings) or refused with one line that names iotap's spelling.
# Needs no root: tools run over recordings.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/..}" && pwd)
IOTAP=${IOTAP:-$PWD/iotap}
OUT=$(mktemp -d /tmp/iotap-flags.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
export TZ=UTC LC_ALL=C
ln -sf "$SRC/tests/golden/mixed.iotap" "$OUT/M"
ln -sf "$SRC/tests/golden/stacks.iotap" "$OUT/S"
ln -sf "$SRC/tests/data/recordings/cgroups-6.18.iotap" "$OUT/C"
ln -sf "$SRC/tests/golden/sysroot" "$OUT/sysroot"
fails=0 n=0

# run NAME ARGS... - iotap's stdout, stderr and exit status in $OUT/NAME
run() {
	local name=$1
	shift
	(cd "$OUT" && "$IOTAP" "$@" >"$name.out" 2>"$name.err"; echo $? >"$name.rc")
	cat "$OUT/$name.out" "$OUT/$name.err" "$OUT/$name.rc" >"$OUT/$name"
}

# TOOL | the peer's command line | iotap's spelling of it (same output), or !the refusal line.
# A row's input (-i) is added to both sides; "-" runs without one.
while IFS='|' read -r tool in peer ours; do
	tool=${tool// /}
	in=${in// /}
	case $tool in ''|'#'*) continue ;; esac
	n=$((n + 1))
	peer=$(sed 's/^ *//; s/ *$//' <<<"$peer")
	ours=$(sed 's/^ *//; s/ *$//' <<<"$ours")
	input=()
	[ "$in" = - ] || input=(-i "$in")
	eval "set -- $peer"
	run peer "$tool" "${input[@]}" "$@"
	if [ "${ours:0:1}" = '!' ]; then
		want="iotap $tool: ${ours:1}"
		if [ "$(cat "$OUT/peer.rc")" != 1 ] || [ "$(cat "$OUT/peer.err")" != "$want" ] ||
			[ -s "$OUT/peer.out" ]; then
			echo "FAIL: $tool $peer: expected exit 1 and '$want', got exit $(cat "$OUT/peer.rc"): $(head -c 300 "$OUT/peer.err")"
			fails=$((fails + 1))
		fi
		continue
	fi
	eval "set -- $ours"
	run ours "$tool" "${input[@]}" "$@"
	if [ "$(cat "$OUT/peer.rc")" != 0 ] || ! cmp -s "$OUT/peer" "$OUT/ours"; then
		echo "FAIL: $tool $peer: not the same as $tool $ours:"
		diff "$OUT/ours" "$OUT/peer" | head -8
		fails=$((fails + 1))
	fi
done <<'TABLE'
# libbpf-tools biolatency: -T -m -Q -D -F -d -v -c, long --flag; BCC adds -e -j and long --disks --flags
biolatency  | M | -T                         | --timestamp
biolatency  | M | --timestamp -m             | -T --milliseconds
biolatency  | M | -Q --queued                | --queued
biolatency  | M | -D                         | --disks
biolatency  | M | -F                         | --flags
biolatency  | M | --flag                     | -F
biolatency  | M | -d loop2                   | --disk loop2
biolatency  | M | -v                         | --verbose
biolatency  | M | --verbose -D               | --verbose --disks
biolatency  | C | -c /sys/fs/cgroup/unified/iotap-rec/a | --cgroup /iotap-rec/a
biolatency  | C | --cgroup /sys/fs/cgroup/unified/iotap-rec/b | --cgroup /iotap-rec/b
biolatency  | M | -e -j                      | --extension --json
biolatency  | M | -mT 1 2                    | -m -T 1 2
biolatency  | M | --ebpf                     | !--ebpf is not offered: BCC prints its BPF program; iotap loads none (it reads tracepoints)
# libbpf-tools biosnoop: -Q --queued -d -v -c -m --min -t [duration]; BCC: -Q --queue -d -P --pattern
biosnoop    | M | --queued                   | -Q
biosnoop    | M | --queue                    | -Q
biosnoop    | M | -d loop2 -t                | --disk loop2 --timestamp
biosnoop    | M | -m 1                       | --min 1
biosnoop    | M | -v                         | --verbose
biosnoop    | C | -c /sys/fs/cgroup/unified/iotap-rec/a | --cgroup /iotap-rec/a
biosnoop    | C | --cgroup /sys/fs/cgroup/unified/iotap-rec/b | --cgroup /iotap-rec/b
biosnoop    | M | -P                         | --pattern
biosnoop    | M | -c dio                     | !-c takes a cgroup path, as -c does in libbpf-tools ('dio' is none); for a command name, iotap spells it --comm dio
biosnoop    | M | --ebpf                     | !--ebpf is not offered: BCC prints its BPF program; iotap loads none (it reads tracepoints)
# libbpf-tools biotop: -C -s -r --rows -p -v [interval [count]]; BCC: -C -r --maxrows -p
biotop      | M | -C -r 2                    | --noclear --maxrows 2
biotop      | M | -C --rows 2                | -C -r 2
biotop      | M | -C -s io                   | -C --sort io
biotop      | M | -C -s all --rows 1         | -C --sort all --maxrows 1
biotop      | M | -C -s time                 | -C --sort time
biotop      | M | -C -s bytes                | -C --sort bytes
biotop      | M | -C -p 26617                | -C --pid 26617
biotop      | M | -C -v                      | -C --verbose
biotop      | M | --ebpf                     | !--ebpf is not offered: BCC prints its BPF program; iotap loads none (it reads tracepoints)
# libbpf-tools bitesize: -T -c COMM -d -v [interval [count]]
bitesize    | M | -T -c dio                  | --timestamp --comm dio
bitesize    | M | -d loop1 -v                | --disk loop1 --verbose
# libbpf-tools biopattern: -T -d -v [interval [count]]; BCC: -d
biopattern  | M | -T -d loop1                | --timestamp --disk loop1
biopattern  | M | -v                         | --verbose
biopattern  | M | --ebpf                     | !--ebpf is not offered: BCC prints its BPF program; iotap loads none (it reads tracepoints)
# libbpf-tools biostacks: -d -m -v [duration]
biostacks   | S | -d loop2 -m --symfs sysroot | --disk loop2 --milliseconds --symfs sysroot
biostacks   | S | -v --symfs sysroot         | --verbose --symfs sysroot
# argp's options on every libbpf-tools tool: -h -? --help --usage -V --version
biolatency  | - | -?                         | --help
biosnoop    | - | -h                         | --help
biotop      | - | -?                         | -h
bitesize    | - | --usage                    | --usage
biopattern  | - | -V                         | --version
biostacks   | - | --version                  | -V
TABLE

# -V is iotap's version; --usage the synopsis, one line, with the tool's own options.
run v biosnoop -V
[ "$(cat "$OUT/v.out")" = "$("$IOTAP" --version)" ] || { echo "FAIL: biosnoop -V: $(cat "$OUT/v.out")"; fails=$((fails + 1)); }
for t in biolatency biosnoop biotop bitesize biopattern biostacks; do
	run u "$t" --usage
	grep -qx "usage: iotap $t \[-hV\] .*\[-v\]\( \[interval \[count\]\]\| \[duration\]\)" "$OUT/u.out" &&
		[ "$(wc -l <"$OUT/u.out")" = 1 ] || { echo "FAIL: $t --usage: $(cat "$OUT/u.out")"; fails=$((fails + 1)); }
done
# The refused and aliased spellings change what they stand for: they are not no-ops.
run a biosnoop -i M
run b biosnoop -i M --queued
cmp -s "$OUT/a" "$OUT/b" && { echo "FAIL: biosnoop --queued printed what biosnoop prints"; fails=$((fails + 1)); }
run a biolatency -i C
run b biolatency -i C -c /sys/fs/cgroup/unified/iotap-rec/a
cmp -s "$OUT/a" "$OUT/b" && { echo "FAIL: biolatency -c CG printed what biolatency prints"; fails=$((fails + 1)); }
[ $fails = 0 ] || { echo "$fails of $n flag rows fail"; exit 1; }
echo "ok: $n libbpf-tools and BCC command lines accepted with iotap's meaning or refused by name"
