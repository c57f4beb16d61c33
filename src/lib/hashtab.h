/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HASHTAB_H
#define IOTAP_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * A hashtab indexes records that its user keeps elsewhere (an arena, a node
 * array, a pool): it maps a 32-bit hash to 32-bit values, typically record
 * indexes or offsets, and never looks at the records.  The user computes the
 * hash and decides which of the values found under it is a match; the table
 * owns only its slot array.  Open addressing with linear probing: a slot is
 * 8 bytes, eight to a cache line, and the table doubles before it is half
 * full, so a miss ends after a short scan.  Values under one hash come back
 * in the order they were added.  There is no removal; hashtab_clear() drops
 * everything.
 *
 * Lookup and insertion share one probe, so a miss costs no second scan:
 *
 *	struct hashtab_pos pos;
 *	uint32_t *v;
 *
 *	for (v = hashtab_find(t, h, &pos); v; v = hashtab_find_next(t, &pos))
 *		if (record_matches(*v))
 *			return *v;
 *	return hashtab_add(t, &pos, new_record_index);
 */
struct hashtab_slot {
	uint32_t hash;		/* 0: free (hashes are stored with 0 made 1) */
	uint32_t val;
};

struct hashtab {
	struct hashtab_slot *slots;
	uint32_t mask;		/* slot count - 1, a power of two */
	uint32_t count;
};

/* Where a probe stands: between hashtab_find*() and hashtab_add() on one table. */
struct hashtab_pos {
	uint32_t hash;
	uint32_t i;
};

/*
 * Make t an empty table of at least min_slots slots (rounded up to a power
 * of two, at least 16).  Returns 0 or -ENOMEM (t is then empty but safe to
 * release).
 */
int hashtab_init(struct hashtab *t, uint32_t min_slots);

/* Free the slot array; safe on a zeroed, failed or already released table. */
void hashtab_release(struct hashtab *t);

/* Drop every value, keeping the memory for reuse. */
void hashtab_clear(struct hashtab *t);

/*
 * Add val under the hash of the probe that pos ended (hashtab_find*()
 * returned NULL).  May double the table, which moves slots: pointers from
 * hashtab_find*() are invalid after it.  Returns 0 or -ENOMEM (the table
 * is unchanged and still valid).
 */
int hashtab_add(struct hashtab *t, struct hashtab_pos *pos, uint32_t val);

/* hashtab_mix - spread the bits of a 64-bit key into a table hash (murmur3's finaliser) */
static inline uint32_t hashtab_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* FNV-1a, 64 bits: where a hash of bytes starts (hashtab_fnv) */
#define HASHTAB_FNV_BASIS 0xcbf29ce484222325ULL

/* hashtab_fnv - FNV-1a over len bytes, continuing from h; hashtab_mix() makes it a table hash */
static inline uint64_t hashtab_fnv(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* hashtab_fnv_str - FNV-1a over a string's bytes (not its NUL), continuing from h */
static inline uint64_t hashtab_fnv_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return h;
}

/* hashtab_find_next - the next value stored under pos's hash, or NULL at the end of the probe */
static inline uint32_t *hashtab_find_next(const struct hashtab *t,
					  struct hashtab_pos *pos)
{
	struct hashtab_slot *s;

	for (;;) {
		pos->i = (pos->i + 1) & t->mask;
		s = &t->slots[pos->i];
		if (!s->hash)
			return NULL;
		if (s->hash == pos->hash)
			return &s->val;
	}
}

/*
 * hashtab_find - the first value stored under hash h, or NULL
 *
 * The pointer is valid until the next hashtab_add() or hashtab_clear(); the
 * user may rewrite the value in place.  pos follows the probe for
 * hashtab_find_next() and hashtab_add().
 */
static inline uint32_t *hashtab_find(const struct hashtab *t, uint32_t h,
				     struct hashtab_pos *pos)
{
	struct hashtab_slot *s;

	pos->hash = h ? h : 1;
	pos->i = pos->hash & t->mask;
	s = &t->slots[pos->i];
	if (!s->hash)
		return NULL;
	if (s->hash == pos->hash)
		return &s->val;
	return hashtab_find_next(t, pos);
}

/* hashtab_count - values stored */
static inline size_t hashtab_count(const struct hashtab *t)
{
	return t->count;
}

#endif
