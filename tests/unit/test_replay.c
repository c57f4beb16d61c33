// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_replay.c - a flight recorder's window made again from its ring:
 * ftrace sub-buffers kept as read (subbufs.h), two CPUs' of them, and the
 * records it wrote (side-band), merged in time order; the records outside
 * the window left out; each event's process filled in from a copy of the
 * thread map as of the window's start, a thread that exited since counted
 * to its process again; the entries of a chunk of sub-buffers, and one that
 * overruns it refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <event-parse.h>

#include "container.h"
#include "replay.h"
#include "sample.h"
#include "sections.h"
#include "subbufs.h"
#include "testlib.h"
#include "tgidmap.h"

#define K618 "6.18.44-fc-v669"
#define SLAB (REC_CHUNK_HDR + REC_STREAM_CHUNK)

/* side_task - a FORK or EXIT record of thread tid of process pid at time t, with its sample_id trailer */
static const struct perf_event_header *side_task(uint8_t *buf, uint32_t type, uint32_t pid,
						  uint32_t tid, uint64_t t)
{
	struct perf_event_header h = { .type = type, .size = 8 + 24 + 32 };
	uint32_t ids[4] = { pid, pid, tid, tid };
	uint64_t trailer[4] = { (uint64_t)tid << 32 | pid, t, 0, 0 };

	memcpy(buf, &h, 8);
	memcpy(buf + 8, ids, 16);
	memcpy(buf + 24, &t, 8);
	memcpy(buf + 32, trailer, 32);
	return (const void *)buf;
}

/* ring_sink - a chunk the stored writer made, into the ring with the times of its records */
struct sink {
	struct ring *ring;
	uint64_t t_first, t_last;
};

static int ring_sink(void *arg, const void *chunk, size_t len)
{
	struct sink *k = arg;

	return ring_add(k->ring, chunk, len, k->t_first, k->t_last);
}

/* count - a sub-buffer's events, decoded as the reader does before keeping it */
static int count(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	(*(int *)arg)++;
	return 0;
}

/* keep_page - a sub-buffer "read" into the store's room, and kept */
static void keep_page(struct subbufs *sb, struct subbuf_decoder *d, int cpu, struct testlib_page *p)
{
	struct ftrace_stats st = { 0 };
	struct subbuf_span span;
	void *room = sb->ops.room(sb->ops.arg, cpu, TESTLIB_PAGE);
	int n = 0;

	assert_non_null(room);
	memcpy(room, p->b, TESTLIB_PAGE);
	assert_int_equal(subbuf_decode(d, cpu, room, &st, &span, count, &n), 0);
	assert_true(n > 0);
	assert_int_equal(sb->ops.keep(sb->ops.arg, cpu, room, subbuf_used(d, room), &span), 0);
}

struct out {
	uint32_t type[16], pid[16], tid[16];
	uint64_t t[16];
	int n;
};

/* take - each record replayed: its kind, time, process and thread */
static int take(void *arg, const struct perf_event_header *h)
{
	struct out *o = arg;
	struct perf_sample s;

	assert_true(o->n < 16);
	o->type[o->n] = h->type;
	assert_int_equal(perf_record_time(h, &o->t[o->n]), 0);
	if (h->type == PERF_RECORD_SAMPLE) {
		assert_int_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE, 0, &s), 0);
		o->pid[o->n] = s.pid;
		o->tid[o->n] = s.tid;
	}
	o->n++;
	return 0;
}

static void test_replay(void **state)
{
	size_t hp_len, nr;
	char *hp = testlib_format_load(K618, "header_page", &hp_len);
	struct subbuf_decoder *d = subbuf_decoder_new(hp, hp_len);
	struct fmt_set fs;
	struct tep_event *complete;
	struct ring *ring = ring_alloc(60ull * 1000000000, 64u << 20, SLAB);
	struct sink k = { ring, 0, 0 };
	struct rec_writer *w = rec_writer_create_sink_stored(ring_sink, &k);
	struct tgidmap *live = tgidmap_alloc(), *copy;
	struct testlib_page a = { 0 }, b = { 0 }, c = { 0 };
	struct subbufs sb;
	struct ring_held *held;
	struct out o = { 0 };
	uint8_t e[64], rec[128];
	struct replay rp = { 0 };
	size_t n;

	assert_non_null(d);
	testlib_fmt_init(&fs, K618);
	complete = testlib_fmt_add(&fs, K618, "block", "block_rq_complete");
	assert_int_equal(subbuf_decoder_add(d, complete->id), 0);

	/* The live map: threads 100 and 101 of process 100; 101 exits at 1500, kept lingering. */
	tgidmap_linger(live, 60ull * 1000000000);
	tgidmap_record(live, (void *)side_task(rec, PERF_RECORD_FORK, 100, 100, 800));
	tgidmap_record(live, (void *)side_task(rec, PERF_RECORD_FORK, 100, 101, 900));
	tgidmap_record(live, (void *)side_task(rec, PERF_RECORD_EXIT, 100, 101, 1500));
	assert_int_equal(tgidmap_count(live), 1);

	/* CPU 0: 100 at 1010, 101 at 1020; CPU 1: 100 at 1005, 102 at 1025; CPU 0 again: 100 at 1600. */
	n = testlib_complete_entry(e, complete->id, 100, 7340032, 1, 8);
	testlib_page_event(&a, 10, e, n);
	n = testlib_complete_entry(e, complete->id, 101, 7340032, 2, 8);
	testlib_page_event(&a, 10, e, n);
	testlib_page_seal(&a, 1000, 0);
	n = testlib_complete_entry(e, complete->id, 100, 7340032, 3, 8);
	testlib_page_event(&b, 5, e, n);
	n = testlib_complete_entry(e, complete->id, 102, 7340032, 4, 8);
	testlib_page_event(&b, 20, e, n);
	testlib_page_seal(&b, 1000, 0);
	n = testlib_complete_entry(e, complete->id, 100, 7340032, 5, 8);
	testlib_page_event(&c, 0, e, n);
	testlib_page_seal(&c, 1600, 0);

	subbufs_init(&sb, ring);
	keep_page(&sb, d, 0, &a);
	keep_page(&sb, d, 1, &b);
	/* The side-band the recorder wrote: 102 born to process 500, 101's exit, one past the window. */
	k.t_first = 1015;
	k.t_last = 2100;
	assert_int_equal(rec_writer_stream(w, REC_SEC_EVTS, side_task(rec, PERF_RECORD_FORK, 500, 102, 1015), 64), 0);
	assert_int_equal(rec_writer_stream(w, REC_SEC_EVTS, side_task(rec, PERF_RECORD_EXIT, 100, 101, 1500), 64), 0);
	assert_int_equal(rec_writer_stream(w, REC_SEC_EVTS, side_task(rec, PERF_RECORD_COMM, 100, 100, 2100), 64), 0);
	assert_int_equal(rec_writer_flush(w), 0);
	keep_page(&sb, d, 0, &c);
	subbufs_end(&sb);
	assert_int_equal(ring_count(ring), 2);
	assert_int_equal(sb.err, 0);

	copy = tgidmap_copy_at(live, 1000);
	assert_non_null(copy);
	rp.dec = d;
	rp.tgids = copy;
	rp.z = rec_inflater_new();
	rp.raw = malloc(REC_CHUNK_MAX + 1);
	rp.rec = malloc(PERF_RECORD_MAX);
	assert_int_equal(ring_hold(ring, 0, UINT64_MAX, &held, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(replay_window(&rp, held, nr, 1000, 2000, take, &o), 0);

	assert_int_equal(o.n, 7);
	{
		static const uint64_t t[7] = { 1005, 1010, 1015, 1020, 1025, 1500, 1600 };
		static const uint32_t type[7] = { PERF_RECORD_SAMPLE, PERF_RECORD_SAMPLE,
						  PERF_RECORD_FORK, PERF_RECORD_SAMPLE,
						  PERF_RECORD_SAMPLE, PERF_RECORD_EXIT,
						  PERF_RECORD_SAMPLE };
		static const uint32_t tid[7] = { 100, 100, 0, 101, 102, 0, 100 };
		static const uint32_t pid[7] = { 100, 100, 0, 100, 500, 0, 100 };

		for (int i = 0; i < 7; i++) {
			assert_int_equal(o.t[i], t[i]);
			assert_int_equal(o.type[i], type[i]);
			if (type[i] != PERF_RECORD_SAMPLE)
				continue;
			assert_int_equal(o.tid[i], tid[i]);
			assert_int_equal(o.pid[i], pid[i]);
		}
	}
	/* The chunks are the ring's still: replaying again gives the same. */
	tgidmap_free(copy);
	rp.tgids = tgidmap_copy_at(live, 1000);
	o.n = 0;
	assert_int_equal(replay_window(&rp, held, nr, 1000, 1010, take, &o), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.pid[1], 100);

	ring_release(held, nr);
	tgidmap_free(rp.tgids);
	tgidmap_free(live);
	rec_inflater_free(rp.z);
	free(rp.raw);
	free(rp.rec);
	rec_writer_free(w);
	ring_free(ring);
	subbuf_decoder_free(d);
	fmt_set_release(&fs);
	free(hp);
}

/* test_entries - a chunk's entries in order; one that overruns it is refused */
static void test_entries(void **state)
{
	struct ring *ring = ring_alloc(1000000000, 16u << 20, SLAB);
	struct subbufs sb;
	struct ring_held *held;
	struct subbuf_span span = { 7, 9 };
	const void *sub;
	size_t nr, pos = 0, len;
	uint8_t copy[256];
	int cpu, n = 0;
	void *room;

	subbufs_init(&sb, ring);
	subbufs_end(&sb);
	assert_int_equal(ring_count(ring), 0);
	for (int i = 0; i < 3; i++) {
		room = sb.ops.room(sb.ops.arg, i, 4096);
		assert_non_null(room);
		assert_ptr_equal(sb.ops.room(sb.ops.arg, i, 4096), room);
		memset(room, i + 1, 13);
		assert_int_equal(sb.ops.keep(sb.ops.arg, i, room, 13, &span), 0);
	}
	subbufs_end(&sb);
	assert_int_equal(ring_hold(ring, 0, UINT64_MAX, &held, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(subbufs_chunk(held[0].data, held[0].len));
	while (subbufs_next(held[0].data, held[0].len, &pos, &cpu, &sub, &len) == 1) {
		assert_int_equal(cpu, n);
		assert_int_equal(len, 13);
		assert_int_equal(((const uint8_t *)sub)[12], n + 1);
		n++;
	}
	assert_int_equal(n, 3);
	assert_true(held[0].len <= sizeof(copy));
	memcpy(copy, held[0].data, held[0].len);
	copy[12] = 0xff;	/* the first entry's length, past the chunk */
	pos = 0;
	assert_int_equal(subbufs_next(copy, held[0].len, &pos, &cpu, &sub, &len), -EINVAL);
	assert_false(subbufs_chunk(copy + 1, held[0].len - 1));
	ring_release(held, nr);
	ring_free(ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
