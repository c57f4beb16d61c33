#!/bin/bash
# proof.sh - tests/formats/reconstruct is shown right on kernels whose formats were captured:
# for each set in tests/data/formats from a Debian kernel, the generator runs over that
# kernel's own source (Debian's linux-source package of the version in the set's uname)
# and every captured format must come out identical, but for its ID line (the kernel
# numbers events in the order it registers them, which no definition says).
# Downloads go to a cache (IOTAP_FORMATS_CACHE, default /var/cache/iotap-formats) through
# a private apt configuration; only the files the generator reads are unpacked. Skips
# (77) when no captured kernel's source can be had from the archive or the cache; one that
# cannot is named.
# Usage: tests/formats/proof.sh [SET...]     (default: every Debian set)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data/formats
CACHE=${IOTAP_FORMATS_CACHE:-/var/cache/iotap-formats}
GEN=$HERE/reconstruct
TMP=$(mktemp -d)
trap 'rm -rf -- "$TMP"' EXIT
APT_OPTS=() SRC=""

log() { echo "proof: $*"; }

# The URI of the host's Debian archive (SUFFIX '' or -security), from its apt sources.
host_archive_uri() {
    local f files=()
    for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do [[ -r $f ]] && files+=("$f"); done
    ((${#files[@]})) || return 0
    awk -v sfx="$1" '
        /^URIs:/ { uri = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ((sfx == "" && $i !~ /-/) || (sfx != "" && $i ~ sfx "$")) hit = 1 }
        /^[ \t]*$/ { if (hit && uri != "") { print uri; exit } uri = ""; hit = 0 }
        /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { u = $i; s = $(i + 1)
                  if ((sfx == "" && s !~ /-/) || (sfx != "" && s ~ sfx "$")) { print u; exit } } }
        END { if (hit && uri != "") print uri }' "${files[@]}" | head -n1
}

# A private apt configuration for bullseye and bookworm; the lists are fetched once a day.
apt_setup() {
    local d=$CACHE/apt main sec
    main=$(host_archive_uri '') sec=$(host_archive_uri -security)
    [[ -n $main ]] || return 1
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
    {
        local s
        for s in bullseye bookworm; do
            echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $main $s main"
            [[ -z $sec ]] || echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $sec $s-security main"
        done
    } >"$d/sources.list.new"
    APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o Dir::Cache::pkgcache=
        -o Dir::Cache::srcpkgcache=)
    if ! cmp -s "$d/sources.list.new" "$d/sources.list" ||
            [[ -z $(find "$d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 -print -quit) ]]; then
        mv -f "$d/sources.list.new" "$d/sources.list"
        apt-get -q "${APT_OPTS[@]}" update >"$d/update.log" 2>&1 || return 1
    fi
}

# Unpacks the generator's files of linux-source-SERIES VERSION into $SRC (the list's hash
# in its name: a generator that reads more files unpacks again).
fetch_source() {
    local series=$1 version=$2 dir=$SRC deb
    [[ -f $dir/.complete ]] && return 0
    ((${#APT_OPTS[@]})) || apt_setup || return 1
    mkdir -p "$CACHE/debs"
    deb=$CACHE/debs/linux-source-${series}_${version}_all.deb
    if [[ ! -s $deb ]]; then
        (cd "$TMP" && apt-get -q "${APT_OPTS[@]}" download "linux-source-$series=$version" \
            >"$TMP/download.log" 2>&1) || return 1
        mv "$TMP"/linux-source-"${series}"_*.deb "$deb"
    fi
    # Unpacked for an older file list: not read again.
    rm -rf "$dir" "$CACHE/src/$version"-* && mkdir -p "$dir"
    local pats=() p
    while read -r p; do pats+=("linux-source-$series/$p"); done < <("$GEN" --list)
    dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/linux-source-*.tar.xz' |
        tar -xJ -C "$dir" --strip-components=1 --ignore-failed-read --wildcards "${pats[@]}" \
            2>"$TMP/tar.log" || true
    [[ -f $dir/kernel/trace/trace_events.c ]] || return 1
    touch "$dir/.complete"
}

# Every format of a set, its ID masked, one after another with its path.
dump() {
    local f
    (cd "$1/events" && find . -name format | LC_ALL=C sort | while read -r f; do
        echo "== $f"; sed 's/^ID: .*/ID: -/' "$f"; done)
}

# Compares one captured set with what the generator makes from its kernel's source.
prove() {
    local set=$1 uname series version n
    # A reconstructed set (its SOURCE says from what) proves nothing about itself.
    [[ -f $DATA/$set/SOURCE ]] && return 3
    uname=$(cat "$DATA/$set/uname")
    [[ $uname =~ Debian\ ([0-9]+\.[0-9]+)\.([^ ]+) ]] ||
        { log "$set: not a Debian kernel, no source package to compare with"; return 3; }
    series=${BASH_REMATCH[1]} version=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
    SRC=$CACHE/src/$version-$("$GEN" --list | md5sum | cut -c1-8)
    if ! fetch_source "$series" "$version"; then
        log "$set: linux-source-$series $version is neither cached nor served by the archive"
        return 2
    fi
    rm -rf "$TMP/gen"
    "$GEN" "$SRC" "$TMP/gen" >/dev/null
    # Only the events the capture has: a module the VM did not load (ext4) has none.
    (cd "$TMP/gen/events" && find . -name format) | while read -r f; do
        [[ -f $DATA/$set/events/$f ]] || rm -rf "$TMP/gen/events/${f%/format}"
    done
    n=$(cd "$DATA/$set/events" && find . -name format | wc -l)
    if ! diff -u <(dump "$DATA/$set") <(dump "$TMP/gen") >"$TMP/diff"; then
        log "$set: reconstructed formats differ from the captured ones (linux-source-$series $version):"
        cat "$TMP/diff"
        return 1
    fi
    log "$set: $n formats identical to the capture but for ID (linux-source-$series $version)"
}

main() {
    local sets=("$@") s rc=0 ok=0 missed=0 r
    if ((${#sets[@]} == 0)); then
        for s in "$DATA"/*/; do s=${s%/}; sets+=("${s##*/}"); done
    fi
    for s in "${sets[@]}"; do
        r=0; prove "$s" || r=$?
        case $r in 0) ok=$((ok + 1)) ;; 1) rc=1 ;; 2) missed=$((missed + 1)) ;; esac
    done
    ((rc == 0 && ok == 0 && missed > 0)) && { log "SKIP: no kernel source could be had"; return 77; }
    return "$rc"
}

main "$@"
