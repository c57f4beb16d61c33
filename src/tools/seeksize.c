// SPDX-License-Identifier: GPL-2.0-or-later
/* seeksize.c - requested seek distance histograms per process, the book's seeksize */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "prom.h"

struct seeksize_params {
	bool timestamp;
	const char *disk, *prom;
	int pid;
};

struct seeksize_state {
	struct blktrack *bt;
	struct blk_lastpos pos;
	struct hist_set hs;
	struct prom *prom;
};

#define P(f) offsetof(struct seeksize_params, f)
static const struct opt seeksize_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'd', "disk", OPT_DISK, P(disk), "DISK", "trace this disk only" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "show the seeks of I/O submitted by this process only" },
	{ 0, "prom", OPT_OUTFILE, P(prom), "FILE",
	  "each interval, also write the histograms as Prometheus metrics (node_exporter textfile "
	  "format, cumulative, in bytes, label comm) to a temporary and rename it over FILE" },
	OPT_END
};

static const struct tool_event seeksize_events[] = {
	{ "block", "block_rq_issue", 0 },
	{ "block", "block_rq_complete", 0 },
	{ "block", "block_io_start", TOOL_EV_OPTIONAL },
	{ "block", "block_rq_insert", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* seeksize_on_issue - the distance from the disk's last request into the submitter's histogram */
static int seeksize_on_issue(void *arg, const struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;
	struct hist *h;
	uint64_t dist;
	int ret;

	/* Every request moves the disk's position, whoever submitted it. */
	ret = blk_lastpos_seek(&st->pos, r->dev, r->sector, r->nr_sector, &dist);
	if (ret <= 0)
		return ret;
	/* With -p, blktrack gives a start time only to that process's requests. */
	if (p->pid && !r->t_start)
		return 0;
	h = hist_set_get(&st->hs, r->comm);
	if (!h || hist_add(h, dist))
		return -ENOMEM;
	return 0;
}

/* seeksize_init - check options and subscribe to the request events */
static int seeksize_init(struct iotap_ctx *ctx)
{
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_ISSUE_ALL,
		.on_issue = seeksize_on_issue,
		.arg = ctx,
	};
	int ret;

	if (p->prom && !(st->prom = prom_alloc(p->prom))) {
		iotap_err(ctx, "cannot write %s: %s", p->prom, strerror(errno));
		return -EINVAL;
	}
	ret = blktrack_cfg_select(&cfg, ctx, p->disk, p->pid);
	return ret ? ret : blktrack_create(&st->bt, ctx, &cfg);
}

/* seeksize_report - print and reset the histograms, BCC's layout */
static int seeksize_report(struct iotap_ctx *ctx)
{
	struct seeksize_params *p = ctx->params;
	struct seeksize_state *st = ctx->state;
	int ret;

	iotap_interval_header(ctx, p->timestamp);
	ret = hist_set_print_log2(&st->hs, ctx->out, "Process Name", "sectors");
	if (!ret && st->prom) {
		/* 512-byte sectors as bytes: buckets up to 2^40 sectors, 512 TiB. */
		ret = prom_hist_set_add(st->prom, "iotap_seeksize_bytes",
					"Distance from the disk's last request, by submitting process",
					"comm", &st->hs, 512, 40);
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

/* seeksize_fini - free the state */
static void seeksize_fini(struct iotap_ctx *ctx)
{
	struct seeksize_state *st = ctx->state;

	blktrack_free(st->bt);
	blk_lastpos_release(&st->pos);
	hist_set_release(&st->hs);
	prom_free(st->prom);
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
	.params_size = sizeof(struct seeksize_params),
	.state_size = sizeof(struct seeksize_state),
	.init = seeksize_init,
	.report = seeksize_report,
	.fini = seeksize_fini,
};
