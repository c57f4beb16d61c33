// SPDX-License-Identifier: GPL-2.0-or-later
/* test_cgroup.c - --cgroup and --show-cgroup over a committed recording made with --cgroups */
#include <errno.h>
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

/*
 * What tests/data/recordings/make-recordings cgroups recorded on loop 7:1: 30 reads
 * in /iotap-rec/a; 20 in /iotap-rec/b, then the same shell moved itself to a and its
 * next child read 10 more.
 */
#define CG_FILE "cgroups-6.18.iotap"

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

/* hist_total - the counts of a BCC histogram */
static uint64_t hist_total(const char *text)
{
	uint64_t n = 0;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		unsigned long long lo, hi, c;

		if (sscanf(line, " %llu -> %llu : %llu", &lo, &hi, &c) == 3)
			n += c;
	}
	return n;
}

/* count_cgroup - biosnoop --show-cgroup lines whose last column is cg */
static int count_cgroup(const char *text, const char *cg)
{
	int n = 0;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		const char *nl = strchr(line, '\n'), *sp;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		for (sp = line + len; sp > line && sp[-1] != ' '; sp--)
			;
		if ((size_t)(line + len - sp) == strlen(cg) && !memcmp(sp, cg, strlen(cg)))
			n++;
	}
	return n;
}

/* test_filter - each cgroup counts what its tasks submitted, a task that moved where it was */
static void test_filter(void **state)
{
	static const struct {
		const char *cgroup;
		uint64_t reads;
	} cases[] = {
		{ "/iotap-rec/a", 40 },
		{ "/iotap-rec/b", 20 },
		{ "/iotap-rec/b/", 20 },
		{ "/iotap-rec", 60 },
		{ "/iotap-re", 0 },
		{ "/", 60 },
	};
	size_t len;
	uint8_t *buf = load(CG_FILE, &len);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;

		logbuf[0] = 0;
		assert_int_equal(run_tool(buf, len, &out, "biolatency", "-d", "7:1", "--cgroup",
					  cases[i].cgroup, NULL), 0);
		assert_int_equal(hist_total(out), cases[i].reads);
		assert_string_equal(logbuf, "");
		free(out);
	}
	free(buf);
}

/* test_column - biosnoop --show-cgroup names the submitter's cgroup on every line */
static void test_column(void **state)
{
	size_t len;
	uint8_t *buf = load(CG_FILE, &len);
	char *out = NULL;

	assert_int_equal(run_tool(buf, len, &out, "biosnoop", "--show-cgroup", NULL), 0);
	assert_non_null(strstr(out, "LAT(ms) CGROUP\n"));
	assert_int_equal(count_cgroup(out, "/iotap-rec/a"), 40);
	assert_int_equal(count_cgroup(out, "/iotap-rec/b"), 20);
	free(out);
	/* Without --show-cgroup, BCC's columns as they are. */
	assert_int_equal(run_tool(buf, len, &out, "biosnoop", NULL), 0);
	assert_null(strstr(out, "CGROUP"));
	free(out);
	free(buf);
}

/* test_not_recorded - a recording made without --cgroups says what is missing, in one line */
static void test_not_recorded(void **state)
{
	size_t len;
	uint8_t *buf = load("linux-6.18-loop.iotap", &len);
	char *out = NULL;

	logbuf[0] = 0;
	assert_int_equal(run_tool(buf, len, &out, "biolatency", "--cgroup", "/a", NULL), -ENOENT);
	assert_non_null(strstr(logbuf, "iotap record --cgroups"));
	assert_null(strchr(strchr(logbuf, '\n') + 1, '\n'));
	free(out);
	logbuf[0] = 0;
	assert_int_equal(run_tool(buf, len, &out, "biolatency", "--cgroup", "relative", NULL), -EINVAL);
	assert_null(strchr(strchr(logbuf, '\n') + 1, '\n'));
	free(out);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_column),
		cmocka_unit_test(test_not_recorded),
	};

	log_set(test_log);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
