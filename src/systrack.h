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
 * to the openat that follows by its pointer), else from /proc/PID/fd when live;
 * descriptors are followed through open, dup, fcntl, close, fork, exec and exit
 * (fdtab.h). Where the kernel has kprobes, a kretprobe on getname (or
 * getname_flags) gives the kernel's own copy of the path inside the open syscall,
 * which also names files of programs that bypass the C library. Eprobes on
 * sys_enter_openat would do the same without kprobes, but the kernel feeds
 * them to the ftrace ring buffer only, never to perf_event_open.
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
	int (*on_enter)(void *arg, struct sys_call *c);
	int (*on_exit)(void *arg, struct sys_call *c);
	void *arg;
};

struct systrack;

/* The syscalls:, sched: events the tracker may use, for a tool's events table. */
#define SYSTRACK_SYS(n) \
	{ "syscalls", "sys_enter_" n, TOOL_EV_OPTIONAL }, \
	{ "syscalls", "sys_exit_" n, TOOL_EV_OPTIONAL }
#define SYSTRACK_EVENTS \
	{ "syscalls", "sys_enter_read", 0 }, { "syscalls", "sys_exit_read", 0 }, \
	SYSTRACK_SYS("write"), SYSTRACK_SYS("pread64"), SYSTRACK_SYS("pwrite64"), \
	SYSTRACK_SYS("readv"), SYSTRACK_SYS("writev"), SYSTRACK_SYS("preadv"), \
	SYSTRACK_SYS("pwritev"), SYSTRACK_SYS("preadv2"), SYSTRACK_SYS("pwritev2"), \
	SYSTRACK_SYS("fsync"), SYSTRACK_SYS("fdatasync"), SYSTRACK_SYS("sync_file_range"), \
	SYSTRACK_SYS("openat"), SYSTRACK_SYS("open"), SYSTRACK_SYS("creat"), \
	SYSTRACK_SYS("openat2"), SYSTRACK_SYS("io_uring_enter"), SYSTRACK_SYS("close"), \
	SYSTRACK_SYS("dup"), SYSTRACK_SYS("dup2"), SYSTRACK_SYS("dup3"), SYSTRACK_SYS("fcntl"), \
	{ "sched", "sched_process_fork", TOOL_EV_OPTIONAL }, \
	{ "sched", "sched_process_exec", TOOL_EV_OPTIONAL }, \
	{ "sched", "sched_process_exit", TOOL_EV_OPTIONAL }

int systrack_create(struct systrack **out, struct iotap_ctx *ctx, const struct systrack_cfg *cfg);
void systrack_free(struct systrack *st);
/* The call thread tid is in now, or NULL. Valid until its exit is handled. */
struct sys_call *systrack_current(struct systrack *st, uint32_t tid);
/* Which of fns ftrace can hook here: ok[i] for fns[i] (available_filter_functions). */
void systrack_traceable(const char *const *fns, size_t n, bool *ok);
/* Where file names come from, for the banner. */
const char *systrack_names_source(const struct systrack *st);
/* Create the uprobes that name files, so a recording holds them. 0 or -errno. */
int systrack_record_probes(struct iotap_ctx *ctx);

/*
 * The descriptors open when a recording began (REC_SEC_FDTB): u32 version,
 * u32 count, then count entries of u32 pid, s32 fd, u32 path length and the
 * path bytes (no NUL), each entry padded to 4 bytes. *buf is the
 * caller's to free.
 */
#define SYSTRACK_FDS_FIXED 12
int systrack_fds_snapshot(void **buf, size_t *len);

#endif
