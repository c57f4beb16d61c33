/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGROUP_H
#define IOTAP_CGROUP_H

/*
 * Which cgroup each task is in, at every moment of the event stream, in one
 * hierarchy: cgroup v2's, or with --cgroup naming a v1 directory (blkio on a
 * hybrid or v1 host, a named hierarchy such as name=systemd) that one, or
 * the one a tool asks for (the block controller's: cgroup_v1_io),
 * kept in user space so that it works whatever delivers the events (perf
 * rings, the ftrace ring buffer, a recording): a snapshot of every task's
 * /proc/TID/cgroup when tracing starts, then sched:sched_process_fork (a
 * child starts in its parent's cgroup) and cgroup:cgroup_attach_task (a
 * task moved) in stream order. A block request is attributed when its
 * submitter's event (block_io_start, or block_rq_insert before 6.5) is
 * delivered, to the cgroup the submitting task was in at that moment: never
 * at completion, which runs in whatever task the interrupt hit (bcc#3741).
 *
 * A child created straight into another cgroup (clone3 with CLONE_INTO_CGROUP,
 * as systemd and container runtimes start what they run) is in that one
 * instead: task:task_newtask carries the clone flags, and when that one
 * (0x200000000) is among them the source says where the child is
 * (cgtrack_ops.born: live, its /proc/TID/cgroup read when the birth is
 * delivered; a recording, what the recorder read then), and the fork that
 * follows leaves it there. The flag only moves a task in cgroup v2, so only
 * v2 is asked. It holds on 64-bit kernels from 5.7, where clone3 has the flag:
 * task_newtask's clone_flags is an unsigned long on 5.10, 6.1 and 6.12 (8
 * bytes, the bit kept: tests/vm/blocktools-vm.sh) and a u64 on 6.18 (this
 * project's host: tests/live/cgroup-clone.sh); a 32-bit kernel's unsigned
 * long drops it, which is said, and such a child counts as its parent's until
 * it moves. A child reaped before its birth was delivered (events come up to
 * a round late, 100 ms or so) has no /proc left to read: it is in no cgroup,
 * counted and said once at the end. A child moved again before its birth was
 * delivered is taken to be where it went from its birth on.
 *
 * What a task submits is charged to the cgroup it is in, except where the
 * kernel charges another: in cgroup v2 (where the block controller is v2's),
 * a thread writing an inode back (the flusher, sync) submits for the cgroup
 * that owns the inode, whose blkcg its bios carry and io.stat counts them in.
 * writeback_single_inode_start names that cgroup by id (cgroup_ino: its
 * kernfs node's, the directory's inode number; 1, the root, where cgroup
 * writeback is off) and writeback_single_inode ends it; the ids are the
 * source's (cgtrack_ops.ids: live, the hierarchy read when events begin; a
 * recording, what its recorder read), then cgroup_mkdir's and
 * cgroup_attach_task's. An id none of them named leaves the flusher's own
 * cgroup charged, counted and said at the end. In cgroup v1 the kernel
 * charges writeback to the root, the flusher's, and nothing is followed.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"
#include "host.h"

/* clone3's flag for a child born straight into the cgroup v2 it names (linux/sched.h). */
#define CGROUP_CLONE_INTO 0x200000000ull

struct cgtrack;

/* What the tracker needs of the session that owns it. */
struct cgtrack_ops {
	void *arg;
	/* Whether sys:name can be delivered. */
	bool (*event_available)(void *arg, const char *sys, const char *name);
	/* Subscribe fn to sys:name (outside any tool's events table): its format, or NULL with errno. */
	struct tep_event *(*event_use)(void *arg, const char *sys, const char *name,
				       iotap_handler_fn fn, void *fn_arg);
	/*
	 * The hierarchy path a --cgroup argument names, and its hierarchy in *root
	 * (host_ops.cgroup_path); NULL: cgroup_path_named.
	 */
	int (*path)(void *arg, const char *in, char *out, size_t len, int *root);
	/* Every task's cgroup in hierarchy root when events began to flow (host_ops.cgroup_tasks); NULL: none known. */
	int (*tasks)(void *arg, int root, cgroup_task_fn fn, void *fn_arg);
	/* Every cgroup v2 directory's id and path when events began to flow (host_ops.cgroup_ids); NULL: not known. */
	int (*ids)(void *arg, cgroup_id_fn fn, void *fn_arg);
	/* The cgroup v2 path of a task born into a cgroup of its own (host_ops.cgroup_born); NULL: not known. */
	int (*born)(void *arg, uint32_t tid, uint64_t t, char *path, size_t len);
};

/*
 * cgtrack_create - start tracking (the events are subscribed now); path, if
 * not NULL, is the --cgroup filter, and its hierarchy is followed; without
 * it, hierarchy root (0: cgroup v2; else a v1 one's id, as /proc/PID/cgroup
 * numbers it).
 * Return: 0, -ENOENT (no such cgroup, with one error line) or -errno.
 */
int cgtrack_create(struct cgtrack **out, const struct cgtrack_ops *ops, const char *path,
		   int root);
/* cgtrack_root - the hierarchy followed: 0 for cgroup v2, else a v1 one's id */
int cgtrack_root(const struct cgtrack *ct);
/* cgtrack_started - once events flow: every task's cgroup then */
void cgtrack_started(struct cgtrack *ct);
/*
 * cgtrack_of - the cgroup path ("/a/b") the task of a sample is in at the
 * sample's time (the inode's owner's while it writes one back, above), NULL
 * when unknown. The string lives as long as ct.
 */
const char *cgtrack_of(struct cgtrack *ct, const struct perf_sample *s);
/* cgtrack_match - whether that cgroup is the filter's or below it (true without a filter) */
bool cgtrack_match(struct cgtrack *ct, const struct perf_sample *s);
/* cgtrack_filtering - whether a --cgroup filter is set */
bool cgtrack_filtering(const struct cgtrack *ct);
/* cgtrack_report - at the end, once: the children born into a cgroup that stayed unknown, if any */
void cgtrack_report(struct cgtrack *ct);
/* cgtrack_free - free the tracker; accepts NULL */
void cgtrack_free(struct cgtrack *ct);

/* For the sources. */
/* A cgroup v1 hierarchy, mounted: of this machine, or of the one a recording was made on. */
struct cgroup_v1 {
	int id;				/* as /proc/PID/cgroup and cgroup_attach_task's dst_root say */
	char controllers[256];		/* as /proc/PID/cgroup names them: "blkio", "name=systemd" */
	char mount[PATH_MAX];		/* where: "/sys/fs/cgroup/blkio" */
};

/*
 * cgroup_path_here - a cgroup directory of this machine as a hierarchy path, and its
 * hierarchy in *root: 0 for cgroup v2, the id /proc/self/cgroup gives a v1 hierarchy
 * (blkio, name=systemd, ...). 0, or -ENOENT logged
 */
int cgroup_path_here(const char *arg, char *path, size_t len, int *root);
/*
 * cgroup_path_named - for reports, what a --cgroup argument names of the
 * recorded hierarchies: a directory of one of the v1 hierarchies v1[0..nr_v1)
 * (the recording's: their ids are the recording machine's), here (a v1
 * directory of a hierarchy with the same controllers) or by its mount point on
 * the recording machine (/sys/fs/cgroup/blkio/...), in *root its id; else a
 * cgroup v2 directory here, or a path of the recording machine's v2 hierarchy
 * (its mount left out), *root 0. 0, or -EINVAL logged for a relative path
 * that is no cgroup here, or for a v1 hierarchy's directory the recording
 * does not hold (the line says which it does)
 */
int cgroup_path_named(const char *arg, char *path, size_t len, int *root,
		      const struct cgroup_v1 *v1, size_t nr_v1);
/*
 * cgroup_tasks_proc - every task's cgroup path in hierarchy root (0: v2) from /proc, stamped
 * when read: 0, or -errno when /proc cannot be read
 */
int cgroup_tasks_proc(int root, cgroup_task_fn fn, void *arg);
/* A task's cgroup in roots[which] of those cgroup_tasks_proc_roots was asked for. */
typedef void (*cgroup_root_task_fn)(void *arg, size_t which, uint32_t tid, const char *path,
				    uint64_t t);
/* cgroup_tasks_proc_roots - the same for n hierarchies, each task's file read once */
int cgroup_tasks_proc_roots(const int *roots, size_t n, cgroup_root_task_fn fn, void *arg);
/*
 * cgroup_v1_mounted - the v1 hierarchies a recording keeps, those the I/O is
 * accounted and services are named in: blkio's and the named ones
 * (name=systemd), where mounted (/proc/self/cgroup and mountinfo); up to max
 * into v, how many
 */
size_t cgroup_v1_mounted(struct cgroup_v1 *v, size_t max);
/* As many as a caller of cgroup_v1_mounted needs room for: blkio's and a few named ones. */
#define CGROUP_V1_MAX 8
/*
 * cgroup_v1_io - of the v1 hierarchies v1[0..nr) (this machine's, or a recording's), the one
 * that holds blkio, where the block I/O controller is on a hybrid or v1 host; NULL: none
 * (the controller is cgroup v2's io there)
 */
const struct cgroup_v1 *cgroup_v1_io(const struct cgroup_v1 *v1, size_t nr);
/*
 * cgroup_io_root_here - the hierarchy the block I/O controller is on here: the id of cgroup
 * v1's blkio hierarchy where one holds it (cgroup_v1_io of cgroup_v1_mounted), else 0
 * (cgroup v2); where that hierarchy is mounted into mount ("" when no mount is found).
 * Cannot fail: without /proc, 0.
 */
int cgroup_io_root_here(char *mount, size_t len);
/*
 * cgroup_ids_here - every cgroup v2 directory of this machine now, its id (the inode
 * number, which cgroup_ino and cgroup_attach_task's dst_id carry) and hierarchy path
 * ("/" first), to fn: 0, -ENOENT (no cgroup v2 mounted) or -errno
 */
int cgroup_ids_here(cgroup_id_fn fn, void *arg);
/*
 * cgroup_born_proc - the cgroup v2 path of task tid now, from /proc/TID/cgroup (a zombie's
 * names the cgroup it exited in): 0, or -ESRCH when the task is gone
 */
int cgroup_born_proc(uint32_t tid, char *path, size_t len);

#endif
