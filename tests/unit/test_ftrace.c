// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ftrace.c - ftrace sub-buffers, laid out as the 6.18 kernel's
 * header_page describes them, decoded into perf samples: ids, times (page
 * stamp plus deltas and time extends), CPU, pid, raw data byte for byte and
 * the fields libtraceevent reads from it; events of other types left out;
 * missed-event counts from the sub-buffer header; the loss arithmetic; the
 * walk of random sub-buffers (long events, padding, time extends and stamps,
 * commits cut short) giving every event and time libtraceevent's kbuffer gives.
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
#include <cmocka.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "ftrace.h"
#include "sample.h"
#include "testlib.h"
#include "tfs.h"

#define K618 "6.18.44-fc-v669"
#define PAGE TESTLIB_PAGE
#define COMMIT_MISSED TESTLIB_COMMIT_MISSED
#define COMMIT_STORED TESTLIB_COMMIT_STORED

struct seen {
	struct perf_sample s[8];
	uint8_t raw[8][128];
	uint64_t time[8];
	int n;
};

/* collect - keep a copy of each sample handed out */
static int collect(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	struct seen *sn = arg;
	struct perf_sample *s = &sn->s[sn->n];

	assert_true(sn->n < 8);
	assert_int_equal(rec->size % 8, 0);
	assert_int_equal(perf_sample_parse(rec, IOTAP_SAMPLE_BASE, 0, s), 0);
	assert_true(s->raw_size <= sizeof(sn->raw[0]));
	memcpy(sn->raw[sn->n], s->raw, s->raw_size);
	s->raw = sn->raw[sn->n];
	sn->time[sn->n++] = time;
	return 0;
}

struct fixture {
	struct ftrace_ring *fr;
	struct subbuf_decoder *dec;	/* a clone of the ring's, as another thread decodes */
	struct fmt_set fs;
	struct tep_event *complete;
};

/* setup - a ring decoding with 6.18's header_page, block_rq_complete added */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	size_t len;
	char *hp = testlib_format_load(K618, "header_page", &len);

	f->fr = ftrace_ring_alloc();
	assert_non_null(f->fr);
	assert_int_equal(ftrace_ring_set_header_page(f->fr, hp, len), 0);
	assert_int_equal(fmt_set_init(&f->fs, hp, len, 8, PAGE), 0);
	free(hp);
	f->complete = testlib_fmt_add(&f->fs, K618, "block", "block_rq_complete");
	assert_int_equal(ftrace_ring_add(f->fr, "block", "block_rq_complete", f->complete->id,
					 "dev == 7340032"), 0);
	/* The event added after the header page is the decoder's too. */
	f->dec = subbuf_decoder_clone(ftrace_ring_decoder(f->fr));
	assert_non_null(f->dec);
	*state = f;
	return 0;
}

/* teardown - free without an instance: nothing in the kernel to undo */
static int teardown(void **state)
{
	struct fixture *f = *state;

	ftrace_ring_free(f->fr);
	subbuf_decoder_free(f->dec);
	fmt_set_release(&f->fs);
	free(f);
	return 0;
}

/* field - a number field of a decoded sample, by the format's name */
static uint64_t field(struct tep_event *ev, const struct perf_sample *s, const char *name)
{
	struct tep_record rec = { .data = (void *)s->raw, .size = s->raw_size };
	unsigned long long v = 0;

	assert_int_equal(tep_read_number_field(tep_find_field(ev, name), rec.data, &v), 0);
	return v;
}

/* test_decode - two events, a time extend between; ids, times, pid, fields */
static void test_decode(void **state)
{
	struct fixture *f = *state;
	struct ftrace_stats st = { 0 };
	struct seen sn = { 0 };
	struct testlib_page p = { 0 };
	uint8_t e[64], e2[64], other[16] = { 0 };
	uint16_t other_type = 1;
	size_t n;

	n = testlib_complete_entry(e, f->complete->id, getpid(), 7340032, 123456, 8);
	testlib_page_event(&p, 10, e, n);
	memcpy(other, &other_type, 2);
	testlib_page_event(&p, 5, other, sizeof(other));
	testlib_page_extend(&p, 1ull << 30);
	n = testlib_complete_entry(e2, f->complete->id, 0, 7340032, 99, 16);
	testlib_page_event(&p, 7, e2, n);
	testlib_page_seal(&p, 5000000000ull, 0);

	assert_int_equal(subbuf_decode(f->dec, 3, p.b, &st, NULL, collect, &sn), 0);
	assert_int_equal(sn.n, 2);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.missed, 0);

	assert_int_equal(sn.s[0].id, ftrace_sample_id(f->complete->id));
	assert_int_equal(sn.s[0].time, 5000000010ull);
	assert_int_equal(sn.time[0], 5000000010ull);
	assert_int_equal(sn.s[0].cpu, 3);
	assert_int_equal(sn.s[0].tid, getpid());
	assert_int_equal(sn.s[0].pid, getpid());
	assert_int_equal((sn.s[0].raw_size + 4) % 8, 0);
	assert_true(sn.s[0].raw_size >= 52);
	assert_memory_equal(sn.s[0].raw, e, 52);
	assert_int_equal(field(f->complete, &sn.s[0], "sector"), 123456);
	assert_int_equal(field(f->complete, &sn.s[0], "nr_sector"), 8);
	assert_int_equal(field(f->complete, &sn.s[0], "dev"), 7340032);

	/* 10 + 5, then the extend's 2^30, then 7 */
	assert_int_equal(sn.s[1].time, 5000000000ull + 15 + (1ull << 30) + 7);
	assert_int_equal(sn.s[1].pid, 0);
	assert_int_equal(field(f->complete, &sn.s[1], "sector"), 99);
}

/* test_missed - the header's missed-event count, stored or not */
static void test_missed(void **state)
{
	struct fixture *f = *state;
	struct ftrace_stats st = { 0 };
	struct seen sn = { 0 };
	struct testlib_page p = { 0 };
	uint8_t e[64];
	uint64_t lost = 7;
	size_t n = testlib_complete_entry(e, f->complete->id, 1, 7340032, 1, 8);

	testlib_page_event(&p, 1, e, n);
	memcpy(p.b + 16 + p.len, &lost, 8);
	testlib_page_seal(&p, 100, COMMIT_MISSED | COMMIT_STORED);
	assert_int_equal(subbuf_decode(f->dec, 0, p.b, &st, NULL, collect, &sn), 0);
	assert_int_equal(sn.n, 1);
	assert_int_equal(st.missed, 7);

	testlib_page_seal(&p, 100, COMMIT_MISSED);
	assert_int_equal(subbuf_decode(f->dec, 0, p.b, &st, NULL, collect, &sn), 0);
	assert_int_equal(st.missed, 8);
	assert_int_equal(st.records, 2);
}

/*
 * test_kept - a sub-buffer kept as subbuf_used says (header, events, the
 * stored missed count), with other bytes after it, decodes as the whole one
 * did, by a clone of the ring's decoder as by the ring
 */
static void test_kept(void **state)
{
	struct fixture *f = *state;
	struct ftrace_stats st = { 0 }, st2 = { 0 };
	struct seen sn = { 0 }, sn2 = { 0 };
	struct testlib_page p = { 0 };
	uint8_t e[64], kept[PAGE];
	uint64_t lost = 3;
	struct subbuf_span span = { 1, 1 };
	struct subbuf_decoder *d = subbuf_decoder_clone(ftrace_ring_decoder(f->fr));
	size_t n = testlib_complete_entry(e, f->complete->id, 42, 7340032, 77, 8), used;

	assert_non_null(d);
	assert_int_equal(subbuf_size(d), PAGE);
	testlib_page_event(&p, 4, e, n);
	testlib_page_event(&p, 6, e, n);
	memcpy(p.b + 16 + p.len, &lost, 8);
	testlib_page_seal(&p, 1000, COMMIT_MISSED | COMMIT_STORED);
	used = subbuf_used(d, p.b);
	assert_int_equal(used, 16 + p.len + 8);

	memset(kept, 0xa5, sizeof(kept));
	memcpy(kept, p.b, used);
	assert_int_equal(subbuf_decode(f->dec, 1, p.b, &st, NULL, collect, &sn), 0);
	assert_int_equal(subbuf_decode(d, 1, kept, &st2, &span, collect, &sn2), 0);
	assert_int_equal(sn2.n, 2);
	assert_int_equal(sn.n, 2);
	assert_int_equal(span.first, 1004);
	assert_int_equal(span.last, 1010);
	assert_int_equal(st2.missed, 3);
	assert_int_equal(st2.records, st.records);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(sn2.time[i], sn.time[i]);
		assert_int_equal(sn2.s[i].tid, 42);
		assert_int_equal(sn2.s[i].raw_size, sn.s[i].raw_size);
		assert_memory_equal(sn2.s[i].raw, sn.s[i].raw, sn.s[i].raw_size);
	}
	/* A full sub-buffer takes all of it; one kbuffer refuses, nothing. */
	p.len = PAGE - 16;
	testlib_page_seal(&p, 1000, 0);
	assert_int_equal(subbuf_used(d, p.b), PAGE);
	subbuf_decoder_free(d);
	subbuf_decoder_free(NULL);
}

/* test_lost - the headers tell of the losses the counters count: not counted twice */
static void test_lost(void **state)
{
	struct ftrace_stats st = { .missed = 5, .overrun = 9, .dropped = 3 };

	assert_int_equal(ftrace_stats_lost(&st), 12);
	st.overrun = 0;
	assert_int_equal(ftrace_stats_lost(&st), 5);
	st.missed = 0;
	assert_int_equal(ftrace_stats_lost(&st), 3);
	st = (struct ftrace_stats){ 0 };
	assert_int_equal(ftrace_stats_lost(&st), 0);
}

/* test_empty - an empty sub-buffer gives nothing; no header page, no decoder */
static void test_empty(void **state)
{
	struct fixture *f = *state;
	struct ftrace_stats st = { 0 };
	struct seen sn = { 0 };
	struct testlib_page p = { 0 };
	struct ftrace_ring *bare = ftrace_ring_alloc();

	testlib_page_seal(&p, 1, 0);
	assert_int_equal(subbuf_decode(f->dec, 0, p.b, &st, NULL, collect, &sn), 0);
	assert_int_equal(sn.n, 0);
	assert_null(ftrace_ring_decoder(bare));
	assert_int_equal(ftrace_ring_add(bare, "a", "b", 1, NULL), 0);
	ftrace_ring_free(bare);
	ftrace_ring_free(NULL);
}

/* An event a walk gave: its time and bytes. */
struct walked {
	uint64_t time[PAGE / 8];
	uint32_t size[PAGE / 8];
	const void *data[PAGE / 8];
	int n;
};

/* walk_keep - keep what subbuf_entries gives */
static int walk_keep(void *arg, uint64_t time, const void *entry, uint32_t size)
{
	struct walked *w = arg;

	w->time[w->n] = time;
	w->size[w->n] = size;
	w->data[w->n++] = entry;
	return 0;
}

/* rand_u32 - a fixed sequence, so a failure is the same on every run */
static uint32_t rand_u32(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*seed >> 33);
}

/* page_random - events of every kind the ring writes, until the page is nearly full */
static void page_random(struct testlib_page *p, uint16_t type, uint64_t *seed)
{
	uint8_t e[256];

	memset(p, 0, sizeof(*p));
	while (16 + p->len + 8 + sizeof(e) + 8 <= PAGE) {
		uint32_t r = rand_u32(seed), kind = r % 8, delta = rand_u32(seed) & ((1u << 27) - 1);
		uint32_t len = 8 + 4 * (rand_u32(seed) % 56), hdr;
		uint64_t at = 16 + p->len;

		for (size_t i = 0; i < len; i++)
			e[i] = (uint8_t)rand_u32(seed);
		memcpy(e, &type, 2);
		if (kind == 0) {		/* a time extend */
			testlib_page_extend(p, (uint64_t)rand_u32(seed) << 5 | delta);
			continue;
		}
		if (kind == 1) {		/* an absolute stamp: 59 bits, the top ones kept */
			uint32_t hi = rand_u32(seed);

			hdr = 31 | delta << 5;
			memcpy(p->b + at, &hdr, 4);
			memcpy(p->b + at + 4, &hi, 4);
			p->len += 8;
			continue;
		}
		if (kind == 2) {		/* a discarded event: padding that keeps its delta */
			uint32_t skip = len + 4;

			hdr = 29 | (delta | 1) << 5;
			memcpy(p->b + at, &hdr, 4);
			memcpy(p->b + at + 4, &skip, 4);
			p->len += 4 + skip;
			continue;
		}
		if (kind == 3 || len > 112) {	/* type_len 0: the length in array[0] */
			uint32_t a0 = len + 4;

			hdr = delta << 5;
			memcpy(p->b + at, &hdr, 4);
			memcpy(p->b + at + 4, &a0, 4);
			memcpy(p->b + at + 8, e, len);
			p->len += 8 + len;
			continue;
		}
		testlib_page_event(p, delta, e, len);
	}
}

/*
 * test_walk_as_kbuffer - the walk gives each event of a random sub-buffer at
 * the time and with the bytes kbuffer gives, over whole pages and commits cut
 * at any event's end
 */
static void test_walk_as_kbuffer(void **state)
{
	struct fixture *f = *state;
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t seed = 42, events = 0;
	static struct testlib_page p;
	static struct walked w;

	assert_non_null(kb);
	for (int round = 0; round < 400; round++) {
		struct ftrace_stats st = { 0 };
		unsigned long long ts;
		uint32_t full;
		int n = 0;

		page_random(&p, (uint16_t)f->complete->id, &seed);
		full = (uint32_t)p.len;
		/* Half the rounds end the commit early, where the kernel stopped writing. */
		if (round % 2)
			p.len = rand_u32(&seed) % (full + 1);
		/* page stamps with the top bits set too, which an absolute stamp keeps */
		testlib_page_seal(&p, (uint64_t)rand_u32(&seed) << 32 | rand_u32(&seed), 0);
		w.n = 0;
		assert_int_equal(subbuf_entries(f->dec, p.b, &st, NULL, walk_keep, &w), 0);
		assert_int_equal(kbuffer_load_subbuffer(kb, p.b), 0);
		for (void *d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
			int size = kbuffer_event_size(kb);

			/* kbuffer hands out an event the commit cuts; the walk ends there */
			if ((const uint8_t *)d - p.b - 16 + (size_t)size > p.len)
				break;
			assert_true(n < w.n);
			assert_int_equal(w.time[n], ts);
			assert_int_equal(w.size[n], size);
			assert_ptr_equal(w.data[n], d);
			n++;
		}
		assert_int_equal(n, w.n);
		assert_int_equal(st.records, (uint64_t)w.n);
		events += (uint64_t)n;
	}
	kbuffer_free(kb);
	/* the pages held events: the comparison compared something */
	assert_true(events > 400 * 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_decode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kept, setup, teardown),
		cmocka_unit_test(test_lost),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_as_kbuffer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
