// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hashtab.c - finds, misses, equal hashes in order, growth, clear */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hashtab.h"

/* setup_tab - fresh 16-slot table for each test */
static int setup_tab(void **state)
{
	struct hashtab *t = calloc(1, sizeof(*t));

	if (!t || hashtab_init(t, 0)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

/* teardown_tab - release the test's table */
static int teardown_tab(void **state)
{
	hashtab_release(*state);
	free(*state);
	return 0;
}

/* tab_get - the value under h equal to key[v] (records are key[]), added as v if absent */
static uint32_t tab_get(struct hashtab *t, uint32_t h, const uint64_t *key,
			uint64_t k, uint32_t v)
{
	struct hashtab_pos pos;
	uint32_t *p;

	for (p = hashtab_find(t, h, &pos); p; p = hashtab_find_next(t, &pos))
		if (key[*p] == k)
			return *p;
	assert_int_equal(hashtab_add(t, &pos, v), 0);
	return v;
}

/* test_empty - a new table finds nothing */
static void test_empty(void **state)
{
	struct hashtab *t = *state;
	struct hashtab_pos pos;

	assert_int_equal(hashtab_count(t), 0);
	assert_int_equal(t->mask + 1, 16);
	assert_null(hashtab_find(t, 0, &pos));
	assert_null(hashtab_find(t, 12345, &pos));
}

/* test_find_added - every added value is found under its hash, once; others miss */
static void test_find_added(void **state)
{
	struct hashtab *t = *state;
	static uint64_t key[5000];
	struct hashtab_pos pos;
	uint32_t i, n, *p;

	for (i = 0; i < 5000; i++) {
		key[i] = (uint64_t)i * 7919 + 3;
		assert_int_equal(tab_get(t, hashtab_mix(key[i]), key, key[i], i), i);
	}
	assert_int_equal(hashtab_count(t), 5000);
	/* Doubled before half full: 5000 values need 16384 slots. */
	assert_int_equal(t->mask + 1, 16384);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(tab_get(t, hashtab_mix(key[i]), key, key[i], 9999), i);
		for (n = 0, p = hashtab_find(t, hashtab_mix(key[i]), &pos); p;
		     p = hashtab_find_next(t, &pos))
			n += *p == i;
		assert_int_equal(n, 1);
	}
	assert_int_equal(hashtab_count(t), 5000);
	for (n = 0, p = hashtab_find(t, hashtab_mix(2), &pos); p;
	     p = hashtab_find_next(t, &pos))
		n++;
	assert_int_equal(n, 0);
}

/* test_equal_hashes_in_order - values under one hash (0 included) come back in added order, across growth */
static void test_equal_hashes_in_order(void **state)
{
	struct hashtab *t = *state;
	struct hashtab_pos pos;
	uint32_t i, n, *p;

	for (i = 0; i < 300; i++) {
		/* Three hashes that share their low bits, interleaved with other values. */
		for (p = hashtab_find(t, (i % 3) << 20, &pos); p;
		     p = hashtab_find_next(t, &pos))
			;
		assert_int_equal(hashtab_add(t, &pos, i), 0);
		for (p = hashtab_find(t, hashtab_mix(i) | 1u << 31, &pos); p;
		     p = hashtab_find_next(t, &pos))
			;
		assert_int_equal(hashtab_add(t, &pos, 1000 + i), 0);
	}
	assert_int_equal(hashtab_count(t), 600);
	for (uint32_t h = 0; h < 3; h++) {
		n = 0;
		for (p = hashtab_find(t, h << 20, &pos); p;
		     p = hashtab_find_next(t, &pos)) {
			assert_int_equal(*p, h + 3 * n);
			n++;
		}
		assert_int_equal(n, 100);
	}
}

/* test_value_in_place - a found value may be rewritten where it is */
static void test_value_in_place(void **state)
{
	struct hashtab *t = *state;
	struct hashtab_pos pos;
	uint32_t *p;

	assert_null(hashtab_find(t, 77, &pos));
	assert_int_equal(hashtab_add(t, &pos, 1), 0);
	p = hashtab_find(t, 77, &pos);
	assert_non_null(p);
	*p = 42;
	p = hashtab_find(t, 77, &pos);
	assert_non_null(p);
	assert_int_equal(*p, 42);
	assert_null(hashtab_find_next(t, &pos));
}

/* test_clear - clearing forgets every value and keeps the size */
static void test_clear(void **state)
{
	struct hashtab *t = *state;
	static uint64_t key[100];
	struct hashtab_pos pos;
	uint32_t i, slots;

	for (i = 0; i < 100; i++) {
		key[i] = i;
		tab_get(t, hashtab_mix(i), key, i, i);
	}
	slots = t->mask + 1;
	hashtab_clear(t);
	assert_int_equal(hashtab_count(t), 0);
	assert_int_equal(t->mask + 1, slots);
	for (i = 0; i < 100; i++)
		assert_null(hashtab_find(t, hashtab_mix(i), &pos));
	assert_int_equal(tab_get(t, hashtab_mix(5), key, 5, 5), 5);
	assert_int_equal(hashtab_count(t), 1);
}

/* test_init_sizes - sizes round up to powers of two; release is safe twice */
static void test_init_sizes(void **state)
{
	struct hashtab t;

	(void)state;
	assert_int_equal(hashtab_init(&t, 1000), 0);
	assert_int_equal(t.mask + 1, 1024);
	hashtab_release(&t);
	hashtab_release(&t);
	assert_null(t.slots);
	assert_int_equal(hashtab_init(&t, 1024), 0);
	assert_int_equal(t.mask + 1, 1024);
	hashtab_release(&t);
}

/* main - run the hashtab tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, setup_tab, teardown_tab),
		cmocka_unit_test_setup_teardown(test_find_added, setup_tab, teardown_tab),
		cmocka_unit_test_setup_teardown(test_equal_hashes_in_order,
						setup_tab, teardown_tab),
		cmocka_unit_test_setup_teardown(test_value_in_place,
						setup_tab, teardown_tab),
		cmocka_unit_test_setup_teardown(test_clear, setup_tab, teardown_tab),
		cmocka_unit_test(test_init_sizes),
	};

	return cmocka_run_group_tests_name("hashtab", tests, NULL, NULL);
}
