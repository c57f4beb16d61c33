/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_URINGTRACK_H
#define IOTAP_URINGTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "iotap.h"

/*
 * io_uring requests from submission (io_uring_submit_req, io_uring_submit_sqe
 * before 5.18) to the posting of their CQE (io_uring_complete), paired by the
 * request's pointer (5.10's completion has none: by ring and user_data, the
 * oldest first), with the block I/O each caused. Every bio (block_bio_queue) is
 * the request its task was working on when it queued it:
 *  - the submitter, from the submission to the request's punt to io-wq
 *    (io_uring_queue_async_work), its CQE, or the task's wait for CQEs
 *    (io_uring_cqring_wait): inline, or SQPOLL when an iou-sqp thread submitted;
 *  - an io-wq worker that looked up the request's file (io_uring_file_get);
 *  - a worker whose start of a request was not seen (the file was looked up
 *    before the punt): its owner's only punted request that no worker was seen
 *    starting, while there is exactly one.
 * A completed block request (blktrack) is credited, once, to every request
 * whose bio it held; it counts as its first bio's. A request in flight is
 * followed until its CQE; a second submission of the same pointer ends the
 * first, counted as without a CQE.
 */

/* Where a block request was issued from, relative to the io_uring request that caused it. */
enum uring_via { URING_INLINE, URING_IOWQ, URING_SQPOLL, URING_VIA_NR };

/* io_uring requests followed at once; more are counted as untracked. */
#define URINGTRACK_MAX_INFLIGHT (1u << 16)

/*
 * The events it uses, for a tool's events table. The io_uring ones are recorded only when
 * the tool is named (record --tools, --all): a program that runs network I/O through
 * io_uring makes them by the million, none of it block I/O, and a default recording must
 * not grow with that.
 */
#define URINGTRACK_EVENTS \
	{ "io_uring", "io_uring_complete", TOOL_EV_OPTIN }, \
	{ "io_uring", "io_uring_submit_req", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "io_uring", "io_uring_submit_sqe", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "io_uring", "io_uring_queue_async_work", TOOL_EV_OPTIN }, \
	{ "io_uring", "io_uring_file_get", TOOL_EV_OPTIN }, \
	/* Optional: without it (a recording made before it was taken) a wait ends nothing. */ \
	{ "io_uring", "io_uring_cqring_wait", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN }, \
	{ "block", "block_bio_queue", 0 }, \
	{ "block", "block_rq_issue", 0 }, \
	{ "block", "block_rq_complete", 0 }, \
	/* Who asked for a flush: blktrack traces it for flushes alone. */ \
	{ "block", "block_io_start", TOOL_EV_OPTIONAL }

/* A request whose CQE was posted, as on_done sees it: the tracker's, valid during the call. */
struct uring_req {
	uint64_t ring, user_data;
	uint32_t pid, tid;		/* submitter (an iou-sqp thread under SQPOLL) */
	char comm[16];			/* the submitter's process name */
	char op[24];			/* the opcode's name ("READ") */
	int fd;				/* -1: not seen (fixed files, no io_uring_file_get) */
	bool sqpoll, punted;		/* submitted by SQPOLL; punted to io-wq */
	uint64_t t_submit, t_done;	/* submission; CQE */
	uint64_t t_first, t_last;	/* first bio queued, last block request completed (nblk > 0) */
	int64_t res;			/* the CQE's result */
	uint32_t nblk;			/* block requests credited to it */
	unsigned int via;		/* bit per enum uring_via: where its block requests came from */
};

struct uringtrack_cfg {
	const char *disk;		/* -d: follow this disk's bios and block requests only; NULL: all */
	int pid;			/* follow this process's submissions only; 0: all */
	const char *comm;		/* ... this process name's (the first 15 characters); NULL: all */
	/* A CQE of a followed request; its non-zero return is the event's. */
	int (*on_done)(void *arg, const struct uring_req *r);
	void *arg;
};

/* What was not paired or attributed, since the last uringtrack_stats_reset. */
struct uringtrack_stats {
	uint64_t blk_via[URING_VIA_NR];	/* block requests attributed, by their first bio's via */
	uint64_t blk_unattr;		/* of io_uring threads, no request's */
	uint64_t blk_other;		/* of other tasks */
	uint64_t blk_unseen;		/* whose bios were not seen */
	uint64_t blk_late;		/* completed after their request's CQE */
	uint64_t blk_flush;		/* flushes: no data, never attributed */
	uint64_t cqe_unknown;		/* CQEs (of followed processes) of requests not seen submitted */
	uint64_t evicted;		/* requests submitted again before a CQE was seen */
	uint64_t untracked;		/* submitted beyond URINGTRACK_MAX_INFLIGHT in flight */
};

struct uringtrack;

/*
 * uringtrack_create - subscribe to the io_uring events, block_bio_queue and the block
 * requests (cfg->disk selected as blktrack_cfg_select does): 0, or -errno (-ENOENT with an
 * error line: no such disk, an event without its ctx, a submission event without req;
 * -ENOMEM; an event that cannot be had). *out is NULL on failure.
 */
int uringtrack_create(struct uringtrack **out, struct iotap_ctx *ctx,
		      const struct uringtrack_cfg *cfg);
/* uringtrack_free - free it and the requests in flight; accepts NULL */
void uringtrack_free(struct uringtrack *ut);
const struct uringtrack_stats *uringtrack_stats(const struct uringtrack *ut);
/* uringtrack_stats_reset - zero the counts, at the end of an interval */
void uringtrack_stats_reset(struct uringtrack *ut);
/* uringtrack_warn_stats - say what the block tracker could not pair (blktrack_warn_stats); 0 */
int uringtrack_warn_stats(struct uringtrack *ut, struct iotap_ctx *ctx);

#endif
