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
#include "opt.h"
#include "recording.h"

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

static char logbuf[4096];

/* test_log - keep what the core says, to check it */
static void test_log(enum log_level level, const char *msg)
{
	size_t n = strlen(logbuf);

	snprintf(logbuf + n, sizeof(logbuf) - n, "%s%s\n", level == LOG_WARN ? "warning: " : "", msg);
}

/* load - a committed recording into memory */
static uint8_t *load(const char *name, size_t *len)
{
	char path[512];
	uint8_t *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/recordings/%s", TEST_DATA, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n ? n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), n);
	fclose(f);
	*len = n;
	return buf;
}

/* run_tool - a tool with its arguments over a recording in memory; output in *out */
static int run_tool(const uint8_t *buf, size_t len, char **out, const char *tool_name, ...)
{
	const struct tool *tool = tool_find(tool_name);
	struct session_opts so = { .mmap_pages = 128, .input_buf = buf, .input_len = len };
	char *argv[16], err[256];
	struct session s;
	struct cli_args ca;
	size_t outlen;
	void *params;
	va_list ap;
	int argc = 0, ret;
	FILE *f;

	assert_non_null(tool);
	argv[argc++] = (char *)tool_name;
	va_start(ap, tool_name);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	params = calloc(1, tool->params_size);
	assert_int_equal(opt_parse(tool, argc, argv, params, &so, &ca, err, sizeof(err)), 0);
	f = open_memstream(out, &outlen);
	ret = session_init(&s, tool, params, &so);
	s.ctx.out = f;
	if (!ret)
		ret = session_run(&s, ca.interval_ns, ca.count, ca.duration_ns);
	session_release(&s);
	fclose(f);
	free(params);
	return ret;
}

/* hist_total - the counts of a BCC histogram's disk section (NULL: all sections) */
static uint64_t hist_total(const char *text, const char *section)
{
	char cur[64] = "";
	uint64_t n = 0;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		unsigned long long lo, hi, c;

		if (sscanf(line, "disk = %63s", cur) == 1)
			continue;
		if (sscanf(line, " %llu -> %llu : %llu", &lo, &hi, &c) == 3 &&
		    (!section || !strcmp(cur, section)))
			n += c;
	}
	return n;
}

/* test_info - --info's view of each recording: the kernel, events, completeness */
static void test_info(void **state)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const struct known *kn = &known[k];
		struct session_opts so = { 0 };
		struct recording_info info;
		struct session s;
		uint64_t issue = 0, start = 0;
		size_t len;
		uint8_t *buf = load(kn->file, &len);

		so.input_buf = buf;
		so.input_len = len;
		assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
		assert_int_equal(recording_info(&s, &info), 0);
		assert_string_equal(info.release, kn->release);
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
		uint8_t *buf = load(kn->file, &len);
		char *out = NULL, *out_q = NULL;

		assert_int_equal(run_tool(buf, len, &out, "biolatency", "-D", NULL), 0);
		assert_int_equal(hist_total(out, kn->disk[0]), kn->reads[0]);
		assert_int_equal(hist_total(out, kn->disk[1]), kn->reads[1]);
		assert_null(strstr(out, "Tracing"));
		/* -Q starts from block_io_start, or block_rq_insert before 6.5: same counts. */
		assert_int_equal(run_tool(buf, len, &out_q, "biolatency", "-Q", "-d", kn->disk[1], NULL), 0);
		assert_int_equal(hist_total(out_q, NULL), kn->reads[1]);
		free(out);
		free(out_q);
		free(buf);
	}
}

/* test_missing_event - a tool needing an event that was not recorded says so */
static void test_missing_event(void **state)
{
	size_t len;
	uint8_t *buf = load("linux-6.1-vm.iotap", &len);
	struct session_opts so = { .input_buf = buf, .input_len = len };
	struct session s;

	logbuf[0] = 0;
	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	assert_false(iotap_event_available(&s.ctx, "block", "block_io_start"));
	assert_null(iotap_event_use(&s.ctx, "block", "block_io_start", 0, NULL, NULL));
	assert_non_null(strstr(logbuf, "the recording has no block:block_io_start events"));
	session_release(&s);
	free(buf);
}

/* test_cut - every cut gives an error or a report of fewer reads, flagged as cut short */
static void test_cut(void **state)
{
	size_t len;
	uint8_t *buf = load("linux-6.18-loop.iotap", &len);
	int partial = 0, errors = 0;

	for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 37) {
		uint8_t *copy = malloc(cut ? cut : 1);
		char *out = NULL;
		int ret;

		memcpy(copy, buf, cut);
		logbuf[0] = 0;
		ret = run_tool(copy, cut, &out, "biolatency", "-D", NULL);
		if (ret) {
			errors++;
			assert_non_null(strstr(logbuf, "cannot read '(memory)': "));
			assert_null(strchr(strchr(logbuf, '\n') + 1, '\n'));
		} else {
			partial++;
			assert_non_null(strstr(logbuf, "was cut short at byte"));
			assert_true(hist_total(out, "loop5") <= 200);
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
	uint8_t *buf = load("linux-6.1-vm.iotap", &len);

	for (size_t at = 0; at < len; at += 13) {
		char *out = NULL;
		int ret;

		buf[at] ^= 0x04;
		logbuf[0] = 0;
		ret = run_tool(buf, len, &out, "biolatency", NULL);
		buf[at] ^= 0x04;
		assert_true(ret < 0);
		assert_non_null(strstr(logbuf, "cannot read '(memory)': "));
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

	log_set(test_log);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
