// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_block.c - block events decoded from the format files of real kernels
 * (5.10, 6.1, 6.12, 6.18: rwbs[8] vs rwbs[10], ioprio added, comm moved) and
 * of the distributions' kernels reconstructed from their trees (RHEL 8 and 9,
 * Ubuntu 20.04 and 22.04; tests/data/formats/<set>/SOURCE), and the request
 * pairing fed with hand-built perf samples laid out as each of them says.
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

#include "block.h"
#include "blktrack.h"
#include "session.h"
#include "testlib.h"

#define K61 "6.1.0-56-amd64"
#define K612 "6.12.117+deb12-amd64"
#define K618 "6.18.44-fc-v669"

/*
 * Where each kernel's format says the fields are (checked by hand against the
 * files), and the event a request's start is taken from: block_io_start from
 * 6.5 (and RHEL 9.6's backport), block_rq_insert before.
 */
struct layout {
	const char *kernel;
	int rwbs, rwbs_size, comm;
	int ioprio;		/* -1: absent */
	const char *start;
};

#define INSERT "block_rq_insert"
#define IO_START "block_io_start"
static const struct layout layouts[] = {
	{ K61, 32, 8, 40, -1, INSERT },
	{ K612, 34, 8, 42, 32, IO_START },
	{ K618, 34, 10, 44, 32, IO_START },
	{ "5.10.0-46-amd64", 32, 8, 40, -1, INSERT },
	{ "rhel8-4.18", 32, 8, 40, -1, INSERT },
	{ "ubuntu20.04-5.4", 32, 8, 40, -1, INSERT },
	{ "rhel9-5.14", 34, 8, 42, 32, IO_START },	/* comm[TASK_COMM_LEN] */
	{ "ubuntu22.04-5.15", 32, 8, 40, -1, INSERT },
};
#define NR_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* put_u - store a little-endian integer of size n at off */
static void put_u(uint8_t *raw, int off, uint64_t v, int n)
{
	memcpy(raw + off, &v, n);
}

/* test_issue_decode - the same request encoded by each kernel's layout decodes equal */
static void test_issue_decode(void **state)
{
	static const char *const evs[] = { "block_rq_issue", "block_rq_complete", NULL };

	for (size_t k = 0; k < NR_LAYOUTS; k++) {
		const struct layout *l = &layouts[k];
		struct fmt_set fs;
		struct block_fmt fmt;
		struct block_rq rq;
		uint8_t raw[128] = { 0 };

		testlib_fmt_load(&fs, l->kernel, "block", evs);
		assert_int_equal(block_fmt_init(&fmt, fmt_set_find(&fs, "block", "block_rq_issue")), 0);
		assert_int_equal(fmt.rwbs.offset, l->rwbs);
		assert_int_equal(fmt.rwbs.size, l->rwbs_size);
		assert_int_equal(fmt.comm.offset, l->comm);
		assert_int_equal(fmt.ioprio.present, l->ioprio >= 0);
		put_u(raw, 8, BLOCK_DEV(7, 3), 4);
		put_u(raw, 16, 123456789ull, 8);
		put_u(raw, 24, 8, 4);
		put_u(raw, 28, 4096, 4);
		if (l->ioprio >= 0)
			put_u(raw, l->ioprio, (2 << 13) | 4, 2);
		memcpy(raw + l->rwbs, "WFS", 3);
		memcpy(raw + l->comm, "dio-writer", 10);
		assert_int_equal(block_rq_decode(&fmt, raw, 64, &rq), 0);
		assert_int_equal(BLOCK_DEV_MAJOR(rq.dev), 7);
		assert_int_equal(BLOCK_DEV_MINOR(rq.dev), 3);
		assert_int_equal(rq.sector, 123456789ull);
		assert_int_equal(rq.nr_sector, 8);
		assert_int_equal(rq.bytes, 4096);
		assert_string_equal(rq.rwbs, "WFS");
		assert_string_equal(rq.comm, "dio-writer");
		assert_int_equal(rq.ioprio, l->ioprio >= 0 ? (2 << 13) | 4 : 0);
		assert_int_equal(rq.op, BLOCK_OP_WRITE);
		assert_int_equal(rq.flags, BLOCK_F_FUA | BLOCK_F_SYNC);
		/* A record cut before rwbs ends is refused, not read past. */
		assert_int_not_equal(block_rq_decode(&fmt, raw, l->rwbs + 2, &rq), 0);
		fmt_set_release(&fs);
	}
}

/* test_complete_decode - completion: error is signed, bytes derive from nr_sector */
static void test_complete_decode(void **state)
{
	static const char *const evs[] = { "block_rq_complete", NULL };

	for (size_t k = 0; k < NR_LAYOUTS; k++) {
		struct fmt_set fs;
		struct block_fmt fmt;
		struct block_rq rq;
		uint8_t raw[128] = { 0 };

		testlib_fmt_load(&fs, layouts[k].kernel, "block", evs);
		assert_int_equal(block_fmt_init(&fmt, fmt_set_find(&fs, "block", "block_rq_complete")), 0);
		assert_false(fmt.bytes.present);
		put_u(raw, 8, BLOCK_DEV(259, 0), 4);
		put_u(raw, 16, 2048, 8);
		put_u(raw, 24, 16, 4);
		put_u(raw, 28, (uint32_t)-5, 4);	/* -EIO */
		memcpy(raw + layouts[k].rwbs, "R", 1);
		assert_int_equal(block_rq_decode(&fmt, raw, 64, &rq), 0);
		assert_int_equal(rq.error, -5);
		assert_int_equal(rq.bytes, 16 * 512);
		assert_int_equal(rq.op, BLOCK_OP_READ);
		assert_string_equal(rq.comm, "");
		fmt_set_release(&fs);
	}
}

/* test_rwbs - the kernel's rwbs letters to operation, flags and BCC's names */
static void test_rwbs(void **state)
{
	static const struct { const char *rwbs; const char *name; } cases[] = {
		{ "R", "Read" }, { "RS", "Sync-Read" }, { "WS", "Sync-Write" },
		{ "WFS", "ForcedUnitAccess-Sync-Write" }, { "RA", "ReadAhead-Read" },
		{ "RM", "Metadata-Read" }, { "FWS", "PreFlush-Sync-Write" }, { "F", "Flush" },
		{ "FF", "Flush" }, { "D", "Discard" }, { "DE", "SecureErase" }, { "N", "Unknown" },
		{ "WSM", "Metadata-Sync-Write" },
	};
	char name[128];
	uint8_t op, flags;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		block_rwbs_parse(cases[i].rwbs, &op, &flags);
		assert_int_equal(block_flags_name(op, flags, name, sizeof(name)), 0);
		if (strcmp(name, cases[i].name))
			fail_msg("rwbs %s gave %s, expected %s", cases[i].rwbs, name, cases[i].name);
	}
}

/* The pairing tests drive blktrack through a session over testlib_source, fed by the test. */
struct pairing {
	struct session *s;
	struct blktrack *bt;
	const struct layout *l;
	struct blk_io done[16], nodata[4];
	int nr_done, nr_nodata;
};

/* on_done - collect completed requests */
static int on_done(void *arg, const struct blk_io *io)
{
	struct pairing *p = arg;

	assert_true(p->nr_done < 16);
	p->done[p->nr_done++] = *io;
	return 0;
}

/* on_nodata - collect completed sectorless requests */
static int on_nodata(void *arg, const struct blk_io *io)
{
	struct pairing *p = arg;

	assert_true(p->nr_nodata < 4);
	p->nodata[p->nr_nodata++] = *io;
	return 0;
}

/* pairing_setup - a session over one kernel's formats with a tracker configured by cfg */
static void pairing_setup(struct pairing *p, const struct layout *l, struct blktrack_cfg *cfg)
{
	static const char *const evs[] = {
		"block_rq_issue", "block_rq_complete", "block_rq_insert", IO_START, NULL
	};
	static const char *const evs_insert[] = {
		"block_rq_issue", "block_rq_complete", "block_rq_insert", NULL
	};

	memset(p, 0, sizeof(*p));
	p->l = l;
	p->s = testlib_session_new(NULL, NULL, 0);
	testlib_fmt_load(&p->s->fs, l->kernel, "block", strcmp(l->start, IO_START) ? evs_insert : evs);
	cfg->on_done = on_done;
	cfg->on_nodata = on_nodata;
	cfg->arg = p;
	assert_int_equal(blktrack_create(&p->bt, &p->s->ctx, cfg), 0);
	for (size_t i = 0; i < p->s->nr_ev; i++)
		p->s->ev[i]->sample_type = IOTAP_SAMPLE_BASE;
}

/* pairing_teardown - free the tracker and the session */
static void pairing_teardown(struct pairing *p)
{
	blktrack_free(p->bt);
	testlib_session_free(p->s);
}

/* feed_thread - dispatch one block event of thread tid of process pid as a perf sample */
static void feed_thread(struct pairing *p, const char *event, uint32_t pid, uint32_t tid,
			uint64_t time, uint64_t sector, uint32_t nr_sector, const char *rwbs)
{
	uint8_t rec[256] = { 0 }, *raw;
	struct perf_event_header *h = (void *)rec;
	uint64_t id = UINT64_MAX, v;
	uint32_t raw_size = 72;

	for (size_t i = 0; i < p->s->nr_ev; i++)
		if (!strcmp(p->s->ev[i]->name, event))
			id = i;
	assert_true(id != UINT64_MAX);
	h->type = PERF_RECORD_SAMPLE;
	memcpy(rec + 8, &id, 8);
	v = (uint64_t)tid << 32 | pid;
	memcpy(rec + 16, &v, 8);
	memcpy(rec + 24, &time, 8);
	memcpy(rec + 40, &raw_size, 4);
	raw = rec + 44;
	put_u(raw, 8, BLOCK_DEV(7, 0), 4);
	put_u(raw, 16, sector, 8);
	put_u(raw, 24, nr_sector, 4);
	if (strcmp(event, "block_rq_complete"))
		put_u(raw, 28, nr_sector * 512, 4);
	memcpy(raw + p->l->rwbs, rwbs, strlen(rwbs));
	if (strcmp(event, "block_rq_complete"))
		memcpy(raw + p->l->comm, "worker", 6);
	h->size = 44 + raw_size;
	assert_int_equal(session_dispatch(p->s, h), 0);
}

/* feed - dispatch one block event of a single-threaded process */
static void feed(struct pairing *p, const char *event, uint32_t pid, uint64_t time,
		 uint64_t sector, uint32_t nr_sector, const char *rwbs)
{
	feed_thread(p, event, pid, pid, time, sector, nr_sector, rwbs);
}

/* test_pair_shared_key - two requests on one sector: completions take them in issue order */
static void test_pair_shared_key(void **state)
{
	struct blktrack_cfg cfg = { 0 };
	struct pairing p;

	pairing_setup(&p, &layouts[2], &cfg);
	feed(&p, "block_rq_issue", 10, 1000, 200, 8, "R");
	feed(&p, "block_rq_issue", 11, 2000, 200, 8, "R");
	feed(&p, "block_rq_complete", 0, 3000, 200, 8, "R");
	feed(&p, "block_rq_complete", 0, 4500, 200, 8, "R");
	assert_int_equal(p.nr_done, 2);
	assert_int_equal(p.done[0].t_issue, 1000);
	assert_int_equal(p.done[0].t_done, 3000);
	assert_int_equal(p.done[0].pid, 10);
	assert_int_equal(p.done[1].t_issue, 2000);
	assert_int_equal(p.done[1].bytes, 4096);
	assert_string_equal(p.done[1].comm, "worker");
	pairing_teardown(&p);
}

/* test_pair_flush_and_orphans - flushes are not paired by sector; orphans are counted */
static void test_pair_flush_and_orphans(void **state)
{
	struct blktrack_cfg cfg = { 0 };
	struct pairing p;

	pairing_setup(&p, &layouts[0], &cfg);
	/* A flush carries no sector: never a key, counted as no-data at completion. */
	feed(&p, "block_rq_issue", 10, 100, 0, 0, "FF");
	feed(&p, "block_rq_complete", 0, 200, 0, 0, "FF");
	/* A completion whose issue came before tracing started. */
	feed(&p, "block_rq_complete", 0, 300, 4096, 8, "W");
	assert_int_equal(p.nr_done, 0);
	assert_int_equal(p.nr_nodata, 1);
	assert_int_equal(blktrack_stats(p.bt)->nodata, 1);
	assert_int_equal(blktrack_stats(p.bt)->unmatched, 1);
	assert_int_equal(p.nodata[0].t_issue, 100);
	assert_int_equal(p.nodata[0].t_done, 200);
	assert_int_equal(p.nodata[0].op, BLOCK_OP_FLUSH);
	assert_int_equal(p.nodata[0].bytes, 0);
	pairing_teardown(&p);
}

/* test_pair_flush_submitter - a flush serves every waiting fsync; the oldest one names it */
static void test_pair_flush_submitter(void **state)
{
	struct blktrack_cfg cfg = { .flags = BT_START };
	struct pairing p;

	pairing_setup(&p, &layouts[2], &cfg);
	feed(&p, "block_io_start", 42, 50, 0, 0, "FWS");
	feed(&p, "block_io_start", 43, 55, 0, 0, "FWS");
	feed(&p, "block_rq_issue", 7, 60, 0, 0, "FF");
	feed(&p, "block_io_start", 44, 65, 0, 0, "FWS");	/* waits for the next flush */
	feed(&p, "block_rq_complete", 0, 90, UINT64_MAX, 0, "FF");
	/* The data-less originals complete without an issue: nothing to pair. */
	feed(&p, "block_rq_complete", 0, 91, 0, 0, "WS");
	feed(&p, "block_rq_complete", 0, 92, 0, 0, "WS");
	feed(&p, "block_rq_issue", 7, 100, 0, 0, "FF");
	feed(&p, "block_rq_complete", 0, 120, UINT64_MAX, 0, "FF");
	/* A flush whose issue came before tracing started is not paired. */
	feed(&p, "block_rq_complete", 0, 130, UINT64_MAX, 0, "FF");
	assert_int_equal(p.nr_done, 0);
	assert_int_equal(p.nr_nodata, 2);
	assert_int_equal(p.nodata[0].pid, 42);
	assert_int_equal(p.nodata[0].t_start, 50);
	assert_int_equal(p.nodata[0].t_issue, 60);
	assert_int_equal(p.nodata[0].t_done, 90);
	assert_string_equal(p.nodata[0].rwbs, "FF");
	assert_int_equal(p.nodata[1].pid, 44);
	assert_int_equal(p.nodata[1].t_start, 65);
	assert_int_equal(p.nodata[1].t_issue, 100);
	assert_int_equal(p.nodata[1].t_done, 120);
	assert_int_equal(blktrack_stats(p.bt)->nodata, 5);
	pairing_teardown(&p);
}

/* test_pair_thread - a request carries the thread that submitted it, not the one that issued it */
static void test_pair_thread(void **state)
{
	struct blktrack_cfg cfg = { .flags = BT_START };
	struct pairing p;

	pairing_setup(&p, &layouts[2], &cfg);
	feed_thread(&p, IO_START, 42, 43, 50, 800, 8, "W");
	feed_thread(&p, "block_rq_issue", 7, 8, 80, 800, 8, "W");
	feed(&p, "block_rq_complete", 0, 130, 800, 8, "W");
	/* Without a start, the issuing thread's. */
	feed_thread(&p, "block_rq_issue", 7, 9, 140, 900, 8, "R");
	feed(&p, "block_rq_complete", 0, 150, 900, 8, "R");
	assert_int_equal(p.nr_done, 2);
	assert_int_equal(p.done[0].pid, 42);
	assert_int_equal(p.done[0].tid, 43);
	assert_int_equal(p.done[1].pid, 7);
	assert_int_equal(p.done[1].tid, 9);
	pairing_teardown(&p);
}

/* test_pair_queued - -Q: the start is block_io_start (6.5+, RHEL 9.6) or insert (before) */
static void test_pair_queued(void **state)
{
	for (size_t k = 0; k < NR_LAYOUTS; k++) {
		struct blktrack_cfg cfg = { .flags = BT_START };
		struct pairing p;
		const char *start = layouts[k].start;

		pairing_setup(&p, &layouts[k], &cfg);
		feed(&p, start, 42, 50, 800, 8, "R");
		feed(&p, "block_rq_issue", 7, 80, 800, 8, "R");
		feed(&p, "block_rq_complete", 0, 130, 800, 8, "R");
		/* A request issued without a start seen: falls back to issue time. */
		feed(&p, "block_rq_issue", 7, 140, 900, 8, "R");
		feed(&p, "block_rq_complete", 0, 150, 900, 8, "R");
		assert_int_equal(p.nr_done, 2);
		assert_int_equal(p.done[0].t_start, 50);
		assert_int_equal(p.done[0].t_issue, 80);
		assert_int_equal(p.done[0].pid, 42);
		assert_int_equal(p.done[1].t_start, 0);
		assert_int_equal(p.done[1].t_issue, 140);
		assert_true(blktrack_has_start(p.bt));
		pairing_teardown(&p);
	}
}

/*
 * test_pair_stream - on every kernel, 16 requests started, issued and completed
 * in another order pair all 16, each with the sector, size, rwbs, submitter and
 * times that were encoded in that kernel's layout
 */
static void test_pair_stream(void **state)
{
	static const char *const rwbs[] = { "R", "W", "RS", "WS", "RA", "WFS", "RM", "WSM" };
	enum { N = 16 };

	for (size_t k = 0; k < NR_LAYOUTS; k++) {
		struct blktrack_cfg cfg = { .flags = BT_START };
		struct pairing p;
		bool seen[N] = { false };

		pairing_setup(&p, &layouts[k], &cfg);
		for (int i = 0; i < N; i++)
			feed(&p, layouts[k].start, 100 + i, 1000 + i, 4096 * (i + 1), 8 * (i + 1),
			     rwbs[i % 8]);
		for (int i = 0; i < N; i++)
			feed(&p, "block_rq_issue", 7, 2000 + i, 4096 * (i + 1), 8 * (i + 1), rwbs[i % 8]);
		/* Completions from the last issued to the first. */
		for (int i = N - 1; i >= 0; i--)
			feed(&p, "block_rq_complete", 0, 3000 + N - i, 4096 * (i + 1), 8 * (i + 1),
			     rwbs[i % 8]);
		if (p.nr_done != N)
			fail_msg("%s: %d of %d requests paired", layouts[k].kernel, p.nr_done, N);
		for (int j = 0; j < N; j++) {
			const struct blk_io *io = &p.done[j];
			int i = (int)(io->sector / 4096) - 1;

			assert_true(i >= 0 && i < N && !seen[i]);
			seen[i] = true;
			assert_int_equal(io->sector, 4096ull * (i + 1));
			assert_int_equal(io->bytes, 8 * (i + 1) * 512);
			assert_string_equal(io->rwbs, rwbs[i % 8]);
			assert_int_equal(io->pid, 100 + i);
			assert_int_equal(io->t_start, 1000 + i);
			assert_int_equal(io->t_issue, 2000 + i);
			assert_int_equal(io->t_done, 3000 + N - i);
			assert_string_equal(io->comm, "worker");
		}
		assert_int_equal(blktrack_stats(p.bt)->unmatched, 0);
		pairing_teardown(&p);
	}
}

/* test_pair_pid - with a PID only requests whose start that PID made are reported */
static void test_pair_pid(void **state)
{
	struct blktrack_cfg cfg = { .pid = 42 };
	struct pairing p;

	pairing_setup(&p, &layouts[2], &cfg);
	feed(&p, "block_io_start", 42, 10, 100, 8, "R");
	feed(&p, "block_io_start", 43, 11, 200, 8, "R");
	feed(&p, "block_rq_issue", 43, 12, 100, 8, "R");
	feed(&p, "block_rq_issue", 43, 13, 200, 8, "R");
	feed(&p, "block_rq_issue", 42, 14, 300, 8, "R");	/* start never seen */
	feed(&p, "block_rq_complete", 0, 20, 100, 8, "R");
	feed(&p, "block_rq_complete", 0, 21, 200, 8, "R");
	feed(&p, "block_rq_complete", 0, 22, 300, 8, "R");
	assert_int_equal(p.nr_done, 1);
	assert_int_equal(p.done[0].sector, 100);
	assert_int_equal(p.done[0].pid, 42);
	pairing_teardown(&p);
}

static int issue_seen, issue_started;

/* count_issue - on_issue: every issued request, and those whose start was seen */
static int count_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	issue_seen++;
	issue_started += r->t_start != 0;
	return 0;
}

/* test_pair_issue_all - with a PID and BT_ISSUE_ALL every request is reported, the PID's started */
static void test_pair_issue_all(void **state)
{
	struct blktrack_cfg cfg = { .flags = BT_ISSUE_ALL, .pid = 42, .on_issue = count_issue };
	struct pairing p;

	issue_seen = issue_started = 0;
	pairing_setup(&p, &layouts[2], &cfg);
	feed(&p, "block_io_start", 42, 10, 100, 8, "R");
	feed(&p, "block_io_start", 43, 11, 200, 8, "R");
	feed(&p, "block_rq_issue", 43, 12, 100, 8, "R");
	feed(&p, "block_rq_issue", 43, 13, 200, 8, "R");
	feed(&p, "block_rq_issue", 42, 14, 300, 8, "R");
	assert_int_equal(issue_seen, 3);
	assert_int_equal(issue_started, 1);
	pairing_teardown(&p);
}

/*
 * What BT_STAGES told of bios, by enum blk_bio_fate; the last queued bio's sender; the
 * split pieces' sectors.
 */
static int fates[BLK_BIO_SPLIT + 1];
static struct blk_sender last_sender;
static uint64_t split_sectors;

/* on_bio - count each bio's or request's fate */
static int on_bio(void *arg, enum blk_bio_fate fate, const struct block_rq *rq,
		  const struct blk_sender *who)
{
	fates[fate]++;
	if (fate == BLK_BIO_SPLIT)
		split_sectors += rq->nr_sector;
	if (fate == BLK_BIO_QUEUED || fate == BLK_BIO_SPLIT) {
		assert_non_null(who);
		last_sender = *who;
	} else {
		assert_null(who);
	}
	return 0;
}

/*
 * stage_setup - a session over 6.18's formats of evs with a tracker configured by cfg, and
 * what on_bio saw cleared
 */
static void stage_setup(struct pairing *p, const char *const *evs, struct blktrack_cfg *cfg)
{
	memset(p, 0, sizeof(*p));
	memset(fates, 0, sizeof(fates));
	memset(&last_sender, 0, sizeof(last_sender));
	split_sectors = 0;
	p->l = &layouts[2];
	p->s = testlib_session_new(NULL, NULL, 0);
	testlib_fmt_load(&p->s->fs, K618, "block", evs);
	cfg->on_done = on_done;
	cfg->arg = p;
	assert_int_equal(blktrack_create(&p->bt, &p->s->ctx, cfg), 0);
	for (size_t i = 0; i < p->s->nr_ev; i++)
		p->s->ev[i]->sample_type = IOTAP_SAMPLE_BASE;
}

/*
 * feed_stage - one block event as 6.18 lays it out: the bio events (rwbs at 28), the
 * request events (bytes at 28, rwbs at 34), requeue (rwbs at 30) and split (n is the
 * new sector, rwbs at 32)
 */
static void feed_stage_as(struct pairing *p, const char *event, uint64_t time, uint64_t sector,
			  uint64_t n, const char *rwbs, uint32_t tid)
{
	uint8_t rec[256] = { 0 }, *raw = rec + 44;
	struct perf_event_header *h = (void *)rec;
	uint64_t id = UINT64_MAX, v = (uint64_t)tid << 32 | tid;
	uint32_t raw_size = 72;
	int rwbs_at = 34;

	for (size_t i = 0; i < p->s->nr_ev; i++)
		if (!strcmp(p->s->ev[i]->name, event))
			id = i;
	assert_true(id != UINT64_MAX);
	h->type = PERF_RECORD_SAMPLE;
	memcpy(rec + 8, &id, 8);
	memcpy(rec + 16, &v, 8);
	memcpy(rec + 24, &time, 8);
	memcpy(rec + 40, &raw_size, 4);
	put_u(raw, 8, BLOCK_DEV(7, 0), 4);
	put_u(raw, 16, sector, 8);
	if (!strcmp(event, "block_split")) {
		put_u(raw, 24, n, 8);
		rwbs_at = 32;
	} else if (!strcmp(event, "block_bio_remap")) {
		/* from partition 7:1, which starts at sector 2048 of 7:0 */
		put_u(raw, 24, n, 4);
		put_u(raw, 28, BLOCK_DEV(7, 1), 4);
		put_u(raw, 32, sector - 2048, 8);
		rwbs_at = 40;
	} else {
		put_u(raw, 24, n, 4);
		if (!strncmp(event, "block_bio_", 10) || !strcmp(event, "block_getrq"))
			rwbs_at = 28;
		else if (!strcmp(event, "block_rq_requeue"))
			rwbs_at = 30;
		else if (strcmp(event, "block_rq_complete"))
			put_u(raw, 28, n * 512, 4);
	}
	memcpy(raw + rwbs_at, rwbs, strlen(rwbs));
	h->size = 44 + raw_size;
	assert_int_equal(session_dispatch(p->s, h), 0);
}

/* feed_stage - feed_stage_as the task 42 */
static void feed_stage(struct pairing *p, const char *event, uint64_t time, uint64_t sector,
		       uint64_t n, const char *rwbs)
{
	feed_stage_as(p, event, time, sector, n, rwbs, 42);
}

/*
 * test_stages - btt's stages: a request's bios (back, front, and a request merged into it)
 * give it their count and its earliest queue time; a requeued request is timed from its
 * last issue; a split bio's remainder takes the bio's queue time
 */
static void test_stages(void **state)
{
	static const char *const evs[] = {
		"block_rq_issue", "block_rq_complete", "block_rq_insert", "block_bio_queue",
		"block_getrq", "block_bio_backmerge", "block_bio_frontmerge", "block_rq_merge",
		"block_rq_requeue", "block_split", NULL
	};
	struct blktrack_cfg cfg = { .flags = BT_INSERT | BT_STAGES, .on_bio = on_bio };
	const struct blktrack_stage_events *ev;
	struct pairing p;

	stage_setup(&p, evs, &cfg);
	ev = blktrack_stage_events(p.bt);
	assert_true(ev->queue && ev->getrq && ev->insert && ev->backmerge && ev->frontmerge &&
		    ev->rq_merge && ev->requeue && ev->split);

	/* One request of three bios: one at its back, one in front, which moves its start. */
	feed_stage(&p, "block_bio_queue", 10, 100, 8, "W");
	feed_stage(&p, "block_getrq", 12, 100, 8, "W");
	feed_stage(&p, "block_bio_queue", 14, 108, 8, "W");
	feed_stage(&p, "block_bio_backmerge", 15, 108, 8, "W");
	feed_stage(&p, "block_bio_queue", 16, 92, 8, "W");
	feed_stage(&p, "block_bio_frontmerge", 17, 92, 8, "W");
	feed_stage(&p, "block_rq_insert", 20, 92, 24, "W");
	feed_stage(&p, "block_rq_issue", 30, 92, 24, "W");
	feed_stage(&p, "block_rq_complete", 50, 92, 24, "W");
	assert_int_equal(p.nr_done, 1);
	assert_int_equal(p.done[0].sector, 92);
	assert_int_equal(p.done[0].t_queue, 10);
	assert_int_equal(p.done[0].t_getrq, 12);
	assert_int_equal(p.done[0].t_insert, 20);
	assert_int_equal(p.done[0].t_issue, 30);
	assert_int_equal(p.done[0].t_done, 50);
	assert_int_equal(p.done[0].bios, 3);
	assert_int_equal(p.done[0].requeues, 0);
	{
		uint64_t w[BLK_WAITS];

		/* No send seen before the queue: no throttle time; the rest adds up. */
		blk_io_waits(&p.done[0], w);
		assert_int_equal(w[BLK_WAIT_THROTTLE], 0);
		assert_int_equal(w[BLK_WAIT_RQOS], 2);
		assert_int_equal(w[BLK_WAIT_QUEUE], 18);
		assert_int_equal(w[BLK_WAIT_DEVICE], 20);
		assert_int_equal(blk_io_first(&p.done[0]), 10);
		assert_int_equal(last_sender.pid, 42);
		assert_int_equal(last_sender.t_submit, 0);
	}

	/*
	 * Two requests; the second joins the first (block_rq_merge names it); a bio then joins
	 * the back of the merged one. Issued, requeued, issued again.
	 */
	feed_stage(&p, "block_bio_queue", 100, 1000, 8, "R");
	feed_stage(&p, "block_getrq", 101, 1000, 8, "R");
	feed_stage(&p, "block_bio_queue", 102, 1008, 8, "R");
	feed_stage(&p, "block_getrq", 103, 1008, 8, "R");
	feed_stage(&p, "block_rq_merge", 110, 1008, 8, "R");
	feed_stage(&p, "block_bio_queue", 111, 1016, 8, "R");
	feed_stage(&p, "block_bio_backmerge", 112, 1016, 8, "R");
	feed_stage(&p, "block_rq_insert", 115, 1000, 24, "R");
	feed_stage(&p, "block_rq_issue", 120, 1000, 24, "R");
	feed_stage(&p, "block_rq_requeue", 125, 1000, 24, "R");
	feed_stage(&p, "block_rq_insert", 127, 1000, 24, "R");
	feed_stage(&p, "block_rq_issue", 130, 1000, 24, "R");
	feed_stage(&p, "block_rq_complete", 140, 1000, 24, "R");
	assert_int_equal(p.nr_done, 2);
	assert_int_equal(p.done[1].sector, 1000);
	assert_int_equal(p.done[1].bios, 3);
	assert_int_equal(p.done[1].t_queue, 100);
	assert_int_equal(p.done[1].t_getrq, 101);
	assert_int_equal(p.done[1].t_insert, 115);
	assert_int_equal(p.done[1].t_issue, 130);
	assert_int_equal(p.done[1].requeues, 1);

	/* A bio split in two: the remainder's request has no queue event but the bio's. */
	feed_stage(&p, "block_bio_queue", 200, 2000, 16, "R");
	feed_stage(&p, "block_split", 201, 2000, 2008, "R");
	feed_stage(&p, "block_getrq", 202, 2000, 8, "R");
	feed_stage(&p, "block_getrq", 203, 2008, 8, "R");
	feed_stage(&p, "block_rq_issue", 204, 2000, 8, "R");
	feed_stage(&p, "block_rq_issue", 205, 2008, 8, "R");
	feed_stage(&p, "block_rq_complete", 206, 2000, 8, "R");
	feed_stage(&p, "block_rq_complete", 207, 2008, 8, "R");
	assert_int_equal(p.nr_done, 4);
	assert_int_equal(p.done[2].t_queue, 200);
	assert_int_equal(p.done[3].t_queue, 200);
	assert_int_equal(p.done[3].t_getrq, 203);
	assert_int_equal(p.done[3].bios, 1);

	/* Every bio queued (and split) is a request or a merge into one. */
	assert_int_equal(fates[BLK_BIO_QUEUED], 7);
	assert_int_equal(fates[BLK_BIO_BACKMERGE], 2);
	assert_int_equal(fates[BLK_BIO_FRONTMERGE], 1);
	assert_int_equal(fates[BLK_RQ_MERGE], 1);
	assert_int_equal(fates[BLK_RQ_REQUEUE], 1);
	assert_int_equal(fates[BLK_BIO_SPLIT], 1);
	/* The piece cut off is a bio with its sectors, as io.stat counts one. */
	assert_int_equal(split_sectors, 8);
	assert_int_equal(p.done[0].bios + p.done[1].bios + p.done[2].bios + p.done[3].bios,
			 fates[BLK_BIO_QUEUED] + fates[BLK_BIO_SPLIT]);
	assert_int_equal(blktrack_stats(p.bt)->merge_unmatched, 0);
	pairing_teardown(&p);
}

/* test_lastpos - seek distance from each disk's last request end; a disk's first has none */
/*
 * test_throttle_wait - a partition's bio remapped by its submitter (77), held by
 * blk-throttle and queued by the throttle's worker (42): the request and the
 * queued bio are the submitter's, and the hold is throttle time
 */
static void test_throttle_wait(void **state)
{
	static const char *const evs[] = {
		"block_rq_issue", "block_rq_complete", "block_rq_insert", "block_bio_queue",
		"block_getrq", "block_io_start", "block_bio_remap", NULL
	};
	struct blktrack_cfg cfg = { .flags = BT_START | BT_INSERT | BT_STAGES, .on_bio = on_bio };
	struct pairing p;
	uint64_t w[BLK_WAITS];

	(void)state;
	stage_setup(&p, evs, &cfg);

	feed_stage_as(&p, "block_bio_remap", 100, 2056, 8, "R", 77);
	feed_stage(&p, "block_bio_queue", 300, 2056, 8, "R");
	assert_int_equal(fates[BLK_BIO_QUEUED], 1);
	assert_int_equal(last_sender.pid, 77);
	assert_int_equal(last_sender.t_submit, 100);
	feed_stage(&p, "block_getrq", 305, 2056, 8, "R");
	feed_stage(&p, "block_io_start", 306, 2056, 8, "R");
	feed_stage(&p, "block_rq_insert", 310, 2056, 8, "R");
	feed_stage(&p, "block_rq_issue", 320, 2056, 8, "R");
	feed_stage(&p, "block_rq_complete", 400, 2056, 8, "R");
	assert_int_equal(p.nr_done, 1);
	assert_int_equal(p.done[0].pid, 77);
	assert_int_equal(p.done[0].t_submit, 100);
	blk_io_waits(&p.done[0], w);
	assert_int_equal(w[BLK_WAIT_THROTTLE], 200);
	assert_int_equal(w[BLK_WAIT_RQOS], 5);
	assert_int_equal(w[BLK_WAIT_QUEUE], 15);
	assert_int_equal(w[BLK_WAIT_DEVICE], 80);
	assert_int_equal(blk_io_first(&p.done[0]), 100);
	assert_int_equal(blktrack_stats(p.bt)->joined, 1);

	/* The submitter's own bio, not held: its remap and queue back to back, in its context. */
	feed_stage(&p, "block_bio_remap", 500, 4096, 8, "R");
	feed_stage(&p, "block_bio_queue", 501, 4096, 8, "R");
	assert_int_equal(last_sender.pid, 42);
	assert_int_equal(last_sender.t_submit, 500);
	feed_stage(&p, "block_getrq", 502, 4096, 8, "R");
	feed_stage(&p, "block_io_start", 503, 4096, 8, "R");
	feed_stage(&p, "block_rq_issue", 510, 4096, 8, "R");
	feed_stage(&p, "block_rq_complete", 600, 4096, 8, "R");
	assert_int_equal(p.nr_done, 2);
	blk_io_waits(&p.done[1], w);
	assert_int_equal(w[BLK_WAIT_THROTTLE], 1);
	assert_int_equal(w[BLK_WAIT_QUEUE], 8);
	assert_int_equal(blktrack_stats(p.bt)->joined, 1);
	pairing_teardown(&p);
}

/*
 * test_throttle_no_start - a kernel without block_io_start (the insert stands in) and a
 * disk without a scheduler (no insert): the request blk-throttle's worker (42) allocates
 * for the bio it held is the sender's (77); once that bio is queued, its entry is no later
 * bio's at the sector: not 55's, which no event saw before its queue (a cgroup without
 * limits), nor the sender's next one there
 */
static void test_throttle_no_start(void **state)
{
	static const char *const evs[] = {
		"block_rq_issue", "block_rq_complete", "block_rq_insert", "block_bio_queue",
		"block_getrq", "block_bio_remap", NULL
	};
	struct blktrack_cfg cfg = { .flags = BT_START | BT_STAGES, .on_bio = on_bio };
	struct pairing p;
	uint64_t w[BLK_WAITS];

	(void)state;
	stage_setup(&p, evs, &cfg);

	feed_stage_as(&p, "block_bio_remap", 100, 2056, 8, "R", 77);
	feed_stage(&p, "block_bio_queue", 300, 2056, 8, "R");
	feed_stage(&p, "block_getrq", 305, 2056, 8, "R");
	feed_stage(&p, "block_rq_issue", 320, 2056, 8, "R");
	feed_stage(&p, "block_rq_complete", 400, 2056, 8, "R");
	assert_int_equal(p.nr_done, 1);
	assert_int_equal(p.done[0].pid, 77);
	assert_int_equal(p.done[0].t_submit, 100);
	blk_io_waits(&p.done[0], w);
	assert_int_equal(w[BLK_WAIT_THROTTLE], 200);

	/* Another task reads that sector: nothing before its queue, so no throttle time. */
	feed_stage_as(&p, "block_bio_queue", 1000, 2056, 8, "R", 55);
	assert_int_equal(last_sender.pid, 55);
	assert_int_equal(last_sender.t_submit, 0);
	feed_stage_as(&p, "block_getrq", 1001, 2056, 8, "R", 55);
	feed_stage_as(&p, "block_rq_issue", 1002, 2056, 8, "R", 55);
	feed_stage_as(&p, "block_rq_complete", 1010, 2056, 8, "R", 55);
	assert_int_equal(p.nr_done, 2);
	assert_int_equal(p.done[1].pid, 55);
	blk_io_waits(&p.done[1], w);
	assert_int_equal(w[BLK_WAIT_THROTTLE], 0);

	/* The sender again, not held: sent at its own remap, not at the first one's. */
	feed_stage_as(&p, "block_bio_remap", 2000, 2056, 8, "R", 77);
	feed_stage_as(&p, "block_bio_queue", 2001, 2056, 8, "R", 77);
	assert_int_equal(last_sender.pid, 77);
	assert_int_equal(last_sender.t_submit, 2000);
	feed_stage_as(&p, "block_getrq", 2002, 2056, 8, "R", 77);
	feed_stage_as(&p, "block_rq_issue", 2003, 2056, 8, "R", 77);
	feed_stage_as(&p, "block_rq_complete", 2010, 2056, 8, "R", 77);
	assert_int_equal(p.nr_done, 3);
	assert_int_equal(p.done[2].pid, 77);
	blk_io_waits(&p.done[2], w);
	assert_int_equal(w[BLK_WAIT_THROTTLE], 1);
	pairing_teardown(&p);
}

static void test_lastpos(void **state)
{
	struct blk_lastpos lp = { 0 };
	uint64_t dist = 99;

	assert_int_equal(blk_lastpos_seek(&lp, 1, 100, 8, &dist), 0);
	assert_int_equal(dist, 99);
	assert_int_equal(blk_lastpos_seek(&lp, 1, 108, 8, &dist), 1);
	assert_int_equal(dist, 0);
	assert_int_equal(blk_lastpos_seek(&lp, 2, 0, 8, &dist), 0);
	assert_int_equal(blk_lastpos_seek(&lp, 1, 16, 8, &dist), 1);
	assert_int_equal(dist, 100);
	assert_int_equal(blk_lastpos_seek(&lp, 1, 1000, 8, &dist), 1);
	assert_int_equal(dist, 976);
	assert_int_equal(blk_lastpos_seek(&lp, 2, 8, 8, &dist), 1);
	assert_int_equal(dist, 0);
	blk_lastpos_release(&lp);
	blk_lastpos_release(&lp);
}

/* test_sequential - a request sequential when it starts where its disk's last one ended */
static void test_sequential(void **state)
{
	struct blk_lastpos lp = { 0 };
	struct blk_io a = { .dev = 1, .sector = 100, .nr_sector = 8 }, b = { .dev = 2, .nr_sector = 8 };

	assert_int_equal(blk_lastpos_sequential(&lp, &a), 0);	/* the disk's first */
	a.sector = 108;
	assert_int_equal(blk_lastpos_sequential(&lp, &a), 1);	/* the last disk's, inline */
	assert_int_equal(blk_lastpos_sequential(&lp, &b), 0);
	a.sector = 116;
	assert_int_equal(blk_lastpos_sequential(&lp, &a), 1);	/* another disk's, looked up */
	a.sector = 116;
	assert_int_equal(blk_lastpos_sequential(&lp, &a), 0);	/* back where it was */
	b.sector = 8;
	assert_int_equal(blk_lastpos_sequential(&lp, &b), 1);
	blk_lastpos_release(&lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_decode),
		cmocka_unit_test(test_complete_decode),
		cmocka_unit_test(test_rwbs),
		cmocka_unit_test(test_pair_shared_key),
		cmocka_unit_test(test_pair_flush_and_orphans),
		cmocka_unit_test(test_pair_flush_submitter),
		cmocka_unit_test(test_pair_thread),
		cmocka_unit_test(test_pair_queued),
		cmocka_unit_test(test_pair_stream),
		cmocka_unit_test(test_pair_pid),
		cmocka_unit_test(test_pair_issue_all),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_throttle_wait),
		cmocka_unit_test(test_throttle_no_start),
		cmocka_unit_test(test_lastpos),
		cmocka_unit_test(test_sequential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
