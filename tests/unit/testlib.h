/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TESTLIB_H
#define IOTAP_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include "tfs.h"

/*
 * What several unit tests need around the code under test: files of
 * tests/data in memory and the format sets of the kernels captured there.
 * Every function fails the running cmocka test on an error it does not
 * return; what is returned is the caller's to free.
 */

/* testlib_text_load - a whole file, a NUL after its *len bytes; NULL when it cannot be opened */
char *testlib_text_load(const char *path, size_t *len);

/* testlib_format_load - the text of a captured kernel's events/<rel> ("block/x/format") */
char *testlib_format_load(const char *kernel, const char *rel, size_t *len);

/* testlib_fmt_init - fs from a captured kernel's header_page, for 8-byte longs and 4 KiB pages */
void testlib_fmt_init(struct fmt_set *fs, const char *kernel);

/* testlib_fmt_add - the captured format of sys:name parsed into fs; its event (fs owns it) */
struct tep_event *testlib_fmt_add(struct fmt_set *fs, const char *kernel, const char *sys,
				  const char *name);

/* testlib_fmt_load - testlib_fmt_init, then the sys events of a NULL-terminated list added */
void testlib_fmt_load(struct fmt_set *fs, const char *kernel, const char *sys,
		      const char *const *names);

#endif
