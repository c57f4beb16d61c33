// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pairtab.c - enter/exit pairing per thread and key, and what it counts instead of dropping */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "pairtab.h"

static const char KEY_READ[] = "vfs_read", KEY_READ2[] = "vfs_read", KEY_SYNC[] = "ext4_sync_file";

/* test_pairs - each exit takes its own thread's entry of its own key */
static void test_pairs(void **state)
{
	struct pairtab *pt = pairtab_alloc();
	uint64_t t = 0;

	assert_non_null(pt);
	assert_int_equal(pairtab_enter(pt, 10, KEY_READ, 100), 0);
	assert_int_equal(pairtab_enter(pt, 11, KEY_READ, 200), 0);
	assert_int_equal(pairtab_enter(pt, 10, KEY_SYNC, 300), 0);
	assert_int_equal(pairtab_pending(pt), 3);
	assert_int_equal(pairtab_exit(pt, 11, KEY_READ, &t), 0);
	assert_int_equal(t, 200);
	assert_int_equal(pairtab_exit(pt, 10, KEY_SYNC, &t), 0);
	assert_int_equal(t, 300);
	assert_int_equal(pairtab_exit(pt, 10, KEY_READ, &t), 0);
	assert_int_equal(t, 100);
	assert_int_equal(pairtab_pending(pt), 0);
	assert_int_equal(pairtab_stats(pt)->paired, 3);
	assert_int_equal(pairtab_stats(pt)->replaced, 0);
	assert_int_equal(pairtab_stats(pt)->unmatched_exits, 0);
	pairtab_free(pt);
}

/* test_counted - a second entry replaces the first, an exit without entry fails: both counted */
static void test_counted(void **state)
{
	struct pairtab *pt = pairtab_alloc();
	uint64_t t = 0;

	assert_non_null(pt);
	assert_int_equal(pairtab_exit(pt, 5, KEY_READ, &t), -ENOENT);
	assert_int_equal(pairtab_enter(pt, 5, KEY_READ, 10), 0);
	assert_int_equal(pairtab_enter(pt, 5, KEY_READ, 20), 0);
	assert_int_equal(pairtab_pending(pt), 1);
	assert_int_equal(pairtab_exit(pt, 5, KEY_READ, &t), 0);
	assert_int_equal(t, 20);
	/* The same text at another address is another key. */
	assert_int_equal(pairtab_enter(pt, 5, KEY_READ2, 30), 0);
	assert_int_equal(pairtab_exit(pt, 5, KEY_READ, &t), -ENOENT);
	assert_int_equal(pairtab_pending(pt), 1);
	assert_int_equal(pairtab_stats(pt)->paired, 1);
	assert_int_equal(pairtab_stats(pt)->replaced, 1);
	assert_int_equal(pairtab_stats(pt)->unmatched_exits, 2);
	pairtab_free(pt);
}

/* test_many - thousands of threads inside at once: no limit, each gets its own time back */
static void test_many(void **state)
{
	struct pairtab *pt = pairtab_alloc();
	uint64_t t = 0;

	assert_non_null(pt);
	for (uint32_t tid = 1; tid <= 5000; tid++)
		assert_int_equal(pairtab_enter(pt, tid, KEY_SYNC, 1000 + tid), 0);
	assert_int_equal(pairtab_pending(pt), 5000);
	for (uint32_t tid = 5000; tid >= 1; tid--) {
		assert_int_equal(pairtab_exit(pt, tid, KEY_SYNC, &t), 0);
		assert_int_equal(t, 1000 + tid);
	}
	assert_int_equal(pairtab_pending(pt), 0);
	assert_int_equal(pairtab_stats(pt)->paired, 5000);
	pairtab_free(pt);
	pairtab_free(NULL);
}

/* main - run the pairing tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_counted),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
