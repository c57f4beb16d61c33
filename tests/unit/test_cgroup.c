// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cgroup.c - --cgroup and --show-cgroup over a committed recording made with --cgroups;
 * exporter --cgroups over them, in the hierarchy the block controller was on
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
#include <event-parse.h>

#include "cgroup.h"
#include "log.h"
#include "sample.h"
#include "tfs.h"
#include "source-recording.h"
#include "testlib.h"

/*
 * What tests/data/recordings/make-recordings cgroups recorded on loop 7:1: 30 reads
 * in /iotap-rec/a; 20 in /iotap-rec/b, then the same shell moved itself to a and its
 * next child read 10 more.
 */
#define CG_FILE "cgroups-6.18.iotap"
/*
 * What make-recordings cgv1clone recorded on loop 7:3 of a hybrid host (v1 blkio at
 * /sys/fs/cgroup/blkio, name=systemd at /sys/fs/cgroup/systemd, v2 at
 * /sys/fs/cgroup/unified): 30 reads in blkio's /iotap-rec; 20 by a child born straight
 * into the v2 cgroup /iotap-rec/born (clone3 CLONE_INTO_CGROUP) by a parent in the root
 * cgroups; 5 more such children, reaped before the recorder read their cgroup; 10 reads
 * from the root cgroups.
 */
#define CGV1_FILE "cgroups-v1-clone-6.18.iotap"

/* What a report of a cgroup v2 recording made before writeback's events were kept says. */
#define WB_NOT_RECORDED "writeback_single_inode events are not here (a recording made before iotap record --cgroups kept them): writeback is charged to the flusher's cgroup, not to the inode's owner's as io.stat charges it"

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
	uint8_t *buf = testlib_data_load("recordings", CG_FILE, &len);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;

		testlib_log[0] = 0;
		assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "-d", "7:1",
						  "--cgroup", cases[i].cgroup, NULL), 0);
		assert_int_equal(testlib_hist_total(out, NULL), cases[i].reads);
		/* Recorded before writeback's owner was: the one thing it cannot tell, said. */
		assert_string_equal(testlib_log, "warning: " WB_NOT_RECORDED "\n");
		free(out);
	}
	free(buf);
}

/* test_column - biosnoop --show-cgroup names the submitter's cgroup on every line */
static void test_column(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CG_FILE, &len);
	char *out = NULL;

	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biosnoop", "--show-cgroup", NULL),
			 0);
	assert_non_null(strstr(out, "LAT(ms) CGROUP\n"));
	assert_int_equal(count_cgroup(out, "/iotap-rec/a"), 40);
	assert_int_equal(count_cgroup(out, "/iotap-rec/b"), 20);
	free(out);
	/* Without --show-cgroup, BCC's columns as they are. */
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biosnoop", NULL), 0);
	assert_null(strstr(out, "CGROUP"));
	free(out);
	free(buf);
}

/* test_not_recorded - a recording made without --cgroups says what is missing, in one line */
static void test_not_recorded(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", "linux-6.18-loop.iotap", &len);
	char *out = NULL;

	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "--cgroup", "/a",
					  NULL), -ENOENT);
	assert_non_null(strstr(testlib_log, "iotap record --cgroups"));
	assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
	free(out);
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "--cgroup",
					  "relative", NULL), -EINVAL);
	assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
	free(out);
	free(buf);
}

/*
 * test_v1_in_report - a recording made where no v1 hierarchy was mounted holds v2 paths: a
 * v1 hierarchy's directory, named by its mount here or on the recording machine, is refused
 * in one line, never counted as nothing
 */
static void test_v1_in_report(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CG_FILE, &len);
	char *out = NULL;

	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "--cgroup",
					  "/sys/fs/cgroup/blkio/iotap-rec/a", NULL), -EINVAL);
	assert_non_null(strstr(testlib_log, "the recording holds no cgroup v1 hierarchy"));
	assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
	free(out);
	/* The v2 mount of a hybrid host is taken apart from the path, as before. */
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "-d", "7:1",
					  "--cgroup", "/sys/fs/cgroup/unified/iotap-rec/b", NULL), 0);
	assert_int_equal(testlib_hist_total(out, NULL), 20);
	free(out);
	free(buf);
}

/* report_count - biolatency -d 7:3 with --cgroup cg over the v1 and clone recording */
static uint64_t report_count(const uint8_t *buf, size_t len, const char *cg)
{
	char *out = NULL;
	uint64_t n;

	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "-d", "7:3",
					  "--cgroup", cg, NULL), 0);
	n = testlib_hist_total(out, NULL);
	free(out);
	return n;
}

/*
 * test_v1_recorded - a recording made with --cgroups on a hybrid host holds blkio's and the
 * named hierarchies: their directories, as that machine mounted them, count what was there;
 * a v1 hierarchy it does not hold is refused in one line that says which it holds
 */
static void test_v1_recorded(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CGV1_FILE, &len);
	char *out = NULL;

	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/blkio/iotap-rec"), 30);
	assert_string_equal(testlib_log, "");
	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/blkio/iotap-rec/"), 30);
	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/blkio"), 60);
	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/systemd/"), 60);
	assert_string_equal(testlib_log, "");
	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/blkio/iotap-re"), 0);
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biolatency", "--cgroup",
					  "/sys/fs/cgroup/memory/iotap-rec", NULL), -EINVAL);
	assert_non_null(strstr(testlib_log, "the recording holds the cgroup v1 hierarchies "));
	assert_non_null(strstr(testlib_log, "/sys/fs/cgroup/blkio (blkio)"));
	assert_non_null(strstr(testlib_log, "/sys/fs/cgroup/systemd (name=systemd)"));
	assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
	free(out);
	free(buf);
}

/*
 * test_born - a child born straight into a cgroup counts there, not in its parent's; those
 * reaped before the recorder read their cgroup are in none, said once
 */
static void test_born(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CGV1_FILE, &len);
	char *out = NULL;

	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/unified/iotap-rec/born"), 20);
	assert_non_null(strstr(testlib_log, "5 tasks created straight into a cgroup (clone3 CLONE_INTO_CGROUP) had exited before their cgroup could be read"));
	assert_null(strchr(strchr(testlib_log, '\n') + 1, '\n'));
	assert_int_equal(report_count(buf, len, "/iotap-rec"), 20);
	assert_int_equal(report_count(buf, len, "/"), 60);
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "biosnoop", "-d", "7:3",
					  "--show-cgroup", NULL), 0);
	assert_int_equal(count_cgroup(out, "/iotap-rec/born"), 20);
	assert_int_equal(count_cgroup(out, "/"), 40);
	free(out);
	/* The child's v1 cgroups are its parent's: blkio's root. */
	assert_int_equal(report_count(buf, len, "/sys/fs/cgroup/blkio/iotap-rec"), 30);
	free(buf);
}

/* exporter_page - exporter --cgroups -d disk over buf, with one more option (NULL: none): its page */
static char *exporter_page(const uint8_t *buf, size_t len, const char *disk, const char *opt,
			   const char *arg)
{
	char dir[] = "/tmp/test_cgroup.XXXXXX", path[64], *out = NULL, *text;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/page.prom", dir);
	testlib_log[0] = 0;
	assert_int_equal(testlib_tool_run(buf, len, NULL, &out, "exporter", "--cgroups", "-d", disk,
					  "--textfile", path, opt, arg, NULL), 0);
	free(out);
	text = testlib_text_load(path, NULL);
	assert_non_null(text);
	unlink(path);
	rmdir(dir);
	return text;
}

/* page_sum - the sum of the series of metric on the page whose labels hold every one of want */
static uint64_t page_sum(const char *text, const char *metric, const char *want, const char *want2)
{
	uint64_t n = 0;
	size_t m = strlen(metric);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		const char *sp = strchr(line, ' '), *nl = strchr(line, '\n');
		char series[512];

		if (!sp || (nl && nl < sp) || strncmp(line, metric, m) || line[m] != '{' ||
		    (size_t)(sp - line) >= sizeof(series))
			continue;
		snprintf(series, sizeof(series), "%.*s", (int)(sp - line), line);
		if ((!want || strstr(series, want)) && (!want2 || strstr(series, want2)))
			n += strtoull(sp + 1, NULL, 10);
	}
	return n;
}

/* test_v1_io - the v1 hierarchy that holds blkio, alone or beside other controllers */
static void test_v1_io(void **state)
{
	static const struct cgroup_v1 hybrid[] = {
		{ 9, "name=systemd", "/sys/fs/cgroup/systemd" }, { 7, "blkio", "/sys/fs/cgroup/blkio" },
	}, joined[] = { { 3, "cpu,blkio", "/sys/fs/cgroup/cpu,blkio" } },
	   named[] = { { 9, "name=systemd", "/sys/fs/cgroup/systemd" },
		       { 2, "name=blkio2", "/sys/fs/cgroup/blkio2" } };

	assert_int_equal(cgroup_v1_io(hybrid, 2)->id, 7);
	assert_int_equal(cgroup_v1_io(joined, 1)->id, 3);
	assert_null(cgroup_v1_io(named, 2));
	assert_null(cgroup_v1_io(NULL, 0));
}

/*
 * test_exporter_v1 - exporter --cgroups over the hybrid host's recording follows blkio's v1
 * hierarchy as that host had it, and says so; past --cgroup-series the totals stay
 */
static void test_exporter_v1(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CGV1_FILE, &len);
	char *page = exporter_page(buf, len, "7:3", NULL, NULL);

	assert_non_null(strstr(testlib_log, "--cgroups: the cgroups of cgroup v1's blkio hierarchy "
				"(/sys/fs/cgroup/blkio)\n"));
	/* The children born into a v2 cgroup are in blkio's root, with the root's own reads. */
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"/iotap-rec\"",
				  "op=\"read\""), 30);
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"/\"", "op=\"read\""), 30);
	assert_int_equal(page_sum(page, "iotap_cgroup_request_duration_seconds_count", NULL, NULL), 60);
	assert_int_equal(page_sum(page, "iotap_cgroup_bytes_total", NULL, "op=\"read\""),
			 page_sum(page, "iotap_block_request_size_bytes_sum", NULL, "op=\"read\""));
	free(page);
	page = exporter_page(buf, len, "7:3", "--cgroup-series", "1");
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"other\"", NULL), 30);
	assert_int_equal(page_sum(page, "iotap_cgroup_request_duration_seconds_count", NULL, NULL), 60);
	assert_non_null(strstr(page, "\niotap_cgroup_folded_total 1\n"));
	free(page);
	free(buf);
}

/* test_exporter_v2 - over a v2 recording, its cgroups, a task that moved where it sent */
static void test_exporter_v2(void **state)
{
	size_t len;
	uint8_t *buf = testlib_data_load("recordings", CG_FILE, &len);
	char *page = exporter_page(buf, len, "7:1", NULL, NULL);

	assert_non_null(strstr(testlib_log, "--cgroups: the cgroups of cgroup v2\n"));
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"/iotap-rec/a\"",
				  "op=\"read\""), 40);
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"/iotap-rec/b\"",
				  "op=\"read\""), 20);
	free(page);
	page = exporter_page(buf, len, "7:1", "--cgroup-depth", "1");
	assert_int_equal(page_sum(page, "iotap_cgroup_ios_total", "cgroup=\"/iotap-rec\"",
				  "op=\"read\""), 60);
	free(page);
	free(buf);
}

#define K618 "6.18.44-fc-v669"

/* A cgroup tracker over captured formats, its events' handlers called by the test. */
struct wbfix {
	struct fmt_set fs;
	struct {
		const char *sys, *name;
		struct tep_event *ev;
		iotap_handler_fn fn;
		void *arg;
	} sub[8];
	size_t nr;
	bool no_ids;
};

static bool wb_available(void *arg, const char *sys, const char *name)
{
	return true;
}

static struct tep_event *wb_use(void *arg, const char *sys, const char *name,
				iotap_handler_fn fn, void *fn_arg)
{
	struct wbfix *f = arg;

	f->sub[f->nr].sys = sys;
	f->sub[f->nr].name = name;
	f->sub[f->nr].ev = testlib_fmt_add(&f->fs, K618, sys, name);
	f->sub[f->nr].fn = fn;
	f->sub[f->nr].arg = fn_arg;
	return f->sub[f->nr++].ev;
}

/* The flusher (tid 10) in the root, a writer (tid 20) in /ctr, when tracing began. */
static int wb_tasks(void *arg, int root, cgroup_task_fn fn, void *fn_arg)
{
	fn(fn_arg, 10, "/", 1);
	fn(fn_arg, 20, "/ctr", 1);
	return 0;
}

/* The cgroup v2 directories then: the root is 1, /ctr 500, /ctr/sub 501. */
static int wb_ids(void *arg, cgroup_id_fn fn, void *fn_arg)
{
	fn(fn_arg, 1, "/");
	fn(fn_arg, 500, "/ctr");
	fn(fn_arg, 501, "/ctr/sub");
	return 0;
}

/* wb_event - event name by tid at time t, with a number field and a string field (NULL: none) */
static void wb_event(struct wbfix *f, const char *name, uint32_t tid, uint64_t t,
		     const char *field, uint64_t v, const char *sfield, const char *str)
{
	uint8_t raw[256] = { 0 };
	struct perf_sample s = { .time = t, .pid = tid, .tid = tid, .raw = raw };
	size_t i = 0;

	while (i < f->nr && strcmp(f->sub[i].name, name))
		i++;
	assert_true(i < f->nr);
	s.raw_size = 128;
	if (field)
		testlib_field_put(f->sub[i].ev, raw, field, v);
	/* A task that moves moves itself. */
	if (!strcmp(name, "cgroup_attach_task"))
		testlib_field_put(f->sub[i].ev, raw, "pid", tid);
	if (sfield) {
		struct tep_format_field *ff = tep_find_field(f->sub[i].ev, sfield);
		uint32_t off = 160, loc = (uint32_t)(strlen(str) + 1) << 16 | off;

		assert_non_null(ff);
		memcpy(raw + ff->offset, &loc, 4);
		memcpy(raw + off, str, strlen(str) + 1);
		s.raw_size = 224;
	}
	assert_int_equal(f->sub[i].fn(NULL, &s, f->sub[i].arg), 0);
}

/* wb_of - the cgroup what tid submits at t is charged to */
static const char *wb_of(struct cgtrack *ct, uint32_t tid, uint64_t t)
{
	struct perf_sample s = { .time = t, .pid = tid, .tid = tid };
	const char *cg = cgtrack_of(ct, &s);

	return cg ? cg : "?";
}

/*
 * test_writeback - cgroup v2: while a thread writes an inode back, what it submits is the
 * inode's cgroup's (writeback_single_inode_start's cgroup_ino, by the ids known when tracing
 * began, and those of cgroups made or entered since); its own again after; an id no one
 * named stays the flusher's, counted and said once
 */
static void test_writeback(void **state)
{
	struct wbfix f = { 0 };
	struct cgtrack_ops ops = { .arg = &f, .event_available = wb_available, .event_use = wb_use,
				   .tasks = wb_tasks, .ids = wb_ids };
	struct cgtrack *ct;
	struct perf_sample s20 = { .time = 2, .pid = 20, .tid = 20 };

	testlib_fmt_init(&f.fs, K618);
	testlib_log[0] = 0;
	assert_int_equal(cgtrack_create(&ct, &ops, NULL, 0), 0);
	cgtrack_started(ct);
	assert_string_equal(wb_of(ct, 10, 2), "/");
	wb_event(&f, "writeback_single_inode_start", 10, 3, "cgroup_ino", 500, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 3), "/ctr");
	assert_string_equal(wb_of(ct, 20, 3), "/ctr");
	wb_event(&f, "writeback_single_inode", 10, 4, NULL, 0, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 4), "/");
	/* The root (1), where cgroup writeback is off: the flusher's own. */
	wb_event(&f, "writeback_single_inode_start", 10, 5, "cgroup_ino", 1, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 5), "/");
	/* A cgroup made since, and one a task entered. */
	wb_event(&f, "cgroup_mkdir", 30, 6, "id", 700, "path", "/new");
	wb_event(&f, "writeback_single_inode_start", 10, 7, "cgroup_ino", 700, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 7), "/new");
	wb_event(&f, "cgroup_attach_task", 20, 8, "dst_id", 800, "dst_path", "/moved");
	assert_string_equal(wb_of(ct, 20, 8), "/moved");
	wb_event(&f, "writeback_single_inode_start", 10, 9, "cgroup_ino", 800, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 9), "/moved");
	/* An id no one named: the flusher's, said at the end. */
	wb_event(&f, "writeback_single_inode_start", 10, 10, "cgroup_ino", 999, NULL, NULL);
	assert_string_equal(wb_of(ct, 10, 10), "/");
	/* A thread first seen writing back: charged the inode's, its own cgroup still to learn. */
	wb_event(&f, "writeback_single_inode_start", 11, 11, "cgroup_ino", 501, NULL, NULL);
	assert_string_equal(wb_of(ct, 11, 11), "/ctr/sub");
	wb_event(&f, "writeback_single_inode", 11, 12, NULL, 0, NULL, NULL);
	assert_string_equal(wb_of(ct, 11, 12), "?");
	assert_true(cgtrack_match(ct, &s20));
	assert_string_equal(testlib_log, "");
	cgtrack_report(ct);
	assert_string_equal(testlib_log, "warning: 1 inode writeback for a cgroup whose id the input does not name was charged to the flusher's cgroup\n");
	cgtrack_free(ct);
	/* A v1 hierarchy: writeback is not charged per cgroup there, and is not followed. */
	f.nr = 0;
	assert_int_equal(cgtrack_create(&ct, &ops, NULL, 3), 0);
	for (size_t i = 0; i < f.nr; i++)
		assert_string_not_equal(f.sub[i].sys, "writeback");
	cgtrack_free(ct);
	fmt_set_release(&f.fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_column),
		cmocka_unit_test(test_not_recorded),
		cmocka_unit_test(test_v1_in_report),
		cmocka_unit_test(test_v1_recorded),
		cmocka_unit_test(test_born),
		cmocka_unit_test(test_v1_io),
		cmocka_unit_test(test_exporter_v1),
		cmocka_unit_test(test_exporter_v2),
		cmocka_unit_test(test_writeback),
	};

	log_set(testlib_log_keep);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
