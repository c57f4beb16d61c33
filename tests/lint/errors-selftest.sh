#!/bin/bash
# errors-selftest.sh - the error-shape check fails on the old shapes, in small trees made
# here: a bare 'return -1;' for a failure, a pointer function with an int *err (on the
# prototype's first line or a later one), and passes -errno, NULL with errno, a
# comparator's -1, and a sentinel -1 its allow file names; it names a stale allowed line;
# and the real tree fails with the old shapes put back.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(bash "$SRC/tests/lint/errors.sh")
T=$(mktemp -d /tmp/iotap-errors.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# The convention: -errno, NULL with errno, a comparator's -1 (no error at all).
mkdir -p "$T/good/src/core" "$T/good/kernel"
cat >"$T/good/src/core/a.c" <<'EOF'
#include <errno.h>
#include <stdlib.h>
/* a_grow - 0 or -ENOMEM */
static int a_grow(void **p, size_t n)
{
	void *q = realloc(*p, n);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/* a_cmp - for qsort */
static int a_cmp(const void *x, const void *y)
{
	return *(const int *)x < *(const int *)y ? -1 : 1;
}
EOF
cat >"$T/good/kernel/b.h" <<'EOF'
/* b_open - NULL with errno set */
struct b *b_open(const char *path,
		 int flags);
EOF
: >"$T/none"
expect 0 '^ok:' "-errno, NULL with errno and a comparator pass" "${CHECK[@]}" --allow "$T/none" "$T/good"

# A failure as a bare -1: the errno is lost (cgroup.c's cg_path_id had four).
cp -r "$T/good" "$T/minus1"
cat >>"$T/minus1/src/core/a.c" <<'EOF'

/* a_intern - the index of a name; -1 when full */
static int a_intern(char **tab, size_t *nr, const char *name)
{
	if (*nr == 64)
		return -1;
	tab[*nr] = NULL;
	return (int)(*nr)++;
}
EOF
expect 1 "src/core/a.c:24: a_intern: 'return -1;'" "a bare 'return -1;' fails" \
	"${CHECK[@]}" --allow "$T/none" "$T/minus1"
echo 'src/core/a.c a_intern   # an index, -1: none' >"$T/allow-intern"
expect 0 '^ok: .* 1 allowed' "a sentinel -1 its allow file names passes" \
	"${CHECK[@]}" --allow "$T/allow-intern" "$T/minus1"
echo 'src/core/a.c a_grow   # why' >"$T/allow-grow"
expect 1 "a_intern: 'return -1;'" "allowing one function allows no other" \
	"${CHECK[@]}" --allow "$T/allow-grow" "$T/minus1"
expect 0 "note: .*'src/core/a.c a_intern' returns no -1" "a stale allowed line is named" \
	"${CHECK[@]}" --allow "$T/allow-intern" "$T/good"

# A pointer and an int *err (the recording reader's old rec_reader_open), in a header
# on the first line and on a continuation line, and in a definition.
cp -r "$T/good" "$T/interr"
cat >>"$T/interr/kernel/b.h" <<'EOF'
struct b *b_open_mem(const void *buf, size_t len, int *err);
struct b *b_prefetch(struct b *b, const void *data, size_t len,
		     const unsigned char **first, int *err);
EOF
cat >"$T/interr/kernel/b.c" <<'EOF'
static const struct hdr *b_rewrite(struct b *b, const struct hdr *h,
				   int *err)
{
	*err = 0;
	return h;
}
EOF
for want in "kernel/b.h:4: b_open_mem: an int \*err" "kernel/b.h:6: b_prefetch: an int \*err" \
	"kernel/b.c:2: b_rewrite: an int \*err"; do
	expect 1 "$want" "an int *err parameter fails (${want%%:*})" \
		"${CHECK[@]}" --allow "$T/none" "$T/interr"
done

# The real tree passes, and fails with an old shape put back in a copy of one folder.
expect 0 '^ok:' "the real tree passes" "${CHECK[@]}"
mkdir -p "$T/real/src"
cp -r "$SRC/src/recfile" "$SRC/src/core" "$T/real/src/"
chmod -R u+w "$T/real"	# distcheck's source tree is read-only, and so are copies of it
sed -i 's/^struct rec_reader \*rec_reader_open(const char \*path);/struct rec_reader *rec_reader_open(const char *path, int *err);/' \
	"$T/real/src/recfile/container.h"
sed -i '/^static int cg_path_id(/,/^}/s/return -ENOSPC;/return -1;/' "$T/real/src/core/cgroup.c"
expect 1 "src/recfile/container.h:[0-9]*: rec_reader_open: an int \*err" \
	"the real tree with rec_reader_open's int *err back fails" \
	"${CHECK[@]}" "$T/real"
expect 1 "src/core/cgroup.c:[0-9]*: cg_path_id: 'return -1;'" \
	"the real tree with cg_path_id's bare -1 back fails" "${CHECK[@]}" "$T/real"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the error-shape check fails on a bare -1 and on an int *err"
