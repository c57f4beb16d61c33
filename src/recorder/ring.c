// SPDX-License-Identifier: GPL-2.0-or-later
/* ring.c - the flight recorder's last seconds of event chunks, bounded in time and bytes */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct ring_chunk {
	struct ring_chunk *next;
	atomic_uint refs;		/* the ring's, and each holder's */
	uint64_t t_first, t_last;
	size_t len, room;		/* room: data's allocated bytes */
	uint8_t data[];
};

struct ring {
	struct ring_chunk *head, *tail;	/* oldest first */
	size_t bytes, nr, cap;
	uint64_t keep_ns;
	bool cap_bound;
	/*
	 * The last chunk dropped that nobody held, kept for the next one: a full
	 * ring drops one as it adds one, and a fresh allocation of that size
	 * would be fresh pages, faulted in one by one on the event path.
	 */
	struct ring_chunk *spare;
};

/* ring_alloc - an empty ring */
struct ring *ring_alloc(uint64_t keep_ns, size_t cap)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->keep_ns = keep_ns;
	r->cap = cap;
	return r;
}

/* ring_chunk_put - one reference less; the last frees the chunk */
static void ring_chunk_put(struct ring_chunk *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		free(c);
}

/* ring_drop - forget the oldest chunk; unheld, it may become the spare */
static void ring_drop(struct ring *r)
{
	struct ring_chunk *c = r->head;

	r->head = c->next;
	if (!r->head)
		r->tail = NULL;
	r->bytes -= sizeof(*c) + c->len;
	r->nr--;
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (r->spare && r->spare->room >= c->room) {
		free(c);
		return;
	}
	free(r->spare);
	r->spare = c;
}

/* ring_free - every chunk, then the ring; accepts NULL */
void ring_free(struct ring *r)
{
	if (!r)
		return;
	while (r->head)
		ring_drop(r);
	free(r->spare);
	free(r);
}

/* ring_add - keep a copy of chunk; evict by age, then by the cap */
int ring_add(struct ring *r, const void *chunk, size_t len, uint64_t t_first, uint64_t t_last)
{
	struct ring_chunk *c;

	if (sizeof(*c) + len > r->cap) {
		while (r->head)
			ring_drop(r);
		return -E2BIG;
	}
	/* Room first (what the new chunk ends, by age, and what it would push over the cap). */
	while (r->head && r->head->t_last + r->keep_ns < t_last)
		ring_drop(r);
	while (r->head && r->bytes + sizeof(*c) + len > r->cap) {
		r->cap_bound = true;
		ring_drop(r);
	}
	if (r->spare && r->spare->room >= len) {
		c = r->spare;
		r->spare = NULL;
	} else {
		c = malloc(sizeof(*c) + len);
		if (!c)
			return -ENOMEM;
		c->room = len;
	}
	c->next = NULL;
	atomic_init(&c->refs, 1);
	c->t_first = t_first;
	c->t_last = t_last;
	c->len = len;
	memcpy(c->data, chunk, len);
	if (r->tail)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->bytes += sizeof(*c) + len;
	r->nr++;
	return 0;
}

/* ring_bytes_per_chunk - a chunk's bytes and its bookkeeping */
size_t ring_bytes_per_chunk(size_t len)
{
	return sizeof(struct ring_chunk) + len;
}

/* ring_bytes - what the chunks take */
size_t ring_bytes(const struct ring *r)
{
	return r->bytes;
}

/* ring_count - how many chunks */
size_t ring_count(const struct ring *r)
{
	return r->nr;
}

/* ring_held_ns - the event time the chunks span */
uint64_t ring_held_ns(const struct ring *r)
{
	return r->head ? r->tail->t_last - r->head->t_first : 0;
}

/* ring_cap_bound - whether the cap evicted since the last call */
bool ring_cap_bound(struct ring *r)
{
	bool b = r->cap_bound;

	r->cap_bound = false;
	return b;
}

/* ring_hold - a reference to each chunk overlapping [from, to], oldest first */
int ring_hold(struct ring *r, uint64_t from, uint64_t to, struct ring_held **out, size_t *nr)
{
	struct ring_held *h;
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	h = calloc(r->nr ? r->nr : 1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (struct ring_chunk *c = r->head; c; c = c->next) {
		if (c->t_last < from || c->t_first > to)
			continue;
		atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
		h[n++] = (struct ring_held){ c->data, c->len, c->t_first, c->t_last, c };
	}
	*out = h;
	*nr = n;
	return 0;
}

/* ring_release - the references of a ring_hold, then its array; accepts NULL */
void ring_release(struct ring_held *h, size_t nr)
{
	if (!h)
		return;
	for (size_t i = 0; i < nr; i++)
		ring_chunk_put(h[i].c);
	free(h);
}
