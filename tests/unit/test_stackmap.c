// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stackmap.c - exact merged counts, key separation, growth, walks */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stackmap.h"

/* setup_map - fresh map for each test */
static int setup_map(void **state)
{
	*state = stackmap_alloc();
	return *state ? 0 : -1;
}

/* teardown_map - release the test's map */
static int teardown_map(void **state)
{
	stackmap_free(*state);
	return 0;
}

/* test_new_slot_zeroed - a new stack gets zeroed values */
static void test_new_slot_zeroed(void **state)
{
	struct stackmap *map = *state;
	const uint64_t ips[] = { 0xffffffff81000010, 0xffffffff81000020 };
	uint64_t *v;
	int i;

	assert_int_equal(stackmap_count(map), 0);
	v = stackmap_get(map, 1, 0, ips, 2);
	assert_non_null(v);
	for (i = 0; i < STACKMAP_NVAL; i++)
		assert_int_equal(v[i], 0);
	assert_int_equal(stackmap_count(map), 1);
}

/* test_merge_counts - equal stacks share a slot and sum exactly */
static void test_merge_counts(void **state)
{
	struct stackmap *map = *state;
	uint64_t ips[3] = { 10, 20, 30 };
	uint64_t copy[3];
	uint64_t *v;
	int i;

	for (i = 0; i < 1000; i++) {
		/* a fresh copy each time: keys compare by content */
		memcpy(copy, ips, sizeof(copy));
		v = stackmap_get(map, 7, 42, copy, 3);
		assert_non_null(v);
		v[0]++;
		v[1] += 4096;
		v[3] = (uint64_t)i;
	}
	assert_int_equal(stackmap_count(map), 1);
	v = stackmap_get(map, 7, 42, ips, 3);
	assert_int_equal(v[0], 1000);
	assert_int_equal(v[1], 1000 * 4096);
	assert_int_equal(v[2], 0);
	assert_int_equal(v[3], 999);
}

/* test_key_separation - ctx, key, depth and each ip separate stacks */
static void test_key_separation(void **state)
{
	struct stackmap *map = *state;
	const uint64_t a[] = { 1, 2, 3 };
	const uint64_t b[] = { 1, 2, 4 };
	const uint64_t c[] = { 3, 2, 1 };
	struct {
		uint32_t ctx;
		uint64_t key;
		const uint64_t *ips;
		uint32_t nr;
	} cases[] = {
		{ 0, 0, a, 3 }, { 1, 0, a, 3 }, { 0, 1, a, 3 },
		{ 0, 0, b, 3 }, { 0, 0, c, 3 }, { 0, 0, a, 2 },
		{ 0, 0, a, 1 }, { 0, 0, NULL, 0 }, { 1, 0, NULL, 0 },
		{ 0, 1ULL << 32, a, 3 }, { 0xffffffff, ~0ULL, a, 3 },
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	uint64_t *v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = stackmap_get(map, cases[i].ctx, cases[i].key,
				 cases[i].ips, cases[i].nr);
		assert_non_null(v);
		v[0] += i + 1;
	}
	assert_int_equal(stackmap_count(map), n);
	for (i = 0; i < n; i++) {
		v = stackmap_get(map, cases[i].ctx, cases[i].key,
				 cases[i].ips, cases[i].nr);
		assert_int_equal(v[0], i + 1);
	}
	assert_int_equal(stackmap_count(map), n);
}

#define GROW_STACKS 50000
#define GROW_DEPTH 20

/* grow_ips - deterministic stack number i, frame d */
static uint64_t grow_ips(size_t i, unsigned int d)
{
	return 0xffffffff81000000ULL + (d < 10 ? d * 16 : i * 131 + d);
}

/* grow_fill - stack number i into ips */
static void grow_fill(uint64_t *ips, size_t i)
{
	unsigned int d;

	for (d = 0; d < GROW_DEPTH; d++)
		ips[d] = grow_ips(i, d);
}

/* test_growth - values survive many resizes of the table and arena */
static void test_growth(void **state)
{
	struct stackmap *map = *state;
	uint64_t ips[GROW_DEPTH];
	uint64_t *v;
	size_t i;
	int round;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < GROW_STACKS; i++) {
			grow_fill(ips, i);
			v = stackmap_get(map, (uint32_t)(i % 3), 0, ips,
					 GROW_DEPTH);
			assert_non_null(v);
			v[0]++;
			v[2] += i;
		}
		assert_int_equal(stackmap_count(map), GROW_STACKS);
	}
	for (i = 0; i < GROW_STACKS; i++) {
		grow_fill(ips, i);
		v = stackmap_get(map, (uint32_t)(i % 3), 0, ips, GROW_DEPTH);
		assert_int_equal(v[0], 3);
		assert_int_equal(v[2], 3 * i);
	}
	assert_int_equal(stackmap_count(map), GROW_STACKS);
}

struct walk {
	size_t calls;
	uint64_t sum;
	unsigned char *seen;
	size_t stop_after;
};

/* walk_check - verify one stack of test_for_each_covers_all and mark it */
static int walk_check(uint32_t ctx, uint64_t key, const uint64_t *ips,
		      uint32_t nr, const uint64_t *v, void *arg)
{
	struct walk *w = arg;
	size_t i = (size_t)key;
	unsigned int d;

	assert_int_equal(nr, GROW_DEPTH);
	assert_int_equal(ctx, i % 5);
	for (d = 0; d < nr; d++)
		assert_int_equal(ips[d], grow_ips(i, d));
	assert_int_equal(v[0], i + 1);
	assert_int_equal(w->seen[i], 0);
	w->seen[i] = 1;
	w->calls++;
	w->sum += v[0];
	return 0;
}

/* test_for_each_covers_all - every stack visited once with its values */
static void test_for_each_covers_all(void **state)
{
	struct stackmap *map = *state;
	struct walk w = { 0 };
	uint64_t ips[GROW_DEPTH];
	uint64_t *v;
	size_t i;

	w.seen = calloc(GROW_STACKS, 1);
	assert_non_null(w.seen);
	for (i = 0; i < GROW_STACKS; i++) {
		grow_fill(ips, i);
		v = stackmap_get(map, (uint32_t)(i % 5), i, ips, GROW_DEPTH);
		assert_non_null(v);
		v[0] = i + 1;
	}
	assert_int_equal(stackmap_for_each(map, walk_check, &w), 0);
	assert_int_equal(w.calls, GROW_STACKS);
	assert_int_equal(w.sum, (uint64_t)GROW_STACKS * (GROW_STACKS + 1) / 2);
	for (i = 0; i < GROW_STACKS; i++)
		assert_int_equal(w.seen[i], 1);
	free(w.seen);
}

/* walk_stop - count calls, stop with 7 after stop_after of them */
static int walk_stop(uint32_t ctx, uint64_t key, const uint64_t *ips,
		     uint32_t nr, const uint64_t *v, void *arg)
{
	struct walk *w = arg;

	(void)ctx;
	(void)key;
	(void)ips;
	(void)nr;
	(void)v;
	return ++w->calls == w->stop_after ? 7 : 0;
}

/* test_for_each_stops - a non-zero callback return ends the walk */
static void test_for_each_stops(void **state)
{
	struct stackmap *map = *state;
	struct walk w = { .stop_after = 3 };
	uint64_t ip;

	assert_int_equal(stackmap_for_each(map, walk_stop, &w), 0);
	assert_int_equal(w.calls, 0);
	for (ip = 0; ip < 10; ip++)
		assert_non_null(stackmap_get(map, 0, 0, &ip, 1));
	assert_int_equal(stackmap_for_each(map, walk_stop, &w), 7);
	assert_int_equal(w.calls, 3);
}

/* walk_order - record the single ip of each stack in visit order */
static int walk_order(uint32_t ctx, uint64_t key, const uint64_t *ips,
		      uint32_t nr, const uint64_t *v, void *arg)
{
	uint64_t **out = arg;

	(void)ctx;
	(void)key;
	(void)nr;
	(void)v;
	*(*out)++ = ips[0];
	return 0;
}

/* test_for_each_insertion_order - the walk follows insertion order */
static void test_for_each_insertion_order(void **state)
{
	struct stackmap *map = *state;
	uint64_t order[1000], *cursor = order;
	uint64_t ip;
	size_t i;

	for (i = 0; i < 1000; i++) {
		ip = (i * 7919) % 1000;
		assert_non_null(stackmap_get(map, 0, 0, &ip, 1));
	}
	assert_int_equal(stackmap_for_each(map, walk_order, &cursor), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(order[i], (i * 7919) % 1000);
}

/* test_clear - clear empties the map, which is usable again */
static void test_clear(void **state)
{
	struct stackmap *map = *state;
	struct walk w = { 0 };
	uint64_t ips[GROW_DEPTH];
	uint64_t *v;
	size_t i;

	for (i = 0; i < 5000; i++) {
		grow_fill(ips, i);
		v = stackmap_get(map, 0, 0, ips, GROW_DEPTH);
		assert_non_null(v);
		v[0] = 99;
	}
	stackmap_clear(map);
	assert_int_equal(stackmap_count(map), 0);
	assert_int_equal(stackmap_for_each(map, walk_stop, &w), 0);
	assert_int_equal(w.calls, 0);
	for (i = 0; i < 5000; i++) {
		grow_fill(ips, i);
		v = stackmap_get(map, 0, 0, ips, GROW_DEPTH);
		assert_non_null(v);
		assert_int_equal(v[0], 0);
		v[0] = 1;
	}
	assert_int_equal(stackmap_count(map), 5000);
}

/* test_invalid - NULL ips with frames is EINVAL; free accepts NULL */
static void test_invalid(void **state)
{
	struct stackmap *map = *state;

	errno = 0;
	assert_null(stackmap_get(map, 0, 0, NULL, 1));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(stackmap_count(map), 0);
	stackmap_free(NULL);
}

/* main - run the stackmap tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_slot_zeroed,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_merge_counts,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_key_separation,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_growth,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_for_each_covers_all,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_for_each_stops,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_for_each_insertion_order,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_clear,
						setup_map, teardown_map),
		cmocka_unit_test_setup_teardown(test_invalid,
						setup_map, teardown_map),
	};

	return cmocka_run_group_tests_name("stackmap", tests, NULL, NULL);
}
