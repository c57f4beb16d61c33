// SPDX-License-Identifier: GPL-2.0-or-later
/* test_reqtab.c - pairing table: shared keys, eviction by age and by size */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "reqtab.h"

/* test_basic - insert, find, remove */
static void test_basic(void **state)
{
	struct reqtab *t = reqtab_alloc(16, 0);
	struct blkreq *r = reqtab_insert(t, 7, 100, 1);

	r->t_issue = 5;
	assert_ptr_equal(reqtab_find(t, 7, 100), r);
	assert_null(reqtab_find(t, 7, 101));
	assert_null(reqtab_find(t, 8, 100));
	reqtab_remove(t, r);
	assert_null(reqtab_find(t, 7, 100));
	assert_int_equal(reqtab_count(t), 0);
	reqtab_free(t);
}

/* test_shared_key - two requests on one sector complete oldest first */
static void test_shared_key(void **state)
{
	struct reqtab *t = reqtab_alloc(16, 0);
	struct blkreq *a = reqtab_insert(t, 7, 100, 1), *b;

	a->user = 1;
	b = reqtab_insert(t, 7, 100, 2);
	b->user = 2;
	assert_int_equal(reqtab_find(t, 7, 100)->user, 1);
	assert_int_equal(reqtab_find_next(t, reqtab_find(t, 7, 100))->user, 2);
	assert_null(reqtab_find_next(t, b));
	reqtab_remove(t, reqtab_find(t, 7, 100));
	assert_int_equal(reqtab_find(t, 7, 100)->user, 2);
	reqtab_free(t);
}

/* test_rekey - a request moved to another sector is found there alone, keeps its age, and goes */
static void test_rekey(void **state)
{
	struct reqtab *t = reqtab_alloc(16, 1000);
	struct blkreq *a = reqtab_insert(t, 7, 108, 1), *b = reqtab_insert(t, 7, 100, 2);

	a->user = 1;
	b->user = 2;
	reqtab_rekey(t, a, 100);
	assert_null(reqtab_find(t, 7, 108));
	assert_int_equal(reqtab_find(t, 7, 100)->user, 2);
	assert_int_equal(reqtab_find_next(t, b)->user, 1);
	assert_int_equal(a->sector, 100);
	/* Still the oldest: it ages out first. */
	reqtab_insert(t, 7, 200, 1001 + 1);
	assert_int_equal(reqtab_count(t), 2);
	assert_null(reqtab_find_next(t, reqtab_find(t, 7, 100)));
	assert_int_equal(reqtab_stats(t)->evicted_age, 1);
	reqtab_free(t);
}

/* test_evict_full - a full table drops its oldest entry and counts it */
static void test_evict_full(void **state)
{
	struct reqtab *t = reqtab_alloc(4, 0);

	for (uint64_t s = 0; s < 10; s++)
		reqtab_insert(t, 1, s, s + 1);
	assert_int_equal(reqtab_count(t), 4);
	assert_int_equal(reqtab_stats(t)->evicted_full, 6);
	assert_null(reqtab_find(t, 1, 5));
	assert_non_null(reqtab_find(t, 1, 6));
	assert_non_null(reqtab_find(t, 1, 9));
	reqtab_free(t);
}

/* test_evict_age - entries older than max_age go when something new arrives */
static void test_evict_age(void **state)
{
	struct reqtab *t = reqtab_alloc(64, 1000);

	reqtab_insert(t, 1, 1, 100);
	reqtab_insert(t, 1, 2, 500);
	reqtab_insert(t, 1, 3, 1400);	/* 100 is now 1300 old: evicted; 500 is 900 old: kept */
	assert_int_equal(reqtab_stats(t)->evicted_age, 1);
	assert_null(reqtab_find(t, 1, 1));
	assert_non_null(reqtab_find(t, 1, 2));
	reqtab_free(t);
}

/* test_many - a million inserts and removals keep the table consistent */
static void test_many(void **state)
{
	struct reqtab *t = reqtab_alloc(1024, 0);

	for (uint64_t i = 0; i < 1000000; i++) {
		reqtab_insert(t, i % 3, i, i);
		if (i >= 100) {
			struct blkreq *r = reqtab_find(t, (i - 100) % 3, i - 100);

			assert_non_null(r);
			reqtab_remove(t, r);
		}
	}
	assert_int_equal(reqtab_count(t), 100);
	assert_int_equal(reqtab_stats(t)->evicted_full, 0);
	reqtab_free(t);
}

/* test_grow - thousands in flight: the buckets grow, every request is still found once */
static void test_grow(void **state)
{
	struct reqtab *t = reqtab_alloc(8192, 0);

	for (uint64_t k = 0; k < 5000; k++)
		reqtab_insert(t, 7, k * 8 % 4096, k)->user = k;
	/* Keys repeat from 512 on: each is found oldest first, then the younger ones. */
	for (uint64_t k = 0; k < 512; k++) {
		struct blkreq *r = reqtab_find(t, 7, k * 8);
		uint64_t n = 0;

		for (; r; r = reqtab_find_next(t, r), n++)
			assert_int_equal(r->user, k + 512 * n);
		assert_int_equal(n, k < 5000 % 512 ? 10 : 9);
	}
	for (uint64_t k = 0; k < 5000; k++)
		reqtab_remove(t, reqtab_find(t, 7, k * 8 % 4096));
	assert_int_equal(reqtab_count(t), 0);
	assert_int_equal(reqtab_stats(t)->evicted_full, 0);
	reqtab_free(t);
}

/* test_chunks - past the first chunks, a cap that is no multiple of them: entries stay put */
static void test_chunks(void **state)
{
	struct reqtab *t = reqtab_alloc(5000, 0);
	struct blkreq *first = reqtab_insert(t, 1, 0, 0);

	first->user = 42;
	for (uint64_t k = 1; k < 4999; k++)
		reqtab_insert(t, 1, k, k)->user = k;
	/* The first entry has not moved while the pool grew past 4096. */
	assert_ptr_equal(reqtab_find(t, 1, 0), first);
	assert_int_equal(first->user, 42);
	for (uint64_t k = 4999; k < 6000; k++)
		reqtab_insert(t, 1, k, k)->user = k;
	assert_int_equal(reqtab_count(t), 5000);
	assert_int_equal(reqtab_stats(t)->evicted_full, 1000);
	assert_null(reqtab_find(t, 1, 999));
	assert_int_equal(reqtab_find(t, 1, 1000)->user, 1000);
	assert_int_equal(reqtab_find(t, 1, 5999)->user, 5999);
	reqtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_shared_key),
		cmocka_unit_test(test_rekey),
		cmocka_unit_test(test_evict_full),
		cmocka_unit_test(test_evict_age),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
