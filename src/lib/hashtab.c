// SPDX-License-Identifier: GPL-2.0-or-later
/* hashtab.c - open-addressing index from 32-bit hashes to record numbers */
#include "hashtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HASHTAB_MIN_SLOTS 16u

/* hashtab_slots_alloc - zeroed, cache-line aligned array of n slots */
static struct hashtab_slot *hashtab_slots_alloc(size_t n)
{
	struct hashtab_slot *slots;

	if (n > SIZE_MAX / sizeof(*slots))
		return NULL;
	slots = aligned_alloc(64, n * sizeof(*slots));
	if (slots)
		memset(slots, 0, n * sizeof(*slots));
	return slots;
}

/* hashtab_init - empty table of at least min_slots slots */
int hashtab_init(struct hashtab *t, uint32_t min_slots)
{
	uint32_t n = HASHTAB_MIN_SLOTS;

	while (n < min_slots && n <= UINT32_MAX / 4)
		n *= 2;
	t->count = 0;
	t->mask = 0;
	t->slots = hashtab_slots_alloc(n);
	if (!t->slots)
		return -ENOMEM;
	t->mask = n - 1;
	return 0;
}

/* hashtab_release - free the slot array */
void hashtab_release(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
	t->count = 0;
}

/* hashtab_clear - drop every value */
void hashtab_clear(struct hashtab *t)
{
	if (t->slots)
		memset(t->slots, 0, ((size_t)t->mask + 1) * sizeof(*t->slots));
	t->count = 0;
}

/*
 * hashtab_grow - double the slot array
 *
 * Slots are moved in array order starting at one that is free, so every
 * probe run is walked from its start and values under one hash keep their
 * order.
 */
static int hashtab_grow(struct hashtab *t)
{
	size_t n = ((size_t)t->mask + 1) * 2, i, j, start;
	struct hashtab_slot *slots;

	if (n - 1 > UINT32_MAX)
		return -ENOMEM;
	slots = hashtab_slots_alloc(n);
	if (!slots)
		return -ENOMEM;
	for (start = 0; t->slots[start].hash; start++)
		;
	for (i = 0; i <= t->mask; i++) {
		const struct hashtab_slot *s = &t->slots[(start + i) & t->mask];

		if (!s->hash)
			continue;
		for (j = s->hash & (n - 1); slots[j].hash; j = (j + 1) & (n - 1))
			;
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

/* hashtab_add - add val where the probe of pos ended, doubling first when half full */
int hashtab_add(struct hashtab *t, struct hashtab_pos *pos, uint32_t val)
{
	int ret;

	if ((size_t)t->count + 1 > ((size_t)t->mask + 1) / 2) {
		ret = hashtab_grow(t);
		if (ret)
			return ret;
		for (pos->i = pos->hash & t->mask; t->slots[pos->i].hash;
		     pos->i = (pos->i + 1) & t->mask)
			;
	}
	t->slots[pos->i].hash = pos->hash;
	t->slots[pos->i].val = val;
	t->count++;
	return 0;
}
