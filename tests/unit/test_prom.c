// SPDX-License-Identifier: GPL-2.0-or-later
/* test_prom.c - label escaping, cumulative buckets, atomic rewrite of the textfile */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prom.h"
#include "testlib.h"

/* tmp_path - a fresh file name in a private directory */
static void tmp_path(char *dir, char *path, size_t len)
{
	strcpy(dir, "/tmp/test_prom.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, len, "%s/iotap.prom", dir);
}

/* dir_entries - how many names dir holds besides . and .. (no temporary left behind) */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void test_label_escape(void **unused)
{
	char buf[128] = "";

	assert_int_equal(prom_label(buf, sizeof(buf), "disk", "sda"), 0);
	assert_string_equal(buf, "disk=\"sda\"");
	assert_int_equal(prom_label(buf, sizeof(buf), "comm", "a\"b\\c\nd"), 0);
	assert_string_equal(buf, "disk=\"sda\",comm=\"a\\\"b\\\\c\\nd\"");
	/* Valid UTF-8 is kept; each byte of a bad or truncated sequence becomes ?. */
	buf[0] = 0;
	assert_int_equal(prom_label(buf, sizeof(buf), "comm", "\xc3\xa9t\xe9\xff\xe2\x82"), 0);
	assert_string_equal(buf, "comm=\"\xc3\xa9t????\"");
}

static void test_label_nospace(void **unused)
{
	char buf[16] = "a=\"b\"";

	assert_int_equal(prom_label(buf, sizeof(buf), "comm", "0123456789"), -ENOSPC);
	assert_string_equal(buf, "a=\"b\"");
	assert_int_equal(prom_label(buf, sizeof(buf), "c", "d"), 0);
	assert_string_equal(buf, "a=\"b\",c=\"d\"");
}

static void test_hist_cumulative(void **unused)
{
	char dir[64], path[128], *text;
	struct hist h = { 0 };
	struct prom *p;

	tmp_path(dir, path, sizeof(path));
	p = prom_alloc(path);
	assert_non_null(p);
	/* 0 and 1 us in slot 1 (< 2 us), 3 in slot 2, 100 in slot 7 (< 128 us). */
	hist_add(&h, 0);
	hist_add(&h, 1);
	hist_add(&h, 3);
	hist_add(&h, 100);
	assert_int_equal(prom_hist_add(p, "t_seconds", "help \\ with\nnewline", "disk=\"sda\"", &h,
				       1e-6, 8, false), 0);
	assert_int_equal(prom_write(p), 0);
	text = testlib_text_load(path, NULL);
	assert_non_null(text);
	assert_string_equal(text,
		"# HELP t_seconds help \\\\ with\\nnewline\n"
		"# TYPE t_seconds histogram\n"
		"t_seconds_bucket{disk=\"sda\",le=\"2e-06\"} 2\n"
		"t_seconds_bucket{disk=\"sda\",le=\"4e-06\"} 3\n"
		"t_seconds_bucket{disk=\"sda\",le=\"8e-06\"} 3\n"
		"t_seconds_bucket{disk=\"sda\",le=\"1.6e-05\"} 3\n"
		"t_seconds_bucket{disk=\"sda\",le=\"3.2e-05\"} 3\n"
		"t_seconds_bucket{disk=\"sda\",le=\"6.4e-05\"} 3\n"
		"t_seconds_bucket{disk=\"sda\",le=\"0.000128\"} 4\n"
		"t_seconds_bucket{disk=\"sda\",le=\"0.000256\"} 4\n"
		"t_seconds_bucket{disk=\"sda\",le=\"+Inf\"} 4\n"
		"t_seconds_sum{disk=\"sda\"} 0.000104\n"
		"t_seconds_count{disk=\"sda\"} 4\n");
	free(text);
	/* A second interval adds up; a value past the top bucket is only in +Inf. */
	hist_reset(&h);
	hist_add(&h, 1000);
	assert_int_equal(prom_hist_add(p, "t_seconds", NULL, "disk=\"sda\"", &h, 1e-6, 8, false), 0);
	assert_int_equal(prom_write(p), 0);
	text = testlib_text_load(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "le=\"0.000256\"} 4\nt_seconds_bucket{disk=\"sda\",le=\"+Inf\"} 5\n"));
	assert_non_null(strstr(text, "t_seconds_count{disk=\"sda\"} 5\n"));
	free(text);
	assert_int_equal(dir_entries(dir), 1);
	prom_free(p);
	hist_release(&h);
	unlink(path);
	rmdir(dir);
}

/* le is inclusive: a value of exactly 2^i counts under le="2^i", one more only above it */
static void test_hist_le_inclusive(void **unused)
{
	char dir[64], path[128], *text;
	struct hist h = { 0 };
	struct prom *p;

	tmp_path(dir, path, sizeof(path));
	p = prom_alloc(path);
	assert_non_null(p);
	assert_int_equal(hist_le_slot(0), 0);
	assert_int_equal(hist_le_slot(1), 0);
	assert_int_equal(hist_le_slot(2), 1);
	assert_int_equal(hist_le_slot(3), 2);
	assert_int_equal(hist_le_slot(4096), 12);
	assert_int_equal(hist_le_slot(4097), 13);
	assert_int_equal(hist_le_slot(UINT64_MAX), 64);
	hist_add(&h, 4096);
	hist_add(&h, 4096);
	hist_add(&h, 4097);
	hist_add(&h, 2);
	assert_int_equal(prom_hist_add(p, "t_bytes", "sizes", "", &h, 1, 14, true), 0);
	/* Cut to whole units (microseconds of a time), 4096 may be up to 4097: le="8192". */
	assert_int_equal(prom_hist_add(p, "t_seconds", "times", "", &h, 1e-6, 14, false), 0);
	assert_int_equal(prom_write(p), 0);
	text = testlib_text_load(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "t_bytes_bucket{le=\"2\"} 1\n"));
	assert_non_null(strstr(text, "t_bytes_bucket{le=\"2048\"} 1\n"));
	assert_non_null(strstr(text, "t_bytes_bucket{le=\"4096\"} 3\n"));
	assert_non_null(strstr(text, "t_bytes_bucket{le=\"8192\"} 4\n"));
	assert_non_null(strstr(text, "t_bytes_bucket{le=\"+Inf\"} 4\n"));
	assert_non_null(strstr(text, "t_seconds_bucket{le=\"0.002048\"} 1\n"));
	assert_non_null(strstr(text, "t_seconds_bucket{le=\"0.004096\"} 1\n"));
	assert_non_null(strstr(text, "t_seconds_bucket{le=\"0.008192\"} 4\n"));
	/* BCC's slots are unchanged: 4096 and 4097 both in [4096, 8191]. */
	assert_int_equal(h.slot[13], 3);
	free(text);
	prom_free(p);
	hist_release(&h);
	unlink(path);
	rmdir(dir);
}

static void test_families(void **unused)
{
	char dir[64], path[128], *text;
	struct prom *p;

	tmp_path(dir, path, sizeof(path));
	p = prom_alloc(path);
	assert_non_null(p);
	assert_int_equal(prom_counter_add(p, "b_total", "B", "x=\"2\"", 2), 0);
	assert_int_equal(prom_counter_add(p, "a_total", "A", "", 1.5), 0);
	assert_int_equal(prom_counter_add(p, "b_total", "B", "x=\"1\"", 1), 0);
	assert_int_equal(prom_counter_add(p, "b_total", "B", "x=\"2\"", 3), 0);
	assert_int_equal(prom_counter_add(p, "bad name", "B", "", 3), -EINVAL);
	assert_int_equal(prom_write(p), 0);
	text = testlib_text_load(path, NULL);
	assert_non_null(text);
	assert_string_equal(text,
		"# HELP a_total A\n# TYPE a_total counter\na_total 1.5\n"
		"# HELP b_total B\n# TYPE b_total counter\nb_total{x=\"1\"} 1\nb_total{x=\"2\"} 5\n");
	free(text);
	prom_free(p);
	unlink(path);
	rmdir(dir);
}

/* test_memory_gauges - a registry without a file prints gauges beside counters and histograms */
static void test_memory_gauges(void **unused)
{
	struct hist h = { 0 };
	struct prom *p = prom_alloc(NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(p);
	assert_int_equal(prom_write(p), -EINVAL);
	assert_int_equal(prom_gauge_set(p, "rss_bytes", "RSS", NULL, 100), 0);
	assert_int_equal(prom_gauge_set(p, "rss_bytes", "RSS", NULL, 4096), 0);
	assert_int_equal(prom_gauge_set(p, "info", "I", "version=\"1\"", 1), 0);
	assert_int_equal(prom_counter_add(p, "rss_bytes", "RSS", NULL, 1), -ENOMEM);
	assert_int_equal(prom_gauge_set(p, "0bad", "B", NULL, 1), -EINVAL);
	/* 3 us (slot 2) and 5 us (slot 3), twice over: buckets and sum add up. */
	for (int i = 0; i < 2; i++) {
		hist_reset(&h);
		hist_add(&h, 3);
		hist_add(&h, 5);
		assert_int_equal(prom_hist_add(p, "lat_seconds", "L", "disk=\"a\",op=\"read\"", &h,
					       1e-6, 3, false), 0);
	}
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(prom_print(p, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text,
		"# HELP info I\n# TYPE info gauge\ninfo{version=\"1\"} 1\n"
		"# HELP lat_seconds L\n# TYPE lat_seconds histogram\n"
		"lat_seconds_bucket{disk=\"a\",op=\"read\",le=\"2e-06\"} 0\n"
		"lat_seconds_bucket{disk=\"a\",op=\"read\",le=\"4e-06\"} 2\n"
		"lat_seconds_bucket{disk=\"a\",op=\"read\",le=\"8e-06\"} 4\n"
		"lat_seconds_bucket{disk=\"a\",op=\"read\",le=\"+Inf\"} 4\n"
		"lat_seconds_sum{disk=\"a\",op=\"read\"} 1.6e-05\n"
		"lat_seconds_count{disk=\"a\",op=\"read\"} 4\n"
		"# HELP rss_bytes RSS\n# TYPE rss_bytes gauge\nrss_bytes 4096\n");
	assert_int_equal(len, strlen(text));
	free(text);
	hist_release(&h);
	prom_free(p);
}

static void test_bad_path(void **unused)
{
	assert_null(prom_alloc("/nonexistent-dir/x.prom"));
	assert_int_equal(errno, ENOENT);
	assert_null(prom_alloc(""));
	assert_int_equal(errno, EINVAL);
	prom_free(NULL);
}

/* test_values - each value as %.15g prints it, whole numbers by the quick way too */
static void test_values(void **unused)
{
	static const double v[] = {
		0, 1, 12345, 999999999999999, 1e15, 123456789012345678.0, 2.5, 0.000262144, -3,
		1e-7, 4503599627370496.5,
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct prom *p = prom_alloc(NULL);
		char *text = NULL, want[64];
		size_t len = 0;
		FILE *f;

		assert_non_null(p);
		assert_int_equal(prom_gauge_set(p, "g", "G", "", v[i]), 0);
		f = open_memstream(&text, &len);
		assert_non_null(f);
		assert_int_equal(prom_print(p, f), 0);
		fclose(f);
		snprintf(want, sizeof(want), "# HELP g G\n# TYPE g gauge\ng %.15g\n", v[i]);
		assert_string_equal(text, want);
		free(text);
		prom_free(p);
	}
}

/* count_of - the value of the series line "name{labels} N" in text, -1 when absent */
static long count_of(const char *text, const char *line)
{
	const char *at = strstr(text, line);

	return at && (at == text || at[-1] == '\n') ? strtol(at + strlen(line), NULL, 10) : -1;
}

/*
 * test_many_series - thousands of series, each found again after a page sorted them and
 * after others were dropped: the index follows them as they move
 */
static void test_many_series(void **unused)
{
	struct prom *p = prom_alloc(NULL);
	char labels[64], line[96], *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(p);
	/* Added in reverse, so that each page moves every one. */
	for (int round = 0; round < 3; round++) {
		for (int i = 4999; i >= 0; i--) {
			snprintf(labels, sizeof(labels), "disk=\"d%d\",cg=\"/c%d\"", i % 7, i);
			assert_int_equal(prom_counter_add(p, "n_total", "N", labels, i), 0);
			assert_int_equal(prom_counter_add(p, "m_total", "M", labels, 1), 0);
		}
		f = open_memstream(&text, &len);
		assert_non_null(f);
		assert_int_equal(prom_print(p, f), 0);
		assert_int_equal(fclose(f), 0);
		if (round == 1)
			assert_int_equal(prom_drop(p, "disk", "d3"), 2 * 714);
		if (round < 2) {
			free(text);
			text = NULL;
		}
	}
	/* A dropped disk's series start again from the last round; the others hold all three. */
	assert_int_equal(count_of(text, "n_total{disk=\"d0\",cg=\"/c4998\"} "), 3 * 4998);
	assert_int_equal(count_of(text, "n_total{disk=\"d3\",cg=\"/c3\"} "), 3);
	assert_int_equal(count_of(text, "m_total{disk=\"d3\",cg=\"/c10\"} "), 1);
	assert_int_equal(count_of(text, "m_total{disk=\"d4\",cg=\"/c11\"} "), 3);
	snprintf(line, sizeof(line), "# TYPE n_total counter\n");
	assert_non_null(strstr(text, line));
	assert_null(strstr(strstr(text, line) + 1, line));
	free(text);
	prom_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_escape),
		cmocka_unit_test(test_label_nospace),
		cmocka_unit_test(test_hist_cumulative),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_hist_le_inclusive),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_memory_gauges),
		cmocka_unit_test(test_bad_path),
		cmocka_unit_test(test_many_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
