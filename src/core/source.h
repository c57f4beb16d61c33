/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SOURCE_H
#define IOTAP_SOURCE_H

/*
 * Where a session's events come from. Everything that differs between the
 * running kernel and a recording is an operation here, implemented once per
 * source (source-live.c, recording.c); nothing above the sources asks which
 * one it has. A source hands every record to session_dispatch() in time
 * order, shaped as perf records (PERF_RECORD_SAMPLE layout for samples,
 * whatever ring it was read from).
 *
 * The call order: open (before the tool's init); event_available,
 * event_attach, event_filter and probe_create while the tool sets up;
 * start; run until it returns 0 or the session stops; close (safe after a
 * partial open). Optional operations may be NULL.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"

struct session;
struct iotap_event;
struct recording_info;

/* A task (tid) was in the cgroup v2 at path from stream time t on. */
typedef void (*cgroup_task_fn)(void *arg, uint32_t tid, const char *path, uint64_t t);
struct ksyms;
struct usyms;

struct source_ops {
	const char *name;
	/* A file source: whether it reads a file that starts with these bytes. */
	bool (*claims)(const void *head, size_t len);
	/* Formats, disks, process names, clocks: what tools need before they set up. */
	int (*open)(struct session *s);
	/* The events of system sys it can deliver: a NULL-terminated array, each name and it freed by the caller. */
	int (*event_names)(struct session *s, const char *sys, char ***names);
	/* Whether sys:name can be delivered (the kernel has it, or it was recorded). */
	bool (*event_available)(struct session *s, const char *sys, const char *name);
	/*
	 * Set ev up for delivery: its format (ev->tep), its sample layout
	 * (ev->sample_type, regs_mask, chain_ids) and whatever reads it; ev->flags
	 * says which stacks it wants. Logs why not; returns 0 or -errno
	 * (-ENOENT: no such event).
	 */
	int (*event_attach)(struct session *s, struct iotap_event *ev);
	/* AND a tracepoint filter clause; tools check in user space too, so may be NULL. */
	int (*event_filter)(struct session *s, struct iotap_event *ev, const char *clause);
	/* A kprobe/uprobe for this run; *sys gets its group. Logs why not. */
	/* Whether probe_create can make p: the kernel has the probe kind, or a recording has it */
	bool (*probe_available)(struct session *s, const struct probe_spec *p);
	int (*probe_create)(struct session *s, const struct probe_spec *p, const char **sys);
	/* Begin delivering (after every event is attached); sets t_start and now. */
	int (*start)(struct session *s);
	/* Deliver records up to deadline: 1 when it was reached, 0 at the end (now set), or -errno. */
	int (*run)(struct session *s, uint64_t deadline);
	/* The event a sample id belongs to, NULL when no tool uses it. */
	struct iotap_event *(*find)(struct session *s, uint64_t id);
	/* The callchain a sample of a chain_ids event names; -EINVAL: none. */
	int (*chain)(struct session *s, struct perf_sample *smp);
	/* Events lost on the i-th CPU so far; -ENOENT past the last. */
	int (*lost)(const struct session *s, int i, int *cpu, uint64_t *lost);
	/* CPUs events are read from (a recording: the recorder's). */
	int (*nr_cpus)(const struct session *s);
	/* The per-CPU sample ids of an attached event, for a recorder; -ENOENT: none. */
	int (*event_ids)(const struct session *s, const struct iotap_event *ev,
			 const uint64_t **ids, size_t *nr);
	/* Every process's open descriptors when tracing began (a recording's FDTB); -EINVAL damaged. */
	int (*fds_initial)(struct session *s, iotap_fd_fn fn, void *arg);
	/* What pid's fd names now (/proc/PID/fd); -ENOENT when not known. */
	int (*fd_path)(struct session *s, uint32_t pid, int fd, char *buf, size_t len);
	/* How fds_initial and fd_path know descriptors' names, for a banner; NULL: they do not. */
	const char *fd_names;
	/* The name of a process no COMM record named, or NULL when unknown. */
	const char *(*comm)(struct session *s, uint32_t pid);
	/* 0 when a PID option may name pid here, -ESRCH when no such process runs. */
	int (*pid_check)(struct session *s, int pid);
	/* Begin loading kernel symbols in the background (a tool takes stacks). */
	void (*ksyms_prefetch)(struct session *s);
	/* Kernel symbols (the caller owns them), or NULL after a warning saying why. */
	struct ksyms *(*ksyms_load)(struct session *s);
	/* The executable mappings of the processes that ran when tracing began. */
	int (*maps_load)(struct session *s, struct usyms *us);
	/* The load averages text ("0.10 0.20 0.30 1/100 42"); -ENODATA when unknown. */
	int (*loadavg)(struct session *s, char *buf, size_t len);
	/* The tool's banner, where events are traced as they happen. */
	void (*announce)(struct session *s, const char *banner);
	/* The hierarchy path ("/a/b") a --cgroup argument names; logs why not (live: no such cgroup). */
	int (*cgroup_path)(struct session *s, const char *arg, char *path, size_t len);
	/* Every task's cgroup v2 path when tracing began, one fn call each; NULL: none known. */
	int (*cgroup_tasks)(struct session *s, cgroup_task_fn fn, void *arg);
	/* A file source: read it all and describe it (report --info); logs why not. */
	int (*info)(struct session *s, struct recording_info *info);
	/* With --verbose, at the end: what the source delivered. */
	void (*report_stats)(struct session *s);
	void (*close)(struct session *s);
};

extern const struct source_ops source_live;
extern const struct source_ops source_file;
extern const struct source_ops source_perf;
extern const struct source_ops source_tracedat;

#endif
