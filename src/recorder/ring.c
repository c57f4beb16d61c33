// SPDX-License-Identifier: GPL-2.0-or-later
/* ring.c - the flight recorder's last seconds of event chunks, bounded in time and bytes */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ring.h"

struct ring_chunk {
	struct ring_chunk *next;
	atomic_uint refs;		/* the ring's, and each holder's */
	uint64_t t_first, t_last;
	size_t len, room;		/* room: data's allocated bytes */
	size_t map_len;			/* a slab's mapping; 0: malloc'd */
	uint8_t data[];
};

struct ring {
	struct ring_chunk *head, *tail;	/* oldest first */
	size_t bytes, nr, cap;
	size_t slab;			/* chunks of more than half this get a slab of it */
	uint64_t keep_ns;
	bool cap_bound;
	/*
	 * Slabs dropped that nobody held, kept for the next ones (linked by
	 * next): a full ring drops one as it adds one, and after a lull drops
	 * many at once that the next burst fills again; a fresh slab is fresh
	 * pages. Kept while they and the chunks fit in the cap.
	 */
	struct ring_chunk *spare;
	size_t spare_bytes;
	struct ring_chunk *fill;	/* the slab being filled in place, counted in bytes */
};

/* ring_alloc - an empty ring */
struct ring *ring_alloc(uint64_t keep_ns, size_t cap, size_t slab)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->keep_ns = keep_ns;
	r->cap = cap;
	r->slab = slab;
	return r;
}

/* ring_chunk_release - a chunk's memory back, by how it was had */
static void ring_chunk_release(struct ring_chunk *c)
{
	if (!c)
		return;
	if (c->map_len)
		munmap(c, c->map_len);
	else
		free(c);
}

/* ring_is_slab - whether a chunk of len bytes takes a slab */
static bool ring_is_slab(const struct ring *r, size_t len)
{
	return r && r->slab && len > r->slab / 2 && len <= r->slab;
}

/* ring_spare_take - a kept slab, out of the spares; NULL when none */
static struct ring_chunk *ring_spare_take(struct ring *r)
{
	struct ring_chunk *c = r->spare;

	if (c) {
		r->spare = c->next;
		r->spare_bytes -= sizeof(*c) + c->room;
	}
	return c;
}

/*
 * ring_chunk_new - memory for a chunk of len bytes: a slab (a spare, or a
 * mapping populated at once: faulted in page by page on the event path, a
 * filling ring's fresh memory cost more than all else it does) for a large
 * one, an allocation of its size for a small one (a second's few events)
 */
static struct ring_chunk *ring_chunk_new(struct ring *r, size_t len)
{
	struct ring_chunk *c;
	size_t map_len;

	if (ring_is_slab(r, len)) {
		if ((c = ring_spare_take(r)))
			return c;
		map_len = sizeof(*c) + r->slab;
		c = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		c->map_len = map_len;
		c->room = r->slab;
		return c;
	}
	c = malloc(sizeof(*c) + len);
	if (!c)
		return NULL;
	c->map_len = 0;
	c->room = len;
	return c;
}

/* ring_chunk_put - one reference less; the last frees the chunk */
static void ring_chunk_put(struct ring_chunk *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		ring_chunk_release(c);
}

/* ring_drop - forget the oldest chunk; unheld, it may become the spare */
static void ring_drop(struct ring *r)
{
	struct ring_chunk *c = r->head;

	r->head = c->next;
	if (!r->head)
		r->tail = NULL;
	r->bytes -= sizeof(*c) + c->room;
	r->nr--;
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (!c->map_len || r->bytes + r->spare_bytes + sizeof(*c) + c->room > r->cap) {
		ring_chunk_release(c);
		return;
	}
	c->next = r->spare;
	r->spare = c;
	r->spare_bytes += sizeof(*c) + c->room;
}

/* ring_free - every chunk, then the ring; accepts NULL */
void ring_free(struct ring *r)
{
	if (!r)
		return;
	while (r->head)
		ring_drop(r);
	ring_chunk_release(r->fill);
	while (r->spare)
		ring_chunk_release(ring_spare_take(r));
	free(r);
}

/* ring_room - what a chunk of len bytes takes: a slab, or its own size */
static size_t ring_room(const struct ring *r, size_t len)
{
	return ring_is_slab(r, len) ? r->slab : len;
}

/* ring_age - drop the chunks too old beside one whose newest event is at t_last */
static void ring_age(struct ring *r, uint64_t t_last)
{
	while (r->head && r->head->t_last + r->keep_ns < t_last)
		ring_drop(r);
}

/* ring_link - c (counted in bytes already) after the newest */
static void ring_link(struct ring *r, struct ring_chunk *c)
{
	c->next = NULL;
	atomic_init(&c->refs, 1);
	if (r->tail)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->nr++;
}

/* ring_add - keep a copy of chunk; evict by age, then by the cap */
int ring_add(struct ring *r, const void *chunk, size_t len, uint64_t t_first, uint64_t t_last)
{
	struct ring_chunk *c;
	size_t room = ring_room(r, len);

	if (sizeof(*c) + room > r->cap) {
		while (r->head)
			ring_drop(r);
		return -E2BIG;
	}
	/* Room first (what the new chunk ends, by age, and what it would push over the cap). */
	ring_age(r, t_last);
	while (r->head && r->bytes + sizeof(*c) + room > r->cap) {
		r->cap_bound = true;
		ring_drop(r);
	}
	/* Spares give way to other chunks (a slab takes one): what is held stays within the cap. */
	while (r->spare && !ring_is_slab(r, len) &&
	       r->bytes + r->spare_bytes + sizeof(*c) + room > r->cap)
		ring_chunk_release(ring_spare_take(r));
	c = ring_chunk_new(r, len);
	if (!c)
		return -ENOMEM;
	c->t_first = t_first;
	c->t_last = t_last;
	c->len = len;
	memcpy(c->data, chunk, len);
	r->bytes += sizeof(*c) + c->room;
	ring_link(r, c);
	return 0;
}

/* ring_fill_room - room for len more bytes in the slab being filled, taking one first */
void *ring_fill_room(struct ring *r, size_t len)
{
	struct ring_chunk *c = r->fill;

	if (!r->slab || len > r->slab || sizeof(*c) + r->slab > r->cap) {
		errno = E2BIG;
		return NULL;
	}
	if (c && c->len + len > c->room) {
		ring_fill_end(r);
		c = NULL;
	}
	if (!c) {
		/* Within the cap with the slab counted: the oldest go first. */
		while (r->head && r->bytes + sizeof(*c) + r->slab > r->cap) {
			r->cap_bound = true;
			ring_drop(r);
		}
		c = ring_chunk_new(r, r->slab);
		if (!c) {
			errno = ENOMEM;
			return NULL;
		}
		c->len = 0;
		c->t_first = c->t_last = 0;
		r->bytes += sizeof(*c) + c->room;
		r->fill = c;
	}
	return c->data + c->len;
}

/* ring_fill_commit - the room's first len bytes are the chunk's, events up to t_last */
void ring_fill_commit(struct ring *r, size_t len, uint64_t t_first, uint64_t t_last)
{
	struct ring_chunk *c = r->fill;

	if (!c || c->len + len > c->room)
		return;
	c->len += len;
	if (t_first && (!c->t_first || t_first < c->t_first))
		c->t_first = t_first;
	if (t_last > c->t_last)
		c->t_last = t_last;
}

/* ring_fill_len - the bytes committed to the slab being filled */
size_t ring_fill_len(const struct ring *r)
{
	return r->fill ? r->fill->len : 0;
}

/*
 * ring_fill_end - the slab being filled joins the ring; one mostly empty (a
 * quiet second's) joins as a copy of its size, and the slab fills on
 */
void ring_fill_end(struct ring *r)
{
	struct ring_chunk *c = r->fill;

	if (!c || !c->len)
		return;
	if (!c->t_first)
		c->t_first = c->t_last;
	if (c->len <= r->slab / 2 && !ring_add(r, c->data, c->len, c->t_first, c->t_last)) {
		c->len = 0;
		c->t_first = c->t_last = 0;
		return;
	}
	r->fill = NULL;
	ring_age(r, c->t_last);
	ring_link(r, c);
}

/* ring_bytes_per_chunk - what a chunk of len takes: its room and its bookkeeping */
size_t ring_bytes_per_chunk(const struct ring *r, size_t len)
{
	return sizeof(struct ring_chunk) + ring_room(r, len);
}

/* ring_cap - the cap */
size_t ring_cap(const struct ring *r)
{
	return r->cap;
}

/* ring_bytes - what the chunks take, and the slabs kept */
size_t ring_bytes(const struct ring *r)
{
	return r->bytes + r->spare_bytes;
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

/* ring_first_ns - the oldest chunk's first event time, 0 when empty */
uint64_t ring_first_ns(const struct ring *r)
{
	return r->head ? r->head->t_first : 0;
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
