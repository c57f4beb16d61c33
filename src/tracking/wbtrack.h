/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_WBTRACK_H
#define IOTAP_WBTRACK_H

/*
 * Who dirtied what the flusher and the journal write. Buffered writes reach the
 * disk long after the writer returned, from a thread that acts for everyone: a
 * flusher kworker, jbd2, or whoever calls sync. This follows
 *  - who dirtied each inode's pages: writeback_dirty_folio (writeback_dirty_page
 *    before 5.17) in the dirtying task, with the inode (bdi "MAJ:MIN", ino);
 *  - which inode each thread is writing back: writeback_single_inode_start ..
 *    writeback_single_inode (the flusher, sync), ext4_writepages ..
 *    ext4_writepages_result (also fsync, and jbd2 writing ordered data), the
 *    innermost open one;
 *  - the bios each thread queues (block_bio_queue): a write bio queued inside an
 *    inode's writeback is split among the processes with pages of that inode
 *    dirty, in proportion to their dirty pages (whole pages, largest remainder),
 *    and the pages it charges are no longer theirs; one queued by jbd2 outside
 *    any inode is the journal's;
 *  - which of those sectors a completed request covers: its bytes go to the
 *    sectors' owners, whatever merged or split the bios; what no tracked bio
 *    covers stays its submitter's.
 * Process names come from sched_process_exec and sched_process_fork, else the
 * source (/proc live, the recording's names at its start); file names, where the
 * caller knows the file a thread's write syscall writes (name_fn), from the write
 * that first dirtied a page of the inode.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blktrack.h"
#include "iotap.h"

/*
 * The events it uses, for a tool's events table: recorded only when the tool is named.
 * And block:block_bio_queue, which a tool declares once: WBTRACK_EVENT_BIO where it has none.
 */
#define WBTRACK_EVENT_BIO { "block", "block_bio_queue", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }
#define WBTRACK_EVENTS \
	{ "writeback", "writeback_dirty_folio", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "writeback", "writeback_dirty_page", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "writeback", "writeback_single_inode_start", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "writeback", "writeback_single_inode", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "ext4", "ext4_writepages", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "ext4", "ext4_writepages_result", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }
/* And the process events that name the dirtiers, where the tool declares them not already. */
#define WBTRACK_EVENTS_SCHED \
	{ "sched", "sched_process_exec", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "sched", "sched_process_fork", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }

/* What a share of a request is charged to. */
enum wb_kind {
	WB_SUBMITTER,		/* no tracked bio: the request's submitter, as without originators */
	WB_DIRTIER,		/* a process that dirtied the inode's pages */
	WB_JOURNAL,		/* queued by jbd2 outside any inode's writeback */
	WB_METADATA,		/* an inode whose pages a kernel thread (jbd2, kworker) dirtied */
	WB_UNKNOWN,		/* an inode written back with no dirtier seen since tracing began */
};

/* One share of a completed request. */
struct wb_share {
	enum wb_kind kind;
	uint32_t pid;			/* WB_DIRTIER, WB_SUBMITTER */
	const char *comm;		/* WB_DIRTIER, WB_SUBMITTER; never NULL */
	uint32_t dev;			/* the inode's disk (kernel dev_t), WB_DIRTIER/METADATA/UNKNOWN */
	uint64_t ino;
	const char *file;		/* the inode's file name, NULL: not known; valid until wbtrack_free */
	uint64_t bytes;
};

/* The file thread tid's syscall in progress writes, or NULL. */
typedef const char *(*wbtrack_name_fn)(void *arg, uint32_t tid);

struct wbtrack_stats {
	uint64_t dirtied;		/* dirty events */
	uint64_t bios;			/* write bios charged to an inode or the journal */
	uint64_t unknown_bytes;		/* completed, written back with no dirtier seen */
	uint64_t stale;			/* charged sectors no completion claimed in time */
	uint64_t held;			/* of bios, those queued by another task than their sender's */
};

struct wbtrack;

/* The label of a kind that is no process ("[jbd2 journal]"), NULL for a process. */
const char *wb_kind_label(enum wb_kind kind);

/*
 * wbtrack_create - subscribe to what the source offers, the bios of disk *dev only (NULL:
 * every disk's), files named by name_fn(name_arg, tid) where not NULL; 0, or -ENOENT with an error
 * line when it has none of the dirty events (a recording made without naming the tool),
 * or -errno (-ENOMEM)
 */
int wbtrack_create(struct wbtrack **out, struct iotap_ctx *ctx, const uint32_t *dev,
		   wbtrack_name_fn name_fn, void *name_arg);

/*
 * wbtrack_split - a completed request's bytes, share by share, into fn (which may stop
 * the walk with its non-zero return); the shares sum to io->bytes. 0 or fn's return.
 */
int wbtrack_split(struct wbtrack *wb, const struct blk_io *io,
		  int (*fn)(void *arg, const struct blk_io *io, const struct wb_share *sh),
		  void *arg);

/*
 * wbtrack_sent - a write bio at (dev, sector) sent by the thread of s where an
 * event sees it before blk-throttle can hold it (blktrack_cfg's on_send): the
 * inode that thread is writing back then is the bio's, when blk-throttle's
 * worker queues it later outside any writeback. 0 or -ENOMEM.
 */
int wbtrack_sent(struct wbtrack *wb, const struct perf_sample *s, uint32_t dev, uint64_t sector);
/* wbtrack_blktrack - cfg tells wb each bio sent before blk-throttle (wbtrack_sent); wb may be NULL */
void wbtrack_blktrack(struct wbtrack *wb, struct blktrack_cfg *cfg);
/* wbtrack_expire - forget charged sectors queued before t (no completion came): counted stale */
void wbtrack_expire(struct wbtrack *wb, uint64_t t);

const struct wbtrack_stats *wbtrack_stats(const struct wbtrack *wb);

/* wbtrack_warn_stats - at the end: what could not be tied to a dirtier, with -v the counts */
void wbtrack_warn_stats(struct wbtrack *wb, struct iotap_ctx *ctx);

/*
 * wbtrack_shares - units split in proportion to the weights w[0..nr) into share[]: the floor
 * of each, then one more to each of the largest remainders (ties to the earliest), so that
 * the shares sum to units exactly; all of it to the first when the weights sum to 0.
 * given[] is scratch of nr.
 */
void wbtrack_shares(const uint64_t *w, size_t nr, uint64_t units, uint64_t *share, bool *given);

/* wbtrack_free - free it; accepts NULL */
void wbtrack_free(struct wbtrack *wb);

#endif
