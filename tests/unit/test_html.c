// SPDX-License-Identifier: GPL-2.0-or-later
/* test_html.c - what a recording says reaches the page as text only; heat maps widen, bounded */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "heatmap.h"
#include "hist.h"
#include "html.h"

/* esc - html_textn of n bytes of s, as a string */
static char *esc(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	html_textn(f, s, n);
	fclose(f);
	return buf;
}

static void test_escape(void **unused)
{
	static const char comm[] = "<script>\"x'&</script>";
	char *got = esc(comm, strlen(comm));

	assert_string_equal(got, "&lt;script&gt;&quot;x&#39;&amp;&lt;/script&gt;");
	free(got);
	/* A comm fills its 16 bytes without a NUL: never read past them. */
	got = esc("0123456789abcdefGHI", 16);
	assert_string_equal(got, "0123456789abcdef");
	free(got);
	/* Control bytes and bytes that are no UTF-8 become '?'; UTF-8 stays; newlines stay. */
	got = esc("a\x01\x1b[0m\xff\xc3\xa9\xe2\x82\n\xf0\x9f\x98\x80", 17);
	assert_string_equal(got, "a??[0m?\xc3\xa9??\n\xf0\x9f\x98\x80");
	free(got);
	/* Overlong forms and surrogates are no characters either. */
	got = esc("\xc0\xbc\xed\xa0\x80", 5);
	assert_string_equal(got, "?????");
	free(got);
}

static void test_hist(void **unused)
{
	struct hist h = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < 5; i++)
		assert_int_equal(hist_add(&h, 40), 0);
	assert_int_equal(hist_add(&h, 1000), 0);
	html_hist(f, &h, "lat-<sda>", "usecs");
	fclose(f);
	assert_non_null(strstr(buf, "data-hist=\"lat-&lt;sda&gt;\" data-count=\"6\""));
	assert_non_null(strstr(buf, "data-lo=\"32\" data-hi=\"63\" data-n=\"5\""));
	assert_non_null(strstr(buf, "data-lo=\"512\" data-hi=\"1023\" data-n=\"1\""));
	/* Every row from the lowest to the highest used, the empty ones too. */
	assert_non_null(strstr(buf, "data-lo=\"256\" data-hi=\"511\" data-n=\"0\""));
	assert_null(strstr(buf, "data-lo=\"16\""));
	assert_non_null(strstr(buf, "max <b data-p=\"max\">1000</b>"));
	free(buf);
	hist_release(&h);
}

static void test_coarsen(void **unused)
{
	struct heatmap *hm = heatmap_alloc(1000);

	assert_non_null(hm);
	assert_int_equal(heatmap_add(hm, 0, 3), 0);
	assert_int_equal(heatmap_add(hm, 1500, 3), 0);
	assert_int_equal(heatmap_add(hm, 2500, 5), 0);
	assert_int_equal(heatmap_cols(hm), 3);
	heatmap_coarsen(hm);
	assert_int_equal(heatmap_cols(hm), 2);
	assert_int_equal(heatmap_col_ns(hm), 2000);
	assert_int_equal(heatmap_cell(hm, 0, 3), 2);
	assert_int_equal(heatmap_cell(hm, 1, 5), 1);
	assert_int_equal(heatmap_cell(hm, 2, 5), 0);
	/* Later requests go into the wider columns. */
	assert_int_equal(heatmap_add(hm, 3999, 5), 0);
	assert_int_equal(heatmap_cell(hm, 1, 5), 2);
	assert_int_equal(heatmap_total(hm), 4);
	heatmap_free(hm);
}

static void test_series_bounded(void **unused)
{
	uint64_t *v = calloc(4096, sizeof(*v));
	char *buf = NULL, *p;
	size_t len = 0, bars = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(v);
	for (size_t i = 0; i < 4096; i++)
		v[i] = 1;
	html_series(f, "iops-x", "t", "IOPS", v, 4096, 0.001, 4.096, 1);
	fclose(f);
	for (p = buf; (p = strstr(p, "<rect x=")); p++)
		bars++;
	assert_true(bars <= HTML_SERIES_MAX);
	assert_true(bars >= HTML_SERIES_MAX / 2);
	/* Five 1 ms columns of one request each: 1000 requests a second. */
	assert_non_null(strstr(buf, "data-v=\"1000\""));
	free(buf);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_coarsen),
		cmocka_unit_test(test_series_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
