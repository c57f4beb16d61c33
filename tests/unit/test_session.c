// SPDX-License-Identifier: GPL-2.0-or-later
/* test_session.c - sessions in one process stop on their own; tools share a session */
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

#include "opt.h"
#include "session.h"
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

/* main - run the session tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_own),
		cmocka_unit_test(test_stop_signal),
		cmocka_unit_test(test_signalled),
		cmocka_unit_test(test_three_tools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
