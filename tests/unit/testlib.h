/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TESTLIB_H
#define IOTAP_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "source.h"
#include "tfs.h"

struct perf_event_header;
struct session;
struct tep_event;

/*
 * What several unit tests need around the code under test: files of
 * tests/data in memory, the format sets of the kernels captured there, a
 * session source over such a set, a tool run over a recording, and what the
 * core logged.  Every function fails the
 * running cmocka test on an error it does not return; what is returned is
 * the caller's to free.
 */

/* testlib_text_load - a whole file, a NUL after its *len bytes; NULL when it cannot be opened */
char *testlib_text_load(const char *path, size_t *len);

/* testlib_file_load - a whole file in exactly *len bytes, so that ASan sees a read past it */
uint8_t *testlib_file_load(const char *path, size_t *len);

/* testlib_data_load - testlib_file_load of tests/data/<dir>/<name> */
uint8_t *testlib_data_load(const char *dir, const char *name, size_t *len);

/* testlib_formats_dir - a captured kernel's formats directory in buf: KERNEL when it is a path
 * (a capture of the VM tier's), else tests/data/formats/KERNEL */
const char *testlib_formats_dir(const char *kernel, char *buf, size_t n);

/* testlib_format_load - the text of a captured kernel's events/<rel> ("block/x/format") */
char *testlib_format_load(const char *kernel, const char *rel, size_t *len);

/* testlib_fmt_init - fs from a captured kernel's header_page, for 8-byte longs and 4 KiB pages */
void testlib_fmt_init(struct fmt_set *fs, const char *kernel);

/* testlib_fmt_add - the captured format of sys:name parsed into fs; its event (fs owns it) */
struct tep_event *testlib_fmt_add(struct fmt_set *fs, const char *kernel, const char *sys,
				  const char *name);

/* testlib_fmt_load - testlib_fmt_init, then the sys events of a NULL-terminated list added */
void testlib_fmt_load(struct fmt_set *fs, const char *kernel, const char *sys,
		      const char *const *names);

/*
 * A session source whose events are the formats the test put in the session's
 * fs (they are also what it lists of a system): it opens and runs nothing,
 * records come from the test, an event's sample id is its index in the
 * session's events.
 */
extern const struct source_ops testlib_source;

/*
 * testlib_session_new - a session over testlib_source for tool (NULL: none) with params and
 * a zeroed state of the tool's size, output to stdout, --max-stack max_stack. The test puts
 * formats in its fs and disks in its disks; testlib_session_free releases and frees it.
 */
struct session *testlib_session_new(const struct tool *tool, void *params, uint64_t max_stack);

/* testlib_session_free - session_release (which frees the state), then the session (NULL: none) */
void testlib_session_free(struct session *s);

/*
 * testlib_tool_run - the tool called tool_name with the NULL-terminated arguments
 * after it, over the recording (or perf.data) in buf, or at path when buf is NULL
 *
 * Its output is in *out (to free, even on failure); returns what session_init or
 * session_run returned.  The arguments must parse.
 */
int testlib_tool_run(const uint8_t *buf, size_t len, const char *path, char **out,
		     const char *tool_name, ...);

/*
 * A sample of the session's event called name, laid out as testlib_source
 * delivers one (IDENTIFIER, TID, TIME, CPU, then RAW: raw_size bytes from
 * rec + TESTLIB_RAW, zeroed), by thread tid of process pid at time, built in
 * rec (256 bytes); *ev gets the event's format. Fill its fields with
 * testlib_field_put, then hand rec to session_dispatch.
 */
#define TESTLIB_RAW 44
struct perf_event_header *testlib_sample(struct session *s, const char *name, uint32_t pid,
					 uint32_t tid, uint64_t time, uint32_t raw_size,
					 uint8_t rec[256], struct tep_event **ev);
/* testlib_field_put - v into the field called name of ev's raw data, at its offset and size */
void testlib_field_put(struct tep_event *ev, uint8_t *raw, const char *name, uint64_t v);

struct tool;
struct session_opts;
struct cli_args;

/*
 * testlib_session_run - one session of tool with params over the input so
 * names (a recording in memory or a file); ca: its positional arguments
 * (NULL: none). Output as testlib_tool_run's.
 */
int testlib_session_run(const struct tool *tool, void *params, const struct session_opts *so,
			const struct cli_args *ca, char **out);

/* testlib_hist_total - the counts of a BCC histogram's disk section (NULL: all sections) */
uint64_t testlib_hist_total(const char *text, const char *section);

/* What the core logged through testlib_log_keep, warnings prefixed; clear it by writing a NUL. */
extern char testlib_log[4096];

/* testlib_log_keep - a log hook (log_set) appending each line to testlib_log */
void testlib_log_keep(enum log_level level, const char *msg);

/*
 * An ftrace sub-buffer being built, as 6.18's header_page lays it out: u64
 * time stamp, u64 commit (its length, flags beside it), then the events.
 */
#define TESTLIB_PAGE 4096
#define TESTLIB_COMMIT_MISSED (1ull << 31)
#define TESTLIB_COMMIT_STORED (1ull << 30)
struct testlib_page {
	uint8_t b[TESTLIB_PAGE];
	size_t len;		/* bytes of event data */
};

/* testlib_page_event - append one data event of len bytes (a multiple of 4) with its time delta */
void testlib_page_event(struct testlib_page *p, uint32_t delta, const void *data, size_t len);
/* testlib_page_extend - a time-extend event: the next event is delta ns later */
void testlib_page_extend(struct testlib_page *p, uint64_t delta);
/* testlib_page_seal - write the header; flags go in the commit word beside the length */
void testlib_page_seal(struct testlib_page *p, uint64_t ts, uint64_t flags);
/* testlib_complete_entry - a block_rq_complete entry as 6.18 lays it out, into e: its bytes */
size_t testlib_complete_entry(uint8_t *e, uint16_t type, int32_t pid, uint32_t dev,
			      uint64_t sector, uint32_t nr_sector);

#endif
