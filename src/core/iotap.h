/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_IOTAP_H
#define IOTAP_IOTAP_H

/*
 * The interface between the core and the tools. A tool is a declaration:
 * its options, the events it may use, and three callbacks. It never knows
 * whether its events come from the live kernel or from a recording.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sample.h"

struct iotap_ctx;
struct iotap_event;
struct tep_event;

/* Option table: one entry drives parsing, --help and the man page. */
enum opt_type {
	OPT_FLAG,		/* bool */
	OPT_UINT,		/* uint64_t within [min, max] */
	OPT_STR,		/* const char * */
	OPT_CHOICE,		/* int: index into choices */
	OPT_PID,		/* int, > 0; checked to exist when live */
	OPT_DISK,		/* const char *: resolved by the tool via iotap_disk_resolve */
	OPT_LIST,		/* unsigned int: bit i for choices[i]; comma-separated, repeatable */
	OPT_OUTFILE,		/* const char *: a file to write, checked writable when parsed */
	OPT_DIR,		/* const char *: a directory to read, checked when parsed */
	OPT_ALIAS,		/* another spelling (a peer's) of the option whose long name is same_as */
	OPT_REFUSE,		/* a peer's flag iotap does not take: refused, help says why */
};

struct opt {
	char short_name;
	const char *long_name;
	enum opt_type type;
	size_t offset;			/* into the tool's params */
	const char *arg;		/* name of the argument in help, NULL for flags */
	const char *help;
	const char *const *choices;	/* OPT_CHOICE / OPT_LIST */
	uint64_t min, max;		/* OPT_UINT */
	bool dash_alias;		/* also spelled with one dash (-io), which getopt cannot parse */
	const char *same_as;		/* OPT_ALIAS: the long name of the option it spells */
	/*
	 * OPT_ALIAS of a path: a value without a '/' is refused, naming this,
	 * iotap's spelling of what the letter meant to it before (biosnoop -c).
	 */
	const char *clash;
};

#define OPT_END { 0 }

/* Events a tool may use: recorded by `iotap record`, listed in its man page. */
#define TOOL_EV_OPTIONAL	(1u << 0)	/* not every kernel has it */
#define TOOL_EV_STACK		(1u << 1)	/* samples need a callchain */
/*
 * Recorded when the tool is named (record --tools) or with --all, never in the default
 * recording, whose size it would multiply: an option's (biotop --originator), or events
 * that also fire for I/O that is no block I/O (io_uring's).
 */
#define TOOL_EV_OPTIN		(1u << 2)

struct tool_event {
	const char *sys;
	const char *name;
	unsigned int flags;
};

/* A probe a tool asks for: where, and what it fetches. */
struct probe_spec {
	bool uprobe, ret;
	const char *name;		/* the event's name */
	const char *path;		/* uprobe: the binary */
	bool libc;			/* uprobe: in the C library iotap runs with (path unused) */
	const char *symbol;		/* kprobe target, or the function in path */
	uint64_t offset;		/* from symbol */
	const char *args;		/* fetchargs, or NULL */
	bool fallback;			/* in a table: made only where the one before it is not */
	/*
	 * Fetchargs that depend on the kernel the probe is made in (BTF offsets,
	 * iotap_member_offset), written to buf by whoever makes it; 0 or -errno
	 * (-ENOENT: not this kernel). Used instead of args when not NULL.
	 */
	int (*args_fn)(struct iotap_ctx *ctx, char *buf, size_t len);
};

/* Positional arguments a tool takes after its options. */
enum tool_args {
	TOOL_ARGS_NONE,
	TOOL_ARGS_INTERVAL,	/* [interval [count]] */
	TOOL_ARGS_DURATION,	/* [duration] */
	TOOL_ARGS_SPEC,		/* one specification string (probe) */
	TOOL_ARGS_COMMAND,	/* [--] [command [arg...]]: record runs it */
	TOOL_ARGS_TOOL,		/* [tool [tool options]]: report runs it */
};

/*
 * A command as the command line knows it: the one declaration that drives
 * its parsing, --help, man page and completion (src/cli). The commands that
 * are no analysis (record, report: src/cli/cmds.h) are just this; a tool
 * has one too, its cmd.
 */
#define CMD_SPEC_FIELDS \
	const char *name; \
	const char *alias;		/* another name it answers to, or NULL */ \
	const char *summary; \
	const char *description;	/* man page DESCRIPTION, plain text paragraphs */ \
	const char *examples;		/* man page EXAMPLES: "command\n  what it does\n" pairs */ \
	enum tool_args args; \
	unsigned int default_interval;	/* TOOL_ARGS_INTERVAL: seconds; 0: one report at the end */ \
	const char *interval_does;	/* TOOL_ARGS_INTERVAL, lower case; NULL: print and reset */ \
	const struct opt *opts; \
	const struct opt *common;	/* kept in struct session_opts; NULL: common_opts */ \
	size_t params_size;		/* the struct opts fill */

struct cmd_spec {
	CMD_SPEC_FIELDS
};

/* An analysis: the events it uses and what it does with them, and its command line. */
struct tool {
	/* Its command line: cmd for the CLI, the same fields by name for everyone (t->name). */
	union {
		struct cmd_spec cmd;
		struct { CMD_SPEC_FIELDS };
	};
	const char *banner;		/* printed when live tracing starts, BCC style */
	const struct tool_event *events;
	/*
	 * Probes it may make with iotap_probe_create, ended by one without a
	 * name; `iotap record` makes (and records) those the kernel can. NULL: none.
	 */
	const struct probe_spec *probes;
	/* It names files by descriptor (iotap_fds_initial): a recording keeps every process's at its start. */
	bool fds_initial;
	size_t state_size;
	int (*init)(struct iotap_ctx *ctx);
	int (*report)(struct iotap_ctx *ctx);
	void (*fini)(struct iotap_ctx *ctx);
	/* Optional: once events flow, before the first is delivered. */
	int (*start)(struct iotap_ctx *ctx);
	/* Optional: the fd given to iotap_wake_fd is readable, the events up to now delivered. */
	int (*wake)(struct iotap_ctx *ctx);
};

/* What a tool sees of the session. */
struct iotap_ctx {
	const struct tool *tool;
	void *params;
	void *state;
	FILE *out;
	uint64_t interval_ns;		/* 0: one report at the end */
	uint64_t duration_ns;		/* TOOL_ARGS_DURATION; 0: until stopped */
	bool final;			/* the current report is the last */
	bool data_out;			/* out is for a program (folded stacks): the banner goes to the log */
	const char *spec;		/* TOOL_ARGS_SPEC */
	struct session *sess;
	size_t declared_next;		/* the core's: where its next look into tool->events starts */
};

typedef int (*iotap_handler_fn)(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg);

/* Sample flags for iotap_event_use. */
#define IOTAP_EV_KSTACK	(1u << 0)
#define IOTAP_EV_USTACK	(1u << 1)

/*
 * Events a tool subscribes to. iotap_event_use: fn is called for each sample of sys:name;
 * the event (the session owns it), or NULL with errno set (ENOENT: no such event, said
 * through the log hook; ENOMEM). iotap_event_each: fn for each event of sys whose name
 * matches pattern; how many matched (0: none), -ENOENT (no such system) or fn's non-zero
 * return. iotap_probe_create: a kprobe or uprobe made for this run (removed at its end);
 * 0 with *sys its group, -ENOTSUP when the source makes no probes (a recording without
 * it), or the source's -errno (logged).
 */
struct iotap_event *iotap_event_use(struct iotap_ctx *ctx, const char *sys, const char *name,
				    unsigned int flags, iotap_handler_fn fn, void *arg);
bool iotap_event_available(struct iotap_ctx *ctx, const char *sys, const char *name);
/* iotap_event_stacks: whether sys:name can come with its callchain (a recording: was recorded so) */
bool iotap_event_stacks(struct iotap_ctx *ctx, const char *sys, const char *name);
typedef int (*iotap_event_each_fn)(struct iotap_ctx *ctx, const char *sys, const char *name,
				   void *arg);
int iotap_event_each(struct iotap_ctx *ctx, const char *sys, const char *pattern,
		     iotap_event_each_fn fn, void *arg);
bool iotap_probe_available(struct iotap_ctx *ctx, const struct probe_spec *p);
int iotap_probe_create(struct iotap_ctx *ctx, const struct probe_spec *p, const char **sys);
void iotap_stop(struct iotap_ctx *ctx);
/*
 * iotap_procs_unused - from init: nothing this tool shows names a process or
 * filters by one, so a live session takes no process side-band (the host's
 * COMM, FORK and EXIT records, and each event's thread looked up in the map
 * of processes). No effect with --cgroup, whose tracker follows tasks.
 */
void iotap_procs_unused(struct iotap_ctx *ctx);
/*
 * iotap_pids_unread - from init: nothing this tool shows reads an event's
 * process, but something beside it in the session does so later (a flight
 * recorder's dumps, filled in from the live map of each thread's process):
 * the map is kept, and a live event comes with its thread's id as its pid.
 * No effect with --cgroup, which decides by each event's process.
 */
void iotap_pids_unread(struct iotap_ctx *ctx);
/*
 * iotap_input_is_file - whether -i names a file to read events from instead
 * of the live kernel; for an option that only a live run can honour, which
 * the tool then refuses. Cannot fail.
 */
bool iotap_input_is_file(const struct iotap_ctx *ctx);
/*
 * iotap_wake_fd - from init: when fd (the tool's, open until its fini) is
 * readable, the events so far are delivered and the tool's wake runs, which
 * reads fd. For work another thread asks for (a scrape). 0, or -EOPNOTSUPP
 * when the source never waits (a file: the tool's reports are all it gets).
 */
int iotap_wake_fd(struct iotap_ctx *ctx, int fd);

/*
 * File descriptors' names beyond the traced open syscalls (systrack.h).
 * iotap_fds_initial: fn for each descriptor every process had open when
 * tracing began (0, fn's error, -EINVAL damaged: logged, -ENOTSUP: the source does
 * not know them). iotap_fd_path: what pid's fd names now (-ENOENT: not
 * known, -ENOTSUP: the source cannot tell). iotap_fd_names: how the source
 * knows, for a banner ("" when it does not).
 */
typedef int (*iotap_fd_fn)(void *arg, uint32_t pid, int fd, const char *path);
int iotap_fds_initial(struct iotap_ctx *ctx, iotap_fd_fn fn, void *arg);
int iotap_fd_path(struct iotap_ctx *ctx, uint32_t pid, int fd, char *buf, size_t len);
const char *iotap_fd_names(struct iotap_ctx *ctx);

/*
 * Cgroups (cgroup.h): --cgroup PATH keeps the I/O submitted by tasks in that
 * cgroup or below it. A tool decides at the submitter's event, never later.
 * The strings live as long as the session. iotap_cgroup_track: follow every
 * task's cgroup for a tool that shows them; 0 or -errno (-ENOMEM, or the
 * source's, logged). iotap_cgroup_of: the cgroup of a sample's task at its
 * time, NULL (no error) when not known.
 */
int iotap_cgroup_track(struct iotap_ctx *ctx);
/*
 * iotap_cgroup_track_io - as iotap_cgroup_track, in the hierarchy the block I/O controller
 * is on, whose limits (blk-throttle, io.max, blkio.throttle.*) and counters (io.stat,
 * blkio.throttle.io_serviced) its cgroups have: cgroup v1's blkio one where it holds blkio
 * (a hybrid or v1 host; over a recording, the recording machine's, where record --cgroups
 * kept it), else cgroup v2's; with --cgroup, that one's. Into which (len bytes), the words
 * that say which for an info line. 0 or as iotap_cgroup_track.
 */
int iotap_cgroup_track_io(struct iotap_ctx *ctx, char *which, size_t len);
const char *iotap_cgroup_of(struct iotap_ctx *ctx, const struct perf_sample *s);
bool iotap_cgroup_match(struct iotap_ctx *ctx, const struct perf_sample *s);
bool iotap_cgroup_filtering(struct iotap_ctx *ctx);
/*
 * iotap_event_format: the event's parsed kernel format (never NULL). iotap_event_filter:
 * AND a tracepoint filter, applied in the kernel where the source has one (tools check
 * every filtered field in user space too); 0 or the source's -errno (-EINVAL: the kernel
 * refused it, logged).
 */
struct tep_event *iotap_event_format(struct iotap_event *ev);
int iotap_event_filter(struct iotap_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Disks of the host events come from. iotap_disk_resolve: "sda", "/dev/sda" or "8:0" to
 * its dev_t; 0 or -ENODEV (no such disk). iotap_disk_partition: where partition dev lies
 * on its disk; 0, -ENOENT (dev is a whole disk) or -ENODATA (a partition whose place is
 * not known: a recording does not keep it). iotap_disk_name: dev's name, "MAJ:MIN" when
 * not known (never NULL). iotap_disk_sched: its I/O scheduler, "" when not known.
 */
int iotap_disk_resolve(struct iotap_ctx *ctx, const char *name, uint32_t *dev);
int iotap_disk_partition(struct iotap_ctx *ctx, uint32_t dev, uint32_t *disk, uint64_t *start,
			 uint64_t *nr_sectors);
const char *iotap_disk_name(struct iotap_ctx *ctx, uint32_t dev);
const char *iotap_disk_sched(struct iotap_ctx *ctx, uint32_t dev);
/* The kinds of device iotap_device_gone knows, and how its name names one. */
enum iotap_device {
	IOTAP_DEV_BLOCK,	/* a block device by number, "MAJ:MIN" */
	IOTAP_DEV_DISK,		/* a block device by name, "nvme0n1" */
	IOTAP_DEV_NVME,		/* an NVMe controller, "nvme0" */
	IOTAP_DEV_SCSI,		/* a SCSI device, "H:C:I:L" */
};
/*
 * Whether a device has gone from the host events come from, or holds no medium (a size of
 * 0: a detached loop device): 1 gone, 0 there, -ENODATA when not known (a recording, whose
 * devices stay as recorded).
 */
int iotap_device_gone(struct iotap_ctx *ctx, enum iotap_device kind, const char *name);
/*
 * iotap_pid_check: whether a -p PID names a process the source can see (and a live one then
 * learns every thread's process from its birth, in the stream); 0, -EINVAL
 * (not a PID, or a thread's id: refused, logged with its process), -ESRCH (no such
 * process) or -ENOMEM. iotap_comm: a process's name, "?" when not known (never NULL).
 */
int iotap_pid_check(struct iotap_ctx *ctx, int pid);
const char *iotap_comm(struct iotap_ctx *ctx, uint32_t pid);

/* The stream's health so far: events delivered, lost to full rings, counted but never delivered. */
void iotap_stream_stats(struct iotap_ctx *ctx, uint64_t *events, uint64_t *lost,
			uint64_t *undelivered);

/*
 * Time. iotap_now: the stream time (CLOCK_MONOTONIC ns) of the report being printed.
 * iotap_strftime: a stream time as local wall-clock text; 0, -ERANGE (a time out of
 * range) or -EINVAL (not representable, or buf too small). iotap_loadavg: the load averages where events come from; 0 or -ENODATA
 * (not known).
 */
uint64_t iotap_now(struct iotap_ctx *ctx);
int iotap_strftime(struct iotap_ctx *ctx, uint64_t mono_ns, const char *fmt, char *buf,
		   size_t len) __attribute__((format(strftime, 3, 0)));
uint64_t iotap_wall_ns(struct iotap_ctx *ctx, uint64_t mono_ns);
void iotap_interval_header(struct iotap_ctx *ctx, bool timestamp);
uint64_t iotap_start_time(struct iotap_ctx *ctx);
int iotap_loadavg(struct iotap_ctx *ctx, char *buf, size_t len);
/*
 * The machine events come from, as uname(2) names it: a field the source does not
 * know is "". iotap_machine: 0, or -ENODATA when the source knows none of it.
 */
struct iotap_machine {
	char host[65], sysname[65], release[65], version[65], arch[65];
};
int iotap_machine(struct iotap_ctx *ctx, struct iotap_machine *m);
/*
 * The offset of member in struct strct of the kernel events come from (its BTF), for a
 * probe's fetchargs: 0, -ENOENT when that kernel has none, -ENODATA when not known here
 * (a recording).
 */
int iotap_member_offset(struct iotap_ctx *ctx, const char *strct, const char *member,
			uint32_t *offset);

void iotap_err(struct iotap_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void iotap_warn(struct iotap_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void iotap_info(struct iotap_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool iotap_verbose(struct iotap_ctx *ctx);

/*
 * Completions came and none paired with the event that starts them (start, seen
 * n_start times): say so once (*said), without -v, at the end of the run or as soon as
 * there are IOTAP_UNPAIRED_SURE of them. what names one completion ("NVMe command").
 * Nothing is said while any paired.
 */
#define IOTAP_UNPAIRED_SURE 1024
void iotap_unpaired_say(struct iotap_ctx *ctx, bool *said, uint64_t paired, uint64_t unmatched,
			const char *what, const char *start, uint64_t n_start);

/* The registry of tools (src/tools/registry.c); tool_find: by name or alias, NULL (no error) if none. */
extern const struct tool *const iotap_tools[];
const struct tool *tool_find(const char *name);

/*
 * An event's samples as text, and tracepoint filters checked in user space
 * (event-text.c). iotap_event_print: the fields of s as ev's own print
 * format renders them (0, -ENOMEM). iotap_filter_alloc: expr in the kernel's
 * filter syntax for ev, for the samples a source did not filter (a
 * recording holds what the kernel let through, or everything); 0, -EINVAL
 * (not a filter for ev) or -ENOMEM; the caller frees with iotap_filter_free
 * (NULL is fine). iotap_filter_match: whether s passes (NULL passes all).
 */
struct iotap_filter;
int iotap_event_print(struct iotap_event *ev, const struct perf_sample *s, FILE *out);
int iotap_filter_alloc(struct iotap_event *ev, const char *expr, struct iotap_filter **f);
bool iotap_filter_match(const struct iotap_filter *f, const struct perf_sample *s);
void iotap_filter_free(struct iotap_filter *f);

#endif
