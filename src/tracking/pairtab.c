// SPDX-License-Identifier: GPL-2.0-or-later
/* pairtab.c - enter/exit pairing of traced functions per thread (pairtab.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "array.h"
#include "pairtab.h"

struct pairtab_ent {
	uint32_t tid;
	const void *key;
	uint64_t t;
};

/* Entries in no order: threads inside traced functions at one moment are few. */
struct pairtab {
	struct pairtab_ent *e;
	size_t nr, cap;
	struct pairtab_stats st;
};

/* pairtab_alloc - an empty table */
struct pairtab *pairtab_alloc(void)
{
	return calloc(1, sizeof(struct pairtab));
}

/* pairtab_free - free the table; accepts NULL */
void pairtab_free(struct pairtab *pt)
{
	if (!pt)
		return;
	free(pt->e);
	free(pt);
}

/* pairtab_take - remove the entry of tid and key, its time in *t; false if none is held */
static bool pairtab_take(struct pairtab *pt, uint32_t tid, const void *key, uint64_t *t)
{
	/* The newest first: the innermost entry is the one an exit closes. */
	for (size_t i = pt->nr; i-- > 0;) {
		if (pt->e[i].tid == tid && pt->e[i].key == key) {
			*t = pt->e[i].t;
			pt->e[i] = pt->e[--pt->nr];
			return true;
		}
	}
	return false;
}

/* pairtab_enter - tid entered key at t; an entry of the same tid and key it still held is counted */
int pairtab_enter(struct pairtab *pt, uint32_t tid, const void *key, uint64_t t)
{
	uint64_t old;

	if (pairtab_take(pt, tid, key, &old))
		pt->st.replaced++;
	if (array_reserve(&pt->e, &pt->cap, pt->nr + 1, sizeof(*pt->e), 64))
		return -ENOMEM;
	pt->e[pt->nr++] = (struct pairtab_ent){ .tid = tid, .key = key, .t = t };
	return 0;
}

/* pairtab_exit - tid left key: the time it entered, or -ENOENT (counted) */
int pairtab_exit(struct pairtab *pt, uint32_t tid, const void *key, uint64_t *t)
{
	if (!pairtab_take(pt, tid, key, t)) {
		pt->st.unmatched_exits++;
		return -ENOENT;
	}
	pt->st.paired++;
	return 0;
}

/* pairtab_pending - entries held */
size_t pairtab_pending(const struct pairtab *pt)
{
	return pt->nr;
}

/* pairtab_stats - what was paired, replaced, and exits without entries */
const struct pairtab_stats *pairtab_stats(const struct pairtab *pt)
{
	return &pt->st;
}
