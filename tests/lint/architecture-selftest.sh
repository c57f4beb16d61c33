#!/bin/bash
# architecture-selftest.sh - the picture check fails on a .dot that names a folder or a file
# the tree lacks, or that leaves a layer out, on one with no folder node at all, and on a
# page (or a section of one) that names a path the tree lacks; it passes a picture of a
# small tree, and the real one, and fails the real picture or page with a folder or a file
# renamed in it.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(python3 "$SRC/tests/lint/architecture.py")
T=$(mktemp -d /tmp/iotap-architecture.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# A tree of two layers, one file each, and its order.
mkdir -p "$T/tree/low" "$T/tree/mid"
: >"$T/tree/low/ring.c"
: >"$T/tree/mid/session.c"
printf '# bottom up\nlow\t# the ring\nmid\n' >"$T/tree/order"
TREE=(--srcdir "$T/tree" --order "$T/tree/order")

# dot NAME LOW-LABEL MID-LABEL - a picture of a kernel and two code nodes
dot() {
	cat >"$T/$1.dot" <<-DOT
	// A comment naming gone/ is no node: label="gone/\lx.c\l"
	digraph t {
		kernel [shape=cylinder, label="kernel\nthe ring buffer"];
		a [label="$2"];
		b [label="$3"];
		kernel -> a -> b;
	}
	DOT
}

dot good 'low/\lring.c: the reader\l' 'mid/\lsession.c: dispatch; low/ring.c under it\l'
expect 0 '^ok: 2 nodes name 2 folders and 3 files' "a picture of the tree passes" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/good.dot"
dot folder 'low/\lring.c\l' 'core/\lsession.c\l'
expect 1 'names folder core/, which is not in the tree' "a folder the tree lacks fails" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/folder.dot"
expect 1 'layer mid/ of order is in no node' "a layer no node names fails" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/folder.dot"
dot file 'low/\lring.c, merge.c: read, merged\l' 'mid/\lsession.c\l'
expect 1 'node low/ names merge.c, which is not in the tree (low/merge.c)' \
	"a file the folder lacks fails" "${CHECK[@]}" "${TREE[@]}" --dot "$T/file.dot"
dot path 'low/\lring.c\l' 'mid/\lsession.c over mid/ring.c\l'
expect 1 'node mid/ names mid/ring.c, which is not in the tree (mid/ring.c)' \
	"a file named from the top that is not there fails" "${CHECK[@]}" "${TREE[@]}" \
	--dot "$T/path.dot"
dot outside '../low/\lring.c\l' 'mid/\lsession.c\l'
expect 1 'folder ../low/ is not inside the tree' "a folder outside the tree fails" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/outside.dot"
dot none 'low\nring.c' 'mid\nsession.c'
expect 1 "no node's label starts with a folder ending in '/'" "a picture without folders fails" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/none.dot"
expect 1 'cannot read' "a missing picture fails" "${CHECK[@]}" "${TREE[@]}" --dot "$T/absent.dot"

# The page: its paths under a layer's top folder are checked, others not; the whole page,
# or with --section one section of it.
printf '# t\n## Architecture\nlow/ring.c and mid/, text/plain.\n```\n low/ring.c --> mid/\n```\n## Next\nlow/ring.c\n' \
	>"$T/page.md"
expect 0 '; 5 paths of page.md too' "a page naming paths of the tree passes" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/good.dot" --page "$T/page.md"
expect 0 '; 4 paths of page.md too' "a section naming paths of the tree passes" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/good.dot" --page "$T/page.md" --section Architecture
sed -i 's|--> mid/|--> mid/merge.c|' "$T/page.md"
expect 1 "page.md:5: '## Architecture' names mid/merge.c, which is not in the tree" \
	"a section naming a path the tree lacks fails" "${CHECK[@]}" "${TREE[@]}" \
	--dot "$T/good.dot" --page "$T/page.md" --section Architecture
sed -i 's|^low/ring.c$|low/gone.c|' "$T/page.md"
expect 1 "page.md:8: names low/gone.c, which is not in the tree" \
	"a page naming a path the tree lacks past the section fails" "${CHECK[@]}" "${TREE[@]}" \
	--dot "$T/good.dot" --page "$T/page.md"
expect 1 "page.md has no section '## Layers'" "a page without the section fails" \
	"${CHECK[@]}" "${TREE[@]}" --dot "$T/good.dot" --page "$T/page.md" --section Layers

# The real picture: it passes, and with a layer's folder renamed in it, it names a folder the
# tree lacks and leaves the layer out.
expect 0 '^ok:' "the real picture passes" bash "$SRC/tests/lint/architecture.sh"
sed 's|src/tracking/|src/pairing/|g' "$SRC/doc/architecture.dot" >"$T/renamed.dot"
expect 1 'names folder src/pairing/, which is not in the tree' \
	"the real picture with a folder renamed fails" bash "$SRC/tests/lint/architecture.sh" \
	"$T/renamed.dot"
expect 1 'layer src/tracking/ of layers.order is in no node' \
	"the real picture without a layer fails" bash "$SRC/tests/lint/architecture.sh" \
	"$T/renamed.dot"
sed 's|reqtab\.c|inflight.c|' "$SRC/doc/architecture.dot" >"$T/file-renamed.dot"
expect 1 'node src/tracking/ names inflight.c' "the real picture with a file renamed fails" \
	bash "$SRC/tests/lint/architecture.sh" "$T/file-renamed.dot"
sed 's|src/tracking/blktrack\.c|src/tracking/blkpair.c|' "$SRC/doc/architecture.md" \
	>"$T/architecture-renamed.md"
expect 1 'names src/tracking/blkpair.c, which is not in the tree' \
	"the real page with a file renamed in it fails" \
	bash "$SRC/tests/lint/architecture.sh" "$SRC/doc/architecture.dot" "$T/architecture-renamed.md"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the picture check fails on folders, files and layers the picture and tree disagree on"
