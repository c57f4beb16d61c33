// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_uringtrack.c - io_uring requests paired from submission to CQE over the captured
 * kernels' formats: by the request's pointer where io_uring_complete has it, by ring and
 * user_data on 5.10, whose completion has none; completions out of order, one of a request
 * never seen submitted, and the block request a request's bio went into credited to it.
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
#include <traceevent/event-parse.h>

#include "block.h"
#include "session.h"
#include "testlib.h"
#include "uringtrack.h"

/* The captured kernels with io_uring events (tests/data/formats/<set>/SOURCE). */
static const char *const kernels[] = {
	"6.12.117+deb12-amd64", "6.1.0-56-amd64", "5.10.0-46-amd64", "rhel9-5.14",
	"ubuntu22.04-5.15",
};

#define RING 0xffff888012340000ull
#define OP_READ 22			/* include/uapi/linux/io_uring.h */
#define OP_WRITE 23
#define MAX_DONE 16

struct urun {
	struct session *s;
	struct uringtrack *ut;
	struct uring_req done[MAX_DONE];	/* what on_done was handed, in order */
	size_t nr;
};

/* on_done - collect each completed request */
static int on_done(void *arg, const struct uring_req *r)
{
	struct urun *u = arg;

	assert_true(u->nr < MAX_DONE);
	u->done[u->nr++] = *r;
	return 0;
}

/* add_events - the formats of sys's events in names that the kernel has */
static void add_events(struct fmt_set *fs, const char *kernel, const char *sys,
		       const char *const *names)
{
	char path[512];

	for (; *names; names++) {
		snprintf(path, sizeof(path), "%s/formats/%s/events/%s/%s/format", TEST_DATA, kernel,
			 sys, *names);
		if (!access(path, R_OK))
			testlib_fmt_add(fs, kernel, sys, *names);
	}
}

/* run_setup - a session over one kernel's io_uring and block formats, with a tracker */
static void run_setup(struct urun *u, const char *kernel)
{
	static const char *const uring[] = {
		"io_uring_complete", "io_uring_submit_req", "io_uring_submit_sqe",
		"io_uring_queue_async_work", "io_uring_file_get", "io_uring_cqring_wait", NULL
	};
	static const char *const block[] = {
		"block_bio_queue", "block_rq_issue", "block_rq_complete", "block_io_start", NULL
	};
	struct uringtrack_cfg cfg = { .on_done = on_done, .arg = u };

	memset(u, 0, sizeof(*u));
	u->s = testlib_session_new(NULL, NULL, 0);
	testlib_fmt_init(&u->s->fs, kernel);
	add_events(&u->s->fs, kernel, "io_uring", uring);
	add_events(&u->s->fs, kernel, "block", block);
	assert_int_equal(uringtrack_create(&u->ut, &u->s->ctx, &cfg), 0);
	for (size_t i = 0; i < u->s->nr_ev; i++)
		u->s->ev[i]->sample_type = IOTAP_SAMPLE_BASE;
}

/* run_teardown - free the tracker and the session */
static void run_teardown(struct urun *u)
{
	uringtrack_free(u->ut);
	testlib_session_free(u->s);
}

/* put_field - store v in ev's field called name, if the event has it */
static void put_field(struct tep_event *ev, uint8_t *raw, const char *name, uint64_t v)
{
	if (tep_find_field(ev, name))
		testlib_field_put(ev, raw, name, v);
}

/* put_str - a string into ev's field called name: a char array, or a __data_loc at 96 */
static void put_str(struct tep_event *ev, uint8_t *raw, const char *name, const char *str)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	uint32_t len = (uint32_t)strlen(str) + 1, loc = len << 16 | 96;

	if (!f)
		return;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		memcpy(raw + f->offset, &loc, 4);
		memcpy(raw + 96, str, len);
	} else {
		memcpy(raw + f->offset, str, len < (uint32_t)f->size ? len : (uint32_t)f->size);
	}
}

struct ev_args {
	uint64_t req, user_data, sector;
	uint32_t nr_sector;
	uint8_t opcode;
	int64_t res;
};

/* feed - one event as a perf sample of task tid (process 100) at time */
static void feed(struct urun *u, const char *name, uint32_t tid, uint64_t time,
		 const struct ev_args *a)
{
	uint8_t rec[256], *raw = rec + TESTLIB_RAW;
	struct tep_event *ev;
	struct perf_event_header *h = testlib_sample(u->s, name, 100, tid, time, 128, rec, &ev);

	put_field(ev, raw, "ctx", RING);
	put_field(ev, raw, "req", a->req);
	put_field(ev, raw, "user_data", a->user_data);
	put_field(ev, raw, "opcode", a->opcode);
	put_str(ev, raw, "op_str", a->opcode == OP_READ ? "READ" : "WRITE");
	put_field(ev, raw, "res", (uint64_t)a->res);
	put_field(ev, raw, "dev", BLOCK_DEV(259, 0));
	put_field(ev, raw, "sector", a->sector);
	put_field(ev, raw, "nr_sector", a->nr_sector);
	put_field(ev, raw, "bytes", a->nr_sector * 512);
	put_str(ev, raw, "rwbs", "R");
	put_str(ev, raw, "comm", "reader");
	assert_int_equal(session_dispatch(u->s, h), 0);
}

/* submit - request n (req pointer and user_data from n) submitted by task 100 */
static void submit(struct urun *u, unsigned int n, uint64_t time, uint8_t op)
{
	struct ev_args a = { .req = 0xffff888000001000ull + n * 0x100, .user_data = n, .opcode = op };
	struct tep_event *ev = NULL;

	for (size_t i = 0; i < u->s->nr_ev; i++)
		if (!strcmp(u->s->ev[i]->name, "io_uring_submit_req"))
			ev = u->s->ev[i]->tep;
	feed(u, ev ? "io_uring_submit_req" : "io_uring_submit_sqe", 100, time, &a);
}

/* complete - the CQE of request n */
static void complete(struct urun *u, unsigned int n, uint64_t time, int64_t res)
{
	struct ev_args a = { .req = 0xffff888000001000ull + n * 0x100, .user_data = n, .res = res };

	feed(u, "io_uring_complete", 100, time, &a);
}

/* test_out_of_order - N submitted, completed out of order: N paired, one stray CQE counted */
static void test_out_of_order(void **state)
{
	static const unsigned int order[] = { 3, 1, 4, 2 };
	static const uint64_t t_done[] = { 5000, 5100, 5300, 5600 };

	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		const struct uringtrack_stats *st;
		struct urun u;

		run_setup(&u, kernels[k]);
		for (unsigned int n = 1; n <= 4; n++)
			submit(&u, n, 1000 + n * 100, n % 2 ? OP_READ : OP_WRITE);
		for (size_t i = 0; i < 4; i++)
			complete(&u, order[i], t_done[i], 4096 * order[i]);
		/* A CQE of a request submitted before tracing began. */
		complete(&u, 9, 6000, 0);
		assert_int_equal(u.nr, 4);
		for (size_t i = 0; i < 4; i++) {
			const struct uring_req *r = &u.done[i];

			assert_int_equal(r->user_data, order[i]);
			assert_int_equal(r->ring, RING);
			assert_int_equal(r->t_submit, 1000 + order[i] * 100);
			assert_int_equal(r->t_done, t_done[i]);
			assert_int_equal(r->t_done - r->t_submit, t_done[i] - 1000 - order[i] * 100);
			assert_string_equal(r->op, order[i] % 2 ? "READ" : "WRITE");
			assert_int_equal(r->res, 4096 * order[i]);
			assert_int_equal(r->pid, 100);
			assert_int_equal(r->nblk, 0);
			assert_int_equal(r->fd, -1);
		}
		st = uringtrack_stats(u.ut);
		assert_int_equal(st->cqe_unknown, 1);
		assert_int_equal(st->evicted, 0);
		/* A second CQE of a request already completed pairs with nothing either. */
		complete(&u, 3, 7000, 0);
		assert_int_equal(u.nr, 4);
		assert_int_equal(st->cqe_unknown, 2);
		uringtrack_stats_reset(u.ut);
		assert_int_equal(st->cqe_unknown, 0);
		run_teardown(&u);
	}
}

/* test_resubmit - a req pointer submitted again before its CQE: the first counted as lost */
static void test_resubmit(void **state)
{
	struct ev_args a = { .req = 0xffff888000002000ull, .user_data = 7, .opcode = OP_READ };
	struct urun u;

	run_setup(&u, kernels[0]);
	feed(&u, "io_uring_submit_req", 100, 1000, &a);
	a.user_data = 8;
	feed(&u, "io_uring_submit_req", 100, 2000, &a);
	feed(&u, "io_uring_complete", 100, 2500, &a);
	assert_int_equal(u.nr, 1);
	assert_int_equal(u.done[0].user_data, 8);
	assert_int_equal(u.done[0].t_done - u.done[0].t_submit, 500);
	assert_int_equal(uringtrack_stats(u.ut)->evicted, 1);
	run_teardown(&u);
}

/* test_block_credit - a bio the submitter queues inline: its block request is the request's */
static void test_block_credit(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct ev_args bio = { .sector = 2048, .nr_sector = 8 };
		const struct uringtrack_stats *st;
		const struct uring_req *r;
		struct urun u;

		run_setup(&u, kernels[k]);
		submit(&u, 1, 1000, OP_READ);
		feed(&u, "block_bio_queue", 100, 1200, &bio);
		feed(&u, "block_rq_issue", 100, 1300, &bio);
		feed(&u, "block_rq_complete", 0, 1800, &bio);
		complete(&u, 1, 2000, 4096);
		/* A block request of no io_uring request: another task's. */
		bio.sector = 9000;
		feed(&u, "block_bio_queue", 200, 2100, &bio);
		feed(&u, "block_rq_issue", 200, 2200, &bio);
		feed(&u, "block_rq_complete", 0, 2300, &bio);
		assert_int_equal(u.nr, 1);
		r = &u.done[0];
		assert_int_equal(r->nblk, 1);
		assert_int_equal(r->t_first, 1200);
		assert_int_equal(r->t_last, 1800);
		assert_int_equal(r->via, 1u << URING_INLINE);
		st = uringtrack_stats(u.ut);
		assert_int_equal(st->blk_via[URING_INLINE], 1);
		assert_int_equal(st->blk_other, 1);
		assert_int_equal(st->blk_unseen, 0);
		assert_int_equal(st->blk_late, 0);
		run_teardown(&u);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_resubmit),
		cmocka_unit_test(test_block_credit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
