// SPDX-License-Identifier: GPL-2.0-or-later
/* test_perfdata.c - committed perf.data files decode to known counts; damaged ones fail cleanly */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmtcheck.h"
#include "log.h"
#include "select.h"
#include "perfdata-read.h"
#include "source-perfdata.h"
#include "source-recording.h"
#include "testlib.h"

/*
 * What tests/data/perf/make-perfdata recorded: 10 direct reads of 4 KiB at
 * sectors 0, 8, ... of loop device 7:1, and with -g 4 more by stacky_fp.
 */
#define READS_FILE "block-10-reads.data"
#define STACKS_FILE "stacky-4-reads-g.data"
#define LOOP "7:1"

/* log_lines - lines the core said since testlib_log was cleared */
static int log_lines(void)
{
	int n = 0;

	for (const char *p = testlib_log; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/* path_of - a committed file's path */
static const char *path_of(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/perf/%s", TEST_DATA, name);
	return path;
}

/* last_sample - the file offset of the last PERF_RECORD_SAMPLE (a read's completion) */
static size_t last_sample(const uint8_t *buf, size_t len)
{
	uint64_t off, size, last = 0;

	memcpy(&off, buf + 40, 8);
	memcpy(&size, buf + 48, 8);
	assert_true(off + size <= len);
	for (uint64_t at = off; at + 8 <= off + size;) {
		struct perf_event_header h;

		memcpy(&h, buf + at, sizeof(h));
		assert_true(h.size >= 8);
		if (h.type == PERF_RECORD_SAMPLE)
			last = at;
		at += h.size;
	}
	assert_true(last > 0);
	return last;
}

/* test_counts - biolatency counts the 10 reads, from memory and from the file */
static void test_counts(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("perf", READS_FILE, &len);
	char *out = NULL, *out_d = NULL, *out_f = NULL;

	assert_true(perfdata_magic(buf, len));
	testlib_log[0] = 0;
	/* From memory nothing else is read: the disk has no name but its numbers. */
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "-D", NULL), 0);
	assert_int_equal(testlib_hist_total(out, LOOP), 10);
	assert_null(strstr(out, "Tracing"));
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out_d, "biolatency", "-d", LOOP, NULL),
			 0);
	assert_int_equal(testlib_hist_total(out_d, NULL), 10);
	assert_int_equal(testlib_tool_run(NULL, 0, path_of(READS_FILE), &out_f, "biolatency", "-d",
					  LOOP, NULL), 0);
	assert_string_equal(out_f, out_d);
	assert_string_equal(testlib_log, "");
	free(out);
	free(out_d);
	free(out_f);
	free(buf);
}

/* test_info - report --info reads the header features and counts the samples per event */
static void test_info(void **state)
{
	struct session_opts so = { .input = path_of(READS_FILE) };
	struct recording_info info;
	struct iotap_machine m;
	struct session s;

	assert_int_equal(session_init(&s, NULL, NULL, &so), 0);
	assert_int_equal(recording_info(&s, &info), 0);
	assert_non_null(strstr(info.writer, "perf.data, perf "));
	assert_string_equal(info.sysname, "Linux");
	assert_non_null(info.release);
	assert_int_equal(iotap_machine(&s.ctx, &m), 0);
	assert_string_equal(m.release, info.release);
	assert_string_equal(m.sysname, "Linux");
	assert_string_equal(m.version, "");
	assert_non_null(strstr(info.command, "perf record"));
	assert_int_equal(info.nr_ev, 2);
	assert_string_equal(info.ev[0].name, "block_rq_issue");
	assert_int_equal(info.ev[0].count, 10);
	assert_string_equal(info.ev[1].name, "block_rq_complete");
	assert_int_equal(info.ev[1].count, 10);
	assert_true(info.t_end > info.t_start);
	assert_int_equal(session_lost_total(&s), 0);
	session_release(&s);
}

/* test_fields - biosnoop shows the sectors and sizes the reads used */
static void test_fields(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("perf", STACKS_FILE, &len);
	char *out = NULL, *line;
	int rows = 0;

	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biosnoop", "-d", LOOP, NULL), 0);
	line = strchr(out, '\n');
	assert_non_null(line);
	for (line++; *line; line = strchr(line, '\n') + 1) {
		char comm[32], disk[32], t[4];
		unsigned long long sector, bytes;
		double ts, lat;
		int pid;

		assert_int_equal(sscanf(line, "%lf %31s %d %31s %3s %llu %llu %lf", &ts, comm, &pid, disk,
					t, &sector, &bytes, &lat), 8);
		assert_string_equal(comm, "stacky_fp");
		assert_string_equal(t, "R");
		assert_int_equal(sector, rows * 8);
		assert_int_equal(bytes, 4096);
		rows++;
	}
	assert_int_equal(rows, 4);
	free(out);
	free(buf);
}

/* test_stacks - the -g file's callchains reach the stack tools: 4 reads under stacks */
static void test_stacks(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("perf", STACKS_FILE, &len), *plain;
	char *out = NULL;
	size_t plen;
	uint64_t n = 0;

	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biostacks", "-d", LOOP, NULL), 0);
	for (const char *p = out; (p = strchr(p, '[')); p++) {
		unsigned long long lo, hi, c;

		if (sscanf(p, "[%llu, %llu) %llu", &lo, &hi, &c) == 3)
			n += c;
	}
	assert_int_equal(n, 4);
	assert_non_null(strstr(out, "@usecs[\n    0xffffffff"));
	free(out);
	/* Without -g, a stack tool says what is missing. */
	plain = testlib_data_load("perf", READS_FILE, &plen);
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(plain, plen, NULL, &out, "iostack", NULL), -ENOENT);
	assert_int_equal(log_lines(), 1);
	free(out);
	free(plain);
	free(buf);
}

/* test_cut - every cut loses the features at the end: one error line, never a crash */
static void test_cut(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("perf", READS_FILE, &len);

	for (size_t cut = 0; cut < len; cut += cut < 256 ? 1 : 97) {
		uint8_t *copy = malloc(cut ? cut : 1);
		char *out = NULL;

		memcpy(copy, buf, cut);
		testlib_log[0] = 0;
		assert_true(testlib_tool_run(copy, cut, NULL, &out, "biolatency", "-D", NULL) < 0);
		assert_non_null(strstr(testlib_log, "cannot read '(memory)': "));
		assert_int_equal(log_lines(), 1);
		free(out);
		free(copy);
	}
	free(buf);
}

/* test_damaged - a changed byte anywhere: a report of at most the 10 reads, or one error line */
static void test_damaged(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("perf", READS_FILE, &len);
	int errors = 0, reports = 0;

	for (size_t at = 0; at < len; at += 7) {
		char *out = NULL;
		int ret;

		buf[at] ^= 0x44;
		testlib_log[0] = 0;
		ret = testlib_tool_run(buf, len, NULL, &out, "biolatency", "-D", NULL);
		buf[at] ^= 0x44;
		if (ret < 0) {
			errors++;
			assert_int_equal(log_lines(), 1);
		} else {
			reports++;
			assert_true(testlib_hist_total(out, LOOP) <= 10);
		}
		free(out);
	}
	assert_true(errors > 0);
	assert_true(reports > 0);
	free(buf);
}

/* test_malformed_sample - a sample that does not decode is left out, counted and said once */
static void test_malformed_sample(void **state)
{
	size_t len, at;
	uint8_t *buf = testlib_data_load("perf", READS_FILE, &len);
	uint32_t raw_size = 0xfff0;
	char *out = NULL;
	uint64_t all;

	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", NULL), 0);
	all = testlib_hist_total(out, NULL);
	free(out);
	/* IDENTIFIER, IP, TID, TIME, CPU, PERIOD, then the raw size: past the record's end now. */
	at = last_sample(buf, len);
	memcpy(buf + at + 8 + 48, &raw_size, 4);
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", NULL), 0);
	assert_int_equal(testlib_hist_total(out, NULL), all - 1);
	assert_string_equal(testlib_log, "warning: 1 samples did not decode and were left out\n");
	free(out);
	free(buf);
}

/* test_unsupported - files iotap does not read are refused with one line that says why */
static void test_unsupported(void **state)
{
	static const struct {
		size_t at;
		const char *bytes;
		size_t n;
		const char *says;
	} cases[] = {
		{ 0, "2ELIFREP", 8, "other byte order" },
		{ 8, "\x10\0\0\0\0\0\0\0", 8, "pipe-mode" },
		{ 48, "\0\0\0\0\0\0\0\0", 8, "holds no records" },
		{ 72, "\0", 1, "no tracing data" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *buf = testlib_data_load("perf", READS_FILE, &len);
		char *out = NULL;

		memcpy(buf + cases[i].at, cases[i].bytes, cases[i].n);
		testlib_log[0] = 0;
		assert_true(testlib_tool_run(buf, len, NULL, &out, "biolatency", NULL) < 0);
		assert_non_null(strstr(testlib_log, cases[i].says));
		assert_int_equal(log_lines(), 1);
		free(out);
		free(buf);
	}
}

/* test_format_check - texts the kernel writes pass; ones that crash libtraceevent do not */
static void test_format_check(void **state)
{
	static const char head[] =
		"name: e\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n";
	static const struct {
		const char *print;
		bool ok;
	} cases[] = {
		{ "print fmt: \"x=%d\", REC->x\n", true },
		/* ext4 writes a line end inside the format string */
		{ "print fmt: \"x=%d\n\", REC->x\n", true },
		{ "print fmt: \"%s\", __print_symbolic(REC->x, { 0, \"A\" }, { -1, ((void *)0) })\n", true },
		/* what fuzz_perfdata found: an unclosed __print_symbolic( with "{ X[1] }" */
		{ "print fmt: \"%s\", __print_symbolic(REC->x, { 0, \"A\" }, { IOP[10] }\n", false },
		{ "print fmt: \"%s\", __print_symbolic(REC->x, { 0, \"A\" }\t)\n", false },
		{ "print fmt: \"x=%d\", REC->x", false },
		{ "print fmt: \"x=%d\", REC->x\n\tfield:int y;\n", false },
		{ "print fmt: \"x=%d, REC->x\n", false },
		{ "print fmt: \"x=%d\", (REC->x]\n", false },
		{ "print fmt: \"x=%d %d\", REC->x / 1000, REC->x % REC->x\n", true },
		{ "print fmt: \"x=%d\", REC->x / sizeof(u64)\n", true },
		/* what fuzz_report found: libtraceevent divides by an unknown name's 0 */
		{ "print fmt: \"x=%d\", (unsigned)/EC->x\n", false },
		{ "print fmt: \"x=%d\", REC->x % 0\n", false },
		{ "print fmt: \"x=%d\", REC->x / (0)\n", false },
	};

	static const struct {
		const char *decl;
		bool ok;
	} decls[] = {
		{ "unsigned int nr_sector", true },
		{ "char comm[16]", true },
		{ "__data_loc char[] cmd", true },
		{ "const char * name", true },
		{ "u8 map[4][8]", true },
		{ "char comm[TASK_COMM_LEN]", true },
		/* what fuzz_report found: an unclosed '[' */
		{ "unsigned in[ nr_sector", false },
		{ "unsigned in] nr_sector", false },
		{ "char comm[[16]]", false },
		{ "char comm[16*2]", false },
		{ "unsigned\tint nr_sector", false },
		{ "unsigned int (nr_sector)", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "%s%s", head, cases[i].print);
		assert_int_equal(fmt_text_ok(text, strlen(text)), cases[i].ok);
	}
	for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "%s\tfield:%s;\toffset:12;\tsize:4;\tsigned:0;\n\n%s",
			 head, decls[i].decl, cases[0].print);
		assert_int_equal(fmt_text_ok(text, strlen(text)), decls[i].ok);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_malformed_sample),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_format_check),
	};

	log_set(testlib_log_keep);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
