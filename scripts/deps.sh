#!/bin/bash
# Install what iotap needs to build and test, when missing (Debian 12, as root).
# Usage: scripts/deps.sh [build|static|test]   (default: build)
#   static: also what scripts/build.sh --static links (the .a files the -dev packages of the
#           build set do not bring); test: everything, the static set too (tests/vm/static-vm.sh)
set -euo pipefail

build_pkgs=(gcc make autoconf automake pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev
	libelf-dev libdw-dev zlib1g-dev libmicrohttpd-dev libyaml-dev libcrypt-dev libgnutls28-dev
	libprotobuf-c-dev protobuf-c-compiler libopen-trace-format2-dev util-linux)
# libdw.a needs libbz2.a and liblzma.a; libc.a is in libc6-dev.
static_pkgs=(libc6-dev libbz2-dev liblzma-dev)
test_pkgs=(file libcmocka-dev clang python3 qemu-system-x86 busybox-static kmod cpio
	libxml2-utils fio chromium debhelper dpkg-dev lintian man-db prometheus python3-yaml
	prometheus-node-exporter curl mmdebstrap
	e2fsprogs xfsprogs trace-cmd systemd libbpf-tools bpfcc-tools bpftrace
	openssl apache2-utils golang-go otf2-tools python3-otf2)

want=("${build_pkgs[@]}")
case ${1:-build} in
	static) want+=("${static_pkgs[@]}") ;;
	test) want+=("${static_pkgs[@]}" "${test_pkgs[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Servers in the test set (prometheus, node_exporter) would start listening on every address
# as they install: the tests start their own, on loopback. policy-rc.d says no to that.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
