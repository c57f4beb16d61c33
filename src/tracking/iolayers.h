/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_IOLAYERS_H
#define IOTAP_IOLAYERS_H

/*
 * The layers of the I/O stack, each from the most stable source the kernel (or
 * a recording) offers, as systrack picks where file names come from; it says
 * in one line per layer what serves it, or why nothing does. The syscall
 * layer is the syscalls tracepoints (systrack, the caller's); the vfs layer
 * kprobe/kretprobe pairs on vfs_read, vfs_write, vfs_open and vfs_fsync_range;
 * the filesystem layer kprobe pairs on ext4's and xfs's file operations and
 * the ext4 (ext4_sync_file_enter/exit), iomap (direct I/O of ext4 and xfs) and
 * filemap (page-cache misses) tracepoints; the block layer the request events
 * (blktrack, the caller's), and before block_io_start (6.5), whose stand-in
 * block_rq_insert may run in another context, the bios queued in a syscall,
 * which tag the request they start. It subscribes to what it picks, pairs each
 * function's entry with its return per thread, and hands every timed operation
 * to the caller.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blktrack.h"
#include "iotap.h"
#include "systrack.h"

/* The tracepoints it may use, for the events table of a tool that uses it. */
#define IOLAYERS_EVENTS \
	{ "block", "block_bio_queue", TOOL_EV_OPTIONAL }, \
	{ "ext4", "ext4_sync_file_enter", TOOL_EV_OPTIONAL }, \
	{ "ext4", "ext4_sync_file_exit", TOOL_EV_OPTIONAL }, \
	{ "iomap", "iomap_dio_rw_begin", TOOL_EV_OPTIONAL }, \
	{ "iomap", "iomap_dio_complete", TOOL_EV_OPTIONAL }, \
	{ "filemap", "mm_filemap_add_to_page_cache", TOOL_EV_OPTIONAL }

/* The layers, in -T's order. */
enum iolayer { IOLAYER_SYSCALL, IOLAYER_VFS, IOLAYER_FS, IOLAYER_BLK, IOLAYER_NR };

struct iolayers_cfg {
	bool layer[IOLAYER_NR];		/* the layers shown (syscall, blk: also for attribution) */
	struct systrack *sys;		/* the syscalls followed */
	bool queued;			/* block time from creation (-Q), for the blk line */
	bool ext4, xfs;			/* the fs layer: these filesystems' functions */
	int pid;			/* only this process's calls; 0: every one */
	const char *comm;		/* only processes of this name; NULL: every one */
	bool has_dev;
	uint32_t dev;			/* with has_dev: only this disk's filesystem */
	/* An operation timed: op its name (vfs_read, ext4_sync_file, iomap_dio_read). */
	int (*on_op)(void *arg, const char *op, uint64_t ns);
	/* Thread tid added a page to the page cache (a miss), of the disk with has_dev. */
	int (*on_pagecache)(void *arg, uint32_t tid);
	void *arg;
};

struct iolayers;

/*
 * The kprobe and kretprobe of every function it may time, ended by one without
 * a name: for the .probes of a tool that uses it, so `iotap record` makes them.
 */
extern const struct probe_spec iolayers_probes[];

/*
 * iolayers_create - pick and subscribe the syscall, vfs and fs layers' sources; *il NULL
 * on failure
 *
 * Returns 0 or -errno. A layer nothing serves is no error: its line says why.
 */
int iolayers_create(struct iolayers **il, struct iotap_ctx *ctx, const struct iolayers_cfg *cfg);

/*
 * iolayers_block - the block layer, over the caller's blktrack: where the kernel has no
 * block_io_start, the bios that tag their requests. 0 or -errno.
 */
int iolayers_block(struct iolayers *il, struct blktrack *bt);

/*
 * A syscall in progress as a request's tag (blkreq.user): its thread and sequence; 0: none.
 * iolayers_owner - the syscall a request starting in thread tid belongs to, where the
 * start event runs in the submitter (else 0: its bio says, iolayers_bio_owner)
 */
uint64_t iolayers_owner(struct iolayers *il, uint32_t tid);

/* iolayers_bio_owner - the tag of the bio a request starts with (then forgotten), or 0 */
uint64_t iolayers_bio_owner(struct iolayers *il, uint32_t dev, uint64_t sector);

/* iolayers_call - the syscall a tag names if it is still in progress, else NULL */
struct sys_call *iolayers_call(struct iolayers *il, uint64_t tag);

/* iolayers_wanted - whether pid's calls are traced (-p, -c) */
bool iolayers_wanted(const struct iolayers *il, uint32_t pid);

/* iolayers_source - what serves the layer ("vfs: kprobe/kretprobe pairs on ..."), or NULL */
const char *iolayers_source(const struct iolayers *il, enum iolayer layer);

/*
 * iolayers_warn_stats - at the end, what was left untimed or unattributed: a bound that
 * bit is a warning, the rest (functions entered before tracing began, or begun again
 * before they returned, as asynchronous direct I/O does) is said with --verbose
 */
void iolayers_warn_stats(const struct iolayers *il);

/* iolayers_free - free it; accepts NULL */
void iolayers_free(struct iolayers *il);

#endif
