#!/bin/bash
# readme-selftest.sh - the docs' check fails on a link to a file the tree lacks, on an
# anchor no heading has, on a link out of the tree, on a doc page the README does not link
# or Makefile.am does not distribute, and on a set-up section past the first screen, without
# commands, or quoting a command that is missing, not executable or no path; it passes a
# small tree whose only dead links are in code, and the real one, and fails the real
# README with a link or a set-up command broken.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(python3 "$SRC/tests/lint/readme.py")
T=$(mktemp -d /tmp/iotap-readme.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# tree - a README, two doc pages, a picture, two set-up scripts and the Makefile.am
# that distributes the pages, in $T/tree (made afresh)
tree() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree/doc" "$T/tree/scripts"
	printf '#!/bin/sh\n' >"$T/tree/scripts/demo.sh"
	printf '#!/bin/sh\n' >"$T/tree/scripts/test.sh"
	chmod +x "$T/tree/scripts/demo.sh" "$T/tree/scripts/test.sh"
	: >"$T/tree/doc/pic.png"
	printf 'DOC_PAGES = doc/a.md \\\n\tdoc/b.md\n' >"$T/tree/Makefile.am"
	cat >"$T/tree/README.md" <<-'MD'
	# t

	## Set up (as root)

	    ./scripts/demo.sh

	and

	    ./scripts/test.sh

	## More
	[a](doc/a.md), [its part](doc/a.md#one-part), [b](doc/b.md#two-words-here-1),
	![a picture](doc/pic.png), [the top](#set-up-as-root), [web](https://example.org/x).
	MD
	cat >"$T/tree/doc/a.md" <<-'MD'
	# A
	## One part
	Back to the [README](../README.md#more); `[in a span](gone.md)` is no link.

	```
	[in a block](gone.md)
	```

	    [indented](gone.md)
	MD
	cat >"$T/tree/doc/b.md" <<-'MD'
	# B
	## Two words: here
	## Two words: here
	[a](a.md#a)
	MD
}
run() { "${CHECK[@]}" --srcdir "$T/tree" "$@"; }

tree
expect 0 '^ok: 7 relative links of README.md and 2 doc pages resolve (5 with an anchor); the 2 set-up' \
	"a tree whose dead links are all in code passes" run

# Links.
tree
sed -i 's|(doc/a.md)|(doc/c.md)|' "$T/tree/README.md"
expect 1 "README.md:12: link 'doc/c.md' does not resolve: no doc/c.md" \
	"a link to a file the tree lacks fails" run
tree
sed -i 's|#one-part|#one|' "$T/tree/README.md"
expect 1 "link 'doc/a.md#one': doc/a.md has no heading with the anchor #one" \
	"an anchor no heading has fails" run
tree
sed -i 's|#two-words-here-1|#two-words-here-2|' "$T/tree/README.md"
expect 1 'has no heading with the anchor #two-words-here-2' \
	"an anchor past a repeated heading's fails" run
tree
sed -i 's|#more|#set-up|' "$T/tree/doc/a.md"
expect 1 "doc/a.md:3: link '../README.md#set-up': README.md has no heading" \
	"a doc page's anchor into the README is checked" run
tree
echo '[out](../../etc/passwd)' >>"$T/tree/doc/b.md"
expect 1 "doc/b.md:5: link '../../etc/passwd' leaves the tree" "a link out of the tree fails" run
tree
printf '# C\n' >"$T/tree/doc/c.md"
expect 1 'README.md links to no doc/c.md' "a doc page the README does not link fails" run
expect 1 'Makefile.am does not distribute doc/c.md' \
	"a doc page Makefile.am does not list fails" run

# The set-up section.
tree
sed -i 's|./scripts/test.sh|./scripts/check.sh|' "$T/tree/README.md"
expect 1 "README.md:9: set-up command './scripts/check.sh': './scripts/check.sh' is not in the tree" \
	"a missing set-up command fails" run
tree
chmod -x "$T/tree/scripts/demo.sh"
expect 1 "'./scripts/demo.sh' is not executable" "a set-up script that is not executable fails" run
tree
printf 'echo hi\n' >"$T/tree/scripts/demo.sh"
expect 1 "'./scripts/demo.sh' is no script" "a set-up command without '#!' fails" run
tree
sed -i 's|    ./scripts/test.sh|    make check|' "$T/tree/README.md"
expect 1 "set-up command 'make check': 'make' is not a path to a script of the tree" \
	"a set-up command that is no script of the tree fails" run
expect 1 "'## Set up' is past the first screen (line 2)" \
	"a set-up section past the first screen fails" run --first-screen 2
tree
sed -i '/scripts/d' "$T/tree/README.md"
expect 1 "'## Set up' quotes no command" "a set-up section without commands fails" run
tree
sed -i 's|## Set up (as root)|## Install|' "$T/tree/README.md"
expect 1 "README.md has no '## Set up' section" "a README without set-up fails" run

# The real tree passes; its README with a page or a set-up script renamed fails.
expect 0 '^ok:' "the real README and doc pages pass" bash "$SRC/tests/lint/readme.sh"
sed 's|(doc/tools.md)|(doc/tool.md)|' "$SRC/README.md" >"$T/README-link.md"
expect 1 "link 'doc/tool.md' does not resolve" "the real README with a broken link fails" \
	bash "$SRC/tests/lint/readme.sh" "$T/README-link.md"
sed 's|\./scripts/test\.sh|./scripts/tests.sh|' "$SRC/README.md" >"$T/README-cmd.md"
expect 1 "'./scripts/tests.sh' is not in the tree" \
	"the real README with a missing set-up command fails" \
	bash "$SRC/tests/lint/readme.sh" "$T/README-cmd.md"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the docs' check fails on dead links and anchors, and on set-up commands the tree lacks"
