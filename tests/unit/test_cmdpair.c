// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cmdpair.c - NVMe commands paired from nvme_setup_cmd to nvme_complete_rq in the
 * shapes real kernels give their command ids, over every kernel's formats: one id at both
 * ends (Ubuntu's 5.4: no generation counter; 6.1 on, RHEL 8.10 and 9.6, Ubuntu's 5.15.0-185:
 * the counter in both), the counter at setup and the bare tag at completion (Debian 11's
 * 5.10.2xx, 5.14/5.15 before a 2022 fix: setup 4931 completes as 835), and ids that never
 * match, which must be said.
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
#include <traceevent/event-parse.h>

#include "cmdpair.h"
#include "session.h"
#include "testlib.h"

/* Captured, then reconstructed from the distributions' trees (tests/data/formats/<set>/SOURCE). */
static const char *const kernels[] = {
	"6.1.0-56-amd64", "6.12.117+deb12-amd64", "5.10.0-46-amd64", "rhel8-4.18",
	"ubuntu20.04-5.4", "rhel9-5.14", "ubuntu22.04-5.15",
};

struct cmdrun {
	struct session *s;
	struct cmdpair_nvme np;
	uint64_t lat[16];		/* latencies handed to the tool, in order */
	uint16_t cid[16];
	size_t nr;
};

static struct cmdrun *run_of;		/* the callback's run: iotap_ctx has no room for it */

/* on_cmd - collect each paired command */
static int on_cmd(struct iotap_ctx *ctx, const struct nvme_cmd *c, uint64_t ns)
{
	assert_true(run_of->nr < 16);
	assert_int_equal(c->opcode, 2);		/* nvme_cmd_read, from the setup */
	run_of->cid[run_of->nr] = c->cid;
	run_of->lat[run_of->nr++] = ns;
	return 0;
}

/* run_setup - a session over one kernel's nvme formats, pairing every namespace */
static void run_setup(struct cmdrun *r, const char *kernel)
{
	static const char *const evs[] = { "nvme_setup_cmd", "nvme_complete_rq", NULL };

	memset(r, 0, sizeof(*r));
	run_of = r;
	r->s = testlib_session_new(NULL, NULL, 0);
	testlib_fmt_load(&r->s->fs, kernel, "nvme", evs);
	assert_int_equal(cmdpair_nvme_use(&r->np, &r->s->ctx, NULL, on_cmd), 0);
	for (size_t i = 0; i < r->s->nr_ev; i++)
		r->s->ev[i]->sample_type = IOTAP_SAMPLE_BASE;
}

/* run_teardown - free the pair and the session */
static void run_teardown(struct cmdrun *r)
{
	cmdpair_nvme_release(&r->np);
	testlib_session_free(r->s);
	run_of = NULL;
}

/* feed - one nvme event of queue 1 of nvme0 as a perf sample: setup (a read) or completion */
static void feed(struct cmdrun *r, bool setup, uint64_t time, uint16_t cid)
{
	const char *name = setup ? "nvme_setup_cmd" : "nvme_complete_rq";
	uint8_t rec[256], *raw = rec + TESTLIB_RAW;
	struct tep_event *ev;
	struct perf_event_header *h = testlib_sample(r->s, name, 0, 0, time, 96, rec, &ev);

	memcpy(raw + tep_find_field(ev, "disk")->offset, "nvme0n1", 8);
	testlib_field_put(ev, raw, "ctrl_id", 0);
	testlib_field_put(ev, raw, "qid", 1);
	testlib_field_put(ev, raw, "cid", cid);
	if (setup)
		testlib_field_put(ev, raw, "opcode", 2);
	assert_int_equal(session_dispatch(r->s, h), 0);
}

/* test_same_id - one id at both ends, with or without a generation count in its top bits */
static void test_same_id(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct cmdrun r;

		run_setup(&r, kernels[k]);
		/* Without the counter, a queue deeper than 4096 has tags 835 and 4931 in flight
		 * at once, two commands; with it, 4931 is tag 835's first generation. */
		feed(&r, true, 1000, 835);
		feed(&r, true, 1100, 4931);
		feed(&r, true, 1200, 0x1fff);
		feed(&r, false, 1500, 4931);
		feed(&r, false, 1700, 835);
		feed(&r, false, 2200, 0x1fff);
		assert_int_equal(r.nr, 3);
		assert_int_equal(r.cid[0], 4931);
		assert_int_equal(r.lat[0], 400);
		assert_int_equal(r.cid[1], 835);
		assert_int_equal(r.lat[1], 700);
		assert_int_equal(r.cid[2], 0x1fff);
		assert_int_equal(r.lat[2], 1000);
		assert_int_equal(r.np.paired_by_tag, 0);
		assert_int_equal(r.np.unmatched, 0);
		run_teardown(&r);
	}
}

/* test_bare_tag - Debian 11's 5.10: the counter at setup, the bare tag at completion */
static void test_bare_tag(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct cmdrun r;

		run_setup(&r, kernels[k]);
		/* As traced on 5.10.262: 4292/196, 4293/197, and a generation 0 id. */
		feed(&r, true, 1000, 4292);
		feed(&r, false, 1254, 196);
		feed(&r, true, 2000, 4293);
		feed(&r, true, 2100, 198);
		feed(&r, false, 2300, 198);
		feed(&r, false, 2400, 197);
		/* A setup whose completion was lost, then its tag's next generation: the
		 * completion that carries the bare tag is the newest one's. */
		feed(&r, true, 3000, 4295);
		feed(&r, true, 4000, 8391);
		feed(&r, false, 4100, 199);
		assert_int_equal(r.nr, 4);
		assert_int_equal(r.cid[0], 4292);
		assert_int_equal(r.lat[0], 254);
		assert_int_equal(r.cid[1], 198);
		assert_int_equal(r.lat[1], 200);
		assert_int_equal(r.cid[2], 4293);
		assert_int_equal(r.lat[2], 400);
		assert_int_equal(r.cid[3], 8391);
		assert_int_equal(r.lat[3], 100);
		assert_int_equal(r.np.paired_by_tag, 3);
		assert_int_equal(r.np.unmatched, 0);
		assert_int_equal(reqtab_count(r.np.tab), 1);	/* 4295, never completed */
		run_teardown(&r);
	}
}

/* test_none_paired - completions whose ids match no setup: said once, without -v */
static void test_none_paired(void **state)
{
	struct cmdrun r;

	run_setup(&r, kernels[0]);
	log_set(testlib_log_keep);
	testlib_log[0] = 0;
	/* Completions carry a tag no setup had: nothing pairs. */
	for (uint16_t i = 0; i < 20; i++) {
		feed(&r, true, 1000 + i * 10, 0x1000 | i);
		feed(&r, false, 1005 + i * 10, 0x100 + i);
	}
	assert_int_equal(r.nr, 0);
	assert_int_equal(r.np.unmatched, 20);
	/* Not yet sure at an interval: 20 could be commands in flight at the start. */
	cmdpair_nvme_say(&r.np, &r.s->ctx);
	assert_string_equal(testlib_log, "");
	r.s->ctx.final = true;
	cmdpair_nvme_say(&r.np, &r.s->ctx);
	assert_non_null(strstr(testlib_log, "20 NVMe command completions, none paired with any of the 20 nvme_setup_cmd seen"));
	assert_non_null(strstr(testlib_log, "latency cannot be had here"));
	/* Once. */
	testlib_log[0] = 0;
	cmdpair_nvme_say(&r.np, &r.s->ctx);
	assert_null(strstr(testlib_log, "none paired"));
	log_set(NULL);
	run_teardown(&r);
}

/* test_none_paired_sure - enough completions without a pair are said at an interval */
static void test_none_paired_sure(void **state)
{
	struct cmdrun r;

	run_setup(&r, kernels[1]);
	log_set(testlib_log_keep);
	testlib_log[0] = 0;
	for (unsigned int i = 0; i < IOTAP_UNPAIRED_SURE; i++)
		feed(&r, false, 1000 + i, i & 0xfff);
	cmdpair_nvme_say(&r.np, &r.s->ctx);
	assert_non_null(strstr(testlib_log, "1024 NVMe command completions, none paired: no nvme_setup_cmd was seen"));
	log_set(NULL);
	run_teardown(&r);
}

/* main - run the NVMe pairing tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_id),
		cmocka_unit_test(test_bare_tag),
		cmocka_unit_test(test_none_paired),
		cmocka_unit_test(test_none_paired_sure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
