// SPDX-License-Identifier: GPL-2.0-or-later
/* test_otf2defs.c - an OTF2 archive's locations, handles, event times and open operations */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "otf2defs.h"

/* test_locations - one location per thread, grouped by process; the last known name wins */
static void test_locations(void **state)
{
	struct otf2_defs d;
	uint32_t a, b, c, again;

	assert_int_equal(otf2_defs_init(&d), 0);
	assert_int_equal(otf2_defs_location(&d, 100, 100, "?", &a), 0);
	assert_int_equal(otf2_defs_location(&d, 100, 101, "sh", &b), 0);
	assert_int_equal(otf2_defs_location(&d, 200, 200, "dd", &c), 0);
	assert_int_equal(otf2_defs_location(&d, 100, 100, NULL, &again), 0);
	assert_int_equal(again, a);
	assert_int_not_equal(a, b);
	assert_int_equal(d.nr_locs, 3);
	assert_int_equal(d.nr_procs, 2);
	assert_int_equal(d.locs[a].proc, d.locs[b].proc);
	assert_int_not_equal(d.locs[a].proc, d.locs[c].proc);
	assert_int_equal(d.locs[b].tid, 101);
	assert_string_equal(d.procs[d.locs[a].proc].comm, "sh");
	/* exec: the process is named by what it became; an unknown name changes nothing. */
	assert_int_equal(otf2_defs_location(&d, 100, 101, "dio", &again), 0);
	assert_int_equal(otf2_defs_location(&d, 100, 101, "?", &again), 0);
	assert_int_equal(again, b);
	assert_string_equal(d.procs[d.locs[a].proc].comm, "dio");
	/* A thread id seen under another process is another location. */
	assert_int_equal(otf2_defs_location(&d, 300, 101, "x", &again), 0);
	assert_int_not_equal(again, b);
	otf2_defs_release(&d);
	otf2_defs_release(&d);
}

/* test_handles - a handle per disk and per file name, in one space of references */
static void test_handles(void **state)
{
	struct otf2_defs d;
	uint32_t sda, loop0, f1, f2, again;

	assert_int_equal(otf2_defs_init(&d), 0);
	assert_int_equal(otf2_defs_disk(&d, 8 << 20, "sda", &sda), 0);
	assert_int_equal(otf2_defs_file(&d, "/mnt/a", &f1), 0);
	assert_int_equal(otf2_defs_disk(&d, 7 << 20, "loop0", &loop0), 0);
	assert_int_equal(otf2_defs_file(&d, "/mnt/b", &f2), 0);
	assert_int_equal(otf2_defs_disk(&d, 8 << 20, "ignored", &again), 0);
	assert_int_equal(again, sda);
	assert_int_equal(otf2_defs_file(&d, "/mnt/a", &again), 0);
	assert_int_equal(again, f1);
	assert_int_equal(d.nr_handles, 4);
	assert_int_equal(d.handles[sda].kind, OTF2_HANDLE_DISK);
	assert_string_equal(d.handles[sda].name, "sda");
	assert_int_equal(d.handles[loop0].dev, 7 << 20);
	assert_int_equal(d.handles[f2].kind, OTF2_HANDLE_FILE);
	assert_string_equal(d.handles[f2].name, "/mnt/b");
	/* A file named like a disk is still a file. */
	assert_int_equal(otf2_defs_file(&d, "sda", &again), 0);
	assert_int_not_equal(again, sda);
	otf2_defs_release(&d);
}

/* test_time - each location's events in time order; late ones moved up and counted */
static void test_time(void **state)
{
	struct otf2_defs d;
	uint32_t a, b;

	assert_int_equal(otf2_defs_init(&d), 0);
	assert_int_equal(otf2_defs_location(&d, 1, 1, "a", &a), 0);
	assert_int_equal(otf2_defs_location(&d, 2, 2, "b", &b), 0);
	assert_int_equal(otf2_defs_time(&d, a, 500), 500);
	assert_int_equal(otf2_defs_time(&d, b, 100), 100);	/* another location: as it is */
	assert_int_equal(otf2_defs_time(&d, a, 700), 700);
	assert_int_equal(otf2_defs_time(&d, a, 650), 700);
	assert_int_equal(otf2_defs_time(&d, a, 690), 700);
	assert_int_equal(otf2_defs_time(&d, a, 700), 700);	/* equal times are in order */
	assert_int_equal(d.late, 2);
	assert_int_equal(d.late_max_ns, 50);
	assert_int_equal(d.locs[a].events, 5);
	assert_int_equal(d.locs[b].events, 1);
	assert_int_equal(d.t_first, 100);
	assert_int_equal(d.t_last, 700);
	otf2_defs_release(&d);
}

/* test_ops - matching ids of open operations; an ended one's id is reused, never an open one's */
static void test_ops(void **state)
{
	struct otf2_defs d;
	uint64_t x, y, z, w;
	const struct otf2_op *op;

	assert_int_equal(otf2_defs_init(&d), 0);
	assert_int_equal(otf2_defs_op_open(&d, 3, 7, &x), 0);
	assert_int_equal(otf2_defs_op_open(&d, 4, 8, &y), 0);
	assert_int_not_equal(x, y);
	op = otf2_defs_op(&d, y);
	assert_non_null(op);
	assert_int_equal(op->loc, 4);
	assert_int_equal(op->handle, 8);
	assert_int_equal(d.nr_open, 2);
	otf2_defs_op_close(&d, x);
	assert_null(otf2_defs_op(&d, x));
	otf2_defs_op_close(&d, x);			/* twice: no effect */
	assert_int_equal(d.nr_open, 1);
	assert_int_equal(otf2_defs_op_open(&d, 5, 9, &z), 0);
	assert_int_equal(z, x);
	assert_int_equal(otf2_defs_op(&d, z)->loc, 5);
	assert_int_equal(otf2_defs_op_open(&d, 5, 9, &w), 0);
	assert_int_not_equal(w, y);
	assert_int_not_equal(w, z);
	assert_null(otf2_defs_op(&d, 1000));
	assert_int_equal(d.nr_open, 3);
	otf2_defs_release(&d);
}

/* test_many - many threads and files: every lookup finds its own */
static void test_many(void **state)
{
	struct otf2_defs d;
	char name[32];
	uint32_t l, h;

	assert_int_equal(otf2_defs_init(&d), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "/f/%u", i);
		assert_int_equal(otf2_defs_location(&d, i / 10, i, "p", &l), 0);
		assert_int_equal(l, i);
		assert_int_equal(otf2_defs_file(&d, name, &h), 0);
		assert_int_equal(h, i);
	}
	for (uint32_t i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "/f/%u", i);
		assert_int_equal(otf2_defs_location(&d, i / 10, i, NULL, &l), 0);
		assert_int_equal(l, i);
		assert_int_equal(otf2_defs_file(&d, name, &h), 0);
		assert_int_equal(h, i);
	}
	assert_int_equal(d.nr_procs, 500);
	otf2_defs_release(&d);
}

/* main - run the OTF2 definition tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
