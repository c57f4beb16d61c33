// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dump.c - the dump writer: a window of held ring chunks into a file, off the caller's thread */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "dump.h"
#include "sample.h"
#include "sections.h"

#define SEC 1000000000ull
#define MS 1000000ull
#define T_HEAD REC_FOURCC('H', 'E', 'A', 'D')
#define T_NAME REC_FOURCC('N', 'A', 'M', 'E')

/* The ring being filled and the times of the chunk being made. */
struct filler {
	struct ring *ring;
	uint64_t t_first, t_last;
};

/* filler_chunk - the sink: a chunk made, into the ring */
static int filler_chunk(void *arg, const void *chunk, size_t len)
{
	struct filler *f = arg;

	return ring_add(f->ring, chunk, len, f->t_first, f->t_last);
}

/* fill - one chunk of ten samples at t0 + 0..9 ms */
static void fill(struct rec_writer *w, struct filler *f, uint64_t t0)
{
	struct {
		struct perf_event_header h;
		uint64_t id, ip, time;
	} smp = { { PERF_RECORD_SAMPLE, 0, sizeof(smp) }, 1, 0, 0 };

	f->t_first = t0;
	f->t_last = t0 + 9 * MS;
	for (int k = 0; k < 10; k++) {
		smp.time = t0 + k * MS;
		assert_int_equal(rec_writer_stream(w, REC_SEC_EVTS, &smp, sizeof(smp)), 0);
	}
	assert_int_equal(rec_writer_flush(w), 0);
}

/* dump_make - a dump of [from, to] of the ring into path, with a head and a names chunk */
static struct dump *dump_make(const char *path, struct ring *ring, uint64_t from, uint64_t to,
			      const struct record_params *p)
{
	struct dump *d = dump_alloc(path);
	struct rec_writer *hw;

	assert_non_null(d);
	d->force = true;
	d->from = from;
	d->to = to;
	d->t_end = to;
	d->info = (struct snap_info){ .p = p, .tools = "", .pid = -1, .t_start = from };
	hw = rec_writer_create_sink(dump_sink, d);
	assert_non_null(hw);
	assert_int_equal(rec_writer_put(hw, T_HEAD, "head", 4), 0);
	d->to_names = true;
	assert_int_equal(rec_writer_put(hw, T_NAME, "names", 5), 0);
	rec_writer_free(hw);
	assert_int_equal(ring_hold(ring, from, to, &d->held, &d->nr_held), 0);
	return d;
}

/* window_check - the window's samples only, after what the loop made, though the ring moved on */
static void window_check(struct rec_writer *(*sink)(rec_chunk_fn, void *))
{
	struct record_params p = { 0 };
	struct filler f = { ring_alloc(2 * SEC, 64 << 20, 0) };
	struct rec_writer *w = sink(filler_chunk, &f);
	char path[] = "/tmp/iotap-test-dump.XXXXXX";
	int fd = mkstemp(path), ret, samples = 0, order = 0;
	struct dump *d, *rest;
	struct dumper *dp;
	struct rec_reader *r;
	uint64_t told = 0;
	int efd;
	const void *data;
	uint32_t type;
	size_t len;

	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < 3; i++)
		fill(w, &f, i * SEC);
	/* Chunk 1 whole, chunk 2 up to 2.005 s: 16 samples; chunk 0 is out. */
	d = dump_make(path, f.ring, SEC, 2 * SEC + 5 * MS, &p);
	assert_int_equal(d->nr_held, 2);
	/* The ring moves on: chunks 1 and 2 leave it, held by the dump alone. */
	fill(w, &f, 10 * SEC);
	assert_int_equal(ring_count(f.ring), 1);
	/* The loop is told when the dump is written: its eventfd counts one. */
	assert_true((efd = eventfd(0, EFD_CLOEXEC)) >= 0);
	assert_int_equal(dumper_start(&dp, efd), 0);
	assert_int_equal(dumper_submit(dp, d, false), 0);
	assert_int_equal(poll(&(struct pollfd){ .fd = efd, .events = POLLIN }, 1, 10000), 1);
	assert_int_equal(read(efd, &told, sizeof(told)), sizeof(told));
	assert_int_equal(told, 1);
	dumper_stop(dp, &rest);
	close(efd);
	assert_ptr_equal(rest, d);
	assert_null(d->next);
	assert_int_equal(d->err, 0);
	assert_null(d->held);
	assert_true(d->bytes > 0);
	dump_free(d);

	r = rec_reader_open(path);
	assert_non_null(r);
	while ((ret = rec_reader_next(r, &type, &data, &len)) == 1) {
		if (type == T_HEAD)
			assert_int_equal(order++, 0);
		else if (type == T_NAME)
			assert_int_equal(order++, 1);
		else if (type == REC_SEC_STAT)
			assert_int_equal(order++, 2);
		if (type != REC_SEC_EVTS || len == 8)	/* the stream's version prefix */
			continue;
		for (size_t pos = 0; pos < len;) {
			const struct perf_event_header *h = (const void *)((const uint8_t *)data + pos);
			uint64_t t;

			assert_int_equal(perf_record_time(h, &t), 0);
			assert_true(t >= SEC && t <= 2 * SEC + 5 * MS);
			samples++;
			pos += h->size;
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(order, 3);
	assert_int_equal(samples, 16);
	rec_reader_free(r);
	unlink(path);
	rec_writer_free(w);
	ring_free(f.ring);
}

/* test_window - a ring of compressed chunks: copied whole, the edges trimmed */
static void test_window(void **state)
{
	window_check(rec_writer_create_sink);
}

/* test_window_stored - a ring of stored chunks: the same file, compressed as it is written */
static void test_window_stored(void **state)
{
	window_check(rec_writer_create_sink_stored);
}

/* test_fails - a file that cannot be made comes back with its errno, and nothing is left */
static void test_fails(void **state)
{
	struct record_params p = { 0 };
	struct filler f = { ring_alloc(2 * SEC, 64 << 20, 0) };
	struct rec_writer *w = rec_writer_create_sink(filler_chunk, &f);
	struct dump *d, *rest;
	struct dumper *dp;

	fill(w, &f, SEC);
	d = dump_make("/nonexistent-iotap-dir/dump", f.ring, 0, 2 * SEC, &p);
	assert_int_equal(dumper_start(&dp, -1), 0);
	assert_int_equal(dumper_submit(dp, d, false), 0);
	dumper_stop(dp, &rest);
	assert_ptr_equal(rest, d);
	assert_int_equal(d->err, -ENOENT);
	assert_int_equal(access("/nonexistent-iotap-dir/dump", F_OK), -1);
	dump_free(d);
	rec_writer_free(w);
	ring_free(f.ring);
	dumper_stop(NULL, &rest);
	assert_null(rest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_window_stored),
		cmocka_unit_test(test_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
