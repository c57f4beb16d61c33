// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hist.c - histogram text equals BCC's, percentiles are within bounds */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"

/* render - run a printer into a string */
static char *render(const struct hist *h, const char *label)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(hist_print_log2(h, f, label), 0);
	fclose(f);
	return buf;
}

/* test_slots - BCC's bpf_log2l(v)+1 slot numbering */
static void test_slots(void **state)
{
	assert_int_equal(hist_log2_slot(0), 1);
	assert_int_equal(hist_log2_slot(1), 1);
	assert_int_equal(hist_log2_slot(2), 2);
	assert_int_equal(hist_log2_slot(3), 2);
	assert_int_equal(hist_log2_slot(4), 3);
	assert_int_equal(hist_log2_slot(1023), 10);
	assert_int_equal(hist_log2_slot(1024), 11);
	assert_int_equal(hist_log2_slot(UINT64_MAX), 64);
}

/* test_golden - the exact text BCC's print_log2_hist gives for the same counts */
static void test_golden(void **state)
{
	struct hist h = { 0 };
	char *text;
	/*
	 * BCC for vals[1..5] = {0, 0, 3, 10, 1} (values 4..7 three times, 8..15 ten
	 * times, 16..31 once): 40*3/10 = 12 stars, 40, 4.
	 */
	const char *expect =
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 3        |************                            |\n"
		"         8 -> 15         : 10       |****************************************|\n"
		"        16 -> 31         : 1        |****                                    |\n";

	for (int i = 0; i < 3; i++)
		hist_add(&h, 5);
	for (int i = 0; i < 10; i++)
		hist_add(&h, 8 + i % 8);
	hist_add(&h, 31);
	text = render(&h, "usecs");
	assert_string_equal(text, expect);
	free(text);
	assert_int_equal(h.count, 14);
	assert_int_equal(h.min, 5);
	assert_int_equal(h.max, 31);
	hist_release(&h);
}

/* test_empty - no header and no rows when nothing was counted */
static void test_empty(void **state)
{
	struct hist h = { 0 };
	char *text = render(&h, "usecs");

	assert_string_equal(text, "");
	free(text);
}

/* test_only_zero - values 0/1 only: idx_max 1 prints header and the 0 -> 1 row */
static void test_only_zero(void **state)
{
	struct hist h = { 0 };
	char *text;

	hist_add(&h, 0);
	hist_add(&h, 1);
	text = render(&h, "msecs");
	assert_string_equal(text,
			    "     msecs               : count     distribution\n"
			    "         0 -> 1          : 2        |****************************************|\n");
	free(text);
	hist_release(&h);
}

/* test_wide - beyond slot 32 BCC switches to 20-wide columns and 20 stars */
static void test_wide(void **state)
{
	struct hist h = { 0 };
	char *text, *last;

	hist_add(&h, 1ull << 40);
	text = render(&h, "usecs");
	assert_non_null(strstr(text, "               usecs                         : count     distribution\n"));
	last = strrchr(text, '\n');
	*last = 0;
	last = strrchr(text, '\n') + 1;
	assert_string_equal(last, "       1099511627776 -> 2199023255551        : 1        |********************|");
	free(text);
	hist_release(&h);
}

/* test_stars - floor(40 * v / max), as BCC's loop computes it */
static void test_stars(void **state)
{
	char bar[64];

	hist_stars(bar, 1, 3, 40);
	assert_int_equal(strlen(bar), 13);
	hist_stars(bar, 2, 3, 40);
	assert_int_equal(strlen(bar), 26);
	hist_stars(bar, 3, 3, 40);
	assert_int_equal(strlen(bar), 40);
	hist_stars(bar, 1, 100, 40);
	assert_int_equal(strlen(bar), 0);
}

/* test_percentiles - exact below 64, within 1/64 above, max exact */
static void test_percentiles(void **state)
{
	struct hist h = { 0 };

	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(&h, v);
	assert_int_equal(hist_percentile(&h, 100), 1000);
	assert_in_range(hist_percentile(&h, 50), 500, 500 + 500 / 64 + 1);
	assert_in_range(hist_percentile(&h, 90), 900, 900 + 900 / 64 + 1);
	assert_in_range(hist_percentile(&h, 99.9), 999, 1000);
	hist_reset(&h);
	for (uint64_t v = 0; v < 60; v++)
		hist_add(&h, v);
	assert_int_equal(hist_percentile(&h, 50), 29);
	assert_int_equal(hist_percentile(&h, 1), 0);
	hist_reset(&h);
	hist_add(&h, 123456789);
	assert_int_equal(hist_percentile(&h, 50), 123456789);
	hist_release(&h);
}

/* test_json - valid JSON with BCC's keys and intervals */
static void test_json(void **state)
{
	struct hist h = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist_add(&h, 1);
	hist_add(&h, 6);
	hist_print_json(&h, f, "usecs", "2026-01-02 03:04:05", "flags", "Sync-\"Write");
	fclose(f);
	assert_string_equal(buf,
		"{\"ts\": \"2026-01-02 03:04:05\", \"val_type\": \"usecs\", \"data\": ["
		"{\"interval-start\": 0, \"interval-end\": 1, \"count\": 1}, "
		"{\"interval-start\": 2, \"interval-end\": 3, \"count\": 0}, "
		"{\"interval-start\": 4, \"interval-end\": 7, \"count\": 1}], "
		"\"flags\": \"Sync-\\\"Write\", \"count\": 2, \"sum\": 7, "
		"\"p50\": 1, \"p90\": 6, \"p99\": 6, \"p99.9\": 6, \"max\": 6}\n");
	free(buf);
	hist_release(&h);
}

/* test_sections - sorted by name, reset empties */
static void test_sections(void **state)
{
	struct hist_set hs = { 0 };

	hist_add(hist_set_get(&hs, "vdb"), 1);
	hist_add(hist_set_get(&hs, "loop0"), 1);
	hist_add(hist_set_get(&hs, "vdb"), 3);
	hist_add(hist_set_get(&hs, "sda"), 1);
	hist_set_sort(&hs);
	assert_int_equal(hs.nr, 3);
	assert_string_equal(hs.keys[0], "loop0");
	assert_string_equal(hs.keys[1], "sda");
	assert_string_equal(hs.keys[2], "vdb");
	assert_int_equal(hs.h[2].count, 2);
	hist_set_reset(&hs);
	assert_int_equal(hs.nr, 0);
	hist_set_release(&hs);
}

/* test_set_print - sections sorted by name, each as BCC prints "\n<section> = <key>" */
static void test_set_print(void **state)
{
	struct hist_set hs = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	hist_add(hist_set_get(&hs, "fio"), 64);
	hist_add(hist_set_get(&hs, "dd"), 4);
	assert_int_equal(hist_set_print_log2(&hs, f, "Process Name", "Kbytes"), 0);
	fclose(f);
	assert_string_equal(buf,
		"\nProcess Name = dd\n"
		"     Kbytes              : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 1        |****************************************|\n"
		"\nProcess Name = fio\n"
		"     Kbytes              : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 0        |                                        |\n"
		"         8 -> 15         : 0        |                                        |\n"
		"        16 -> 31         : 0        |                                        |\n"
		"        32 -> 63         : 0        |                                        |\n"
		"        64 -> 127        : 1        |****************************************|\n");
	free(buf);
	hist_set_release(&hs);
}

/* test_bt_layout - bpftrace's hist(): [0], [1], [2, 4) ... rows from the lowest to the highest */
static void test_bt_layout(void **state)
{
	static const uint64_t vals[] = { 0, 1, 2, 3, 1024 };
	struct hist_bt h = { 0 }, m = { 0 };
	char *buf = NULL, row[128], bar[53];
	size_t len = 0, lines = 0;
	FILE *out;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		hist_bt_add(&h, vals[i]);
	assert_int_equal(h.count, 5);
	assert_int_equal(h.sum, 1030);
	hist_bt_merge(&m, &h);
	hist_bt_merge(&m, &h);
	assert_int_equal(m.slot[2], 4);
	assert_int_equal(m.count, 10);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(hist_bt_print(&h, out), 0);
	fclose(out);
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 12);		/* [0] up to [1K, 2K) */
	memset(bar, '@', 52);
	bar[52] = 0;
	snprintf(row, sizeof(row), "%-16s%8d |%-52s|\n", "[2, 4)", 2, bar);
	assert_non_null(strstr(buf, row));
	memset(bar, 0, sizeof(bar));
	memset(bar, '@', 26);
	snprintf(row, sizeof(row), "%-16s%8d |%-52s|\n", "[1K, 2K)", 1, bar);
	assert_non_null(strstr(buf, row));
	assert_non_null(strstr(buf, "[4, 8)                 0 |"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bt_layout),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_only_zero),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_stars),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_set_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
