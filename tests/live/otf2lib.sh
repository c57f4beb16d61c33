# Shared functions of the OTF2 tests (sourced after lib.sh, or by tests/otf2.sh with its own
# fail and skip): an archive read back twice, by otf2-print and by python3-otf2
# (otf2read.py), and compared with what iotap report counts on the same input.

OTF2_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# otf2_tools - skip unless this iotap writes OTF2 and both readers are here; sets OTF2_PY
otf2_tools() {
	local p
	if "$IOTAP" --version | grep -q '^OTF2 output: not built in'; then
		skip "this iotap is built without OTF2 output ($("$IOTAP" --version | sed -n 's/^OTF2 output: not built in (\(.*\))$/\1/p'))"
	fi
	command -v otf2-print >/dev/null || skip "no otf2-print (apt-get install otf2-tools)"
	OTF2_PY=
	# python3-otf2 is Debian's module: a python3 of its own (pyenv) may not see it.
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import otf2' 2>/dev/null; then
			OTF2_PY=$p
			break
		fi
	done
	[ -n "$OTF2_PY" ] || skip "no python3 that imports otf2 (apt-get install python3-otf2)"
}

# otf2_print_counts DIR - the disk, file and files lines of otf2read.py from otf2-print's
# output, sorted; fails unless every location's events are in time order
otf2_print_counts() {
	otf2-print -G "$1/traces.otf2" >"$1.defs" || fail "otf2-print -G $1/traces.otf2 failed"
	otf2-print "$1/traces.otf2" >"$1.events" || fail "otf2-print $1/traces.otf2 failed"
	awk '
		# ref: the number of the first "<N>," field after "Handle:"; f: a field after a label
		function ref(   i) { for (i = 4; i <= NF; i++) if ($i ~ /^<[0-9]+>,$/) return substr($i, 2, length($i) - 3) }
		function after(label,   i) { for (i = 4; i < NF; i++) if ($i == label) return $(i + 1) + 0 }
		function word(label,   i, v) { for (i = 4; i < NF; i++) if ($i == label) { v = $(i + 1); sub(/,$/, "", v); return v } }
		# The completion before this line, counted now that its attributes are known.
		function settle() {
			if (pend == "") return
			if (!failed || disk[pend]) {
				n[pend, pmode]++
				b[pend, pmode] += pbytes
			}
			pend = ""
		}
		FNR == 1 { file++ }
		file == 1 && $1 == "IO_HANDLE" {
			s = $0
			sub(/^[^"]*Name: "/, "", s)
			sub(/" <[0-9]+>, File: .*$/, "", s)
			name[$2] = s
			disk[$2] = index($0, "I/O Paradigm: \"block layer I/O\"") > 0
			next
		}
		file == 1 { next }
		/ADDITIONAL ATTRIBUTES: .*"error"/ { failed = 1; next }
		$1 ~ /^IO_OPERATION_/ {
			settle()
			failed = 0
			if (($2 in last) && $3 < last[$2]) {
				print "location " $2 ": " $1 " at " $3 " after " last[$2] > "/dev/stderr"
				bad = 1
			}
			last[$2] = $3
			h = ref()
			key = $2 SUBSEP h SUBSEP word("Id:")
			if ($1 == "IO_OPERATION_BEGIN")
				mode[key] = word("Mode:")
			else if ($1 == "IO_OPERATION_COMPLETE") {
				pend = h; pmode = mode[key]; pbytes = after("Result:")
			}
		}
		END {
			settle()
			if (bad) exit 1
			for (h in name) {
				# A handle with nothing completed on it has no row in report.
				if (!(n[h, "READ"] + n[h, "WRITE"]))
					continue
				line = sprintf("%.0f %.0f %.0f %.0f", n[h, "READ"], b[h, "READ"], n[h, "WRITE"], b[h, "WRITE"])
				if (disk[h])
					print "disk " line " " name[h]
				else {
					t0 += n[h, "READ"]; t1 += b[h, "READ"]; t2 += n[h, "WRITE"]; t3 += b[h, "WRITE"]
					if (substr(name[h], 1, 1) == "/")
						print "file " line " " name[h]
				}
			}
			printf "files %.0f %.0f %.0f %.0f\n", t0, t1, t2, t3
		}' "$1.defs" "$1.events" >"$1.counts" || fail "otf2-print: a location's events are out of time order"
	LC_ALL=C sort "$1.counts"
}

# otf2_read DIR OUT - otf2read.py's view of the archive into OUT; fails when it finds it wrong
otf2_read() {
	"$OTF2_PY" "$OTF2_DIR/otf2read.py" "$1/traces.otf2" >"$2" 2>"$2.err" ||
		fail "otf2read.py: $(cat "$2.err")"
}

# otf2_report_counts INPUT OUT - the disk, file and files lines as iotap report counts INPUT
# (biosnoop -j, fileio --snoop), sorted, into OUT
otf2_report_counts() {
	"$IOTAP" report -i "$1" biosnoop -j >"$2.bio" 2>"$2.err" || fail "report biosnoop: $(cat "$2.err")"
	# No syscalls recorded: no calls (fileio refuses such a recording).
	"$IOTAP" report -i "$1" fileio --snoop >"$2.fio" 2>>"$2.err" || : >"$2.fio"
	"$OTF2_PY" "$OTF2_DIR/otf2read.py" --report "$2.bio" "$2.fio" | LC_ALL=C sort >"$2" ||
		fail "otf2read.py --report failed"
}

# otf2_compare INPUT DIR - the archive DIR of INPUT read both ways equals what report counts
otf2_compare() {
	local w=$2.cmp
	otf2_read "$2" "$w.py"
	grep -E '^(disk|file|files) ' "$w.py" | LC_ALL=C sort >"$w.py.counts"
	otf2_print_counts "$2" >"$w.print"
	otf2_report_counts "$1" "$w.report"
	cmp -s "$w.py.counts" "$w.print" ||
		fail "$1: otf2-print and python3-otf2 read different counts: $(diff "$w.py.counts" "$w.print")"
	cmp -s "$w.py.counts" "$w.report" ||
		fail "$1: the archive and iotap report count differently: $(diff "$w.py.counts" "$w.report")"
}
