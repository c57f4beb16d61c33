// SPDX-License-Identifier: GPL-2.0-or-later
/* bitesize.c - block I/O size histograms per process, BCC's bitesize on tracepoints */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "prom.h"

struct bitesize_params {
	bool timestamp;
	const char *comm;
	int pid;
	const char *disk;
	const char *prom;
};

struct bitesize_state {
	struct blktrack *bt;
	struct hist_set hs;
	struct prom *prom;
};

#define P(f) offsetof(struct bitesize_params, f)
static const struct opt bitesize_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM",
	  "trace I/O submitted by processes of this name only (the first 15 characters)" },
	{ 'd', "disk", OPT_DISK, P(disk), "DISK", "trace this disk only" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process (all its threads) only" },
	{ 0, "prom", OPT_OUTFILE, P(prom), "FILE",
	  "each interval, also write the histograms as Prometheus metrics (node_exporter textfile "
	  "format, cumulative, in bytes, label comm) to a temporary and rename it over FILE" },
	OPT_END
};

static const struct tool_event bitesize_events[] = {
	{ "block", "block_rq_issue", 0 },
	{ "block", "block_rq_complete", 0 },
	{ "block", "block_io_start", TOOL_EV_OPTIONAL },
	{ "block", "block_rq_insert", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* bitesize_on_issue - one issued request into its submitter's histogram, in Kbytes */
static int bitesize_on_issue(void *arg, const struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct bitesize_params *p = ctx->params;
	struct bitesize_state *st = ctx->state;
	struct hist *h;

	if (p->comm && strncmp(r->comm, p->comm, sizeof(r->comm) - 1))
		return 0;
	h = hist_set_get(&st->hs, r->comm);
	if (!h || hist_add(h, r->bytes / 1024))
		return -ENOMEM;
	return 0;
}

/* bitesize_init - check options and subscribe to the request events */
static int bitesize_init(struct iotap_ctx *ctx)
{
	struct bitesize_params *p = ctx->params;
	struct bitesize_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START,
		.on_issue = bitesize_on_issue,
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

/* bitesize_report - print and reset the histograms, BCC's layout */
static int bitesize_report(struct iotap_ctx *ctx)
{
	struct bitesize_params *p = ctx->params;
	struct bitesize_state *st = ctx->state;
	int ret;

	iotap_interval_header(ctx, p->timestamp);
	ret = hist_set_print_log2(&st->hs, ctx->out, "Process Name", "Kbytes");
	if (!ret && st->prom) {
		/* Kbytes slots as bytes: buckets up to 2^17 KiB, 128 MiB. */
		ret = prom_hist_set_add(st->prom, "iotap_bitesize_bytes",
					"Block I/O request size at issue, by submitting process",
					"comm", &st->hs, 1024, 17);
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

/* bitesize_fini - free the state */
static void bitesize_fini(struct iotap_ctx *ctx)
{
	struct bitesize_state *st = ctx->state;

	blktrack_free(st->bt);
	hist_set_release(&st->hs);
	prom_free(st->prom);
}

const struct tool tool_bitesize = {
	.name = "bitesize",
	.summary = "Summarize block device I/O size as a histogram per process.",
	.description =
		"Traces block device I/O and prints, for each process, a power-of-two histogram of "
		"request sizes in Kbytes (bytes / 1024, so requests under 1 Kbyte fall in the 0 -> 1 "
		"row). A request is counted once, when it is issued to the driver (block_rq_issue), "
		"with its size at that point: after the block layer merged and split bios, so one "
		"large read may count as several requests no bigger than the disk's max_sectors_kb. "
		"The process is the one that submitted the I/O, from block_io_start (block_rq_insert "
		"on kernels before 6.5), not the task that happened to issue it; requests already in "
		"flight when tracing starts are credited to the issuing task. Flushes and other "
		"requests without data are not counted. The -c match is on the process name as the "
		"kernel keeps it, 15 characters at most, in user space.",
	.examples =
		"iotap bitesize\n  Trace until Ctrl-C, then print a histogram per process.\n"
		"iotap bitesize -T 1 10\n  Print histograms with a timestamp every second, ten times.\n"
		"iotap bitesize -c fio -d sda\n  Only I/O that processes named fio submit to sda.\n",
	.banner = "Tracing block device I/O... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = bitesize_opts,
	.events = bitesize_events,
	.params_size = sizeof(struct bitesize_params),
	.state_size = sizeof(struct bitesize_state),
	.init = bitesize_init,
	.report = bitesize_report,
	.fini = bitesize_fini,
};
