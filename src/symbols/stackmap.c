// SPDX-License-Identifier: GPL-2.0-or-later
/* stackmap.c - fold sampled stacks into counters on the hot path */
#include "stackmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"

#define STACKMAP_MIN_SLOTS 256
#define STACKMAP_MIN_ARENA 8192

/*
 * The hash index only maps a stack's hash to its record's offset, which keeps
 * it small enough to stay in cache.  Each stack lives in the arena as one
 * record of u64 words: key, ctx << 32 | nr, the STACKMAP_NVAL values, then the
 * nr ips; a hit reads one slot then one contiguous record.  Records are
 * appended, so walking the arena visits stacks in insertion order.  Offsets
 * are 32-bit: the arena holds at most 4G words (32 GiB).
 */
#define STACKMAP_REC_KEY 0
#define STACKMAP_REC_CTXNR 1
#define STACKMAP_REC_V 2
#define STACKMAP_REC_IPS (STACKMAP_REC_V + STACKMAP_NVAL)

struct stackmap {
	struct hashtab index;	/* stack hash -> record offset in the arena */
	uint64_t *arena;
	size_t len;		/* u64 words used in the arena */
	size_t cap;
};

/* stackmap_rotl - rotate x left by r bits */
static inline uint64_t stackmap_rotl(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

/*
 * stackmap_hash - hash a stack with its context and key
 *
 * Each ip is spread by a multiply and a shift, which do not depend on one
 * another and overlap in the pipeline.  Even and odd frames go to two chains
 * (xor, rotate, multiply), halving the serial latency of deep stacks.  A final
 * avalanche makes the low bits, which pick the slot, depend on every input
 * bit.
 */
static uint32_t stackmap_hash(uint32_t ctx, uint64_t key, const uint64_t *ips,
			      uint32_t nr)
{
	const uint64_t k1 = 0x9e3779b97f4a7c15ULL;
	const uint64_t k2 = 0xc2b2ae3d27d4eb4fULL;
	uint64_t a = (key * k2) ^ ((uint64_t)ctx << 32 | nr);
	uint64_t b = ~a;
	uint64_t m, h;
	uint32_t i;

	for (i = 0; i + 1 < nr; i += 2) {
		m = ips[i] * k1;
		a = stackmap_rotl(a ^ (m ^ (m >> 31)), 27) * k2;
		m = ips[i + 1] * k1;
		b = stackmap_rotl(b ^ (m ^ (m >> 31)), 27) * k2;
	}
	if (i < nr) {
		m = ips[i] * k1;
		a = stackmap_rotl(a ^ (m ^ (m >> 31)), 27) * k2;
	}
	h = a ^ stackmap_rotl(b, 32);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 29;
	h *= k1;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* stackmap_alloc - empty map */
struct stackmap *stackmap_alloc(void)
{
	struct stackmap *map;

	map = calloc(1, sizeof(*map));
	if (!map) {
		errno = ENOMEM;
		return NULL;
	}
	if (hashtab_init(&map->index, STACKMAP_MIN_SLOTS))
		goto free_map;
	map->arena = malloc(STACKMAP_MIN_ARENA * sizeof(*map->arena));
	if (!map->arena)
		goto release_index;
	map->cap = STACKMAP_MIN_ARENA;
	return map;

release_index:
	hashtab_release(&map->index);
free_map:
	free(map);
	errno = ENOMEM;
	return NULL;
}

/* stackmap_free - release the map; NULL is accepted */
void stackmap_free(struct stackmap *map)
{
	if (!map)
		return;
	hashtab_release(&map->index);
	free(map->arena);
	free(map);
}

/* stackmap_arena_reserve - make room for words more u64 in the arena */
static int stackmap_arena_reserve(struct stackmap *map, size_t words)
{
	if (words > UINT32_MAX - map->len)
		return -ENOMEM;
	return array_reserve(&map->arena, &map->cap, map->len + words,
			     sizeof(*map->arena), 0);
}

/* stackmap_rec_match - whether the record at rec holds exactly this stack */
static inline bool stackmap_rec_match(const uint64_t *rec, uint32_t ctx,
				      uint64_t key, const uint64_t *ips,
				      uint32_t nr)
{
	return rec[STACKMAP_REC_KEY] == key &&
	       rec[STACKMAP_REC_CTXNR] == ((uint64_t)ctx << 32 | nr) &&
	       (!nr || !memcmp(rec + STACKMAP_REC_IPS, ips,
			       nr * sizeof(*ips)));
}

/* stackmap_get - values of a stack, inserting a zeroed slot when new */
uint64_t *stackmap_get(struct stackmap *map, uint32_t ctx, uint64_t key,
		       const uint64_t *ips, uint32_t nr)
{
	struct hashtab_pos pos;
	uint32_t *off;
	uint64_t *rec;

	if (!ips && nr) {
		errno = EINVAL;
		return NULL;
	}
	for (off = hashtab_find(&map->index, stackmap_hash(ctx, key, ips, nr), &pos);
	     off; off = hashtab_find_next(&map->index, &pos)) {
		rec = map->arena + *off;
		if (stackmap_rec_match(rec, ctx, key, ips, nr))
			return rec + STACKMAP_REC_V;
	}

	if (stackmap_arena_reserve(map, STACKMAP_REC_IPS + (size_t)nr) ||
	    hashtab_add(&map->index, &pos, (uint32_t)map->len)) {
		errno = ENOMEM;
		return NULL;
	}
	rec = map->arena + map->len;
	rec[STACKMAP_REC_KEY] = key;
	rec[STACKMAP_REC_CTXNR] = (uint64_t)ctx << 32 | nr;
	memset(rec + STACKMAP_REC_V, 0, STACKMAP_NVAL * sizeof(*rec));
	if (nr)
		memcpy(rec + STACKMAP_REC_IPS, ips, nr * sizeof(*ips));
	map->len += STACKMAP_REC_IPS + nr;
	return rec + STACKMAP_REC_V;
}

/* stackmap_for_each - call fn on every stack, in insertion order */
int stackmap_for_each(const struct stackmap *map, stackmap_fn fn, void *arg)
{
	const uint64_t *rec;
	uint32_t nr;
	size_t off;
	int ret;

	for (off = 0; off < map->len; off += STACKMAP_REC_IPS + nr) {
		rec = map->arena + off;
		nr = (uint32_t)rec[STACKMAP_REC_CTXNR];
		ret = fn((uint32_t)(rec[STACKMAP_REC_CTXNR] >> 32),
			 rec[STACKMAP_REC_KEY], rec + STACKMAP_REC_IPS, nr,
			 rec + STACKMAP_REC_V, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* stackmap_count - number of distinct stacks */
size_t stackmap_count(const struct stackmap *map)
{
	return hashtab_count(&map->index);
}

/* stackmap_clear - drop every stack, keeping the memory */
void stackmap_clear(struct stackmap *map)
{
	hashtab_clear(&map->index);
	map->len = 0;
}
