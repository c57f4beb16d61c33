// SPDX-License-Identifier: GPL-2.0-or-later
/* testlib.c - scaffolding shared by the unit tests (testlib.h) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

/* file_read - all of f, closed after, in a buffer pad bytes longer than *len */
static char *file_read(FILE *f, size_t pad, size_t *len)
{
	char *buf;
	long n;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n + pad ? n + pad : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* testlib_text_load - a whole file, a NUL after its *len bytes; NULL when it cannot be opened */
char *testlib_text_load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	char *buf;

	if (!f)
		return NULL;
	buf = file_read(f, 1, &n);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* testlib_format_load - the text of a captured kernel's events/<rel> ("block/x/format") */
char *testlib_format_load(const char *kernel, const char *rel, size_t *len)
{
	char path[512], *text;

	snprintf(path, sizeof(path), "%s/formats/%s/events/%s", TEST_DATA, kernel, rel);
	text = testlib_text_load(path, len);
	assert_non_null(text);
	return text;
}

/* testlib_fmt_init - fs from a captured kernel's header_page, for 8-byte longs and 4 KiB pages */
void testlib_fmt_init(struct fmt_set *fs, const char *kernel)
{
	size_t len;
	char *hp = testlib_format_load(kernel, "header_page", &len);

	assert_int_equal(fmt_set_init(fs, hp, len, 8, 4096), 0);
	free(hp);
}

/* testlib_fmt_add - the captured format of sys:name parsed into fs; its event (fs owns it) */
struct tep_event *testlib_fmt_add(struct fmt_set *fs, const char *kernel, const char *sys,
				  const char *name)
{
	struct tep_event *ev;
	char rel[256], *text;
	size_t len;

	snprintf(rel, sizeof(rel), "%s/%s/format", sys, name);
	text = testlib_format_load(kernel, rel, &len);
	ev = fmt_set_add(fs, sys, name, text, len);
	assert_non_null(ev);
	free(text);
	return ev;
}

/* testlib_fmt_load - testlib_fmt_init, then the sys events of a NULL-terminated list added */
void testlib_fmt_load(struct fmt_set *fs, const char *kernel, const char *sys,
		      const char *const *names)
{
	testlib_fmt_init(fs, kernel);
	for (; *names; names++)
		testlib_fmt_add(fs, kernel, sys, *names);
}
