// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rotate.c - recordings in parts: --switch-output values, part names, kept parts, hand-over */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rotate.h"

#define SEC 1000000000ull

/* test_parse - sizes and times as perf spells them; anything else refused */
static void test_parse(void **state)
{
	static const char *const bad[] = {
		"", "M", "10x", "10mm", "-1M", "+1M", " 1M", "1M ", "0", "0s", "1.5M", "1k", "1S",
		"18446744073709551616", "20000000000G", "300000000000d",
	};
	struct rotate_spec r;
	uint64_t n;

	assert_int_equal(rotate_parse("100M", &r), 0);
	assert_int_equal(r.bytes, 100ull << 20);
	assert_int_equal(r.ns, 0);
	assert_int_equal(rotate_parse("4096", &r), 0);
	assert_int_equal(r.bytes, 4096);
	assert_int_equal(rotate_parse("2G", &r), 0);
	assert_int_equal(r.bytes, 2ull << 30);
	assert_int_equal(rotate_parse("10m", &r), 0);
	assert_int_equal(r.ns, 600 * SEC);
	assert_int_equal(r.bytes, 0);
	assert_int_equal(rotate_parse("1h", &r), 0);
	assert_int_equal(r.ns, 3600 * SEC);
	assert_int_equal(rotate_parse("30s", &r), 0);
	assert_int_equal(r.ns, 30 * SEC);
	assert_int_equal(rotate_parse("1d", &r), 0);
	assert_int_equal(r.ns, 86400 * SEC);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rotate_parse(bad[i], &r), -22);
	assert_int_equal(rotate_parse_size("64K", &n), 0);
	assert_int_equal(n, 65536);
	assert_int_equal(rotate_parse_size("10m", &n), -22);
}

/* test_name - FILE.YYYYmmddHHMMSSmmm in UTC; too long refused */
static void test_name(void **state)
{
	char buf[64];

	assert_int_equal(rotate_part_name("io.iotap", 1764070095123456789ull, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "io.iotap.20251125112815123");
	assert_int_equal(rotate_part_name("io.iotap", 0, buf, 20), -36);
}

/* test_kept - past max, the oldest part is removed from the disk */
static void test_kept(void **state)
{
	struct rotate_files f = { .max = 2 };
	char dir[] = "/tmp/test_rotate.XXXXXX", path[3][64];

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		FILE *fp;

		snprintf(path[i], sizeof(path[i]), "%s/p%d", dir, i);
		fp = fopen(path[i], "w");
		assert_non_null(fp);
		fclose(fp);
		assert_int_equal(rotate_files_add(&f, path[i]), 0);
	}
	assert_int_equal(f.nr, 2);
	assert_int_equal(access(path[0], F_OK), -1);
	assert_int_equal(access(path[1], F_OK), 0);
	assert_int_equal(access(path[2], F_OK), 0);
	assert_string_equal(f.path[0], path[1]);
	rotate_files_release(&f);
	rotate_files_release(&f);
	unlink(path[1]);
	unlink(path[2]);
	rmdir(dir);
}

/*
 * test_handover - requests in flight at a boundary keep the part before open
 * until the last completes; those first seen after it do not.
 */
static void test_handover(void **state)
{
	struct handover h = { 0 };

	handover_seen(&h, 10);
	handover_seen(&h, 20);
	handover_done(&h, 10);
	handover_boundary(&h, 100);
	assert_int_equal(h.before, 1);
	assert_int_equal(h.after, 0);
	/* New requests after the boundary do not hold the part before. */
	handover_seen(&h, 100);
	handover_seen(&h, 150);
	assert_int_equal(h.before, 1);
	assert_int_equal(h.after, 2);
	handover_done(&h, 150);
	assert_int_equal(h.before, 1);
	handover_done(&h, 20);
	assert_int_equal(h.before, 0);
	/* A completion never seen in flight does not wrap the count. */
	handover_done(&h, 30);
	assert_int_equal(h.before, 0);
	/* The next boundary: what is in flight is before it, the older part is given up. */
	handover_boundary(&h, 200);
	assert_int_equal(h.before, 1);
	assert_int_equal(h.after, 0);
	assert_int_equal(h.t0, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_handover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
