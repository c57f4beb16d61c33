// SPDX-License-Identifier: GPL-2.0-or-later
/* test_merge.c - rounds emit in time order and never drop a late record */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "merge.h"

struct seen {
	uint64_t t[4096];
	uint32_t payload[4096];
	size_t n;
};

/* collect - record what the merge emitted */
static int collect(void *arg, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	struct seen *s = arg;

	assert_int_equal(size, sizeof(uint32_t));
	s->t[s->n] = time;
	memcpy(&s->payload[s->n], rec, 4);
	s->n++;
	return 0;
}

/* push - queue a 4-byte record tagged with v */
static void push(struct merge *m, uint64_t t, uint32_t v)
{
	assert_int_equal(merge_push(m, t, &v, sizeof(v)), 0);
}

/* test_two_cpus - interleaved per-CPU streams come out sorted after two rounds */
static void test_two_cpus(void **state)
{
	struct merge *m = merge_alloc();
	struct seen s = { .n = 0 };

	/* round 1: cpu0 10,30 ; cpu1 20,40 */
	push(m, 10, 1);
	push(m, 30, 3);
	push(m, 20, 2);
	push(m, 40, 4);
	merge_round_end(m, UINT64_MAX, collect, &s);
	/* Nothing yet: the previous round's max is 0. */
	assert_int_equal(s.n, 0);
	/* round 2: a late cpu1 record at 35, then cpu0 50 */
	push(m, 35, 5);
	push(m, 50, 6);
	merge_round_end(m, UINT64_MAX, collect, &s);
	/* Safe now: everything <= 40 (round 1's newest). */
	assert_int_equal(s.n, 5);
	assert_int_equal(s.t[0], 10);
	assert_int_equal(s.t[1], 20);
	assert_int_equal(s.t[2], 30);
	assert_int_equal(s.t[3], 35);
	assert_int_equal(s.t[4], 40);
	assert_int_equal(s.payload[3], 5);
	merge_flush(m, UINT64_MAX, collect, &s);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.t[5], 50);
	assert_int_equal(merge_late(m), 0);
	merge_free(m);
}

/* test_late_kept - a record older than what was emitted is counted, still delivered */
static void test_late_kept(void **state)
{
	struct merge *m = merge_alloc();
	struct seen s = { .n = 0 };

	push(m, 100, 1);
	merge_flush(m, UINT64_MAX, collect, &s);
	push(m, 50, 2);
	merge_flush(m, UINT64_MAX, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.payload[1], 2);
	assert_int_equal(merge_late(m), 1);
	merge_free(m);
}

/* test_stable - equal timestamps keep arrival order */
static void test_stable(void **state)
{
	struct merge *m = merge_alloc();
	struct seen s = { .n = 0 };

	for (uint32_t i = 0; i < 100; i++)
		push(m, 7, i);
	merge_flush(m, UINT64_MAX, collect, &s);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(s.payload[i], i);
	merge_free(m);
}

/* test_random_rounds - many rounds of shuffled input: output sorted, all delivered */
static void test_random_rounds(void **state)
{
	struct merge *m = merge_alloc();
	static struct seen s;
	uint64_t base = 1000;
	uint32_t id = 0;

	s.n = 0;
	srand(7);
	for (int round = 0; round < 40; round++) {
		/* each round: 2 CPUs x 40 records, in order per CPU, overlapping in time */
		for (int cpu = 0; cpu < 2; cpu++)
			for (int i = 0; i < 40; i++)
				push(m, base + i * 10 + cpu * 5 + rand() % 3, id++);
		base += 400;
		merge_round_end(m, UINT64_MAX, collect, &s);
		assert_true(merge_pending(m) <= 80 * 2);
	}
	merge_flush(m, UINT64_MAX, collect, &s);
	assert_int_equal(s.n, 40 * 80);
	for (size_t i = 1; i < s.n; i++)
		assert_true(s.t[i - 1] <= s.t[i]);
	assert_int_equal(merge_late(m), 0);
	merge_free(m);
}

/* test_many_runs - sorted runs of every length, equal times across runs: merged in order, stable */
static void test_many_runs(void **state)
{
	struct merge *m = merge_alloc();
	static struct seen s;
	uint32_t id = 0;

	s.n = 0;
	srand(11);
	for (int run = 0; run < 9; run++) {
		uint64_t t = 100 + rand() % 50;
		int len = 1 + rand() % 300;

		for (int i = 0; i < len; i++) {
			push(m, t, id++);
			t += rand() % 4;	/* repeats: equal times within and across runs */
		}
	}
	merge_flush(m, UINT64_MAX, collect, &s);
	assert_int_equal(s.n, id);
	for (size_t i = 1; i < s.n; i++) {
		assert_true(s.t[i - 1] <= s.t[i]);
		if (s.t[i - 1] == s.t[i])
			assert_true(s.payload[i - 1] < s.payload[i]);
	}
	merge_free(m);
}

/* test_horizon - a round emits nothing newer than the horizon; held records sort in later */
static void test_horizon(void **state)
{
	struct merge *m = merge_alloc();
	struct seen s = { .n = 0 };

	push(m, 10, 1);
	push(m, 30, 3);
	merge_round_end(m, UINT64_MAX, collect, &s);
	push(m, 40, 4);
	/* A reader still holds a record of time 20: 30 must wait for it. */
	assert_int_equal(merge_round_end(m, 19, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.t[0], 10);
	push(m, 20, 2);
	push(m, 50, 5);
	assert_int_equal(merge_round_end(m, UINT64_MAX, collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.t[1], 20);
	assert_int_equal(s.t[2], 30);
	assert_int_equal(s.t[3], 40);
	assert_int_equal(merge_late(m), 0);
	merge_free(m);
}

/* test_empty - rounds and flushes with nothing queued (an idle interval) */
static void test_empty(void **state)
{
	struct merge *m = merge_alloc();
	struct seen s = { .n = 0 };

	assert_int_equal(merge_round_end(m, UINT64_MAX, collect, &s), 0);
	assert_int_equal(merge_flush(m, UINT64_MAX, collect, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(merge_pending(m), 0);
	merge_free(m);
}

/* What a long run emitted: how many, in order or not, and that each payload is its time's. */
struct tally {
	uint64_t n, last, bad;
};

/* tally - count one record; its payload is its time, truncated */
static int tally(void *arg, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	struct tally *t = arg;
	uint32_t v;

	memcpy(&v, rec, sizeof(v));
	if (size != sizeof(v) || v != (uint32_t)time || time < t->last)
		t->bad++;
	t->last = time;
	t->n++;
	return 0;
}

/*
 * test_burst_then_quiet - a round of 2^19 records (2 MiB of copies, a reader that fell a
 * ring behind) and then small rounds: the buffers that burst grew are kept through a few
 * quiet rounds (rounds vary: halving at each small one faulted the pages in again at
 * each large one) and halved once the quiet lasts, and every record still comes out
 * once, in order, intact
 */
static void test_burst_then_quiet(void **state)
{
	struct merge *m = merge_alloc();
	struct tally t = { 0 };
	uint64_t time = 1, pushed = 0;
	size_t burst;

	/* Two CPUs' sorted runs, interleaved in time. */
	for (uint64_t i = 0; i < 1u << 18; i++, pushed += 2) {
		push(m, time + 2 * i, (uint32_t)(time + 2 * i));
		push(m, time + 2 * i + 1, (uint32_t)(time + 2 * i + 1));
	}
	time += 1u << 19;
	assert_int_equal(merge_round_end(m, UINT64_MAX, tally, &t), 0);
	burst = merge_held(m);
	for (int r = 0; r < 40; r++) {
		for (int i = 0; i < 10; i++, pushed++, time++)
			push(m, time, (uint32_t)time);
		assert_int_equal(merge_round_end(m, UINT64_MAX, tally, &t), 0);
	}
	assert_true(merge_held(m) >= burst);
	for (int r = 0; r < 400; r++) {
		for (int i = 0; i < 10; i++, pushed++, time++)
			push(m, time, (uint32_t)time);
		assert_int_equal(merge_round_end(m, UINT64_MAX, tally, &t), 0);
	}
	assert_true(merge_held(m) <= burst / 4);
	assert_int_equal(merge_flush(m, UINT64_MAX, tally, &t), 0);
	assert_int_equal(t.n, pushed);
	assert_int_equal(t.bad, 0);
	assert_int_equal(merge_pending(m), 0);
	merge_free(m);
}

/*
 * test_varying_rounds - rounds that alternate between large and a tenth of it hold their
 * memory: nothing is given back to be faulted in again at the next large one
 */
static void test_varying_rounds(void **state)
{
	struct merge *m = merge_alloc();
	struct tally t = { 0 };
	uint64_t time = 1, pushed = 0;
	size_t held = 0;

	for (int r = 0; r < 300; r++) {
		int n = r % 2 ? 6000 : 60000;

		for (int i = 0; i < n; i++, pushed++, time++)
			push(m, time, (uint32_t)time);
		assert_int_equal(merge_round_end(m, UINT64_MAX, tally, &t), 0);
		if (r == 20)
			held = merge_held(m);
		if (r > 20)
			assert_int_equal(merge_held(m), held);
	}
	assert_int_equal(merge_flush(m, UINT64_MAX, tally, &t), 0);
	assert_int_equal(t.n, pushed);
	assert_int_equal(t.bad, 0);
	merge_free(m);
}

/* Records read into the merge's room, as a reader of pages queues them: tag, bytes, time. */
struct taken {
	uint64_t t[64];
	uint32_t tag[64];
	char bytes[64][8];
	size_t size[64];
	size_t n;
};

/* take_collect - what the merge emitted, copied out */
static int take_collect(void *arg, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	struct taken *k = arg;

	assert_true(k->n < 64 && size <= 8);
	/* A copy is a perf record, read as structs of u64s: aligned, whatever came before. */
	if (!tag)
		assert_int_equal((uintptr_t)rec % 8, 0);
	k->t[k->n] = time;
	k->tag[k->n] = tag;
	memcpy(k->bytes[k->n], rec, size);
	k->size[k->n++] = size;
	return 0;
}

/*
 * take_page - a "page" of count 8-byte records "Pn:r" read into the room, queued where they
 * lie; all of it kept (whole), or up to the last record
 */
static void take_page(struct merge *m, char page, int count, uint64_t t0, uint64_t step, bool whole)
{
	char *room = merge_take(m, 4096);

	assert_non_null(room);
	/* Whatever was read after the last record is not the merge's to keep. */
	memset(room, 'x', 4096);
	for (int r = 0; r < count; r++) {
		snprintf(room + 8 * r, 8, "%c%d:%d", page, count, r);
		assert_int_equal(merge_push_at(m, t0 + r * step, room + 8 * r, 8, 0x80000000u | page), 0);
	}
	/* Out of the room: refused. */
	assert_int_equal(merge_push_at(m, 1, room + 4096, 8, 1), -EINVAL);
	merge_give_back(m, room, whole ? 4096 : 8 * count);
}

/*
 * test_take_in_place - records read into the merge's room and queued where they lie come
 * out in time order with copies pushed between them, each with its tag and its bytes
 * intact, though later takes grow (move) the buffer and an empty page gives all back
 */
static void test_take_in_place(void **state)
{
	struct merge *m = merge_alloc();
	struct taken k = { .n = 0 };
	uint32_t v = 0x11223344;
	char *empty;

	take_page(m, 'A', 3, 10, 20, false);		/* 10 30 50 */
	/* A page whose last entry ends at 4 bytes past a boundary, then the copy after it. */
	empty = merge_take(m, 4096);
	assert_non_null(empty);
	merge_give_back(m, empty, 4);
	assert_int_equal(merge_push(m, 20, &v, sizeof(v)), 0);
	/* Pages of 4 KiB: the 64 KiB buffer grows, and moves, under what is queued. */
	for (int i = 0; i < 20; i++) {
		empty = merge_take(m, 4096);
		assert_non_null(empty);
		merge_give_back(m, empty, 0);
		take_page(m, 'B', 1, 1000 + i, 1, true);
	}
	take_page(m, 'C', 2, 25, 10, false);		/* 25 35 */
	assert_int_equal(merge_round_end(m, UINT64_MAX, take_collect, &k), 0);
	assert_int_equal(merge_flush(m, UINT64_MAX, take_collect, &k), 0);
	assert_int_equal(k.n, 3 + 1 + 20 + 2);
	assert_int_equal(k.t[0], 10);
	assert_string_equal(k.bytes[0], "A3:0");
	assert_int_equal(k.tag[0], 0x80000000u | 'A');
	assert_int_equal(k.t[1], 20);
	assert_int_equal(k.tag[1], 0);
	assert_int_equal(k.size[1], 4);
	assert_memory_equal(k.bytes[1], &v, 4);
	assert_int_equal(k.t[2], 25);
	assert_string_equal(k.bytes[2], "C2:0");
	assert_string_equal(k.bytes[3], "A3:1");
	assert_string_equal(k.bytes[4], "C2:1");
	assert_string_equal(k.bytes[5], "A3:2");
	for (int i = 0; i < 20; i++) {
		assert_int_equal(k.t[6 + i], 1000 + i);
		assert_string_equal(k.bytes[6 + i], "B1:0");
	}
	/* Given back: the room and every queued byte, kept for the pages read last, not more. */
	assert_true(merge_held(m) < 4 * 65536 * 3);
	merge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cpus),
		cmocka_unit_test(test_late_kept),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_random_rounds),
		cmocka_unit_test(test_many_runs),
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_burst_then_quiet),
		cmocka_unit_test(test_take_in_place),
		cmocka_unit_test(test_varying_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
