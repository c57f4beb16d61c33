// SPDX-License-Identifier: GPL-2.0-or-later
/* iouring.c - io_uring request latency per process and opcode, with the block I/O each caused */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "shared.h"
#include "uringtrack.h"

struct iouring_params {
	bool timestamp, msecs, snoop, stages;
	const char *comm, *disk;
	int pid;
};

static const char *const iou_via_name[URING_VIA_NR] = { "inline", "io-wq", "sqpoll" };

struct iouring_state {
	struct uringtrack *ut;
	struct hist_set lat, pre, blk, post;
	/* Counts since the last report. */
	uint64_t requests, punted, sqpoll, nobio;
	uint64_t t0;
};

#define P(f) offsetof(struct iouring_params, f)
static const struct opt iouring_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace io_uring requests of this process only" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM",
	  "trace io_uring requests of processes with this name only (the first 15 characters)" },
	TOOL_OPT_DISK_HELP(P(disk), "count block requests on this disk only"),
	{ 0, "stages", OPT_FLAG, P(stages), NULL,
	  "also print histograms of each stage: before the first bio was queued, block, after the last block completion" },
	{ 0, "snoop", OPT_FLAG, P(snoop), NULL,
	  "print one line per request as its CQE is posted instead of histograms" },
	OPT_END
};

static const struct tool_event iouring_events[] = {
	URINGTRACK_EVENTS,
	{ NULL, NULL, 0 }
};

/* iou_snoop - one line for a request whose CQE was posted */
static int iou_snoop(struct iotap_ctx *ctx, const struct uring_req *r)
{
	struct iouring_state *st = ctx->state;
	char file[96] = "-", via[32] = "";
	uint64_t t = r->t_done;

	if (!st->t0) {
		st->t0 = t;
		fprintf(ctx->out, "%-10s %-14s %-7s %-12s %-4s %-18s %8s %4s %9s %9s %9s %9s %-8s %s\n",
			"TIME(s)", "COMM", "PID", "OP", "FD", "USER_DATA", "RES", "BLK", "TOTAL_us",
			"BEFORE_us", "BLOCK_us", "AFTER_us", "VIA", "FILE");
	}
	if (r->fd >= 0 && iotap_fd_path(ctx, r->pid, r->fd, file, sizeof(file)))
		snprintf(file, sizeof(file), "[fd %d]", r->fd);
	for (int i = 0; i < URING_VIA_NR; i++)
		if (r->via & (1u << i))
			snprintf(via + strlen(via), sizeof(via) - strlen(via), "%s%s",
				 via[0] ? "," : "", iou_via_name[i]);
	fprintf(ctx->out, "%-10.6f %-14.14s %-7u %-12.12s %-4d 0x%-16llx %8lld %4u %9.1f ",
		(double)(t - st->t0) / 1e9, r->comm, r->pid, r->op, r->fd,
		(unsigned long long)r->user_data, (long long)r->res, r->nblk, (t - r->t_submit) / 1e3);
	if (r->nblk)
		fprintf(ctx->out, "%9.1f %9.1f %9.1f ", (r->t_first - r->t_submit) / 1e3,
			(r->t_last - r->t_first) / 1e3, (t > r->t_last ? t - r->t_last : 0) / 1e3);
	else
		fprintf(ctx->out, "%9s %9s %9s ", "-", "-", "-");
	fprintf(ctx->out, "%-8s %s\n", via[0] ? via : "-", file);
	return 0;
}

/* iou_hist_add - v (ns) into key's histogram of hs, in the unit asked for */
static int iou_hist_add(struct iotap_ctx *ctx, struct hist_set *hs, const char *key, uint64_t v)
{
	struct iouring_params *p = ctx->params;
	struct hist *h = hist_set_get(hs, key);

	return h && !hist_add(h, v / (p->msecs ? 1000000 : 1000)) ? 0 : -ENOMEM;
}

/* iou_on_done - a request's CQE: its latency and stages, or its line */
static int iou_on_done(void *arg, const struct uring_req *r)
{
	struct iotap_ctx *ctx = arg;
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	uint64_t t = r->t_done;
	char key[96];
	int ret;

	st->requests++;
	st->punted += r->punted;
	st->sqpoll += r->sqpoll;
	st->nobio += !r->nblk;
	if (p->snoop)
		return iou_snoop(ctx, r);
	snprintf(key, sizeof(key), "%s [%u] %s", r->comm, r->pid, r->op);
	ret = iou_hist_add(ctx, &st->lat, key, t - r->t_submit);
	if (!ret && p->stages && r->nblk)
		ret = iou_hist_add(ctx, &st->pre, key, r->t_first - r->t_submit);
	if (!ret && p->stages && r->nblk)
		ret = iou_hist_add(ctx, &st->blk, key, r->t_last - r->t_first);
	if (!ret && p->stages && r->nblk)
		ret = iou_hist_add(ctx, &st->post, key, t > r->t_last ? t - r->t_last : 0);
	return ret;
}

/* iouring_init - check options, then the requests with the block I/O they cause */
static int iouring_init(struct iotap_ctx *ctx)
{
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	struct uringtrack_cfg cfg = {
		.disk = p->disk,
		.pid = p->pid,
		.comm = p->comm,
		.on_done = iou_on_done,
		.arg = ctx,
	};

	if (p->snoop && p->stages) {
		iotap_err(ctx, "--stages prints histograms: not with --snoop");
		return -EINVAL;
	}
	return uringtrack_create(&st->ut, ctx, &cfg);
}

/* iouring_print_set - one histogram set with its sections */
static int iouring_print_set(struct iotap_ctx *ctx, struct hist_set *hs, const char *title)
{
	struct iouring_params *p = ctx->params;
	int ret = 0;

	hist_set_sort(hs);
	for (size_t i = 0; i < hs->nr && !ret; i++) {
		fprintf(ctx->out, "\n%s = %s\n", title, hs->keys[i]);
		ret = hist_print_log2(&hs->h[i], ctx->out, p->msecs ? "msecs" : "usecs");
	}
	return ret;
}

/* iouring_report - histograms and counts of the interval, then reset */
static int iouring_report(struct iotap_ctx *ctx)
{
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	const struct uringtrack_stats *us = uringtrack_stats(st->ut);
	uint64_t attr = us->blk_via[URING_INLINE] + us->blk_via[URING_IOWQ] + us->blk_via[URING_SQPOLL];
	int ret = 0;

	if (!p->snoop) {
		iotap_interval_header(ctx, p->timestamp);
		ret = iouring_print_set(ctx, &st->lat, "request (comm [pid] op), submit to CQE");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->pre, "before its first bio was queued");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->blk, "block (first bio queued to last block completion)");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->post, "after the last block completion");
		fprintf(ctx->out, "\nio_uring requests: %llu completed, %llu punted to io-wq, "
			"%llu submitted by SQPOLL, %llu without block I/O\n",
			(unsigned long long)st->requests, (unsigned long long)st->punted,
			(unsigned long long)st->sqpoll, (unsigned long long)st->nobio);
		fprintf(ctx->out, "block requests: %llu attributed (inline %llu, io-wq %llu, "
			"sqpoll %llu), %llu unattributed from io_uring threads, %llu from other tasks, "
			"%llu whose bios were not seen, %llu flushes (not attributed)\n",
			(unsigned long long)attr, (unsigned long long)us->blk_via[URING_INLINE],
			(unsigned long long)us->blk_via[URING_IOWQ],
			(unsigned long long)us->blk_via[URING_SQPOLL],
			(unsigned long long)us->blk_unattr, (unsigned long long)us->blk_other,
			(unsigned long long)us->blk_unseen, (unsigned long long)us->blk_flush);
		if (us->cqe_unknown || us->evicted || us->blk_late || us->untracked)
			fprintf(ctx->out, "not timed: %llu CQEs of requests submitted before tracing, "
				"%llu requests without a CQE, %llu block completions after the CQE, "
				"%llu requests beyond %u in flight\n",
				(unsigned long long)us->cqe_unknown, (unsigned long long)us->evicted,
				(unsigned long long)us->blk_late, (unsigned long long)us->untracked,
				URINGTRACK_MAX_INFLIGHT);
	}
	if (ctx->final)
		uringtrack_warn_stats(st->ut, ctx);
	hist_set_reset(&st->lat);
	hist_set_reset(&st->pre);
	hist_set_reset(&st->blk);
	hist_set_reset(&st->post);
	st->requests = st->punted = st->sqpoll = st->nobio = 0;
	uringtrack_stats_reset(st->ut);
	return ret ? ret : ferror(ctx->out) ? -EIO : 0;
}

/* iouring_fini - free the state */
static void iouring_fini(struct iotap_ctx *ctx)
{
	struct iouring_state *st = ctx->state;

	uringtrack_free(st->ut);
	hist_set_release(&st->lat);
	hist_set_release(&st->pre);
	hist_set_release(&st->blk);
	hist_set_release(&st->post);
}

const struct tool tool_iouring = {
	.name = "iouring",
	.alias = "iouringlat",
	.summary = "Summarize io_uring request latency per process and opcode, with the block I/O each caused.",
	.description =
		"Traces io_uring requests from submission (io_uring_submit_req, io_uring_submit_sqe "
		"before 5.18) to the posting of their CQE (io_uring_complete) and prints, per process "
		"and opcode, a histogram of that latency. Every block request is attributed to the "
		"io_uring requests whose bios it holds, each bio to the request its task was working "
		"on when it queued it (block_bio_queue): the submitting task between the submission "
		"and the request's punt, its completion or the task's wait for CQEs (inline), the "
		"iou-sqp thread under SQPOLL, or "
		"the io-wq worker that looked up the request's file (io_uring_file_get) or, when the "
		"file was looked up before the punt, the worker owner's only punted request that no "
		"worker was seen starting. Block requests of io_uring threads that fit none of these "
		"are counted as unattributed, other tasks' apart. Each request's time splits into "
		"before its first bio was queued, block (from then until its last block request "
		"completed: queue and device), and after that until the CQE. The counts say how many "
		"requests were punted to io-wq (io_uring_queue_async_work), submitted by an SQPOLL "
		"thread, or needed no block I/O (the page cache served them, or another disk than -d). "
		"File names (--snoop) are what /proc/PID/fd names when the line is printed; fixed "
		"files (registered, as SQPOLL programs use) have no descriptor in the events.",
	.examples =
		"iotap iouring\n  Trace until Ctrl-C, then print a histogram per process and opcode.\n"
		"iotap iouring --stages -d nvme0n1 5 1\n"
		"  Five seconds, with the stage histograms, counting block I/O on nvme0n1 only.\n"
		"iotap iouring --snoop -c postgres\n  One line per request of processes named postgres.\n",
	.banner = "Tracing io_uring requests... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = iouring_opts,
	.events = iouring_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct iouring_params),
	.state_size = sizeof(struct iouring_state),
	.init = iouring_init,
	.report = iouring_report,
	.fini = iouring_fini,
};
