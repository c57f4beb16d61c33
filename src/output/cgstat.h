/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGSTAT_H
#define IOTAP_CGSTAT_H

/*
 * Block I/O per cgroup and disk, counted as the kernel's own counters count
 * it, and where its requests' time went:
 * - bios and bytes as cgroup v2's io.stat counts them (rios, wios, dios and
 *   their bytes): each bio as it is queued, every split piece one more, its
 *   bytes once; charged to its sender (blktrack's on_bio), not to the
 *   throttle's worker that queues a held one;
 * - requests completed (diskstats' unit), their latency from their first
 *   event to completion, and their time by stage (enum blk_wait);
 * - dirty-page pauses of the cgroup's tasks on the disk.
 * Cgroups are folded into their ancestor at a depth, and past a limit of
 * distinct ones into "other" (counted), so that totals stay exact. The
 * table owns its rows and their names; a row lives until cgstat_reset.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blktrack.h"
#include "hist.h"

/* The name of the cgroups past the limit. */
#define CGSTAT_OTHER "other"

/* io.stat's three kinds: reads, writes, discards (a flush moves no data and is none). */
enum cgstat_dir { CGSTAT_READ, CGSTAT_WRITE, CGSTAT_DISCARD, CGSTAT_DIRS };

struct cgstat_row {
	const char *cgroup;		/* folded, the table's; "?" where unknown */
	uint32_t dev;
	uint64_t ios[CGSTAT_DIRS], bytes[CGSTAT_DIRS];	/* as io.stat */
	uint64_t reqs[CGSTAT_DIRS];	/* requests completed */
	uint64_t req_bytes;
	uint64_t wait[BLK_WAITS];	/* ns, over the requests completed */
	uint64_t dirty_ns;		/* dirty-page pauses */
	struct hist lat;		/* µs, first event to completion */
	struct hist_buckets lat_buckets;	/* CGSTAT_BUCKETS: the same, instead of lat */
};

/*
 * For a table whose latencies are published rather than shown (the exporter): log2
 * buckets alone (lat_buckets, as hist_buckets_add counts), with none of lat's
 * percentiles, cost per request and fine buckets' memory per row.
 */
#define CGSTAT_BUCKETS (1u << 0)

struct cgstat;

/*
 * cgstat_create - an empty table folding at depth (0: none) with at most max_cgroups
 * distinct names before "other" (0: no limit), flags CGSTAT_*: NULL with errno ENOMEM
 */
struct cgstat *cgstat_create(unsigned int depth, size_t max_cgroups, unsigned int flags);
void cgstat_free(struct cgstat *cs);

/* cgstat_bio - one bio queued (split: a split piece) of rq on its disk, sent from cgroup: 0 or -ENOMEM */
int cgstat_bio(struct cgstat *cs, const struct block_rq *rq, const char *cgroup, bool split);
/* cgstat_request - one completed request, charged to io->cgroup: 0 or -ENOMEM */
int cgstat_request(struct cgstat *cs, const struct blk_io *io);
/* cgstat_dirty - ns of a dirty-page pause of a task of cgroup, on disk dev: 0 or -ENOMEM */
int cgstat_dirty(struct cgstat *cs, uint32_t dev, const char *cgroup, uint64_t ns);

/* cgstat_rows - the rows, in the order they were made; *nr gets their count */
struct cgstat_row *const *cgstat_rows(const struct cgstat *cs, size_t *nr);
/* cgstat_sort - the rows by key(row), largest first (see toptable_sort) */
void cgstat_sort(struct cgstat *cs, uint64_t (*key)(const void *row, int how), int how);
/* cgstat_reset - every row dropped (an interval ends); names and the other count stay */
void cgstat_reset(struct cgstat *cs);
/* cgstat_folded_other - the cgroups counted as "other" so far */
uint64_t cgstat_folded_other(const struct cgstat *cs);
/* cgstat_dir - io.stat's kind of an operation (BLOCK_OP_*), -1 for none (a flush) */
int cgstat_dir(uint8_t op);

#endif
