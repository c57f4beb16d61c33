// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rotate.c - recordings in parts: --switch-output values, part names, kept parts, hand-over */
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
 * test_kept_order - a part held open for its requests closes after later
 * ones: the oldest by name goes, even when it closed last
 */
static void test_kept_order(void **state)
{
	struct rotate_files f = { .max = 2 };
	char dir[] = "/tmp/test_rotate.XXXXXX", path[4][64];
	static const int order[] = { 1, 2, 0, 3 };

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 4; i++) {
		FILE *fp;

		snprintf(path[i], sizeof(path[i]), "%s/p.2026112500000000%d", dir, i);
		fp = fopen(path[i], "w");
		assert_non_null(fp);
		fclose(fp);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(rotate_files_add(&f, path[order[i]]), 0);
	/* Part 0 closed last but is the oldest: it is the one removed. */
	assert_int_equal(f.nr, 2);
	assert_int_equal(access(path[0], F_OK), -1);
	assert_string_equal(f.path[0], path[1]);
	assert_string_equal(f.path[1], path[2]);
	assert_int_equal(rotate_files_add(&f, path[order[3]]), 0);
	assert_int_equal(access(path[1], F_OK), -1);
	assert_int_equal(access(path[2], F_OK), 0);
	assert_int_equal(access(path[3], F_OK), 0);
	rotate_files_release(&f);
	unlink(path[2]);
	unlink(path[3]);
	rmdir(dir);
}

/*
 * test_handover - requests in flight at a boundary keep their part open
 * until the last completes; those first seen after it do not.
 */
static void test_handover(void **state)
{
	struct handover h;

	handover_init(&h);
	assert_int_equal(h.nr, 1);
	handover_seen(&h, 10);
	handover_seen(&h, 20);
	handover_done(&h, 10);
	assert_int_equal(handover_due(&h, 50), -1);
	assert_int_equal(handover_boundary(&h, 100), 0);
	assert_int_equal(h.nr, 2);
	assert_int_equal(h.part[0].inflight, 1);
	assert_int_equal(handover_due(&h, 100), -1);
	/* New requests after the boundary do not hold the part before. */
	handover_seen(&h, 100);
	handover_seen(&h, 150);
	assert_int_equal(handover_find(&h, 99), 0);
	assert_int_equal(handover_find(&h, 100), 1);
	assert_int_equal(h.part[1].inflight, 2);
	handover_done(&h, 150);
	assert_int_equal(handover_due(&h, 160), -1);
	handover_done(&h, 20);
	assert_int_equal(handover_due(&h, 170), 0);
	/* A completion never seen in flight does not wrap the count. */
	handover_done(&h, 30);
	assert_int_equal(h.part[0].inflight, 0);
	assert_int_equal(handover_close(&h, 0), 0);
	assert_int_equal(h.nr, 1);
	/* Its span is closed: a late event of it goes to the last part. */
	assert_int_equal(handover_find(&h, 20), -1);
	handover_seen(&h, 20);
	assert_int_equal(h.part[0].inflight, 1);
	assert_int_equal(h.split, 0);
}

/*
 * test_handover_many - a slow request holds its part while later parts
 * open and close around it; each part closes when its own requests are done,
 * in whatever order they complete.
 */
static void test_handover_many(void **state)
{
	struct handover h;

	handover_init(&h);
	handover_seen(&h, 5);			/* slow, in part 0 */
	handover_boundary(&h, 100);
	handover_seen(&h, 110);			/* part 1 */
	handover_seen(&h, 120);
	handover_boundary(&h, 200);
	handover_seen(&h, 210);			/* part 2 */
	handover_boundary(&h, 300);
	assert_int_equal(h.nr, 4);
	assert_int_equal(handover_find(&h, 150), 1);
	assert_int_equal(handover_find(&h, 250), 2);
	/* Part 2's request completes first: it closes while 0 and 1 wait. */
	handover_done(&h, 210);
	assert_int_equal(handover_due(&h, 310), 2);
	assert_int_equal(handover_close(&h, 2), 0);
	assert_int_equal(h.nr, 3);
	assert_int_equal(handover_find(&h, 250), -1);
	assert_int_equal(handover_find(&h, 300), 2);
	assert_int_equal(handover_due(&h, 320), -1);
	handover_done(&h, 120);
	handover_done(&h, 110);
	assert_int_equal(handover_due(&h, 330), 1);
	assert_int_equal(handover_close(&h, 1), 0);
	/* The slow one, part 0, still waits; then it completes too. */
	assert_int_equal(handover_due(&h, 340), -1);
	assert_int_equal(handover_find(&h, 5), 0);
	handover_done(&h, 5);
	assert_int_equal(handover_due(&h, 350), 0);
	assert_int_equal(handover_close(&h, 0), 0);
	assert_int_equal(h.nr, 1);
	assert_int_equal(h.part[0].t0, 300);
	assert_int_equal(h.split, 0);
}

/*
 * test_handover_give_up - when ROTATE_OPEN_MAX parts are open the oldest
 * must go first, and a part whose request never completes goes
 * ROTATE_HANDOVER_NS past its end: their requests in flight are given up.
 */
static void test_handover_give_up(void **state)
{
	struct handover h;
	uint64_t t = 0;

	handover_init(&h);
	for (int i = 0; i < ROTATE_OPEN_MAX - 1; i++) {
		handover_seen(&h, t + 1);
		handover_seen(&h, t + 2);
		t += 100;
		assert_int_equal(handover_boundary(&h, t), 0);
	}
	assert_true(handover_full(&h));
	assert_int_equal(handover_boundary(&h, t + 100), -ENOSPC);
	assert_int_equal(h.nr, ROTATE_OPEN_MAX);
	assert_int_equal(handover_due(&h, t), -1);
	assert_int_equal(handover_close(&h, 0), 2);
	assert_false(handover_full(&h));
	/* One of the two given up completes: split over two parts; the other never does. */
	handover_done(&h, 1);
	assert_int_equal(h.split, 1);
	handover_seen(&h, t + 1);
	assert_int_equal(handover_boundary(&h, t + 100), 0);
	assert_int_equal(h.part[0].t0, 100);
	/* A request of the part at 100 completes; the other never does. */
	handover_done(&h, 101);
	assert_int_equal(handover_due(&h, 200 + ROTATE_HANDOVER_NS - 1), -1);
	assert_int_equal(handover_due(&h, 200 + ROTATE_HANDOVER_NS), 0);
	assert_int_equal(handover_close(&h, 0), 1);
	assert_int_equal(h.split, 1);
}

/*
 * test_handover_drop - a part removed for a full disk keeps its span (its
 * requests' later events are not written), closes when they are done, and
 * gives none of them up: they are counted as not written instead.
 */
static void test_handover_drop(void **state)
{
	struct handover h;

	handover_init(&h);
	handover_seen(&h, 10);
	handover_boundary(&h, 100);
	handover_seen(&h, 110);
	handover_drop(&h, 1);
	handover_boundary(&h, 200);
	assert_int_equal(handover_find(&h, 110), 1);
	assert_true(h.part[1].dropped);
	assert_false(h.part[0].dropped);
	handover_done(&h, 110);
	assert_int_equal(handover_due(&h, 210), 1);
	assert_int_equal(handover_close(&h, 1), 0);
	/* Dropped with a request in flight: nothing given up. */
	handover_drop(&h, 0);
	assert_int_equal(handover_close(&h, 0), 0);
	assert_int_equal(h.nr, 1);
	assert_false(h.part[0].dropped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_kept_order),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_handover_many),
		cmocka_unit_test(test_handover_give_up),
		cmocka_unit_test(test_handover_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
