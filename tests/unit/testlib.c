// SPDX-License-Identifier: GPL-2.0-or-later
/* testlib.c - scaffolding shared by the unit tests (testlib.h) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <event-parse.h>

#include "opt.h"
#include "select.h"
#include "session.h"
#include "stacks.h"
#include "testlib.h"

char testlib_log[4096];

/* file_read - all of f, closed after, in a buffer pad bytes longer than *len */
static char *file_read(FILE *f, size_t pad, size_t *len)
{
	char *buf;
	long n;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n + pad ? n + pad : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* testlib_text_load - a whole file, a NUL after its *len bytes; NULL when it cannot be opened */
char *testlib_text_load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	char *buf;

	if (!f)
		return NULL;
	buf = file_read(f, 1, &n);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* testlib_file_load - a whole file in exactly *len bytes, so that ASan sees a read past it */
uint8_t *testlib_file_load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	return (uint8_t *)file_read(f, 0, len);
}

/* testlib_data_load - testlib_file_load of tests/data/<dir>/<name> */
uint8_t *testlib_data_load(const char *dir, const char *name, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", TEST_DATA, dir, name);
	return testlib_file_load(path, len);
}

/* testlib_formats_dir - where a kernel's captured formats are: KERNEL itself when a path */
const char *testlib_formats_dir(const char *kernel, char *buf, size_t n)
{
	if (kernel[0] == '/')
		snprintf(buf, n, "%s", kernel);
	else
		snprintf(buf, n, "%s/formats/%s", TEST_DATA, kernel);
	return buf;
}

/* testlib_format_load - the text of a captured kernel's events/<rel> ("block/x/format") */
char *testlib_format_load(const char *kernel, const char *rel, size_t *len)
{
	char path[768], dir[512], *text;

	snprintf(path, sizeof(path), "%s/events/%s", testlib_formats_dir(kernel, dir, sizeof(dir)),
		 rel);
	text = testlib_text_load(path, len);
	assert_non_null(text);
	return text;
}

/* testlib_fmt_init - fs from a captured kernel's header_page, for 8-byte longs and 4 KiB pages */
void testlib_fmt_init(struct fmt_set *fs, const char *kernel)
{
	size_t len;
	char *hp = testlib_format_load(kernel, "header_page", &len);

	assert_int_equal(fmt_set_init(fs, hp, len, 8, 4096), 0);
	free(hp);
}

/* testlib_fmt_add - the captured format of sys:name parsed into fs; its event (fs owns it) */
struct tep_event *testlib_fmt_add(struct fmt_set *fs, const char *kernel, const char *sys,
				  const char *name)
{
	struct tep_event *ev;
	char rel[256], *text;
	size_t len;

	snprintf(rel, sizeof(rel), "%s/%s/format", sys, name);
	text = testlib_format_load(kernel, rel, &len);
	ev = fmt_set_add(fs, sys, name, text, len);
	assert_non_null(ev);
	free(text);
	return ev;
}

/* testlib_fmt_load - testlib_fmt_init, then the sys events of a NULL-terminated list added */
void testlib_fmt_load(struct fmt_set *fs, const char *kernel, const char *sys,
		      const char *const *names)
{
	testlib_fmt_init(fs, kernel);
	for (; *names; names++)
		testlib_fmt_add(fs, kernel, sys, *names);
}

/* source_open - nothing to open */
static int source_open(struct session *s)
{
	return 0;
}

/* source_available - the formats the test loaded */
static bool source_available(struct session *s, const char *sys, const char *name)
{
	return fmt_set_find(&s->fs, sys, name) != NULL;
}

/* source_attach - the formats the test loaded; a missing one is logged as the live source does */
static int source_attach(struct session *s, struct iotap_event *ev)
{
	ev->tep = fmt_set_find(&s->fs, ev->sys, ev->name);
	if (!ev->tep) {
		log_msg(LOG_ERR, "this kernel has no %s:%s tracepoint", ev->sys, ev->name);
		return -ENOENT;
	}
	return 0;
}

/* source_run - records come from the test */
static int source_run(struct session *s, uint64_t deadline)
{
	return 0;
}

/* source_event_names - the names of the formats of sys the test loaded */
static int source_event_names(struct session *s, const char *sys, char ***names)
{
	char **arr = calloc(s->fs.nr + 1, sizeof(*arr));
	size_t n = 0;

	assert_non_null(arr);
	for (size_t i = 0; i < s->fs.nr; i++) {
		if (strcmp(s->fs.ev[i].sys, sys))
			continue;
		arr[n] = strdup(s->fs.ev[i].name);
		assert_non_null(arr[n]);
		n++;
	}
	if (!n) {
		free(arr);
		return -ENOENT;
	}
	*names = arr;
	return 0;
}

/* source_find - the event a sample id indexes */
static struct iotap_event *source_find(struct session *s, uint64_t id)
{
	return id < s->nr_ev ? s->ev[id] : NULL;
}

/* source_close - nothing to close */
static void source_close(struct session *s)
{
}

const struct source_ops testlib_source = {
	.open = source_open, .event_available = source_available, .event_attach = source_attach,
	.run = source_run, .find = source_find, .close = source_close,
	.event_names = source_event_names,
};

/* testlib_session_run - one session of tool with its options (so: and its input) */
int testlib_session_run(const struct tool *tool, void *params, const struct session_opts *so,
			const struct cli_args *ca, char **out)
{
	struct cli_args none = { 0 };
	struct session s;
	size_t outlen;
	FILE *f;
	int ret;

	if (!ca)
		ca = &none;
	f = open_memstream(out, &outlen);
	assert_non_null(f);
	session_stacks_set(stacks_session_want);
	ret = session_init(&s, tool, params, so);
	s.ctx.out = f;
	if (!ret)
		ret = session_run(&s, ca->interval_ns, ca->count, ca->duration_ns);
	session_release(&s);
	fclose(f);
	return ret;
}

/* testlib_session_new - a session over testlib_source, for the test to fill */
struct session *testlib_session_new(const struct tool *tool, void *params, uint64_t max_stack)
{
	struct session *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->src = &testlib_source;
	s->host = &host_none;
	s->ctx.sess = s;
	s->opts.max_stack = max_stack;
	if (tool)
		assert_int_equal(tool_consumer_add(s, &s->ctx, tool, params, stdout), 0);
	return s;
}

/* testlib_session_free - release and free a testlib_session_new session */
void testlib_session_free(struct session *s)
{
	if (!s)
		return;
	session_release(s);
	free(s);
}

/* testlib_tool_run - a tool with its arguments over a recording in memory or a file */
int testlib_tool_run(const uint8_t *buf, size_t len, const char *path, char **out,
		     const char *tool_name, ...)
{
	const struct tool *tool = tool_find(tool_name);
	struct session_opts so = { .mmap_pages = 128, .input_buf = buf, .input_len = len,
				   .input = path };
	char *argv[16], err[256];
	struct cli_args ca;
	void *params;
	va_list ap;
	int argc = 0, ret;

	assert_non_null(tool);
	argv[argc++] = (char *)tool_name;
	va_start(ap, tool_name);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	params = calloc(1, tool->params_size);
	assert_int_equal(opt_parse(&tool->cmd, argc, argv, params, &so, &ca, err, sizeof(err)), 0);
	ret = testlib_session_run(tool, params, &so, &ca, out);
	free(params);
	return ret;
}

/* testlib_hist_total - the counts of a BCC histogram's disk section (NULL: all sections) */
uint64_t testlib_hist_total(const char *text, const char *section)
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

/* testlib_log_keep - a log hook (log_set) appending each line to testlib_log */
void testlib_log_keep(enum log_level level, const char *msg)
{
	size_t n = strlen(testlib_log);

	snprintf(testlib_log + n, sizeof(testlib_log) - n, "%s%s\n",
		 level == LOG_WARN ? "warning: " : "", msg);
}

/* testlib_page_event - one data event appended, with its time delta */
void testlib_page_event(struct testlib_page *p, uint32_t delta, const void *data, size_t len)
{
	uint32_t hdr = (uint32_t)(len / 4) | delta << 5;

	assert_true(len % 4 == 0 && len <= 112 && 16 + p->len + 4 + len <= TESTLIB_PAGE);
	memcpy(p->b + 16 + p->len, &hdr, 4);
	memcpy(p->b + 16 + p->len + 4, data, len);
	p->len += 4 + len;
}

/* testlib_page_extend - a time-extend event: the next event is delta ns later */
void testlib_page_extend(struct testlib_page *p, uint64_t delta)
{
	uint32_t hdr = 30 | (uint32_t)(delta & ((1u << 27) - 1)) << 5, hi = delta >> 27;

	memcpy(p->b + 16 + p->len, &hdr, 4);
	memcpy(p->b + 16 + p->len + 4, &hi, 4);
	p->len += 8;
}

/* testlib_page_seal - the header: time stamp, and the commit word with flags beside it */
void testlib_page_seal(struct testlib_page *p, uint64_t ts, uint64_t flags)
{
	uint64_t commit = p->len | flags;

	memcpy(p->b, &ts, 8);
	memcpy(p->b + 8, &commit, 8);
}

/* testlib_complete_entry - a block_rq_complete entry at 6.18's format file offsets */
size_t testlib_complete_entry(uint8_t *e, uint16_t type, int32_t pid, uint32_t dev,
			      uint64_t sector, uint32_t nr_sector)
{
	uint32_t loc = 1u << 16 | 48;

	memset(e, 0, 52);
	memcpy(e, &type, 2);
	memcpy(e + 4, &pid, 4);
	memcpy(e + 8, &dev, 4);
	memcpy(e + 16, &sector, 8);
	memcpy(e + 24, &nr_sector, 4);
	memcpy(e + 34, "R", 2);
	/* __data_loc cmd: an empty string at offset 48 */
	memcpy(e + 44, &loc, 4);
	return 52;		/* 48 + the one-byte string, rounded up to 4 */
}

/* testlib_sample - a sample of the event called name in rec (testlib.h) */
struct perf_event_header *testlib_sample(struct session *s, const char *name, uint32_t pid,
					 uint32_t tid, uint64_t time, uint32_t raw_size,
					 uint8_t rec[256], struct tep_event **ev)
{
	struct perf_event_header *h = (void *)rec;
	uint64_t id = UINT64_MAX, ids = (uint64_t)tid << 32 | pid;

	assert_true(TESTLIB_RAW + raw_size <= 256);
	*ev = NULL;
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (!strcmp(s->ev[i]->name, name)) {
			id = i;
			*ev = s->ev[i]->tep;
		}
	}
	assert_non_null(*ev);
	memset(rec, 0, 256);
	h->type = PERF_RECORD_SAMPLE;
	h->size = TESTLIB_RAW + raw_size;
	memcpy(rec + 8, &id, 8);
	memcpy(rec + 16, &ids, 8);
	memcpy(rec + 24, &time, 8);
	memcpy(rec + 40, &raw_size, 4);
	return h;
}

/* testlib_field_put - v into the field called name (testlib.h) */
void testlib_field_put(struct tep_event *ev, uint8_t *raw, const char *name, uint64_t v)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	assert_non_null(f);
	assert_true(f->size <= 8);
	memcpy(raw + f->offset, &v, f->size);
}
