// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tracedat_check.c - the trace.dat size check (tracedat-check.h) over a real
 * version 6 file (the fuzz seed, trace-cmd record --file-version 6): the whole file
 * passes; a kallsyms or printk size of 0xffffffff, which libtracecmd 3.1.6 mallocs as
 * 0 bytes and reads the file into, is refused and named; a CPU's data past the end is
 * refused; and every cut of the file is either refused or, where the cut leaves every
 * size it gives in the file, passed (never read past).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "testlib.h"
#include "tracedat-check.h"

/* The seed's kallsyms and printk sizes (4 bytes each, both 0 there). */
#define KALLSYMS_AT 0x3ee0
#define PRINTK_AT 0x3ee4

/* check - tracedat_check over len bytes of img, through a memfd as the source opens it */
static int check(const uint8_t *img, size_t len, char *why)
{
	int fd = memfd_create("t.dat", MFD_CLOEXEC), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, len), (ssize_t)len);
	why[0] = 0;
	ret = tracedat_check(fd, len, why, 96);
	close(fd);
	return ret;
}

static uint8_t *seed(size_t *len)
{
	return testlib_file_load(TEST_DATA "/../fuzz/corpus-tracedat/block-10-reads.dat", len);
}

/* test_whole - the real file passes */
static void test_whole(void **state)
{
	char why[96];
	size_t len;
	uint8_t *img = seed(&len);

	assert_non_null(img);
	assert_int_equal(check(img, len, why), 0);
	free(img);
}

/* test_sizes - a 4-byte size of 0xffffffff is refused, and named */
static void test_sizes(void **state)
{
	static const struct {
		size_t at;
		const char *why;
	} cases[] = { { KALLSYMS_AT, "the kallsyms size" }, { PRINTK_AT, "the printk formats' size" } };
	char why[96];
	size_t len;
	uint8_t *img = seed(&len);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *m = malloc(len);

		memcpy(m, img, len);
		assert_memory_equal(m + cases[i].at, "\0\0\0\0", 4);
		memset(m + cases[i].at, 0xff, 4);
		assert_int_equal(check(m, len, why), -EINVAL);
		assert_string_equal(why, cases[i].why);
		free(m);
	}
	free(img);
}

/* test_cuts - every cut is refused or passes; a cut inside the headers is refused */
static void test_cuts(void **state)
{
	char why[96];
	size_t len, refused = 0;
	uint8_t *img = seed(&len);

	for (size_t cut = 0; cut < len; cut += 7) {
		int ret = check(img, cut, why);

		assert_true(ret == 0 || ret == -EINVAL);
		refused += ret == -EINVAL;
		if (cut <= PRINTK_AT + 4)
			assert_int_equal(ret, -EINVAL);
	}
	/* A cut past the headers leaves a CPU's data past the end. */
	assert_int_equal(check(img, len - 1, why), -EINVAL);
	assert_string_equal(why, "a CPU's data, which ends past the file");
	assert_true(refused > (PRINTK_AT + 4) / 7);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_cuts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
