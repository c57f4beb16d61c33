// SPDX-License-Identifier: GPL-2.0-or-later
/* reqtab.c - bounded in-flight request table for pairing block events */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reqtab.h"

#define NIL UINT32_MAX
/*
 * The pool grows a chunk at a time: 512 entries (60 KiB) that never move. Under 64 KiB a
 * chunk comes from the allocator's pools, not a mapping of its own (glibc, ASan): a short
 * session no longer maps, faults in and unmaps half a megabyte per table.
 */
#define CHUNK_SHIFT 9
#define CHUNK_SIZE (1u << CHUNK_SHIFT)
/* Buckets to start with; the table doubles them as it fills, so a few requests stay in cache. */
#define MIN_BUCKETS 1024u

/*
 * The pool is a list of chunks, each allocated when the entries ever handed
 * out (used) first reach it, so a table costs memory for what it held at
 * most, not for cap (2^20 entries of blktrack's would be 120 MiB: nothing in
 * a plain build until touched, but mapped, poisoned and unpoisoned at every
 * table under ASan); entries never move. Buckets grow with the count.
 *
 * Not the shared hashtab: chains of 4-byte pool indexes keep the buckets a
 * quarter the size of its 8-byte slots at half load, and a completion
 * unlinks in place where open addressing would shift the probe back.
 * Pairing through hashtab measured 8% slower with 32 requests in flight and
 * about 35% slower with 1024 and 65536, on every block request.
 */
struct reqtab {
	struct blkreq **chunks;		/* cap / CHUNK_SIZE (rounded up), allocated as used reaches them */
	uint32_t *buckets;
	uint32_t nr_buckets;		/* power of two */
	uint32_t cap;
	uint32_t used;			/* pool entries ever handed out */
	uint32_t count;
	uint32_t free_head;		/* free list through hnext */
	uint32_t oldest, newest;	/* age list through prev/next */
	uint64_t max_age;
	struct reqtab_stats st;
};

/* reqtab_ent - pool entry i */
static inline struct blkreq *reqtab_ent(const struct reqtab *t, uint32_t i)
{
	return &t->chunks[i >> CHUNK_SHIFT][i & (CHUNK_SIZE - 1)];
}

/* reqtab_hash - bucket of (dev, sector) */
static uint32_t reqtab_hash(const struct reqtab *t, uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (t->nr_buckets - 1);
}

/* reqtab_alloc - a table of at most max_entries requests; NULL with errno */
struct reqtab *reqtab_alloc(size_t max_entries, uint64_t max_age_ns)
{
	struct reqtab *t;

	if (max_entries < 1 || max_entries >= NIL) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = max_entries;
	t->nr_buckets = MIN_BUCKETS;
	t->chunks = calloc((t->cap + CHUNK_SIZE - 1) / CHUNK_SIZE, sizeof(*t->chunks));
	t->buckets = malloc(t->nr_buckets * sizeof(*t->buckets));
	/* The first chunk now: an insert then always has an entry, evicting if it must. */
	if (t->chunks)
		t->chunks[0] = malloc(CHUNK_SIZE * sizeof(**t->chunks));
	if (!t->chunks || !t->chunks[0] || !t->buckets) {
		reqtab_free(t);
		errno = ENOMEM;
		return NULL;
	}
	memset(t->buckets, 0xff, t->nr_buckets * sizeof(*t->buckets));
	t->free_head = NIL;
	t->oldest = t->newest = NIL;
	t->max_age = max_age_ns;
	return t;
}

/* reqtab_free - free the table; accepts NULL */
void reqtab_free(struct reqtab *t)
{
	if (!t)
		return;
	/* Chunks are made in order as entries are first used: the made ones are a prefix. */
	for (uint32_t c = 0; t->chunks && c < (t->cap + CHUNK_SIZE - 1) / CHUNK_SIZE && t->chunks[c];
	     c++)
		free(t->chunks[c]);
	free(t->chunks);
	free(t->buckets);
	free(t);
}

/* reqtab_unlink - take entry i out of its bucket chain and the age list */
static void reqtab_unlink(struct reqtab *t, uint32_t i)
{
	struct blkreq *r = reqtab_ent(t, i);
	uint32_t *pp = &t->buckets[r->bucket];

	while (*pp != i)
		pp = &reqtab_ent(t, *pp)->hnext;
	*pp = r->hnext;
	if (r->prev != NIL)
		reqtab_ent(t, r->prev)->next = r->next;
	else
		t->oldest = r->next;
	if (r->next != NIL)
		reqtab_ent(t, r->next)->prev = r->prev;
	else
		t->newest = r->prev;
	r->hnext = t->free_head;
	t->free_head = i;
	t->count--;
}

/* reqtab_grow - twice the buckets, entries rechained in age order (so equal keys keep theirs) */
static void reqtab_grow(struct reqtab *t)
{
	uint32_t n = t->nr_buckets * 2, *b = malloc(n * sizeof(*b)), *tail;

	/* Without memory the chains just get longer. */
	if (!b)
		return;
	tail = malloc(n * sizeof(*tail));
	if (!tail) {
		free(b);
		return;
	}
	memset(b, 0xff, n * sizeof(*b));
	free(t->buckets);
	t->buckets = b;
	t->nr_buckets = n;
	for (uint32_t i = t->oldest; i != NIL; i = reqtab_ent(t, i)->next) {
		struct blkreq *r = reqtab_ent(t, i);

		r->bucket = reqtab_hash(t, r->dev, r->sector);
		r->hnext = NIL;
		if (b[r->bucket] == NIL)
			b[r->bucket] = i;
		else
			reqtab_ent(t, tail[r->bucket])->hnext = i;
		tail[r->bucket] = i;
	}
	free(tail);
}

/*
 * reqtab_clear - every public field of r zero, one by one: a memset of the
 * whole entry is a rep stos, a fifth of an insert on every block request
 */
static void reqtab_clear(struct blkreq *r)
{
	r->t_start = r->t_insert = r->t_issue = r->t_submit = 0;
	r->pid = r->tid = 0;
	r->cgroup = NULL;
	r->bytes = r->nr_sector = 0;
	r->op = r->flags = 0;
	memset(r->comm, 0, sizeof(r->comm));
	r->user = 0;
	r->t_queue = r->t_getrq = r->end = 0;
	r->bios = 0;
	r->requeues = 0;
	r->requeued = false;
}

/* reqtab_insert - add a request (after any that share its key); evicts to make room */
struct blkreq *reqtab_insert(struct reqtab *t, uint32_t dev, uint64_t sector, uint64_t now)
{
	struct blkreq *r;
	uint32_t i, *pp;

	while (t->oldest != NIL && t->max_age && reqtab_ent(t, t->oldest)->born + t->max_age < now) {
		reqtab_unlink(t, t->oldest);
		t->st.evicted_age++;
	}
	if (t->free_head == NIL && t->used < t->cap && !(t->used & (CHUNK_SIZE - 1)) &&
	    !t->chunks[t->used >> CHUNK_SHIFT])
		t->chunks[t->used >> CHUNK_SHIFT] = malloc(CHUNK_SIZE * sizeof(**t->chunks));
	/* Full, or no memory for the next chunk: the oldest makes room (the first chunk is there). */
	if (t->free_head == NIL &&
	    (t->used == t->cap || !t->chunks[t->used >> CHUNK_SHIFT])) {
		reqtab_unlink(t, t->oldest);
		t->st.evicted_full++;
	}
	if (t->free_head != NIL) {
		i = t->free_head;
		t->free_head = reqtab_ent(t, i)->hnext;
	} else {
		i = t->used++;
	}
	if (t->count >= t->nr_buckets && t->nr_buckets < t->cap)
		reqtab_grow(t);
	r = reqtab_ent(t, i);
	reqtab_clear(r);
	r->dev = dev;
	r->sector = sector;
	r->born = now;
	r->self = i;
	r->bucket = reqtab_hash(t, dev, sector);
	r->hnext = NIL;
	/* Append to the chain so that the oldest of equal keys is found first. */
	pp = &t->buckets[r->bucket];
	while (*pp != NIL)
		pp = &reqtab_ent(t, *pp)->hnext;
	*pp = i;
	r->next = NIL;
	r->prev = t->newest;
	if (t->newest != NIL)
		reqtab_ent(t, t->newest)->next = i;
	else
		t->oldest = i;
	t->newest = i;
	t->count++;
	t->st.inserted++;
	return r;
}

/* reqtab_find - the oldest in-flight request with this key, or NULL */
struct blkreq *reqtab_find(struct reqtab *t, uint32_t dev, uint64_t sector)
{
	uint32_t i = t->buckets[reqtab_hash(t, dev, sector)];

	for (; i != NIL; i = reqtab_ent(t, i)->hnext)
		if (reqtab_ent(t, i)->dev == dev && reqtab_ent(t, i)->sector == sector)
			return reqtab_ent(t, i);
	return NULL;
}

/* reqtab_find_next - the next younger request sharing r's key, or NULL */
struct blkreq *reqtab_find_next(struct reqtab *t, const struct blkreq *r)
{
	uint32_t i = r->hnext;

	for (; i != NIL; i = reqtab_ent(t, i)->hnext)
		if (reqtab_ent(t, i)->dev == r->dev && reqtab_ent(t, i)->sector == r->sector)
			return reqtab_ent(t, i);
	return NULL;
}

/* reqtab_remove - forget a request returned by find or insert */
void reqtab_remove(struct reqtab *t, struct blkreq *r)
{
	reqtab_unlink(t, r->self);
}

/* reqtab_rekey - r now starts at sector: moved to that key's chain, its age kept */
void reqtab_rekey(struct reqtab *t, struct blkreq *r, uint64_t sector)
{
	uint32_t *pp = &t->buckets[r->bucket];

	while (*pp != r->self)
		pp = &reqtab_ent(t, *pp)->hnext;
	*pp = r->hnext;
	r->sector = sector;
	r->bucket = reqtab_hash(t, r->dev, sector);
	r->hnext = NIL;
	pp = &t->buckets[r->bucket];
	while (*pp != NIL)
		pp = &reqtab_ent(t, *pp)->hnext;
	*pp = r->self;
}

/* reqtab_count - requests in flight */
size_t reqtab_count(const struct reqtab *t)
{
	return t->count;
}

/* reqtab_stats - insert and eviction counters */
const struct reqtab_stats *reqtab_stats(const struct reqtab *t)
{
	return &t->st;
}
