// SPDX-License-Identifier: GPL-2.0-or-later
/* test_wbtrack.c - how a written-back bio's pages are split among the inode's dirtiers */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "wbtrack.h"

/* split - shares of units by w, checked to sum to units */
static void split(const uint64_t *w, size_t nr, uint64_t units, uint64_t *share)
{
	bool given[8];
	uint64_t sum = 0;

	wbtrack_shares(w, nr, units, share, given);
	for (size_t i = 0; i < nr; i++)
		sum += share[i];
	assert_int_equal(sum, units);
}

/* test_exact - weights that divide the units give exactly their part */
static void test_exact(void **state)
{
	uint64_t w[] = { 256, 768 }, s[2];

	split(w, 2, 256, s);
	assert_int_equal(s[0], 64);
	assert_int_equal(s[1], 192);
	split(w, 2, 1024, s);
	assert_int_equal(s[0], 256);
	assert_int_equal(s[1], 768);
}

/* test_remainder - the leftover units go to the largest remainders, one each, ties to the first */
static void test_remainder(void **state)
{
	uint64_t w3[] = { 1, 1, 1 }, s[3];
	uint64_t w2[] = { 1, 2 };

	split(w3, 3, 2, s);
	assert_int_equal(s[0], 1);
	assert_int_equal(s[1], 1);
	assert_int_equal(s[2], 0);
	/* 1024 * 1/3 = 341.33, 1024 * 2/3 = 682.67: the second's remainder is the larger. */
	split(w2, 2, 1024, s);
	assert_int_equal(s[0], 341);
	assert_int_equal(s[1], 683);
}

/* test_edges - zero weights get nothing; all zero: the first takes all; huge weights do not overflow */
static void test_edges(void **state)
{
	uint64_t wz[] = { 0, 5, 0 }, w0[] = { 0, 0 }, wh[] = { UINT64_MAX / 4, UINT64_MAX / 4 }, s[3];

	split(wz, 3, 7, s);
	assert_int_equal(s[0], 0);
	assert_int_equal(s[1], 7);
	assert_int_equal(s[2], 0);
	split(w0, 2, 9, s);
	assert_int_equal(s[0], 9);
	assert_int_equal(s[1], 0);
	split(wh, 2, 1u << 20, s);
	assert_int_equal(s[0], 1u << 19);
	assert_int_equal(s[1], 1u << 19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_remainder),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
