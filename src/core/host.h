/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HOST_H
#define IOTAP_HOST_H

/*
 * Facts about the host a session's events come from, apart from the events
 * themselves (the stream, source.h): process names and descriptors, kernel
 * symbols and process mappings, load averages, cgroups, disks that appear or
 * go, the kernel's structure layouts, how a tool's banner is shown. Every
 * source provides a table of them beside its stream operations
 * (source_ops.host): the live source asks the running system (/proc,
 * /proc/kallsyms, the cgroup v2 mount, sysfs, BTF: host-live.c), a file
 * source reads the sections the file holds. Every operation may be NULL where
 * the source does not know the fact; its callers (tool-*.c, stacks.c) then
 * answer as documented in iotap.h ("not known"). A fact is asked while the
 * session runs: the source's private state (s->src_priv) is there to answer it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"

struct session;
struct recording_info;
struct ksyms;
struct usyms;

/* A task (tid) was in the cgroup at path (of the hierarchy asked for) from stream time t on. */
typedef void (*cgroup_task_fn)(void *arg, uint32_t tid, const char *path, uint64_t t);
/* A cgroup v2 directory: its id (kernfs node id, the directory's inode number) and path. */
typedef void (*cgroup_id_fn)(void *arg, uint64_t id, const char *path);

struct host_ops {
	/* The name of a process no COMM record named, or NULL when unknown. */
	const char *(*comm)(struct session *s, uint32_t pid);
	/*
	 * 0 when a PID option may name pid here, -ESRCH when no such process runs,
	 * -EINVAL (logged) when pid is a thread of another process.
	 */
	int (*pid_check)(struct session *s, int pid);
	/* Every process's open descriptors when tracing began (a recording's FDTB); -EINVAL damaged. */
	int (*fds_initial)(struct session *s, iotap_fd_fn fn, void *arg);
	/* What pid's fd names now (/proc/PID/fd); -ENOENT when not known. */
	int (*fd_path)(struct session *s, uint32_t pid, int fd, char *buf, size_t len);
	/* How fds_initial and fd_path know descriptors' names, for a banner; NULL: they do not. */
	const char *fd_names;
	/* Begin loading kernel symbols in the background (a tool takes stacks). */
	void (*ksyms_prefetch)(struct session *s);
	/* Kernel symbols (the caller owns them), or NULL after a warning saying why. */
	struct ksyms *(*ksyms_load)(struct session *s);
	/* The executable mappings of the processes that ran when tracing began, into us. */
	int (*maps_load)(struct session *s, struct usyms *us);
	/*
	 * A disk dev that appeared after tracing began (a new loop device), added to s->disks;
	 * -ENOENT when not known. NULL: the disks known at the start are all there are.
	 */
	int (*disk_add)(struct session *s, uint32_t dev);
	/*
	 * The offset of member in the kernel's struct strct (BTF), for a probe's fetchargs;
	 * -ENOENT when that kernel has no such member. NULL: the layout is not known here.
	 */
	int (*member_offset)(struct session *s, const char *strct, const char *member,
			     uint32_t *offset);
	/* Whether a device has gone, or holds no medium (iotap_device_gone); NULL: not known. */
	int (*device_gone)(struct session *s, enum iotap_device kind, const char *name);
	/* The load averages text ("0.10 0.20 0.30 1/100 42"); -ENODATA when unknown. */
	int (*loadavg)(struct session *s, char *buf, size_t len);
	/* The machine's names as uname(2) gives them, into m ("" where unknown); 0 or -ENODATA. */
	int (*machine)(struct session *s, struct iotap_machine *m);
	/*
	 * The hierarchy path ("/a/b") a --cgroup argument names, and in *root its
	 * hierarchy (0: cgroup v2; else a v1 hierarchy's id, as /proc/PID/cgroup
	 * and cgroup_attach_task's dst_root number it); logs why not (live: no
	 * such cgroup; a recording: a v1 hierarchy it does not hold).
	 */
	int (*cgroup_path)(struct session *s, const char *arg, char *path, size_t len, int *root);
	/*
	 * Every task's cgroup path in hierarchy root when tracing began, one fn
	 * call each; -EINVAL damaged, -ENOTSUP a hierarchy the source does not hold.
	 */
	int (*cgroup_tasks)(struct session *s, int root, cgroup_task_fn fn, void *arg);
	/*
	 * Every cgroup v2 directory's id and path when tracing began, one fn call
	 * each (live: the hierarchy now; a recording: its CGID section); -ENODATA
	 * when the source does not know them, -EINVAL damaged.
	 */
	int (*cgroup_ids)(struct session *s, cgroup_id_fn fn, void *arg);
	/*
	 * The cgroup v2 path of task tid, born at stream time t straight into a
	 * cgroup (clone3 CLONE_INTO_CGROUP), as the source learns it when the
	 * birth is delivered (live: /proc/TID/cgroup then; a recording: what its
	 * recorder read then). 0; -ESRCH: the task had exited and was reaped by
	 * then; -ENODATA: not known.
	 */
	int (*cgroup_born)(struct session *s, uint32_t tid, uint64_t t, char *path, size_t len);
	/*
	 * The hierarchy the block I/O controller is on (0: cgroup v2; else a v1
	 * hierarchy's id, where blkio is: a hybrid or v1 host; a recording: the
	 * recording machine's), and where it is mounted into mount ("" not
	 * known). NULL: cgroup v2.
	 */
	int (*cgroup_io_root)(struct session *s, char *mount, size_t len);
	/* A tool's banner, where events are traced as they happen: on ctx->out, or the log with data_out. */
	void (*announce)(struct session *s, struct iotap_ctx *ctx, const char *banner);
	/*
	 * A file source: read it all and describe where and how it was written
	 * (report --info); the strings live as long as the session. Logs why not.
	 */
	int (*info)(struct session *s, struct recording_info *info);
};

/* The table of a source that knows no host facts. */
extern const struct host_ops host_none;

#endif
