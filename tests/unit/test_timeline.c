// SPDX-License-Identifier: GPL-2.0-or-later
/* test_timeline.c - lanes for overlapping requests, flush and error marks, JSON text */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "timeline.h"

/* render - the JSON of tl as a string */
static char *render(struct timeline *tl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(timeline_write_json(tl, f), 0);
	fclose(f);
	return buf;
}

/* count - occurrences of needle in s */
static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_lanes_and_marks(void **unused)
{
	struct timeline *tl = timeline_alloc();
	struct timeline_req r = { .dev = 7, .disk = "sda", .pid = 42, .comm = "db\"x", .rwbs = "R" };
	char *json;

	assert_non_null(tl);
	/* Two overlapping reads: two lanes on the disk and on the process. */
	r.t_start = 1000, r.t_issue = 3000, r.t_done = 9000, r.sector = 8, r.bytes = 4096;
	assert_int_equal(timeline_add(tl, &r), 0);
	r.t_start = 2000, r.t_issue = 2500, r.t_done = 4000, r.sector = 16;
	assert_int_equal(timeline_add(tl, &r), 0);
	/* After both: back in lane 0; it failed. */
	r.t_start = 0, r.t_issue = 10000, r.t_done = 12000, r.error = -5;
	assert_int_equal(timeline_add(tl, &r), 0);
	/* A flush. */
	r.t_issue = 13000, r.t_done = 14500, r.error = 0, r.flush = true, r.rwbs = "FF";
	assert_int_equal(timeline_add(tl, &r), 0);
	r.t_done = 100;
	assert_int_equal(timeline_add(tl, &r), -EINVAL);
	assert_int_equal(timeline_count(tl), 4);
	json = render(tl);
	assert_int_equal(count(json, "\"name\": \"device\""), 4);
	assert_int_equal(count(json, "\"name\": \"queued\""), 2);
	/* The slice on the disk and on the process, and the mark. */
	assert_int_equal(count(json, "\"name\": \"flush\""), 3);
	assert_int_equal(count(json, "\"name\": \"error -5\""), 2);	/* disk and process */
	assert_int_equal(count(json, "\"name\": \"disk sda lane 1\""), 1);
	assert_int_equal(count(json, "\"name\": \"disk sda lane 2\""), 0);
	assert_int_equal(count(json, "\"name\": \"db\\\"x 42\""), 1);
	/* Times from the earliest start, in us with ns kept exactly. */
	assert_non_null(strstr(json, "\"name\": \"R 4096 B @ 8\", \"cat\": \"request\", \"pid\": 5000000, "
			       "\"tid\": 5000000, \"ts\": 0.000, \"dur\": 8.000"));
	assert_non_null(strstr(json, "\"name\": \"queued\", \"cat\": \"queued\", \"pid\": 5000000, "
			       "\"tid\": 6000000, \"ts\": 1.000, \"dur\": 0.500"));
	assert_non_null(strstr(json, "\"name\": \"R 4096 B @ 16 (error)\""));
	assert_int_equal(json[strlen(json) - 3], ']');
	free(json);
	timeline_free(tl);
	timeline_free(NULL);
}

static void test_empty(void **unused)
{
	struct timeline *tl = timeline_alloc();
	char *json = render(tl);

	assert_string_equal(json, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"producer\": \"iotap\"}, "
			    "\"traceEvents\": [\n]}\n");
	free(json);
	timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lanes_and_marks),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
