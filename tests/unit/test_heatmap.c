// SPDX-License-Identifier: GPL-2.0-or-later
/* test_heatmap.c - cells by column and log2 row, exact hover counts, empty maps */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "heatmap.h"

/* render - the SVG of hm as a string */
static char *render(const struct heatmap *hm, const struct heatmap_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(heatmap_write_svg(hm, f, o), 0);
	fclose(f);
	return buf;
}

static void test_cells(void **unused)
{
	struct heatmap *hm = heatmap_alloc(500000000);	/* 0.5 s columns */
	struct heatmap_opts o = { .title = "a <b> & c", .unit = "usecs" };
	char *svg;

	assert_non_null(hm);
	for (int i = 0; i < 7; i++)
		assert_int_equal(heatmap_add(hm, 100, 4), 0);		/* 8..15 us, column 0 */
	assert_int_equal(heatmap_add(hm, 1200000000, 1), 0);		/* 0..1 us, column 2 */
	assert_int_equal(heatmap_add(hm, 0, 0), -EINVAL);
	assert_int_equal(heatmap_add(hm, 0, 65), -EINVAL);
	assert_int_equal(heatmap_total(hm), 8);
	svg = render(hm, &o);
	assert_non_null(strstr(svg, "<title>0-0.5 s, 8 -> 15 usecs: count 7</title>"));
	assert_non_null(strstr(svg, "<title>1-1.5 s, 0 -> 1 usecs: count 1</title>"));
	assert_non_null(strstr(svg, ">a &lt;b&gt; &amp; c</text>"));
	assert_non_null(strstr(svg, "8 I/O, 0.5 s per column"));
	/* The hottest cell has the top colour; one cell alone the bottom one. */
	assert_non_null(strstr(svg, "fill=\"#bd0026\"><title>0-0.5"));
	assert_non_null(strstr(svg, "fill=\"#ffeda0\"><title>1-1.5"));
	free(svg);
	heatmap_free(hm);
	heatmap_free(NULL);
}

static void test_empty(void **unused)
{
	struct heatmap *hm = heatmap_alloc(1000000000);
	char *svg = render(hm, NULL);

	assert_non_null(strstr(svg, ">no I/O</text>"));
	assert_null(strstr(svg, "<title>"));
	assert_int_equal(strncmp(svg, "<?xml", 5), 0);
	free(svg);
	heatmap_free(hm);
	assert_null(heatmap_alloc(0));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
