// SPDX-License-Identifier: GPL-2.0-or-later
/* iosched.c - time requests wait in the I/O scheduler, per scheduler, the book's iosched */
#include <stddef.h>

#include "keyhist.h"

struct iosched_params {
	bool timestamp, msecs;
	const char *disk, *prom;
};

#define P(f) offsetof(struct iosched_params, f)
static const struct opt iosched_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histogram" },
	TOOL_OPT_DISK(P(disk)),
	TOOL_OPT_PROM(P(prom), "the histograms as Prometheus metrics (node_exporter textfile "
		      "format, cumulative, in seconds, label sched)"),
	OPT_END
};

static const struct tool_event iosched_events[] = {
	{ "block", "block_rq_insert", 0 },
	{ "block", "block_rq_issue", 0 },
	{ "block", "block_rq_complete", 0 },
	{ NULL, NULL, 0 }
};

/* iosched_on_issue - insert to issue time into the disk's scheduler histogram */
static int iosched_on_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct iosched_params *p = ctx->params;
	const char *sched = iotap_disk_sched(ctx, r->dev);
	uint64_t delta;

	/* Dispatched directly, without passing through a queue: nothing to time. */
	if (!r->t_insert)
		return 0;
	delta = r->t_issue > r->t_insert ? r->t_issue - r->t_insert : 0;
	delta /= p->msecs ? 1000000 : 1000;
	return keyhist_add(ctx->state, *sched ? sched : "unknown", delta);
}

/* iosched_init - check options and subscribe to the request events */
static int iosched_init(struct iotap_ctx *ctx)
{
	struct iosched_params *p = ctx->params;
	struct blktrack_cfg cfg = {
		.flags = BT_INSERT,
		.on_issue = iosched_on_issue,
		.arg = ctx,
	};

	iotap_procs_unused(ctx);
	return keyhist_init(ctx->state, ctx, &cfg, p->disk, 0, p->prom);
}

/* iosched_report - print and reset the histograms, BCC's layout */
static int iosched_report(struct iotap_ctx *ctx)
{
	struct iosched_params *p = ctx->params;
	const struct keyhist_out out = {
		.key = "sched", .unit = p->msecs ? "msecs" : "usecs",
		.prom_name = "iotap_iosched_seconds",
		.prom_help = "Time requests waited in the I/O scheduler, by scheduler",
		.prom_label = "sched", .prom_unit = p->msecs ? 1e-3 : 1e-6,
		.prom_top = p->msecs ? 17 : 27,
	};

	return keyhist_report(ctx->state, ctx, p->timestamp, &out);
}

/* iosched_fini - free the state */
static void iosched_fini(struct iotap_ctx *ctx)
{
	keyhist_release(ctx->state);
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
	.state_size = sizeof(struct keyhist),
	.init = iosched_init,
	.report = iosched_report,
	.fini = iosched_fini,
};
