/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SYSTRACK_H
#define IOTAP_SYSTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "iotap.h"

/*
 * File I/O syscalls as the file tools see them: sys_enter/sys_exit pairs per
 * thread, with the descriptor's file name. Names come from uprobes on the C
 * library's open functions (the path string as the program passed it, matched
 * to the openat that follows by its pointer), else from what the source knows
 * (iotap_fds_initial, iotap_fd_path: a recording's descriptor table at its
 * start, /proc/PID/fd when live); descriptors are followed through open, dup,
 * fcntl, close, fork, exec and exit (fdtab.h). Where the kernel has kprobes, a
 * kretprobe on getname (or getname_flags) gives the kernel's own copy of the
 * path inside the open syscall, which also names files of programs that bypass
 * the C library. Eprobes on sys_enter_openat would do the same without kprobes
 * (the ftrace ring buffer delivers them); not done yet.
 */
enum sys_kind {
	SYS_READ,
	SYS_WRITE,
	SYS_SYNC,			/* fsync, fdatasync, sync_file_range */
	SYS_OPEN,
	SYS_URING,			/* io_uring_enter */
	SYS_CLOSE,			/* the rest only change descriptor tables */
	SYS_DUP,
	SYS_FCNTL,
	SYS_NR_KINDS,
};

#define SYS_KIND(k) (1u << (k))

/* One syscall of one thread, from enter to exit. */
struct sys_call {
	const char *name;		/* "pread64" */
	enum sys_kind kind;
	uint32_t pid, tid;
	int fd;				/* -1: none */
	const char *path;		/* the file's name; NULL: unknown */
	uint64_t count;			/* bytes asked for (read/write), 0 for vectors */
	uint64_t t_enter, t_exit;
	int64_t ret;
	uint64_t seq;			/* unique per call */
	uint64_t user[8];		/* the tool's counters for this call, zero at enter */
};

struct systrack_cfg {
	unsigned int kinds;		/* SYS_KIND() of the syscalls to report */
	bool names;			/* follow descriptors to file names */
	int pid;			/* report this process only; 0: all */
	const char *comm;		/* report this command only; NULL: all */
	/*
	 * IOTAP_EV_KSTACK, IOTAP_EV_USTACK: the exit events of the kinds reported come with
	 * the callchain of the thread (user frames: where the program made the call)
	 */
	unsigned int stack_flags;
	int (*on_enter)(void *arg, struct sys_call *c);
	/* s: the sys_exit event, with its callchain under stack_flags */
	int (*on_exit)(void *arg, struct sys_call *c, const struct perf_sample *s);
	void *arg;
};

struct systrack;

/*
 * The syscalls:, sched: events the tracker uses, for a tool's events table: the
 * groups of the kinds it asks for (SYSTRACK_EVENTS_NAMES with cfg.names, which
 * needs the open and read/write ones too). The exits of the kinds a tool reports
 * may carry stacks (cfg.stack_flags); those that only follow descriptors never do.
 */
#define SYSTRACK_SYS(n) \
	{ "syscalls", "sys_enter_" n, TOOL_EV_OPTIONAL }, \
	{ "syscalls", "sys_exit_" n, TOOL_EV_OPTIONAL }
#define SYSTRACK_SYS_STACK(n) \
	{ "syscalls", "sys_enter_" n, TOOL_EV_OPTIONAL }, \
	{ "syscalls", "sys_exit_" n, TOOL_EV_OPTIONAL | TOOL_EV_STACK }
#define SYSTRACK_EVENTS_RW \
	{ "syscalls", "sys_enter_read", 0 }, { "syscalls", "sys_exit_read", TOOL_EV_STACK }, \
	SYSTRACK_SYS_STACK("write"), SYSTRACK_SYS_STACK("pread64"), \
	SYSTRACK_SYS_STACK("pwrite64"), SYSTRACK_SYS_STACK("readv"), SYSTRACK_SYS_STACK("writev"), \
	SYSTRACK_SYS_STACK("preadv"), SYSTRACK_SYS_STACK("pwritev"), \
	SYSTRACK_SYS_STACK("preadv2"), SYSTRACK_SYS_STACK("pwritev2")
#define SYSTRACK_EVENTS_SYNC \
	SYSTRACK_SYS_STACK("fsync"), SYSTRACK_SYS_STACK("fdatasync"), \
	SYSTRACK_SYS_STACK("sync_file_range")
/* The opens: to follow names, or (_STACKS) for a tool that reports them, with stacks. */
#define SYSTRACK_EVENTS_OPEN \
	SYSTRACK_SYS("openat"), SYSTRACK_SYS("open"), SYSTRACK_SYS("creat"), SYSTRACK_SYS("openat2")
#define SYSTRACK_EVENTS_OPEN_STACKS \
	SYSTRACK_SYS_STACK("openat"), SYSTRACK_SYS_STACK("open"), SYSTRACK_SYS_STACK("creat"), \
	SYSTRACK_SYS_STACK("openat2")
#define SYSTRACK_EVENTS_URING SYSTRACK_SYS_STACK("io_uring_enter")
#define SYSTRACK_EVENTS_NAMES \
	SYSTRACK_SYS("close"), SYSTRACK_SYS("dup"), SYSTRACK_SYS("dup2"), SYSTRACK_SYS("dup3"), \
	SYSTRACK_SYS("fcntl"), \
	{ "sched", "sched_process_fork", TOOL_EV_OPTIONAL }, \
	{ "sched", "sched_process_exec", TOOL_EV_OPTIONAL }, \
	{ "sched", "sched_process_exit", TOOL_EV_OPTIONAL }

/*
 * systrack_create - subscribe to the syscalls cfg asks for, and what names need: 0, or -errno
 * (an event that cannot be had, with its error line; -ENOMEM)
 */
int systrack_create(struct systrack **out, struct iotap_ctx *ctx, const struct systrack_cfg *cfg);
void systrack_free(struct systrack *st);
/* The call thread tid is in now, or NULL. Valid until its exit is handled. */
struct sys_call *systrack_current(struct systrack *st, uint32_t tid);
/* Where file names come from, for the banner. */
const char *systrack_names_source(const struct systrack *st);
/*
 * The probes that name files (a kretprobe on getname, uprobes on the C
 * library's open functions), ended by one without a name: for the .probes of
 * a tool that follows names, so that `iotap record` makes them too. The
 * tracker makes those the source can.
 */
extern const struct probe_spec systrack_probes[];

#endif
