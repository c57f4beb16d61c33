// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stackjoin.c - each event comes out once: with its stack, or counted as stackless */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sample.h"
#include "stackjoin.h"

#define PERF_TYPE (IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN)
#define PERF_ID 17
#define FTRACE_ID (1ull << 62 | 1234)
#define MS 1000000ull
#define GRACE (50 * MS)

/*
 * The raw data of a made-up event: the common fields, then a u32 "dev", a
 * hole, a u64 "sector" and a char[8] "rwbs" string.
 */
struct raw {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint32_t dev;
	uint32_t hole;
	uint64_t sector;
	char rwbs[8];
	uint32_t pad;		/* perf pads: raw size + 4 a multiple of 8 (36 + 4) */
};

static const struct stackjoin_range key[] = {
	{ offsetof(struct raw, dev), 4, false },
	{ offsetof(struct raw, sector), 8, false },
	{ offsetof(struct raw, rwbs), 8, true },
};

struct out {
	uint64_t time[64];
	uint64_t nr_ips[64];
	uint64_t sector[64];
	int n;
};

/* collect - what the join emitted, parsed as the perf layout */
static int collect(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	struct out *o = arg;
	struct perf_sample s;
	struct raw r;

	assert_int_equal(perf_sample_parse(rec, PERF_TYPE, 0, &s), 0);
	assert_int_equal(s.id, PERF_ID);
	assert_int_equal(s.time, time);
	assert_true(o->n < 64);
	memcpy(&r, s.raw, sizeof(r));
	o->time[o->n] = time;
	o->nr_ips[o->n] = s.nr_ips;
	o->sector[o->n++] = r.sector;
	return 0;
}

/* push - one copy of the event at sector, from side, with a given hole and rwbs tail */
static void push(struct stackjoin *sj, int ev, enum stackjoin_side side, uint32_t cpu,
		 uint32_t tid, uint64_t time, uint64_t sector, uint8_t junk)
{
	static const uint64_t ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull, 0xffffffff81000100ull };
	struct raw r = { .type = 7, .preempt = side, .pid = (int32_t)tid, .dev = 0x700000,
			 .sector = sector };
	struct perf_sample s = {
		.id = side == STACKJOIN_PERF ? PERF_ID : FTRACE_ID,
		.pid = tid, .tid = tid, .time = time, .cpu = cpu,
		.nr_ips = 3, .ips = ips,
		.raw_size = offsetof(struct raw, pad) + 4, .raw = &r,
	};
	uint64_t buf[64];

	/* What ftrace leaves in holes and after a string's NUL is whatever the page held. */
	r.hole = junk * 0x01010101u;
	memcpy(r.rwbs, "RS", 3);
	memset(r.rwbs + 3, junk, sizeof(r.rwbs) - 3);
	assert_true(perf_sample_write(&s, side == STACKJOIN_PERF ? PERF_TYPE : IOTAP_SAMPLE_BASE, 0,
				      buf, sizeof(buf)) > 0);
	assert_int_equal(stackjoin_push(sj, ev, side, (void *)buf), 0);
}

/* setup - a join of one event */
static struct stackjoin *setup(int *ev)
{
	struct stackjoin *sj = stackjoin_alloc(GRACE);

	assert_non_null(sj);
	*ev = stackjoin_event_add(sj, PERF_TYPE, 0, PERF_ID, key, 3);
	assert_int_equal(*ev, 0);
	return sj;
}

/* test_pairs - copies pair across holes and string tails; out with the stack and ftrace's time */
static void test_pairs(void **state)
{
	struct out o = { .n = 0 };
	int ev;
	struct stackjoin *sj = setup(&ev);

	for (int i = 0; i < 3; i++) {
		push(sj, ev, STACKJOIN_FTRACE, 0, 42, 1000 + i, 8 * i, 0xaa);
		push(sj, ev, STACKJOIN_PERF, 0, 42, 1010 + i, 8 * i, 0);
	}
	assert_int_equal(stackjoin_horizon(sj), 0);
	assert_int_equal(stackjoin_resolve(sj, 2000, false, collect, &o), 0);
	assert_int_equal(o.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(o.time[i], 1000 + i);
		assert_int_equal(o.nr_ips[i], 3);
		assert_int_equal(o.sector[i], 8 * i);
	}
	assert_int_equal(stackjoin_stats(sj, ev)->joined, 3);
	assert_int_equal(stackjoin_stats(sj, ev)->loose, 0);
	assert_int_equal(stackjoin_horizon(sj), UINT64_MAX);
	stackjoin_free(sj);
}

/* test_swapped - an interrupt between the two writes swaps two samples: both still pair */
static void test_swapped(void **state)
{
	struct out o = { .n = 0 };
	int ev;
	struct stackjoin *sj = setup(&ev);

	push(sj, ev, STACKJOIN_FTRACE, 1, 42, 1000, 8, 0);
	push(sj, ev, STACKJOIN_FTRACE, 1, 43, 1001, 16, 0);
	push(sj, ev, STACKJOIN_PERF, 1, 43, 1002, 16, 0);
	push(sj, ev, STACKJOIN_PERF, 1, 42, 1003, 8, 0);
	assert_int_equal(stackjoin_resolve(sj, 2000, false, collect, &o), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.nr_ips[0] + o.nr_ips[1], 6);
	assert_int_equal(stackjoin_stats(sj, ev)->joined, 2);
	stackjoin_free(sj);
}

/* test_perf_dropped - a copy whose sample never comes waits the grace, then goes out stackless */
static void test_perf_dropped(void **state)
{
	struct out o = { .n = 0 };
	int ev;
	struct stackjoin *sj = setup(&ev);

	push(sj, ev, STACKJOIN_FTRACE, 0, 42, 10 * MS, 8, 0);
	push(sj, ev, STACKJOIN_FTRACE, 0, 42, 11 * MS, 16, 0);
	push(sj, ev, STACKJOIN_PERF, 0, 42, 11 * MS + 5, 16, 0);
	assert_int_equal(stackjoin_resolve(sj, 20 * MS, false, collect, &o), 0);
	/* The second pairs at once; the first is held, and holds the caller back. */
	assert_int_equal(o.n, 1);
	assert_int_equal(o.sector[0], 16);
	assert_true(stackjoin_horizon(sj) <= 10 * MS);
	assert_int_equal(stackjoin_resolve(sj, 10 * MS + GRACE, false, collect, &o), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.sector[1], 8);
	assert_int_equal(o.nr_ips[1], 0);
	assert_int_equal(o.time[1], 10 * MS);
	assert_int_equal(stackjoin_stats(sj, ev)->stackless, 1);
	/* The sample turns up after all: dropped, the event is out already. */
	push(sj, ev, STACKJOIN_PERF, 0, 42, 10 * MS + 5, 8, 0);
	assert_int_equal(stackjoin_resolve(sj, 0, true, collect, &o), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(stackjoin_stats(sj, ev)->late, 1);
	stackjoin_free(sj);
}

/* test_ftrace_dropped - a sample without its copy (the ftrace buffer was full) goes out as it is */
static void test_ftrace_dropped(void **state)
{
	struct out o = { .n = 0 };
	int ev;
	struct stackjoin *sj = setup(&ev);

	push(sj, ev, STACKJOIN_PERF, 0, 42, 10 * MS, 8, 0);
	assert_int_equal(stackjoin_resolve(sj, 20 * MS, false, collect, &o), 0);
	assert_int_equal(o.n, 0);
	assert_int_equal(stackjoin_resolve(sj, 0, true, collect, &o), 0);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.nr_ips[0], 3);
	assert_int_equal(stackjoin_stats(sj, ev)->perf_only, 1);
	stackjoin_free(sj);
}

/* test_loose - copies whose fields differ pair by thread and time, never come out twice */
static void test_loose(void **state)
{
	struct out o = { .n = 0 };
	int ev;
	struct stackjoin *sj = setup(&ev);

	push(sj, ev, STACKJOIN_FTRACE, 0, 42, 10 * MS, 8, 0);
	push(sj, ev, STACKJOIN_PERF, 0, 42, 10 * MS + 14000, 9, 0);
	/* Another thread's sample close in time is not it. */
	push(sj, ev, STACKJOIN_PERF, 0, 43, 10 * MS + 1, 8, 0);
	assert_int_equal(stackjoin_resolve(sj, 0, true, collect, &o), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(stackjoin_stats(sj, ev)->joined, 1);
	assert_int_equal(stackjoin_stats(sj, ev)->loose, 1);
	assert_int_equal(stackjoin_stats(sj, ev)->perf_only, 1);
	assert_int_equal(stackjoin_stats(sj, ev)->stackless, 0);
	stackjoin_free(sj);
}

/* test_malformed - a record that does not parse as its side's layout is refused */
static void test_malformed(void **state)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) };
	int ev;
	struct stackjoin *sj = setup(&ev);

	assert_int_equal(stackjoin_push(sj, ev, STACKJOIN_PERF, &h), -EINVAL);
	assert_int_equal(stackjoin_push(sj, 5, STACKJOIN_PERF, &h), -EINVAL);
	stackjoin_free(sj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_perf_dropped),
		cmocka_unit_test(test_ftrace_dropped),
		cmocka_unit_test(test_loose),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
