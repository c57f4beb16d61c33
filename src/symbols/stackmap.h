/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_STACKMAP_H
#define IOTAP_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * A stackmap folds samples on the hot path: it maps (ctx, key, stack) to a
 * slot of STACKMAP_NVAL zero-initialised counters that the caller updates in
 * place.  ctx is a small context such as a pid or a disk index, key any extra
 * 64-bit discriminator (0 when unused), and the stack an array of instruction
 * pointers in whatever order the caller uses (perf gives them leaf first).
 * Stacks are copied into the map; the caller's arrays are never kept.
 */
#define STACKMAP_NVAL 4

struct stackmap;

/* Callback of stackmap_for_each(); a non-zero return stops the walk. */
typedef int (*stackmap_fn)(uint32_t ctx, uint64_t key, const uint64_t *ips,
			   uint32_t nr, const uint64_t *v, void *arg);

/* Empty map; NULL with errno ENOMEM. */
struct stackmap *stackmap_alloc(void);

/* Release the map and every stack in it; map may be NULL. */
void stackmap_free(struct stackmap *map);

/*
 * The STACKMAP_NVAL values of (ctx, key, ips[0..nr)), creating a zeroed slot
 * the first time.  The pointer stays valid until the next stackmap_get() or
 * stackmap_clear() on the same map.  NULL with errno ENOMEM (the map is left
 * unchanged) or EINVAL (ips NULL while nr > 0).
 */
uint64_t *stackmap_get(struct stackmap *map, uint32_t ctx, uint64_t key,
		       const uint64_t *ips, uint32_t nr);

/*
 * Call fn on every stack in insertion order; the map must not change during
 * the walk.  Returns 0, or the first non-zero value fn returned.
 */
int stackmap_for_each(const struct stackmap *map, stackmap_fn fn, void *arg);

/* Number of distinct stacks. */
size_t stackmap_count(const struct stackmap *map);

/* Drop every stack, keeping the memory for reuse. */
void stackmap_clear(struct stackmap *map);

#endif
