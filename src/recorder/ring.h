/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RING_H
#define IOTAP_RING_H

/*
 * The flight recorder's memory (record --ring): the last keep_ns of the
 * recording's event chunks, stored raw (container.h: a stored sink writer
 * makes them, rec_writer_put_chunk compresses them as it writes them out), so
 * that reading events costs no deflate: only what a dump writes is
 * compressed, at the price of several times the memory per event.
 * Each chunk is self-contained (its callchain ids start over). Memory is
 * bounded twice: chunks whose newest event is older than keep_ns before the
 * newest chunk's are dropped, and while the held bytes exceed cap the oldest
 * go too, even within keep_ns (the cap binds: ring_held_ns says what is left).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring;
struct ring_chunk;

/*
 * A ring that keeps keep_ns of events in at most cap bytes; NULL with errno
 * ENOMEM. A chunk of more than slab / 2 and at most slab bytes takes a slab
 * of slab bytes, mapped populated and reused as the ring drops one (0: no
 * slabs, each chunk its own size).
 */
struct ring *ring_alloc(uint64_t keep_ns, size_t cap, size_t slab);
/* Accepts NULL. */
void ring_free(struct ring *r);

/*
 * Copy one chunk in, whose events span [t_first, t_last] (monotonic ns),
 * then drop what is too old or over the cap. 0, -ENOMEM, or -E2BIG for a
 * chunk larger than the cap (not kept; the ring is emptied).
 */
int ring_add(struct ring *r, const void *chunk, size_t len, uint64_t t_first, uint64_t t_last);

/*
 * A chunk filled in place, by a store that reads straight into the ring's
 * memory (no copy): ring_fill_room gives room for len more bytes at the end
 * of the slab being filled, taking a slab first (counted against the cap
 * from then on; the oldest chunks go to make room for it); the room stays
 * the same until ring_fill_commit makes its first len bytes the chunk's,
 * with events from t_first (0: none) to t_last; ring_fill_end adds the slab
 * to the ring, the chunks too old for it dropped, as ring_add does (a slab
 * too full for the next room ends by itself); a slab at most half full joins
 * as a copy of its bytes instead, and is filled again. Only a ring with slabs fills
 * in place. room: NULL with errno E2BIG (len beyond a slab, no slabs, or a
 * cap below one) or ENOMEM.
 */
void *ring_fill_room(struct ring *r, size_t len);
void ring_fill_commit(struct ring *r, size_t len, uint64_t t_first, uint64_t t_last);
void ring_fill_end(struct ring *r);
/* The bytes committed to the slab being filled (0: none). */
size_t ring_fill_len(const struct ring *r);

/* What a chunk of len bytes counts against the cap: its room and its bookkeeping (r NULL: a ring without slabs). */
size_t ring_bytes_per_chunk(const struct ring *r, size_t len);

/* The cap it was made with. */
size_t ring_cap(const struct ring *r);
/* Bytes held: the chunks, their bookkeeping, and the slabs kept for reuse. */
size_t ring_bytes(const struct ring *r);
size_t ring_count(const struct ring *r);

/* Event time the ring holds now: from its oldest chunk's first to its newest's last. */
uint64_t ring_held_ns(const struct ring *r);

/* The oldest chunk's first event time (monotonic ns); 0 when the ring is empty. */
uint64_t ring_first_ns(const struct ring *r);

/*
 * Whether the cap has dropped a chunk still within keep_ns since the last
 * call (then the call clears it): the caller says so.
 */
bool ring_cap_bound(struct ring *r);

/*
 * A chunk held past the ring's own use of it: a dump's, until it is written
 * (by another thread). Held chunks are not counted in ring_bytes once the
 * ring has dropped them: each holder bounds what it holds.
 */
struct ring_held {
	const void *data;
	size_t len;
	uint64_t t_first, t_last;
	struct ring_chunk *c;		/* the ring's */
};

/*
 * Hold the chunks that have events in [from, to], oldest first: *out (the
 * caller frees it with ring_release) gets *nr of them. 0 or -ENOMEM.
 */
int ring_hold(struct ring *r, uint64_t from, uint64_t to, struct ring_held **out, size_t *nr);
/* Let go of held chunks and free the array; any thread may call it. Accepts NULL. */
void ring_release(struct ring_held *h, size_t nr);

#endif
