// SPDX-License-Identifier: GPL-2.0-or-later
/* test_ring.c - the flight recorder's ring: eviction by age and by cap; trigger expressions */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ring.h"
#include "trigger.h"

#define SEC 1000000000ull
#define MS 1000000ull

/* Chunks held for a window: their first bytes and times. */
struct seen {
	int nr;
	uint8_t first[16];
	uint64_t t_first[16];
};

/* seen_hold - hold the chunks of [from, to] and note them; the hold is let go */
static void seen_hold(struct ring *r, uint64_t from, uint64_t to, struct seen *s)
{
	struct ring_held *h;
	size_t nr;

	assert_int_equal(ring_hold(r, from, to, &h, &nr), 0);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < nr; i++) {
		s->first[s->nr] = *(const uint8_t *)h[i].data;
		s->t_first[s->nr++] = h[i].t_first;
	}
	ring_release(h, nr);
}

/* test_age - a chunk whose newest event is older than keep_ns before the newest goes */
static void test_age(void **state)
{
	struct ring *r = ring_alloc(3 * SEC, 1 << 20, 0);
	uint8_t c[100];
	struct seen s = { 0 };

	for (int i = 0; i < 6; i++) {
		memset(c, i, sizeof(c));
		assert_int_equal(ring_add(r, c, sizeof(c), i * SEC, i * SEC + SEC / 2), 0);
	}
	/* Newest ends at 5.5 s: chunks ending before 2.5 s (0, 1) are gone; 2 ends at 2.5 s, kept. */
	assert_int_equal(ring_count(r), 4);
	seen_hold(r, 0, UINT64_MAX, &s);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.first[0], 2);
	assert_int_equal(s.first[3], 5);
	assert_int_equal(ring_held_ns(r), 3 * SEC + SEC / 2);
	assert_int_equal(ring_first_ns(r), 2 * SEC);
	assert_false(ring_cap_bound(r));
	/* A window picks the chunks that overlap it. */
	seen_hold(r, 3 * SEC + SEC / 2 + 1, 4 * SEC, &s);
	assert_int_equal(s.nr, 1);
	assert_int_equal(s.first[0], 4);
	ring_free(r);
}

/* test_hold - a held chunk outlives its eviction, unchanged, until it is let go */
static void test_hold(void **state)
{
	struct ring *r = ring_alloc(SEC, 1 << 20, 0);
	struct ring_held *h;
	uint8_t c[100];
	size_t nr;

	memset(c, 7, sizeof(c));
	assert_int_equal(ring_add(r, c, sizeof(c), 0, SEC / 2), 0);
	assert_int_equal(ring_hold(r, 0, SEC, &h, &nr), 0);
	assert_int_equal(nr, 1);
	memset(c, 8, sizeof(c));
	assert_int_equal(ring_add(r, c, sizeof(c), 5 * SEC, 5 * SEC), 0);
	assert_int_equal(ring_count(r), 1);
	assert_int_equal(ring_bytes(r), ring_bytes_per_chunk(r, sizeof(c)));
	assert_int_equal(h[0].len, sizeof(c));
	assert_int_equal(((const uint8_t *)h[0].data)[99], 7);
	assert_int_equal(h[0].t_last, SEC / 2);
	ring_release(h, nr);
	/* Freed with the ring while held: the holder frees it last. */
	assert_int_equal(ring_hold(r, 0, UINT64_MAX, &h, &nr), 0);
	ring_free(r);
	assert_int_equal(((const uint8_t *)h[0].data)[0], 8);
	ring_release(h, nr);
	ring_release(NULL, 0);
}

/* test_cap - past the cap the oldest go even within keep_ns, and the ring says so once */
static void test_cap(void **state)
{
	size_t per = ring_bytes_per_chunk(NULL, 1000);
	struct ring *r = ring_alloc(60 * SEC, 3 * per, 0);
	static uint8_t c[8192];

	for (int i = 0; i < 3; i++)
		assert_int_equal(ring_add(r, c, 1000, i * SEC, i * SEC), 0);
	assert_int_equal(ring_bytes(r), 3 * per);
	assert_false(ring_cap_bound(r));
	assert_int_equal(ring_add(r, c, 1000, 3 * SEC, 3 * SEC), 0);
	assert_int_equal(ring_count(r), 3);
	assert_int_equal(ring_bytes(r), 3 * per);
	assert_true(ring_cap_bound(r));
	assert_false(ring_cap_bound(r));
	assert_int_equal(ring_held_ns(r), 2 * SEC);
	/* A chunk larger than the whole cap empties the ring and is refused. */
	assert_int_equal(ring_add(r, c, 4 * per, 4 * SEC, 4 * SEC), -E2BIG);
	assert_int_equal(ring_count(r), 0);
	assert_int_equal(ring_bytes(r), 0);
	assert_int_equal(ring_first_ns(r), 0);
	ring_free(r);
	ring_free(NULL);
}

/*
 * test_slab - a large chunk takes a slab (counted whole), a small one its
 * size; a held slab outlives its drop with its bytes intact
 */
static void test_slab(void **state)
{
	static uint8_t c[4096];
	struct ring *r = ring_alloc(2 * SEC, 1 << 20, 4096);
	size_t slab = ring_bytes_per_chunk(r, 4096), small = ring_bytes_per_chunk(r, 100);
	struct ring_held *h;
	size_t nr;

	assert_int_equal(ring_bytes_per_chunk(r, 2049), slab);
	assert_int_equal(ring_bytes_per_chunk(r, 2048), ring_bytes_per_chunk(NULL, 2048));
	assert_int_equal(small, ring_bytes_per_chunk(NULL, 100));
	memset(c, 1, sizeof(c));
	assert_int_equal(ring_add(r, c, 3000, 0, 0), 0);
	assert_int_equal(ring_add(r, c, 100, SEC, SEC), 0);
	assert_int_equal(ring_bytes(r), slab + small);
	assert_int_equal(ring_hold(r, 0, 0, &h, &nr), 0);
	assert_int_equal(nr, 1);
	/* Full: each add drops the oldest; the held slab is not reused while held. */
	for (uint64_t i = 2; i < 10; i++) {
		memset(c, (int)i, sizeof(c));
		assert_int_equal(ring_add(r, c, 2049 + i, i * SEC, i * SEC), 0);
	}
	assert_int_equal(ring_count(r), 3);
	assert_int_equal(ring_bytes(r), 3 * slab);
	assert_int_equal(((const uint8_t *)h[0].data)[2999], 1);
	assert_int_equal(h[0].len, 3000);
	ring_release(h, nr);
	assert_int_equal(ring_hold(r, 0, UINT64_MAX, &h, &nr), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(((const uint8_t *)h[2].data)[2049 + 9 - 1], 9);
	assert_int_equal(h[2].len, 2049 + 9);
	ring_release(h, nr);
	/* Larger than a slab: its own size. */
	assert_int_equal(ring_bytes_per_chunk(r, 5000), ring_bytes_per_chunk(NULL, 5000));
	ring_free(r);
}

/*
 * test_slab_lull - a lull drops every slab at once: they are kept (counted)
 * for the next burst, within the cap, and give way to chunks that need room
 */
static void test_slab_lull(void **state)
{
	static uint8_t c[4096];
	struct ring *r = ring_alloc(2 * SEC, 1 << 20, 4096);
	size_t slab = ring_bytes_per_chunk(r, 4096);

	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(ring_add(r, c, 4000, i * SEC, i * SEC), 0);
	assert_int_equal(ring_bytes(r), 3 * slab);
	/* Ten seconds later: the three are dropped, kept as spares. */
	assert_int_equal(ring_add(r, c, 100, 12 * SEC, 12 * SEC), 0);
	assert_int_equal(ring_count(r), 1);
	assert_int_equal(ring_bytes(r), 3 * slab + ring_bytes_per_chunk(r, 100));
	/* The burst takes them again: no more memory. */
	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(ring_add(r, c, 3000, 12 * SEC + i, 12 * SEC + i), 0);
	assert_int_equal(ring_count(r), 4);
	assert_int_equal(ring_bytes(r), 3 * slab + ring_bytes_per_chunk(r, 100));
	ring_free(r);

	/* A cap of four slabs: spares go before a small chunk would pass it. */
	r = ring_alloc(2 * SEC, 4 * slab, 4096);
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(ring_add(r, c, 4000, i * SEC, i * SEC), 0);
	assert_int_equal(ring_add(r, c, 100, 20 * SEC, 20 * SEC), 0);
	assert_true(ring_bytes(r) <= 4 * slab);
	assert_int_equal(ring_count(r), 1);
	assert_false(ring_cap_bound(r));
	ring_free(r);
}

/*
 * test_fill - records written into the ring's room are the chunk's once
 * committed, the slab counted from when it was taken; a slab too full for
 * the next room ends by itself; age and the cap drop filled slabs as added
 * ones; without slabs, or past one, no room
 */
static void test_fill(void **state)
{
	struct ring *r = ring_alloc(2 * SEC, 1 << 20, 4096);
	size_t slab = ring_bytes_per_chunk(r, 4096);
	struct ring_held *h;
	uint8_t *p, *q;
	size_t nr;

	assert_int_equal(ring_fill_len(r), 0);
	p = ring_fill_room(r, 1000);
	assert_non_null(p);
	assert_int_equal(ring_bytes(r), slab);
	assert_int_equal(ring_count(r), 0);
	/* Uncommitted, the room stays where it was. */
	assert_ptr_equal(ring_fill_room(r, 1000), p);
	memset(p, 7, 1000);
	ring_fill_commit(r, 1000, SEC, SEC + 5);
	q = ring_fill_room(r, 3000);
	assert_ptr_equal(q, p + 1000);
	memset(q, 8, 2000);
	ring_fill_commit(r, 2000, 0, SEC + 9);
	assert_int_equal(ring_fill_len(r), 3000);
	/* 1,200 more do not fit: the slab joins the ring, a new one is taken. */
	q = ring_fill_room(r, 1200);
	assert_non_null(q);
	assert_int_equal(ring_count(r), 1);
	assert_int_equal(ring_bytes(r), 2 * slab);
	assert_int_equal(ring_fill_len(r), 0);
	assert_int_equal(ring_hold(r, 0, UINT64_MAX, &h, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(h[0].len, 3000);
	assert_int_equal(h[0].t_first, SEC);
	assert_int_equal(h[0].t_last, SEC + 9);
	assert_int_equal(((const uint8_t *)h[0].data)[999], 7);
	assert_int_equal(((const uint8_t *)h[0].data)[2999], 8);
	ring_release(h, nr);
	/*
	 * An empty slab does not end; one at most half full joins as a copy of
	 * its size (the too old dropped) and fills again from its start.
	 */
	ring_fill_end(r);
	assert_int_equal(ring_count(r), 1);
	memset(q, 9, 1200);
	ring_fill_commit(r, 1200, 10 * SEC, 10 * SEC);
	ring_fill_end(r);
	assert_int_equal(ring_count(r), 1);
	assert_int_equal(ring_first_ns(r), 10 * SEC);
	assert_int_equal(ring_fill_len(r), 0);
	/* The slab filling, the copy, and the first slab (dropped by age) kept as a spare. */
	assert_int_equal(ring_bytes(r), 2 * slab + ring_bytes_per_chunk(r, 1200));
	assert_ptr_equal(ring_fill_room(r, 10), q);
	assert_int_equal(ring_hold(r, 0, UINT64_MAX, &h, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(h[0].len, 1200);
	assert_int_equal(((const uint8_t *)h[0].data)[1199], 9);
	ring_release(h, nr);
	assert_false(ring_cap_bound(r));
	ring_free(r);
	/* The cap: three slabs, the oldest goes when a fourth is taken. */
	r = ring_alloc(2 * SEC, 3 * slab, 4096);
	for (uint64_t i = 1; i <= 4; i++) {
		assert_non_null(ring_fill_room(r, 4000));
		ring_fill_commit(r, 4000, i, i);
	}
	assert_int_equal(ring_count(r), 2);
	assert_int_equal(ring_bytes(r), 3 * slab);
	assert_int_equal(ring_first_ns(r), 2);
	assert_true(ring_cap_bound(r));
	/* No room past a slab. */
	errno = 0;
	assert_null(ring_fill_room(r, 4097));
	assert_int_equal(errno, E2BIG);
	ring_free(r);
	/* No slabs, no filling; a ring freed while filling frees the slab. */
	r = ring_alloc(SEC, 1 << 20, 0);
	assert_null(ring_fill_room(r, 10));
	ring_free(r);
	r = ring_alloc(SEC, 1 << 20, 4096);
	assert_non_null(ring_fill_room(r, 10));
	ring_fill_commit(r, 10, 1, 1);
	ring_free(r);
}

/* test_trigger_parse - the accepted forms, and one line for each refusal */
static void test_trigger_parse(void **state)
{
	static const char *const bad[] = {
		"", "latency", "latency>", "latency>0", "latency>0.0", "latency>.5", "latency>5.",
		"latency>1.1234567", "latency>-1", "latency> 5", "latency>5 ", "latency>=5", "error,",
		",error", "error,error", "latency>1,latency>2", "err", "errors", "latency>86400001",
		"latency>99999999999999999999",
	};
	struct trigger t;
	char why[200];

	assert_int_equal(trigger_parse("latency>50", &t, why, sizeof(why)), 0);
	assert_int_equal(t.latency_ns, 50 * MS);
	assert_false(t.error);
	assert_int_equal(trigger_parse("latency>0.25,error", &t, why, sizeof(why)), 0);
	assert_int_equal(t.latency_ns, 250000);
	assert_true(t.error);
	assert_int_equal(trigger_parse("error", &t, why, sizeof(why)), 0);
	assert_int_equal(t.latency_ns, 0);
	assert_int_equal(trigger_parse("latency>0.000001", &t, why, sizeof(why)), 0);
	assert_int_equal(t.latency_ns, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_int_equal(trigger_parse(bad[i], &t, why, sizeof(why)), -22);
		assert_true(why[0] && !strchr(why, '\n'));
	}
}

/* test_trigger_match - device time, -Q's queued time, errors */
static void test_trigger_match(void **state)
{
	struct trigger t = { .latency_ns = 10 * MS };
	struct blk_io io = { .t_start = 1 * MS, .t_issue = 5 * MS, .t_done = 14 * MS };
	uint64_t lat;

	assert_false(trigger_match(&t, &io, false, &lat));
	assert_int_equal(lat, 9 * MS);
	assert_true(trigger_match(&t, &io, true, &lat));
	assert_int_equal(lat, 13 * MS);
	io.error = -5;
	assert_false(trigger_match(&t, &io, false, &lat));
	t.error = true;
	assert_true(trigger_match(&t, &io, false, &lat));
	/* Never issued: no device time to compare. */
	t = (struct trigger){ .latency_ns = 1 };
	io = (struct blk_io){ .t_done = 14 * MS };
	assert_false(trigger_match(&t, &io, false, &lat));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_age),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_slab),
		cmocka_unit_test(test_slab_lull),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_trigger_parse),
		cmocka_unit_test(test_trigger_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
