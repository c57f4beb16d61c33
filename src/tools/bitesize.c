// SPDX-License-Identifier: GPL-2.0-or-later
/* bitesize.c - block I/O size histograms per process, BCC's bitesize on tracepoints */
#include <stddef.h>
#include <string.h>

#include "keyhist.h"

struct bitesize_params {
	bool timestamp;
	const char *comm;
	int pid;
	const char *disk;
	const char *prom;
};

#define P(f) offsetof(struct bitesize_params, f)
static const struct opt bitesize_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM",
	  "trace I/O submitted by processes of this name only (the first 15 characters)" },
	TOOL_OPT_DISK(P(disk)),
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process (all its threads) only" },
	TOOL_OPT_PROM(P(prom), "the histograms as Prometheus metrics (node_exporter textfile "
		      "format, cumulative, in bytes, label comm)"),
	OPT_END
};

static const struct tool_event bitesize_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	{ NULL, NULL, 0 }
};

/*
 * Kbytes slots as bytes: buckets up to 2^17 KiB, 128 MiB. Sizes are cut to whole KiB (BCC's
 * rows), so a bucket is the bound that holds them: a 4 KiB request is under le="8192".
 */
static const struct keyhist_out bitesize_out = {
	.key = "Process Name", .unit = "Kbytes",
	.prom_name = "iotap_bitesize_bytes",
	.prom_help = "Block I/O request size at issue, by submitting process",
	.prom_label = "comm", .prom_unit = 1024, .prom_top = 17,
};

/* bitesize_on_issue - one issued request into its submitter's histogram, in Kbytes */
static int bitesize_on_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct bitesize_params *p = ctx->params;

	if (p->comm && strncmp(r->comm, p->comm, sizeof(r->comm) - 1))
		return 0;
	return keyhist_add(ctx->state, r->comm, r->bytes / 1024);
}

/* bitesize_init - check options and subscribe to the request events */
static int bitesize_init(struct iotap_ctx *ctx)
{
	struct bitesize_params *p = ctx->params;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_START_OPTIONAL,
		.on_issue = bitesize_on_issue,
		.arg = ctx,
	};

	return keyhist_init(ctx->state, ctx, &cfg, p->disk, p->pid, p->prom);
}

/* bitesize_report - print and reset the histograms, BCC's layout */
static int bitesize_report(struct iotap_ctx *ctx)
{
	struct bitesize_params *p = ctx->params;

	return keyhist_report(ctx->state, ctx, p->timestamp, &bitesize_out);
}

/* bitesize_fini - free the state */
static void bitesize_fini(struct iotap_ctx *ctx)
{
	keyhist_release(ctx->state);
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
	.probes = blktrack_probes,
	.params_size = sizeof(struct bitesize_params),
	.state_size = sizeof(struct keyhist),
	.init = bitesize_init,
	.report = bitesize_report,
	.fini = bitesize_fini,
};
