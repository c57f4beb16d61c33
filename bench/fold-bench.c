// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fold-bench - how fast stackmap_get() folds samples
 *
 * Usage: fold-bench [LOOKUPS [FRAMES]]
 * For several counts of distinct stacks, inserts them once, then looks up
 * LOOKUPS (default 20000000) samples of FRAMES-deep (default 20) stacks drawn
 * among them, counting and summing bytes as a tool would.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stackmap.h"

/* bench_now - monotonic time in seconds */
static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* bench_rand - next value of a xorshift64 generator */
static uint64_t bench_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/*
 * bench_stacks_alloc - n stacks of depth frames looking like kernel stacks:
 * the outer frames are shared by many stacks, the inner ones vary.
 */
static uint64_t *bench_stacks_alloc(size_t n, unsigned int depth,
				    uint64_t *seed)
{
	uint64_t *ips;
	size_t i;
	unsigned int d;

	ips = malloc(n * depth * sizeof(*ips));
	if (!ips)
		return NULL;
	for (i = 0; i < n; i++) {
		for (d = 0; d < depth; d++) {
			uint64_t pick = d < depth / 2 ? bench_rand(seed) % 64 :
							bench_rand(seed);

			ips[i * depth + d] = 0xffffffff81000000ULL +
					     (pick % 0x1000000);
		}
	}
	return ips;
}

/*
 * bench_run - insert n distinct stacks, then time lookups of them
 *
 * Samples are replayed from a ring of RING_SAMPLES pre-drawn stacks read in
 * order, as a tracer reads the perf ring buffer.  With skew, stack k is drawn
 * with a probability falling as 1/(k+1), roughly what real workloads show;
 * without it every stack is equally likely, the worst case for the caches.
 */
#define RING_SAMPLES 65536
static int bench_run(size_t n, unsigned int depth, size_t lookups, bool skew)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	struct stackmap *map;
	uint64_t *ips, *ring, *v;
	uint32_t *ctx;
	double t0, t1, t2;
	size_t i, k;
	int ret = -ENOMEM;

	ips = bench_stacks_alloc(n, depth, &seed);
	if (!ips)
		return -ENOMEM;
	ring = malloc((size_t)RING_SAMPLES * depth * sizeof(*ring));
	if (!ring)
		goto free_ips;
	ctx = malloc(RING_SAMPLES * sizeof(*ctx));
	if (!ctx)
		goto free_ring;
	for (i = 0; i < RING_SAMPLES; i++) {
		/* exp(u * ln n) - 1 with u uniform is log-uniform on [0, n) */
		double u = (bench_rand(&seed) >> 11) * 0x1.0p-53;

		k = skew ? (size_t)(exp(u * log((double)n)) - 1) :
			   bench_rand(&seed) % n;
		memcpy(ring + i * depth, ips + k * depth,
		       depth * sizeof(*ring));
		ctx[i] = (uint32_t)(k % 7);
	}
	map = stackmap_alloc();
	if (!map)
		goto free_ctx;

	t0 = bench_now();
	for (i = 0; i < n; i++) {
		v = stackmap_get(map, (uint32_t)(i % 7), 0, ips + i * depth,
				 depth);
		if (!v)
			goto free_map;
		v[0]++;
	}
	t1 = bench_now();
	for (i = 0; i < lookups; i++) {
		k = i % RING_SAMPLES;
		v = stackmap_get(map, ctx[k], 0, ring + k * depth, depth);
		if (!v)
			goto free_map;
		v[0]++;
		v[1] += 4096;
	}
	t2 = bench_now();
	printf("%8zu distinct x %u frames, %-7s: insert %6.2f M/s, "
	       "lookup %6.2f M/s (%5.1f ns)\n", n, depth,
	       skew ? "skewed" : "uniform", n / (t1 - t0) / 1e6,
	       lookups / (t2 - t1) / 1e6, (t2 - t1) * 1e9 / lookups);
	ret = stackmap_count(map) == n ? 0 : -EPROTO;

free_map:
	stackmap_free(map);
free_ctx:
	free(ctx);
free_ring:
	free(ring);
free_ips:
	free(ips);
	return ret;
}

/* main - run the benchmark for a few map sizes */
int main(int argc, char **argv)
{
	static const size_t sizes[] = { 100, 1000, 10000, 100000, 1000000 };
	size_t lookups = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000;
	unsigned int depth = argc > 2 ? (unsigned int)atoi(argv[2]) : 20;
	size_t i;
	int skew, ret;

	if (!lookups || !depth) {
		fprintf(stderr, "usage: %s [LOOKUPS [FRAMES]]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (skew = 0; skew < 2; skew++) {
			ret = bench_run(sizes[i], depth, lookups, skew);
			if (ret) {
				fprintf(stderr, "fold-bench: %s\n",
					strerror(-ret));
				return 1;
			}
		}
	}
	return 0;
}
