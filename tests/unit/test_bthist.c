// SPDX-License-Identifier: GPL-2.0-or-later
/* test_bthist.c - bpftrace's hist() layout: rows, bounds with suffixes, 0 and 1 apart */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"

/* print - hist_print_bt into a string */
static char *print(const struct hist *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(hist_print_bt(h, f), 0);
	fclose(f);
	return buf;
}

/* test_rows - [0] and [1] apart, then [2, 4) ... with K suffixes, empty rows between kept */
static void test_rows(void **state)
{
	struct hist h = { 0 };
	char *out;

	assert_int_equal(hist_add(&h, 0), 0);
	assert_int_equal(hist_add(&h, 1), 0);
	assert_int_equal(hist_add(&h, 1), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hist_add(&h, 3), 0);
	assert_int_equal(hist_add(&h, 1500), 0);
	out = print(&h);
	assert_string_equal(out,
		"[0]                    1 |@@@@@@@@@@@@@                                       |\n"
		"[1]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[2, 4)                 4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4, 8)                 0 |                                                    |\n"
		"[8, 16)                0 |                                                    |\n"
		"[16, 32)               0 |                                                    |\n"
		"[32, 64)               0 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)               1 |@@@@@@@@@@@@@                                       |\n");
	free(out);
	hist_release(&h);
}

/* test_empty_and_large - nothing for an empty histogram; M and G bounds */
static void test_empty_and_large(void **state)
{
	struct hist h = { 0 };
	char *out = print(&h);

	assert_string_equal(out, "");
	free(out);
	assert_int_equal(hist_add(&h, 5000000), 0);
	assert_int_equal(hist_add(&h, 3ull << 30), 0);
	out = print(&h);
	assert_non_null(strstr(out, "[4M, 8M)               1 |"));
	assert_non_null(strstr(out, "[2G, 4G)               1 |"));
	free(out);
	hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_empty_and_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
