// SPDX-License-Identifier: GPL-2.0-or-later
/* iosched.c - time requests wait in the I/O scheduler, per scheduler, the book's iosched */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "prom.h"

struct iosched_params {
	bool timestamp, msecs;
	const char *disk, *prom;
};

struct iosched_state {
	struct blktrack *bt;
	struct hist_set hs;
	struct prom *prom;
};

#define P(f) offsetof(struct iosched_params, f)
static const struct opt iosched_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histogram" },
	{ 'd', "disk", OPT_DISK, P(disk), "DISK", "trace this disk only" },
	{ 0, "prom", OPT_OUTFILE, P(prom), "FILE",
	  "each interval, also write the histograms as Prometheus metrics (node_exporter textfile "
	  "format, cumulative, in seconds, label sched) to a temporary and rename it over FILE" },
	OPT_END
};

static const struct tool_event iosched_events[] = {
	{ "block", "block_rq_insert", 0 },
	{ "block", "block_rq_issue", 0 },
	{ "block", "block_rq_complete", 0 },
	{ NULL, NULL, 0 }
};

/* iosched_on_issue - insert to issue time into the disk's scheduler histogram */
static int iosched_on_issue(void *arg, const struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct iosched_params *p = ctx->params;
	struct iosched_state *st = ctx->state;
	const char *sched = iotap_disk_sched(ctx, r->dev);
	uint64_t delta;
	struct hist *h;

	/* Dispatched directly, without passing through a queue: nothing to time. */
	if (!r->t_insert)
		return 0;
	delta = r->t_issue > r->t_insert ? r->t_issue - r->t_insert : 0;
	delta /= p->msecs ? 1000000 : 1000;
	h = hist_set_get(&st->hs, *sched ? sched : "unknown");
	if (!h || hist_add(h, delta))
		return -ENOMEM;
	return 0;
}

/* iosched_init - check options and subscribe to the request events */
static int iosched_init(struct iotap_ctx *ctx)
{
	struct iosched_params *p = ctx->params;
	struct iosched_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_INSERT,
		.on_issue = iosched_on_issue,
		.arg = ctx,
	};
	int ret;

	if (p->prom && !(st->prom = prom_alloc(p->prom))) {
		iotap_err(ctx, "cannot write %s: %s", p->prom, strerror(errno));
		return -EINVAL;
	}
	ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	return ret ? ret : blktrack_create(&st->bt, ctx, &cfg);
}

/* iosched_report - print and reset the histograms, BCC's layout */
static int iosched_report(struct iotap_ctx *ctx)
{
	struct iosched_params *p = ctx->params;
	struct iosched_state *st = ctx->state;
	int ret;

	iotap_interval_header(ctx, p->timestamp);
	ret = hist_set_print_log2(&st->hs, ctx->out, "sched", p->msecs ? "msecs" : "usecs");
	if (!ret && st->prom) {
		ret = prom_hist_set_add(st->prom, "iotap_iosched_seconds",
					"Time requests waited in the I/O scheduler, by scheduler",
					"sched", &st->hs, p->msecs ? 1e-3 : 1e-6, p->msecs ? 17 : 27);
		if (!ret)
			ret = prom_write(st->prom);
		if (ret)
			iotap_err(ctx, "cannot write %s: %s", p->prom, strerror(-ret));
	}
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	hist_set_reset(&st->hs);
	return ret;
}

/* iosched_fini - free the state */
static void iosched_fini(struct iotap_ctx *ctx)
{
	struct iosched_state *st = ctx->state;

	blktrack_free(st->bt);
	hist_set_release(&st->hs);
	prom_free(st->prom);
}

const struct tool tool_iosched = {
	.name = "iosched",
	.summary = "Summarize I/O scheduler latency as a histogram per scheduler.",
	.description =
		"Traces block device I/O and prints, for each I/O scheduler, a histogram of the time "
		"requests waited between being inserted into the scheduler (block_rq_insert) and "
		"being issued to the driver (block_rq_issue). The scheduler is the disk's active one "
		"(queue/scheduler) when tracing starts, or as a recording saved it; \"none\" is a queue "
		"without an elevator, whose requests are timed when they wait in the software queues. "
		"Requests that skip insert, dispatched straight to the driver (most requests on "
		"queues without a scheduler, flushes, passthrough), are not counted. Requests are "
		"counted after the block layer merged and split bios. This is the BPF Performance "
		"Tools book's iosched on tracepoints instead of kprobes, with BCC's histogram layout.",
	.examples =
		"iotap iosched\n  Trace until Ctrl-C, then print a histogram per scheduler.\n"
		"iotap iosched -m -T 1 5\n  Millisecond histograms with a timestamp every second, five times.\n"
		"iotap iosched -d sda\n  Only requests queued for sda.\n",
	.banner = "Tracing block I/O schedulers. Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = iosched_opts,
	.events = iosched_events,
	.params_size = sizeof(struct iosched_params),
	.state_size = sizeof(struct iosched_state),
	.init = iosched_init,
	.report = iosched_report,
	.fini = iosched_fini,
};
