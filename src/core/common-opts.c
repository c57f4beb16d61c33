// SPDX-License-Identifier: GPL-2.0-or-later
/* common-opts.c - the options every tool or command shares, kept in struct session_opts */
#include <stddef.h>

#include "common-opts.h"
#include "session.h"
#include "symbolizer.h"

#define OPT_STR_(x) #x
#define OPT_XSTR(x) OPT_STR_(x)

/* Options kept in struct session_opts, each written once and shared by the tables below. */
#define OPT_INPUT { 'i', "input", OPT_STR, offsetof(struct session_opts, input), "FILE", \
	"read events from a recording made by 'iotap record', or from a perf.data file of " \
	"'perf record -e block:...', instead of tracing live" }
#define OPT_MMAP_PAGES { 0, "mmap-pages", OPT_UINT, offsetof(struct session_opts, mmap_pages), \
	"PAGES", "perf ring size per CPU in pages, a power of two (default " \
	OPT_XSTR(SESSION_MMAP_PAGES_DEFAULT) "); the ftrace buffer per CPU is four times as large", \
	NULL, 1, 1u << 20 }
#define OPT_MAX_STACK { 0, "max-stack", OPT_UINT, offsetof(struct session_opts, max_stack), "N", \
	"deepest callchain to sample, for tools that take stacks (default " \
	OPT_XSTR(SESSION_MAX_STACK_DEFAULT) ")", NULL, 1, 1024 }
#define OPT_VERBOSE { 'v', "verbose", OPT_FLAG, offsetof(struct session_opts, verbose), NULL, \
	"also report requests that could not be paired (flushes, in flight at start)" }
#define OPT_CALL_GRAPH { 0, "call-graph", OPT_CHOICE, offsetof(struct session_opts, call_graph), \
	"MODE", "how user stacks are walked: fp follows frame pointers through a 4 KiB copy of the " \
	"stack; dwarf copies 8 KiB and unwinds it with the binaries' DWARF call frame information " \
	"(for code built without frame pointers; costs more). Either raises --mmap-pages to at " \
	"least 512 (fp) or 1024 (dwarf): samples carry a copy of the user stack", \
	stack_call_graph_names }
#define OPT_SOURCE { 0, "source", OPT_CHOICE, offsetof(struct session_opts, source), "SOURCE", \
	"where live events are read: auto takes every event from the ftrace ring buffer of a " \
	"private tracefs instance (lossless, cheaper), and the callchains of those that need them " \
	"from perf_event_open as well; ftrace or perf forces one ring for every event (ftrace " \
	"cannot take stacks)", \
	session_source_names }
#define OPT_CGROUP { 0, "cgroup", OPT_STR, offsetof(struct session_opts, cgroup), "PATH", \
	"only I/O submitted by tasks in this cgroup or below it, as they were when they submitted " \
	"it; follows tasks that fork or move while tracing, and children created straight into a " \
	"cgroup (clone3 CLONE_INTO_CGROUP, as systemd starts services). A cgroup v2 directory " \
	"(e.g. /sys/fs/cgroup/system.slice), or a cgroup v1 hierarchy's (hybrid and v1 hosts: " \
	"/sys/fs/cgroup/blkio/..., a named one such as /sys/fs/cgroup/systemd/...; a recording " \
	"holds blkio's and the named ones, spelled as the recording machine mounted them)" }
#define OPT_SYMFS { 0, "symfs", OPT_DIR, offsetof(struct session_opts, symfs), "DIR", \
	"look for the binaries of a recording under DIR too: DIR/path, DIR/.build-id/xx/rest and " \
	"DIR/usr/lib/debug (for reports on another machine, or after a binary was removed)" }

/* Options every tool takes. */
const struct opt common_opts[] = { OPT_INPUT, OPT_CGROUP, OPT_SOURCE, OPT_MMAP_PAGES, OPT_MAX_STACK, OPT_VERBOSE,
	OPT_END };
/* The ones that apply to 'iotap record' (it writes a recording, it reads none). */
const struct opt record_common_opts[] = { OPT_SOURCE, OPT_MMAP_PAGES, OPT_MAX_STACK, OPT_CALL_GRAPH,
	OPT_END };
/* The tools that take stacks add how to walk and where to find symbols. */
const struct opt stack_common_opts[] = { OPT_INPUT, OPT_CGROUP, OPT_SOURCE, OPT_MMAP_PAGES, OPT_MAX_STACK,
	OPT_CALL_GRAPH,
	OPT_SYMFS, OPT_VERBOSE, OPT_END };
/* The ones that 'iotap report' takes before the tool name (--symfs: for --html's stacks). */
const struct opt report_common_opts[] = { OPT_INPUT, OPT_SYMFS, OPT_END };
