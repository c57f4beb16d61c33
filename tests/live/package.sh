#!/bin/bash
# The Debian packages: built from the distributed files (so the source tree is
# never configured or touched), lintian-clean of errors, working from an unpacked
# root (tool links, man pages, completion, --version, the dashboard, the Prometheus rules
# and their page); iotap installed for real beside libbpf-tools, bpfcc-tools and
# bpftrace, run, and removed; its systemd units verify.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "the package test needs root (apt-get -s, dpkg-buildpackage as CI runs it)"
for t in dpkg-buildpackage dh lintian man; do
	command -v $t >/dev/null || skip "no $t: run scripts/deps.sh test (debhelper, dpkg-dev, lintian, man-db)"
done
build=$(dirname "$IOTAP")
version=$("$IOTAP" --version | sed -n 's/^iotap \([^ ]*\) .*/\1/p')
[ -n "$version" ] || fail "iotap --version printed no version"
src=$LIVE_TMP/iotap-$version

make -s -C "$build" distdir distdir="$src" >/dev/null || fail "make distdir failed"
deb_version=$(cd "$src" && dpkg-parsechangelog -SVersion)
[ "${deb_version%-*}" = "$version" ] || fail "debian/changelog is at $deb_version, configure.ac at $version"
# Not make check's MAKEFLAGS: its TESTS=... would reach the package's own test run.
(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b) >"$LIVE_TMP/build.log" 2>&1 ||
	{ tail -30 "$LIVE_TMP/build.log" >&2; fail "dpkg-buildpackage failed"; }
deb=$LIVE_TMP/iotap_${deb_version}_amd64.deb
names=$LIVE_TMP/iotap-bcc-names_${deb_version}_all.deb
[ -f "$deb" ] || fail "no $deb after the build"
[ -f "$names" ] || fail "no $names after the build"

# Errors fail; accepted warnings are listed in doc/building.md.
lintian "$deb" "$names" >"$LIVE_TMP/lintian.out" 2>&1 || true
cat "$LIVE_TMP/lintian.out" >&2
grep -q '^E:' "$LIVE_TMP/lintian.out" && fail "lintian reports errors"

# apt resolves the library dependencies (simulated: the machine keeps its state).
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libtraceevent libtracefs libdw1 libelf1; do
	case "$depends" in *$lib*) ;; *) fail "Depends lacks $lib: $depends" ;; esac
done
apt-get -s install "$deb" >"$LIVE_TMP/apt.out" 2>&1 || { cat "$LIVE_TMP/apt.out" >&2; fail "apt-get cannot install $deb"; }
grep -q '^Inst iotap ' "$LIVE_TMP/apt.out" || grep -q 'iotap is already the newest' "$LIVE_TMP/apt.out" ||
	{ cat "$LIVE_TMP/apt.out" >&2; fail "apt-get would not install iotap"; }

# iotap ships no file that libbpf-tools, bpfcc-tools or bpftrace ship; the names package
# declares the one conflict its files make.
dpkg -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | sort >"$LIVE_TMP/iotap.files"
for p in libbpf-tools bpfcc-tools bpftrace; do
	dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q 'install ok installed' ||
		skip "$p is not installed: run scripts/deps.sh test"
	dpkg-query -L $p | sort >"$LIVE_TMP/$p.files"
	both=$(comm -12 "$LIVE_TMP/iotap.files" "$LIVE_TMP/$p.files" | while read -r f; do [ -d "$f" ] || echo "$f"; done)
	[ -z "$both" ] || fail "iotap ships files of $p: $both"
done
[ "$(dpkg-deb -f "$names" Conflicts)" = libbpf-tools ] || fail "iotap-bcc-names conflicts with: $(dpkg-deb -f "$names" Conflicts)"
! grep -q '^/usr/sbin' "$LIVE_TMP/iotap.files" || fail "iotap ships $(grep '^/usr/sbin' "$LIVE_TMP/iotap.files" | tr '\n' ' ')"

root=$LIVE_TMP/root
dpkg -x "$deb" "$root"
dpkg -x "$names" "$root"
cmp -s "$root/usr/share/iotap/grafana/iotap.json" "$src/contrib/grafana/iotap.json" ||
	fail "the package does not ship contrib/grafana/iotap.json as /usr/share/iotap/grafana/iotap.json"
for f in iotap-recording.yml iotap-alerts.yml; do
	cmp -s "$root/usr/share/iotap/prometheus/$f" "$src/contrib/prometheus/$f" ||
		fail "the package does not ship contrib/prometheus/$f as /usr/share/iotap/prometheus/$f"
done
[ -e "$root/usr/share/doc/iotap/doc/prometheus-rules.md" ] || [ -e "$root/usr/share/doc/iotap/doc/prometheus-rules.md.gz" ] ||
	fail "the package does not ship doc/prometheus-rules.md in /usr/share/doc/iotap/doc"
for t in biolatency biosnoop biotop bitesize biopattern biostacks; do
	[ "$(readlink "$root/usr/sbin/$t")" = ../bin/iotap ] || fail "/usr/sbin/$t is not a link to ../bin/iotap"
done
"$root/usr/sbin/biolatency" --help >"$LIVE_TMP/help" || fail "biolatency --help failed"
head -1 "$LIVE_TMP/help" | grep -q '^usage: iotap biolatency ' || fail "biolatency --help: $(head -1 "$LIVE_TMP/help")"
want="iotap $version (libtraceevent $(pkg-config --modversion libtraceevent), libtracefs $(pkg-config --modversion libtracefs), libtracecmd $(pkg-config --modversion libtracecmd), libprotobuf-c $(pkg-config --modversion libprotobuf-c), libotf2 $(pkg-config --modversion otf2))"
[ "$("$root/usr/bin/iotap" --version)" = "$want" ] || fail "--version: $("$root/usr/bin/iotap" --version), want $want"

man=$(MANPATH=$root/usr/share/man man -w iotap-biolatency) || fail "man -w iotap-biolatency found nothing"
[ "$man" = "$root/usr/share/man/man8/iotap-biolatency.8.gz" ] || fail "man -w iotap-biolatency: $man"
MANPATH=$root/usr/share/man man -w biolatency >/dev/null || fail "man -w biolatency found nothing"
MANWIDTH=200 MANPATH=$root/usr/share/man man iotap-biolatency 2>/dev/null | grep -q -- '--percentiles' ||
	fail "the installed man page lacks --percentiles"

# The completion comes from the option tables: a biolatency option, a choice list, a tool name.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _iotap; echo "${COMPREPLY[*]}"' \
		_ "$root/usr/share/bash-completion/completions/$1" "${@:2}"
}
[ "$(complete_words biolatency biolatency --perc)" = --percentiles ] || fail "no completion of biolatency --perc"
[ "$(complete_words iotap iotap biotop -s a)" = all ] || fail "no completion of biotop -s a"
[ "$(complete_words iotap iotap report -i x.rec bios)" = "biostages biosnoop biostacks" ] || fail "no completion of report ... bios"

# Installed for real beside the three (then removed): dpkg takes it, the tools run.
dpkg-query -W -f='${Status}' iotap 2>/dev/null | grep -q 'install ok installed' &&
	skip "iotap is installed on this machine already: the test would replace it"
units=$(grep -E '^/(usr/)?lib/systemd/system/iotap-.*\.service$' "$LIVE_TMP/iotap.files" || true)
# Each unit's options file comes with it, a conffile the administrator's edits survive.
for u in $units; do
	n=$(basename "$u" .service)
	grep -qx "/etc/default/$n" "$LIVE_TMP/iotap.files" || fail "$n.service ships without /etc/default/$n"
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles 2>/dev/null | grep -qx "/etc/default/$n" ||
		fail "/etc/default/$n is not a conffile"
done
# shellcheck disable=SC2064
trap 'dpkg-query -W -f="\${Status}" iotap 2>/dev/null | grep -q "install ok" &&
	apt-get -o DPkg::Lock::Timeout=900 purge -y -qq iotap >/dev/null 2>&1; live_cleanup' EXIT
apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$deb" >"$LIVE_TMP/apt.out" 2>&1 ||
	{ cat "$LIVE_TMP/apt.out" >&2; fail "apt-get install $deb beside libbpf-tools failed"; }
for p in libbpf-tools bpfcc-tools bpftrace; do
	dpkg-query -W -f='${Status}' $p | grep -q 'install ok installed' || fail "installing iotap removed $p"
done
[ "$(dpkg-query -S /usr/sbin/biolatency | cut -d: -f1)" = libbpf-tools ] || fail "/usr/sbin/biolatency: $(dpkg-query -S /usr/sbin/biolatency)"
/usr/bin/iotap biolatency --help >/dev/null || fail "the installed iotap biolatency --help failed"
[ "$(/usr/bin/iotap --version)" = "$want" ] || fail "installed --version: $(/usr/bin/iotap --version)"
for u in $units; do
	systemd-analyze verify "$u" >"$LIVE_TMP/verify.out" 2>&1 || { cat "$LIVE_TMP/verify.out" >&2; fail "systemd-analyze verify $u"; }
	[ "$(systemctl is-enabled "$(basename "$u")" 2>/dev/null)" != enabled ] || fail "$(basename "$u") is enabled on install"
done
# The names: one command, which takes libbpf-tools' place (simulated: libbpf-tools stays).
apt-get -s install "$names" >"$LIVE_TMP/names.out" 2>&1 || { cat "$LIVE_TMP/names.out" >&2; fail "apt-get cannot install $names"; }
grep -q '^Remv libbpf-tools' "$LIVE_TMP/names.out" && grep -q '^Inst iotap-bcc-names' "$LIVE_TMP/names.out" ||
	{ cat "$LIVE_TMP/names.out" >&2; fail "apt-get install iotap-bcc-names would not replace libbpf-tools"; }
apt-get -o DPkg::Lock::Timeout=900 purge -y -qq iotap >"$LIVE_TMP/apt.out" 2>&1 || { cat "$LIVE_TMP/apt.out" >&2; fail "apt-get purge iotap failed"; }
[ ! -e /usr/bin/iotap ] || fail "/usr/bin/iotap is left after purge"
echo "installed beside libbpf-tools, bpfcc-tools and bpftrace, ran, removed; units verified: ${units:-none}"
echo "package: $(basename "$deb") and $(basename "$names") build, installs and runs; lintian: $(grep -c '^W:' "$LIVE_TMP/lintian.out") warnings, 0 errors"
