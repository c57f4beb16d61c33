// SPDX-License-Identifier: GPL-2.0-or-later
/* cgstat.c - block I/O per cgroup and disk: io.stat's counts, requests and where they waited */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgname.h"
#include "cgstat.h"
#include "toptable.h"

struct cgstat {
	unsigned int depth, flags;
	size_t max_cgroups;
	struct toptable rows;		/* by (cgroup name, dev) */
	struct toptable names;		/* the folded names, each once: char * */
	struct toptable over;		/* names past the limit, counted as "other" */
	const char *last_in, *last_out;	/* the last name looked up: most events are its */
};

/* cgstat_row_cmp - rows by name (interned: one pointer each), then disk */
static int cgstat_row_cmp(const void *a, const void *b)
{
	const struct cgstat_row *x = a, *y = b;

	if (x->cgroup != y->cgroup)
		return (uintptr_t)x->cgroup < (uintptr_t)y->cgroup ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* cgstat_row_free - a row and its histogram */
static void cgstat_row_free(void *row)
{
	struct cgstat_row *r = row;

	hist_release(&r->lat);
	free(r);
}

/* cgstat_name_cmp - names by their text */
static int cgstat_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* cgstat_name_free - a name's cell */
static void cgstat_name_free(void *cell)
{
	free(*(char **)cell);
	free(cell);
}

/* cgstat_name_make - a cell holding a copy of the name */
static void *cgstat_name_make(const void *key, void *arg)
{
	char **cell = malloc(sizeof(*cell));

	(void)arg;
	if (!cell)
		return NULL;
	*cell = strdup(*(const char *const *)key);
	if (!*cell) {
		free(cell);
		return NULL;
	}
	return cell;
}

/* cgstat_create - see cgstat.h */
struct cgstat *cgstat_create(unsigned int depth, size_t max_cgroups, unsigned int flags)
{
	struct cgstat *cs = calloc(1, sizeof(*cs));

	if (!cs) {
		errno = ENOMEM;
		return NULL;
	}
	cs->depth = depth;
	cs->flags = flags;
	cs->max_cgroups = max_cgroups;
	cs->rows = (struct toptable)TOPTABLE_INIT(cgstat_row_cmp, cgstat_row_free);
	cs->names = (struct toptable)TOPTABLE_INIT(cgstat_name_cmp, cgstat_name_free);
	cs->over = (struct toptable)TOPTABLE_INIT(cgstat_name_cmp, cgstat_name_free);
	return cs;
}

/* cgstat_free - accepts NULL */
void cgstat_free(struct cgstat *cs)
{
	if (!cs)
		return;
	toptable_release(&cs->rows);
	toptable_release(&cs->names);
	toptable_release(&cs->over);
	free(cs);
}

/* cgstat_named - the names the table holds, "other" left out */
static size_t cgstat_named(const struct cgstat *cs)
{
	static const char *const other = CGSTAT_OTHER;

	return cs->names.nr - (toptable_find(&cs->names, &other) ? 1 : 0);
}

/* cgstat_name - the table's name for cgroup, folded ("?" unknown, "other" past the limit) */
static const char *cgstat_name(struct cgstat *cs, const char *cgroup)
{
	char folded[4096];
	const char *key = folded;
	char **cell;

	/* The tracker's strings are interned: one pointer per cgroup. */
	if (cgroup && cgroup == cs->last_in)
		return cs->last_out;
	cgname_fold(cgroup ? cgroup : "?", cs->depth, folded, sizeof(folded));
	cell = toptable_find(&cs->names, &key);
	/* Past the limit a new name is "other" (and remembered as one, to be counted once). */
	if (!cell && cs->max_cgroups && cgstat_named(cs) >= cs->max_cgroups) {
		if (!toptable_get(&cs->over, &key, cgstat_name_make, NULL))
			return NULL;
		key = CGSTAT_OTHER;
	}
	if (!cell)
		cell = toptable_get(&cs->names, &key, cgstat_name_make, NULL);
	if (!cell)
		return NULL;
	cs->last_in = cgroup;
	cs->last_out = *cell;
	return *cell;
}

/* cgstat_row_make - a zeroed row for the key */
static void *cgstat_row_make(const void *key, void *arg)
{
	struct cgstat_row *r = calloc(1, sizeof(*r));

	(void)arg;
	if (r) {
		r->cgroup = ((const struct cgstat_row *)key)->cgroup;
		r->dev = ((const struct cgstat_row *)key)->dev;
	}
	return r;
}

/* cgstat_row - the row of cgroup on dev, made on first use; NULL without memory */
static struct cgstat_row *cgstat_row(struct cgstat *cs, const char *cgroup, uint32_t dev)
{
	struct cgstat_row key = { .cgroup = cgstat_name(cs, cgroup), .dev = dev };

	if (!key.cgroup)
		return NULL;
	return toptable_get(&cs->rows, &key, cgstat_row_make, NULL);
}

/* cgstat_dir - see cgstat.h */
int cgstat_dir(uint8_t op)
{
	switch (op) {
	case BLOCK_OP_READ:
		return CGSTAT_READ;
	case BLOCK_OP_WRITE:
		return CGSTAT_WRITE;
	case BLOCK_OP_DISCARD:
	case BLOCK_OP_SECURE_ERASE:
		return CGSTAT_DISCARD;
	default:
		return -1;
	}
}

/* cgstat_bio - see cgstat.h */
int cgstat_bio(struct cgstat *cs, const struct block_rq *rq, const char *cgroup, bool split)
{
	int dir = cgstat_dir(rq->op);
	struct cgstat_row *r;

	if (dir < 0 || !rq->nr_sector)
		return 0;
	r = cgstat_row(cs, cgroup, rq->dev);
	if (!r)
		return -ENOMEM;
	r->ios[dir]++;
	/* A split piece's bytes were counted with the bio it came from. */
	if (!split)
		r->bytes[dir] += (uint64_t)rq->nr_sector * 512;
	return 0;
}

/* cgstat_request - see cgstat.h */
int cgstat_request(struct cgstat *cs, const struct blk_io *io)
{
	int dir = cgstat_dir(io->op);
	uint64_t w[BLK_WAITS], first = blk_io_first(io), us;
	struct cgstat_row *r;

	if (dir < 0)
		return 0;
	r = cgstat_row(cs, io->cgroup, io->dev);
	if (!r)
		return -ENOMEM;
	r->reqs[dir]++;
	r->req_bytes += io->bytes;
	blk_io_waits(io, w);
	for (int i = 0; i < BLK_WAITS; i++)
		r->wait[i] += w[i];
	us = first && io->t_done > first ? (io->t_done - first) / 1000 : 0;
	if (cs->flags & CGSTAT_BUCKETS) {
		hist_buckets_add(&r->lat_buckets, us);
		return 0;
	}
	return hist_add(&r->lat, us);
}

/* cgstat_dirty - see cgstat.h */
int cgstat_dirty(struct cgstat *cs, uint32_t dev, const char *cgroup, uint64_t ns)
{
	struct cgstat_row *r = cgstat_row(cs, cgroup, dev);

	if (!r)
		return -ENOMEM;
	r->dirty_ns += ns;
	return 0;
}

/* cgstat_rows - see cgstat.h */
struct cgstat_row *const *cgstat_rows(const struct cgstat *cs, size_t *nr)
{
	*nr = cs->rows.nr;
	return (struct cgstat_row *const *)cs->rows.rows;
}

/* cgstat_sort - see cgstat.h */
void cgstat_sort(struct cgstat *cs, uint64_t (*key)(const void *row, int how), int how)
{
	toptable_sort(&cs->rows, key, how);
}

/* cgstat_reset - see cgstat.h */
void cgstat_reset(struct cgstat *cs)
{
	toptable_reset(&cs->rows);
}

/* cgstat_folded_other - see cgstat.h */
uint64_t cgstat_folded_other(const struct cgstat *cs)
{
	return cs->over.nr;
}
