// SPDX-License-Identifier: GPL-2.0-or-later
/* test_array.c - capacities double from the minimum, contents survive, failures change nothing */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "array.h"

/* test_grow_keeps - growing from NULL doubles from min and keeps what was written */
static void test_grow_keeps(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0, i;

	(void)state;
	assert_int_equal(array_reserve(&a, &cap, 1, sizeof(*a), 16), 0);
	assert_non_null(a);
	assert_int_equal(cap, 16);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(array_reserve(&a, &cap, i + 1, sizeof(*a), 16), 0);
		a[i] = (uint32_t)i * 3;
	}
	assert_int_equal(cap, 1024);
	for (i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 3);
	/* Enough room already: nothing moves. */
	uint32_t *before = a;
	assert_int_equal(array_reserve(&a, &cap, 1024, sizeof(*a), 16), 0);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 1024);
	/* A jump doubles as far as needed. */
	assert_int_equal(array_reserve(&a, &cap, 5000, sizeof(*a), 16), 0);
	assert_int_equal(cap, 8192);
	assert_int_equal(a[999], 999 * 3);
	free(a);
}

/* test_overflow - sizes past SIZE_MAX fail with the array unchanged */
static void test_overflow(void **state)
{
	uint64_t *a = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_reserve(&a, &cap, 4, sizeof(*a), 4), 0);
	a[3] = 7;
	uint64_t *before = a;
	assert_int_equal(array_reserve(&a, &cap, SIZE_MAX / 4, sizeof(*a), 4),
			 -ENOMEM);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 4);
	assert_int_equal(array_reserve(&a, &cap, SIZE_MAX, sizeof(*a), 4),
			 -ENOMEM);
	assert_int_equal(cap, 4);
	assert_int_equal(a[3], 7);
	free(a);
}

/* main - run the array tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_keeps),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests_name("array", tests, NULL, NULL);
}
