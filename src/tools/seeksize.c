// SPDX-License-Identifier: GPL-2.0-or-later
/* seeksize.c - requested seek distance histograms per process, the book's seeksize */
#include <stddef.h>

#include "keyhist.h"

struct seeksize_params {
	bool timestamp;
	const char *disk, *prom;
	int pid;
};

struct seeksize_state {
	struct keyhist kh;
	struct blk_lastpos pos;
};

#define P(f) offsetof(struct seeksize_params, f)
static const struct opt seeksize_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	TOOL_OPT_DISK(P(disk)),
	{ 'p', "pid", OPT_PID, P(pid), "PID", "show the seeks of I/O submitted by this process only" },
	TOOL_OPT_PROM(P(prom), "the histograms as Prometheus metrics (node_exporter textfile "
		      "format, cumulative, in bytes, label comm)"),
	OPT_END
};

static const struct tool_event seeksize_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	{ NULL, NULL, 0 }
};

/* 512-byte sectors as bytes: buckets up to 2^40 sectors, 512 TiB. */
static const struct keyhist_out seeksize_out = {
	.key = "Process Name", .unit = "sectors",
	.prom_name = "iotap_seeksize_bytes",
	.prom_help = "Distance from the disk's last request, by submitting process",
	.prom_label = "comm", .prom_unit = 512, .prom_top = 40,
	.prom_exact = true,
};

/* seeksize_on_issue - the distance from the disk's last request into the submitter's histogram */
static int seeksize_on_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;
	uint64_t dist;
	int ret;

	/* Every request moves the disk's position, whoever submitted it. */
	ret = blk_lastpos_seek(&st->pos, r->dev, r->sector, r->nr_sector, &dist);
	if (ret <= 0)
		return ret;
	/* With -p, blktrack gives a start time only to that process's requests. */
	if (p->pid && !r->t_start)
		return 0;
	return keyhist_add(&st->kh, r->comm, dist);
}

/* seeksize_init - check options and subscribe to the request events */
static int seeksize_init(struct iotap_ctx *ctx)
{
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_START_OPTIONAL | BT_ISSUE_ALL,
		.on_issue = seeksize_on_issue,
		.arg = ctx,
	};

	return keyhist_init(&st->kh, ctx, &cfg, p->disk, p->pid, p->prom);
}

/* seeksize_report - print and reset the histograms, BCC's layout */
static int seeksize_report(struct iotap_ctx *ctx)
{
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;

	return keyhist_report(&st->kh, ctx, p->timestamp, &seeksize_out);
}

/* seeksize_fini - free the state */
static void seeksize_fini(struct iotap_ctx *ctx)
{
	struct seeksize_state *st = ctx->state;

	keyhist_release(&st->kh);
	blk_lastpos_release(&st->pos);
}

const struct tool tool_seeksize = {
	.name = "seeksize",
	.summary = "Show requested block I/O seek distances as a histogram per process.",
	.description =
		"Traces block device I/O and prints, for each process, a power-of-two histogram of "
		"the seek distance each request asks of its disk, in 512-byte sectors: the distance "
		"between the request's first sector and the sector after the previous request issued "
		"to the same disk, whichever process submitted that one. 0 is a sequential request. "
		"Requests are taken when issued to the driver (block_rq_issue), in issue order; the "
		"first request seen on each disk has no previous one and is not counted. The process "
		"is the submitter, from block_io_start (block_rq_insert on kernels before 6.5). With "
		"-p the kernel filters the submission events by PID, and the issue events of other "
		"processes still move the disk's position without being counted. This is the BPF "
		"Performance Tools book's seeksize with BCC's histogram layout.",
	.examples =
		"iotap seeksize\n  Trace until Ctrl-C, then print a seek histogram per process.\n"
		"iotap seeksize -d sda -T 5\n  Seeks on sda, printed with a timestamp every five seconds.\n"
		"iotap seeksize -p 1234\n  Only the seeks of the requests that PID 1234 submits.\n",
	.banner = "Tracing block I/O requested seeks... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = seeksize_opts,
	.events = seeksize_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct seeksize_params),
	.state_size = sizeof(struct seeksize_state),
	.init = seeksize_init,
	.report = seeksize_report,
	.fini = seeksize_fini,
};
