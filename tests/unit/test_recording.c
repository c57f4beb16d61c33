// SPDX-License-Identifier: GPL-2.0-or-later
/* test_recording.c - committed recordings decode to known counts, whole, cut or damaged */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log.h"
#include "select.h"
#include "source-recording.h"
#include "testlib.h"

/* What tests/data/recordings/make-recordings recorded (see that script). */
struct known {
	const char *file;
	const char *release;
	const char *disk[2];
	uint64_t reads[2];
	bool io_start;			/* block_io_start exists (6.5 and later) */
};

static const struct known known[] = {
	{ "linux-6.18-loop.iotap", "6.18.44-fc-v669", { "loop5", "loop20" }, { 200, 100 }, true },
	{ "linux-6.1-vm.iotap", "6.1.0-56-amd64", { "nvme0n1", "sda" }, { 200, 100 }, false },
};

/* test_info - --info's view of each recording: the kernel, events, completeness */
static void test_info(void **state)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const struct known *kn = &known[k];
		struct session_opts so = { 0 };
		struct recording_info info;
		struct iotap_machine m;
		struct session s;
		uint64_t issue = 0, start = 0;
		size_t len;
		uint8_t *buf = testlib_data_load("recordings", kn->file, &len);

		so.input_buf = buf;
		so.input_len = len;
		assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
		assert_int_equal(recording_info(&s, &info), 0);
		assert_string_equal(info.release, kn->release);
		/* The same names through the tool API, without reading the events. */
		assert_int_equal(iotap_machine(&s.ctx, &m), 0);
		assert_string_equal(m.release, kn->release);
		assert_string_equal(m.host, info.host);
		assert_string_equal(m.arch, info.machine);
		assert_int_equal(info.nr_cpus, 2);
		assert_false(info.cut_short);
		assert_true(info.command_pid > 0);
		assert_true(info.t_end > info.t_start);
		for (size_t i = 0; i < info.nr_ev; i++) {
			if (!strcmp(info.ev[i].name, "block_rq_issue"))
				issue = info.ev[i].count;
			if (!strcmp(info.ev[i].name, "block_io_start"))
				start = info.ev[i].count + 1;
		}
		assert_true(issue >= kn->reads[0] + kn->reads[1]);
		assert_int_equal(start != 0, kn->io_start);
		assert_int_equal(session_lost_total(&s), 0);
		/* A report reads nothing of this machine: no tracefs, no disks of its own. */
		assert_true(s.disks.nr > 0);
		assert_false(info.kallsyms);
		session_release(&s);
		free(buf);
	}
}

/* test_counts - biolatency -D over each recording counts exactly the recorded reads */
static void test_counts(void **state)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const struct known *kn = &known[k];
		size_t len;
		uint8_t *buf = testlib_data_load("recordings", kn->file, &len);
		char *out = NULL, *out_q = NULL;

		assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "-D", NULL),
				 0);
		assert_int_equal(testlib_hist_total(out, kn->disk[0]), kn->reads[0]);
		assert_int_equal(testlib_hist_total(out, kn->disk[1]), kn->reads[1]);
		assert_null(strstr(out, "Tracing"));
		/* -Q starts from block_io_start, or block_rq_insert before 6.5: same counts. */
		assert_int_equal(testlib_tool_run(buf, len, NULL, &out_q, "biolatency", "-Q", "-d",
						  kn->disk[1], NULL), 0);
		assert_int_equal(testlib_hist_total(out_q, NULL), kn->reads[1]);
		free(out);
		free(out_q);
		free(buf);
	}
}

/* test_missing_event - a tool needing an event that was not recorded says so */
static void test_missing_event(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.1-vm.iotap", &len);
	struct session_opts so = { .input_buf = buf, .input_len = len };
	struct session s;

	testlib_log[0] = 0;
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	assert_false(iotap_event_available(&s.ctx, "block", "block_io_start"));
	assert_null(iotap_event_use(&s.ctx, "block", "block_io_start", 0, NULL, NULL));
	assert_non_null(strstr(testlib_log, "the recording has no block:block_io_start events"));
	session_release(&s);
	free(buf);
}

/* test_cut - every cut gives an error or a report of fewer reads, flagged as cut short */
static void test_cut(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);
	int partial = 0, errors = 0;

	for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 37) {
		uint8_t *copy = malloc(cut ? cut : 1);
		char *out = NULL;
		int ret;

		memcpy(copy, buf, cut);
		testlib_log[0] = 0;
		ret = testlib_tool_run(copy, cut, NULL, &out, "biolatency", "-D", NULL);
		if (ret) {
			errors++;
			assert_non_null(strstr(testlib_log, "cannot read '(memory)': "));
			assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
		} else {
			partial++;
			assert_non_null(strstr(testlib_log, "was cut short at byte"));
			assert_true(testlib_hist_total(out, "loop5") <= 200);
		}
		free(out);
		free(copy);
	}
	assert_true(partial > 0);
	assert_true(errors > 0);
	free(buf);
}

/* test_damaged - a changed bit anywhere is refused with one line, never a crash */
static void test_damaged(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.1-vm.iotap", &len);

	for (size_t at = 0; at < len; at += 13) {
		char *out = NULL;
		int ret;

		buf[at] ^= 0x04;
		testlib_log[0] = 0;
		ret = testlib_tool_run(buf, len, NULL, &out, "biolatency", NULL);
		buf[at] ^= 0x04;
		assert_true(ret < 0);
		assert_non_null(strstr(testlib_log, "cannot read '(memory)': "));
		free(out);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_missing_event),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_damaged),
	};

	log_set(testlib_log_keep);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
