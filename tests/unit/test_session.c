// SPDX-License-Identifier: GPL-2.0-or-later
/* test_session.c - sessions in one process stop on their own; tools share a session; reset */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "container.h"
#include "log.h"
#include "opt.h"
#include "sections.h"
#include "select.h"
#include "session.h"
#include "source-recording.h"
#include "stacks.h"
#include "subbuf.h"
#include "testlib.h"

/* What the counting tool was asked for and saw. */
struct count_params {
	uint64_t issues;		/* block_rq_issue events delivered */
	uint64_t stop_at;		/* stop at this event; 0: never */
	int sig;			/* stop by raising this signal; 0: by iotap_stop */
	int raises;			/* that many times */
	int finals;			/* final reports */
};

/* count_issue - count; at stop_at, stop the session the way the test asks */
static int count_issue(struct iotap_ctx *ctx, const struct perf_sample *smp, void *arg)
{
	struct count_params *p = ctx->params;

	if (++p->issues != p->stop_at)
		return 0;
	if (p->sig)
		for (int i = 0; i < p->raises; i++)
			raise(p->sig);
	else
		iotap_stop(ctx);
	return 0;
}

/* count_init - subscribe to block_rq_issue */
static int count_init(struct iotap_ctx *ctx)
{
	return iotap_event_use(ctx, "block", "block_rq_issue", 0, count_issue, NULL) ? 0 : -errno;
}

/* count_report - count the final reports */
static int count_report(struct iotap_ctx *ctx)
{
	struct count_params *p = ctx->params;

	p->finals += ctx->final;
	return 0;
}

static const struct tool_event count_events[] = { { "block", "block_rq_issue", 0 }, { NULL } };
static const struct tool count_tool = {
	.name = "count", .events = count_events, .init = count_init, .report = count_report,
};

/* count_run - one session of the counting tool over the recording in buf; its final reports */
static uint64_t count_run(const uint8_t *buf, size_t len, uint64_t stop_at, int sig, int raises,
			  int *finals)
{
	struct session_opts so = { .mmap_pages = 128, .input_buf = buf, .input_len = len };
	struct count_params p = { .stop_at = stop_at, .sig = sig, .raises = raises };
	char *out = NULL;

	assert_int_equal(testlib_session_run(&count_tool, &p, &so, NULL, &out), 0);
	free(out);
	*finals = p.finals;
	return p.issues;
}

/* test_stop_own - a session that stops itself leaves the next one whole */
static void test_stop_own(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);
	int finals;
	uint64_t all = count_run(buf, len, 0, 0, 0, &finals);

	/* make-recordings read 300 blocks. */
	assert_true(all >= 300);
	assert_int_equal(count_run(buf, len, 3, 0, 0, &finals), 3);
	assert_int_equal(finals, 1);
	assert_int_equal(count_run(buf, len, 0, 0, 0, &finals), all);
	assert_int_equal(finals, 1);
	free(buf);
}

/* test_stop_signal - a signal stops the session it came in, and no later one */
static void test_stop_signal(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);
	int finals;
	uint64_t all = count_run(buf, len, 0, 0, 0, &finals);

	session_signals_install();
	assert_int_equal(count_run(buf, len, 5, SIGTERM, 1, &finals), 5);
	assert_int_equal(finals, 1);
	assert_int_equal(count_run(buf, len, 0, 0, 0, &finals), all);
	/* A second SIGINT while it stops skips the final report, of that session only. */
	assert_int_equal(count_run(buf, len, 2, SIGINT, 2, &finals), 2);
	assert_int_equal(finals, 0);
	assert_int_equal(count_run(buf, len, 0, 0, 0, &finals), all);
	assert_int_equal(finals, 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	free(buf);
}

/* test_signalled - a caller running session after session learns that a signal stopped one */
static void test_signalled(void **state)
{
	struct count_params p = { .stop_at = 1, .sig = SIGTERM, .raises = 1 };
	struct session_opts so = { .mmap_pages = 128 };
	struct session s;

	so.input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so.input_len);
	session_signals_install();
	assert_int_equal(session_init(&s, &count_tool, &p, &so), 0);
	assert_false(session_signalled(&s));
	assert_int_equal(session_run(&s, 0, 0, 0), 0);
	assert_true(session_signalled(&s));
	session_release(&s);
	p.stop_at = 0;
	p.issues = 0;
	assert_int_equal(session_init(&s, &count_tool, &p, &so), 0);
	assert_int_equal(session_run(&s, 0, 0, 0), 0);
	assert_false(session_signalled(&s));
	assert_true(p.issues >= 300);
	session_release(&s);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	free((void *)so.input_buf);
}

/* test_three_tools - three tools over one session print what each prints over a session of its own */
static void test_three_tools(void **state)
{
	static const char *const args[][3] = {
		{ "biolatency", "-D", NULL }, { "bitesize", NULL }, { "biosnoop", NULL },
	};
	enum { N = sizeof(args) / sizeof(args[0]) };
	struct session_opts so = { .mmap_pages = 128 };
	char *alone[N], *shared[N], err[256];
	size_t len, outlen[N];
	void *params[N];
	struct session s;
	struct cli_args ca;
	FILE *out[N];
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);

	so.input_buf = buf;
	so.input_len = len;
	for (int i = 0; i < N; i++)
		assert_int_equal(testlib_tool_run(buf, len, NULL, &alone[i], args[i][0], args[i][1],
						  NULL), 0);
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	for (int i = 0; i < N; i++) {
		const struct tool *t = tool_find(args[i][0]);
		int argc = args[i][1] ? 2 : 1;

		params[i] = calloc(1, t->params_size);
		assert_int_equal(opt_parse(&t->cmd, argc, (char **)args[i], params[i], &so, &ca, err,
					   sizeof(err)), 0);
		out[i] = open_memstream(&shared[i], &outlen[i]);
		assert_non_null(session_tool_add(&s, t, params[i], out[i]));
	}
	assert_int_equal(session_run(&s, 0, 0, 0), 0);
	session_release(&s);
	for (int i = 0; i < N; i++) {
		fclose(out[i]);
		/* Every tool printed something of its own: no empty output compares equal. */
		assert_true(strlen(alone[i]) > 100);
		assert_string_equal(shared[i], alone[i]);
		free(shared[i]);
		free(alone[i]);
		free(params[i]);
	}
	free(buf);
}

/* A recording built in memory by a sink writer. */
struct image {
	uint8_t *buf;
	size_t len;
};

/* image_put - one chunk onto the image */
static int image_put(void *arg, const void *chunk, size_t len)
{
	struct image *im = arg;

	im->buf = realloc(im->buf, im->len + len);
	assert_non_null(im->buf);
	memcpy(im->buf + im->len, chunk, len);
	im->len += len;
	return 0;
}

/*
 * first_records - the recording in buf with its sections before the records as
 * they are, and only the records of its first third of stream bytes after them
 */
static uint8_t *first_records(const uint8_t *buf, size_t len, size_t *out_len)
{
	struct image im = { NULL, 0 };
	struct rec_writer *w;
	struct rec_reader *r = rec_reader_open_mem(buf, len);
	const uint8_t *evts;
	size_t off = 20, n, keep = REC_STREAM_PREFIX;
	uint32_t type;

	assert_non_null(r);
	image_put(&im, buf, off);	/* the file header */
	w = rec_writer_create_sink(image_put, &im);
	assert_non_null(w);
	/* Each chunk before the records, byte for byte: a chunk's header says its length. */
	while (rec_reader_next(r, &type, (const void **)&evts, &n) == 1 && type != REC_SEC_EVTS) {
		size_t clen = buf[off + 12] | buf[off + 13] << 8 | buf[off + 14] << 16 |
			      (size_t)buf[off + 15] << 24;

		assert_int_equal(rec_writer_put_chunk(w, buf + off, 24 + clen), 0);
		off += 24 + clen;
	}
	assert_int_equal(type, REC_SEC_EVTS);
	while (keep < n / 3)
		keep += ((const struct perf_event_header *)(evts + keep))->size;
	assert_int_equal(rec_writer_stream(w, REC_SEC_EVTS, evts, keep), 0);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);
	rec_reader_free(r);
	*out_len = im.len;
	return im.buf;
}

/* info_equal - two --info readings of one stream say the same */
static void info_equal(const struct recording_info *a, const struct recording_info *b)
{
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->t_start, b->t_start);
	assert_int_equal(a->t_end, b->t_end);
	assert_int_equal(a->nr_ev, b->nr_ev);
	for (size_t i = 0; i < a->nr_ev; i++)
		assert_int_equal(a->ev[i].count, b->ev[i].count);
}

/*
 * test_reset - one session reset between runs prints, over each of two streams
 * behind the same head, what a session of its own prints over that stream
 */
static void test_reset(void **state)
{
	static const char *const args[][3] = {
		{ "biolatency", "-D", NULL }, { "bitesize", NULL }, { "biosnoop", NULL },
	};
	enum { N = sizeof(args) / sizeof(args[0]) };
	struct session_opts so[2] = { { .mmap_pages = 128 }, { .mmap_pages = 128 } };
	char *alone[2][N], *again, err[256];
	struct recording_info info[2], info_again;
	struct cli_args ca;
	struct session s, fresh[2];
	size_t outlen;

	so[0].input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so[0].input_len);
	so[1].input_buf = first_records(so[0].input_buf, so[0].input_len, &so[1].input_len);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < N; i++)
			assert_int_equal(testlib_tool_run(so[k].input_buf, so[k].input_len, NULL,
							  &alone[k][i], args[i][0], args[i][1], NULL), 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(session_init(&fresh[k], NULL, NULL, &so[k]), 0);
		assert_int_equal(recording_info(&fresh[k], &info[k]), 0);
	}
	assert_true(info[1].records < info[0].records && info[1].t_end < info[0].t_end);
	session_stacks_set(stacks_session_want);
	assert_int_equal(session_init(&s, NULL, NULL, &so[0]), 0);
	/* The whole stream, the first third, the whole again: nothing of one run is in the next. */
	for (int run = 0; run < 3; run++) {
		int k = run == 1;

		for (int i = 0; i < N; i++) {
			const struct tool *t = tool_find(args[i][0]);
			void *params = calloc(1, t->params_size);
			FILE *out = open_memstream(&again, &outlen);

			assert_int_equal(session_reset(&s, &so[k]), 0);
			assert_int_equal(opt_parse(&t->cmd, args[i][1] ? 2 : 1, (char **)args[i],
						   params, &so[k], &ca, err, sizeof(err)), 0);
			assert_int_equal(tool_consumer_add(&s, &s.ctx, t, params, out), 0);
			assert_int_equal(session_run(&s, 0, 0, 0), 0);
			fclose(out);
			assert_string_equal(again, alone[k][i]);
			free(again);
			free(params);
		}
		assert_int_equal(session_reset(&s, &so[k]), 0);
		assert_int_equal(recording_info(&s, &info_again), 0);
		info_equal(&info_again, &info[k]);
	}
	session_release(&s);
	session_release(&fresh[0]);
	session_release(&fresh[1]);
	for (int i = 0; i < N; i++) {
		/* Each stream printed something of its own: equal outputs prove nothing. */
		assert_true(strlen(alone[1][i]) > 100);
		assert_string_not_equal(alone[0][i], alone[1][i]);
		free(alone[0][i]);
		free(alone[1][i]);
	}
	free((void *)so[0].input_buf);
	free((void *)so[1].input_buf);
}

/*
 * test_reset_no_input - a reset that names no input lets go of the last one
 * (freed here: ASan sees any read of it after) and replays nothing; a reset
 * that names one again replays all of it
 */
static void test_reset_no_input(void **state)
{
	struct session_opts so = { .mmap_pages = 128 }, none = { .mmap_pages = 128 }, copy;
	struct recording_info info;
	struct session s;
	uint64_t records;
	void *buf;

	so.input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so.input_len);
	buf = malloc(so.input_len);
	assert_non_null(buf);
	memcpy(buf, so.input_buf, so.input_len);
	copy = so;
	copy.input_buf = buf;
	assert_int_equal(session_init(&s, NULL, NULL, &copy), 0);
	assert_int_equal(recording_info(&s, &info), 0);
	records = info.records;
	assert_true(records > 1000);
	assert_int_equal(session_reset(&s, &none), 0);
	free(buf);
	assert_int_equal(recording_info(&s, &info), 0);
	assert_int_equal(info.records, 0);
	assert_int_equal(session_reset(&s, &so), 0);
	assert_int_equal(recording_info(&s, &info), 0);
	assert_int_equal(info.records, records);
	session_release(&s);
	free((void *)so.input_buf);
}

/* test_reset_refused - another recording's head is refused; a source that cannot replay says so */
static void test_reset_refused(void **state)
{
	struct session_opts so = { .mmap_pages = 128 }, other = { .mmap_pages = 128 };
	struct session s, *t;

	so.input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so.input_len);
	other.input_buf = testlib_data_load("recordings", "cgroups-6.18.iotap", &other.input_len);
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	log_set(testlib_log_keep);
	testlib_log[0] = 0;
	assert_int_equal(session_reset(&s, &other), -EINVAL);
	assert_non_null(strstr(testlib_log, "its sections before the records are not those read first"));
	log_set(NULL);
	session_release(&s);
	t = testlib_session_new(NULL, NULL, 0);
	assert_int_equal(session_reset(t, NULL), -ENOTSUP);
	testlib_session_free(t);
	free((void *)so.input_buf);
	free((void *)other.input_buf);
}

/*
 * test_host_unknown - a recording holds no kernel structure layout and says nothing of
 * devices now: both are "not known", and a disk it never named is named by its number
 */
static void test_host_unknown(void **state)
{
	struct session_opts so = { .mmap_pages = 128 };
	struct session s;
	uint32_t off = 1;

	so.input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so.input_len);
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	assert_int_equal(iotap_member_offset(&s.ctx, "bio", "bi_bdev", &off), -ENODATA);
	assert_int_equal(off, 1);
	assert_int_equal(iotap_device_gone(&s.ctx, IOTAP_DEV_BLOCK, "7:0"), -ENODATA);
	assert_int_equal(iotap_device_gone(&s.ctx, IOTAP_DEV_SCSI, "0:0:0:0"), -ENODATA);
	assert_string_equal(iotap_disk_name(&s.ctx, 4095u << 20 | 1), "4095:1");
	session_release(&s);
	free((void *)so.input_buf);
}

/* comm_rec - a COMM record of pid called name into the session */
static void comm_rec(struct session *s, uint32_t pid, const char *name)
{
	struct { struct perf_event_header h; uint32_t pid, tid; char comm[16]; uint64_t id; } r;

	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_COMM;
	r.h.size = sizeof(r);
	r.pid = r.tid = pid;
	snprintf(r.comm, sizeof(r.comm), "%s", name);
	assert_int_equal(session_dispatch(s, &r.h), 0);
}

/* exit_rec - an EXIT record of pid (tid: the process, or one of its threads) at t */
static void exit_rec(struct session *s, uint32_t pid, uint32_t tid, uint64_t t)
{
	struct { struct perf_event_header h; uint32_t pid, ppid, tid, ptid; uint64_t time; } r;

	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_EXIT;
	r.h.size = sizeof(r);
	r.pid = pid;
	r.tid = tid;
	r.ppid = r.ptid = 1;
	r.time = t;
	assert_int_equal(session_dispatch(s, &r.h), 0);
}

/*
 * test_comm_flat - names of processes that exited go a minute after, so
 * that a long run keeps a table the size of the living host, not of every
 * process it saw; the living, the recently gone and a reused pid keep theirs
 */
static void test_comm_flat(void **state)
{
	const uint64_t sec = 1000000000ull;
	struct session_opts so = { .mmap_pages = 128 };
	struct session s;
	size_t open, peak = 0;
	char name[16];

	so.input_buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &so.input_len);
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	s.interval_ns = sec;
	open = session_comm_count(&s);
	comm_rec(&s, 4000000, "daemon");
	/* An hour of 20000 short-lived processes a minute, each exiting at once. */
	for (uint32_t i = 0; i < 60 * 20000; i++) {
		uint32_t pid = 1000000 + i % 2000000;
		uint64_t t = 10 * sec + i * (3 * sec / 1000);

		snprintf(name, sizeof(name), "job%u", i % 100);
		comm_rec(&s, pid, name);
		/* A thread's exit is not the process's: its name stays. */
		exit_rec(&s, pid, pid + 1, t);
		exit_rec(&s, pid, pid, t);
		if (session_comm_count(&s) > peak)
			peak = session_comm_count(&s);
	}
	/*
	 * Flat: at most twice a minute of exits (the grace, and as many again
	 * before a compaction), not the 1.2 million names the hour saw.
	 */
	assert_true(peak <= open + 1 + 2 * 20000 + 1024 + 100);
	assert_true(session_comm_count(&s) > open + 20000);
	assert_string_equal(session_comm_cached(&s, 4000000), "daemon");
	/* The first ones are gone; the last one exited just now and keeps its name. */
	assert_null(session_comm_cached(&s, 1000000));
	assert_string_equal(session_comm_cached(&s, 1000000 + 60 * 20000 - 1), "job99");
	/* A pid used again lives again. */
	comm_rec(&s, 1000000, "again");
	assert_string_equal(session_comm_cached(&s, 1000000), "again");
	session_release(&s);
	free((void *)so.input_buf);
}

/* main - run the session tests */
/* What a consumer that takes records raw saw, and whether it skips ftrace samples. */
struct raw_seen {
	bool skip, observer;
	uint64_t records, ftrace;
	uint64_t *order;		/* the records all consumers saw, in calls */
	uint64_t first;			/* its position among those calls at its first record */
};

/* raw_start - a skipper says so once events flow, as the flight recorder does */
static int raw_start(struct session *s, void *priv)
{
	struct raw_seen *r = priv;

	return r->skip ? session_consumer_skip_ftrace(s, priv) : 0;
}

/* raw_on_record - count what came, and its ftrace samples */
static int raw_on_record(struct session *s, void *priv, const struct perf_event_header *rec)
{
	struct raw_seen *r = priv;

	if (!r->records++)
		r->first = *r->order;
	r->ftrace += ftrace_sample_is(rec);
	++*r->order;
	return 0;
}

static const struct consumer_ops raw_ops = {
	.name = "raw", .start = raw_start, .on_record = raw_on_record,
};
static const struct consumer_ops raw_observer_ops = {
	.name = "raw observer", .observer = true, .on_record = raw_on_record,
};

/*
 * test_skip_ftrace - a consumer that skips ftrace samples sees every other
 * record, the others every one, observers first; a stranger is refused
 */
static void test_skip_ftrace(void **state)
{
	struct session_opts so = { .mmap_pages = 128 };
	uint64_t order = 0;
	struct raw_seen all = { .order = &order }, skip = { .skip = true, .order = &order };
	struct raw_seen obs = { .observer = true, .order = &order };
	struct { struct perf_event_header h; uint64_t id, tid, time; } ft = {
		{ PERF_RECORD_SAMPLE, 0, sizeof(ft) }, ftrace_sample_id(5), 1, 2,
	}, perf = { { PERF_RECORD_SAMPLE, 0, sizeof(perf) }, 7, 1, 3 };
	struct { struct perf_event_header h; uint32_t pid, ppid, tid, ptid; uint64_t time; } fork = {
		{ PERF_RECORD_FORK, 0, sizeof(fork) }, 10, 1, 10, 1, 4,
	};
	struct session s;
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);

	so.input_buf = buf;
	so.input_len = len;
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	assert_int_equal(session_consumer_add(&s, &raw_ops, &skip), 0);
	assert_int_equal(session_consumer_add(&s, &raw_ops, &all), 0);
	assert_int_equal(session_consumer_add(&s, &raw_observer_ops, &obs), 0);
	assert_int_equal(session_consumer_skip_ftrace(&s, &order), -ENOENT);
	assert_int_equal(raw_start(&s, &skip), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(session_dispatch(&s, &ft.h), 0);
		assert_int_equal(session_dispatch(&s, &perf.h), 0);
		assert_int_equal(session_dispatch(&s, &fork.h), 0);
	}
	session_release(&s);
	assert_int_equal(all.records, 6);
	assert_int_equal(all.ftrace, 2);
	assert_int_equal(skip.records, 4);
	assert_int_equal(skip.ftrace, 0);
	assert_int_equal(obs.records, 6);
	/* The observer first, the skipper second (after the first ftrace sample), then the other. */
	assert_int_equal(obs.first, 0);
	assert_int_equal(all.first, 1);
	assert_int_equal(skip.first, 3);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_own),
		cmocka_unit_test(test_stop_signal),
		cmocka_unit_test(test_signalled),
		cmocka_unit_test(test_three_tools),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_reset_no_input),
		cmocka_unit_test(test_reset_refused),
		cmocka_unit_test(test_host_unknown),
		cmocka_unit_test(test_comm_flat),
		cmocka_unit_test(test_skip_ftrace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
