/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_REQTAB_H
#define IOTAP_REQTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * In-flight block requests keyed by (dev, sector). Two live requests may
 * share a key (a rewrite of the same sector queued behind the first): they
 * are kept in arrival order and a completion takes the oldest. Memory is
 * bounded: when full, or when an entry is older than max_age, the oldest
 * entry is evicted and counted.
 */
/* reqtab_insert clears each public field one by one (reqtab_clear): a new one is cleared there too. */
struct blkreq {
	uint32_t dev;
	uint64_t sector;
	uint64_t t_start;		/* submitter saw it (io_start / insert), 0 if not */
	uint64_t t_insert;		/* entered the I/O scheduler, 0 if not */
	uint64_t t_issue;		/* sent to the driver, 0 if not yet */
	uint64_t t_submit;		/* its submitter sent it (blk_io's t_submit), 0 if not seen */
	uint32_t pid;			/* submitter, when a start event saw it */
	uint32_t tid;			/* its thread */
	const char *cgroup;		/* its cgroup then (iotap_cgroup_of()), when seen */
	uint32_t bytes;
	uint32_t nr_sector;
	uint8_t op, flags;
	char comm[16];
	uint64_t user;			/* the tool's own tag (e.g. a stack id) */
	/* BT_STAGES: btt's view of the request */
	uint64_t t_queue;		/* its earliest bio's block_bio_queue, 0 if not seen */
	uint64_t t_getrq;		/* block_getrq: the request was allocated, 0 if not seen */
	uint64_t end;			/* sector after its last bio, while bios may join it */
	uint32_t bios;			/* bios it carries (0: not known, its getrq not seen) */
	uint16_t requeues;
	bool requeued;			/* back from the driver: may be inserted again */
	/* private */
	uint32_t hnext, prev, next;
	uint32_t bucket;
	uint32_t self;			/* its index in the pool */
	uint64_t born;
};

struct reqtab_stats {
	uint64_t inserted;
	uint64_t evicted_full;
	uint64_t evicted_age;
};

struct reqtab;

/*
 * reqtab_alloc - a table of at most max_entries requests, NULL with errno: EINVAL (max_entries
 * 0 or too large), ENOMEM
 */
struct reqtab *reqtab_alloc(size_t max_entries, uint64_t max_age_ns);
void reqtab_free(struct reqtab *t);
/*
 * reqtab_insert - add a request (after any that share its key), evicting the oldest to make
 * room: never NULL
 */
struct blkreq *reqtab_insert(struct reqtab *t, uint32_t dev, uint64_t sector, uint64_t now);
/* reqtab_find - the oldest in-flight request with this key, or NULL when none (no error) */
struct blkreq *reqtab_find(struct reqtab *t, uint32_t dev, uint64_t sector);
/* reqtab_find_next - the next younger request sharing r's key, or NULL when none (no error) */
struct blkreq *reqtab_find_next(struct reqtab *t, const struct blkreq *r);
void reqtab_remove(struct reqtab *t, struct blkreq *r);
/*
 * reqtab_rekey - r starts at sector from now on (a bio merged in front of it): found under
 * that key, after the requests already there, its age kept (cannot fail)
 */
void reqtab_rekey(struct reqtab *t, struct blkreq *r, uint64_t sector);
size_t reqtab_count(const struct reqtab *t);
const struct reqtab_stats *reqtab_stats(const struct reqtab *t);

#endif
