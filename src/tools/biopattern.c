// SPDX-License-Identifier: GPL-2.0-or-later
/* biopattern.c - random and sequential block I/O per disk, the book's biopattern */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "blktrack.h"
#include "prom.h"
#include "shared.h"

struct biopattern_params {
	bool timestamp;
	const char *disk, *prom;
};

struct biopattern_disk {
	uint32_t dev;
	uint64_t rnd, seq, bytes;	/* this interval */
};

struct biopattern_state {
	struct blktrack *bt;
	struct blk_lastpos pos;
	struct biopattern_disk *d;	/* in order of first completion */
	size_t nr;
	bool header_done;
	struct prom *prom;
};

#define P(f) offsetof(struct biopattern_params, f)
static const struct opt biopattern_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	TOOL_OPT_DISK(P(disk)),
	TOOL_OPT_PROM(P(prom), "per-disk counters of random and sequential requests and of "
		      "bytes as Prometheus metrics (node_exporter textfile format)"),
	{ .long_name = "ebpf", .type = OPT_REFUSE,
	  .help = "BCC prints its BPF program; iotap loads none (it reads tracepoints)" },
	OPT_END
};

static const struct tool_event biopattern_events[] = {
	TOOL_EVENTS_BLOCK_RQ,
	{ NULL, NULL, 0 }
};

/* biopattern_disk - the counters of dev, added on its first completion */
static struct biopattern_disk *biopattern_disk(struct biopattern_state *st, uint32_t dev)
{
	struct biopattern_disk *d;

	for (size_t i = 0; i < st->nr; i++)
		if (st->d[i].dev == dev)
			return &st->d[i];
	d = realloc(st->d, (st->nr + 1) * sizeof(*d));
	if (!d)
		return NULL;
	st->d = d;
	d = &st->d[st->nr++];
	*d = (struct biopattern_disk){ .dev = dev };
	return d;
}

/* biopattern_on_done - sequential when it starts where the disk's last completion ended */
static int biopattern_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biopattern_state *st = ctx->state;
	struct biopattern_disk *d = biopattern_disk(st, io->dev);
	int ret;

	if (!d)
		return -ENOMEM;
	ret = blk_lastpos_sequential(&st->pos, io);
	if (ret < 0)
		return ret;
	d->seq += ret;
	d->rnd += !ret;
	d->bytes += io->bytes;
	return 0;
}

/* biopattern_init - check options and subscribe to the request events */
static int biopattern_init(struct iotap_ctx *ctx)
{
	struct biopattern_params *p = ctx->params;
	struct biopattern_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.on_done = biopattern_on_done,
		.arg = ctx,
	};
	int ret = tool_prom_open(ctx, p->prom, &st->prom);

	iotap_procs_unused(ctx);
	if (!ret)
		ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	return ret ? ret : blktrack_create(&st->bt, ctx, &cfg);
}

/* biopattern_prom - a disk's interval into the cumulative counters */
static int biopattern_prom(struct iotap_ctx *ctx, const struct biopattern_disk *d)
{
	struct biopattern_state *st = ctx->state;
	const char *help = "Block I/O requests completed, random or sequential";
	char rnd[128] = "", seq[128] = "", disk[128] = "";
	const char *name = iotap_disk_name(ctx, d->dev);
	int ret;

	if (prom_label(rnd, sizeof(rnd), "disk", name) ||
	    prom_label(rnd, sizeof(rnd), "pattern", "random") ||
	    prom_label(seq, sizeof(seq), "disk", name) ||
	    prom_label(seq, sizeof(seq), "pattern", "sequential") ||
	    prom_label(disk, sizeof(disk), "disk", name))
		return -ENOSPC;
	ret = prom_counter_add(st->prom, "iotap_biopattern_requests_total", help, rnd, d->rnd);
	if (!ret)
		ret = prom_counter_add(st->prom, "iotap_biopattern_requests_total", help, seq, d->seq);
	if (!ret)
		ret = prom_counter_add(st->prom, "iotap_biopattern_bytes_total",
				       "Bytes of completed block I/O", disk, d->bytes);
	return ret;
}

/* biopattern_report - one line per disk that completed I/O this interval, then reset */
static int biopattern_report(struct iotap_ctx *ctx)
{
	struct biopattern_params *p = ctx->params;
	struct biopattern_state *st = ctx->state;
	char ts[32] = "";

	if (!st->header_done) {
		if (p->timestamp)
			fprintf(ctx->out, "%-9s ", "TIME");
		fprintf(ctx->out, "%-7s %5s %5s %8s %10s\n", "DISK", "%RND", "%SEQ", "COUNT",
			"KBYTES");
		st->header_done = true;
	}
	if (p->timestamp)
		iotap_strftime(ctx, iotap_now(ctx), "%H:%M:%S", ts, sizeof(ts));
	for (size_t i = 0; i < st->nr; i++) {
		struct biopattern_disk *d = &st->d[i];
		uint64_t total = d->rnd + d->seq;

		if (!total)
			continue;
		if (st->prom) {
			int ret = biopattern_prom(ctx, d);

			if (ret)
				return tool_prom_write(ctx, st->prom, p->prom, ret);
		}
		if (p->timestamp)
			fprintf(ctx->out, "%-9s ", ts);
		fprintf(ctx->out, "%-7s %5llu %5llu %8llu %10llu\n", iotap_disk_name(ctx, d->dev),
			(unsigned long long)(d->rnd * 100 / total),
			(unsigned long long)(d->seq * 100 / total), (unsigned long long)total,
			(unsigned long long)(d->bytes / 1024));
		d->rnd = d->seq = d->bytes = 0;
	}
	if (st->prom) {
		int ret = tool_prom_write(ctx, st->prom, p->prom, 0);

		if (ret)
			return ret;
	}
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	return ferror(ctx->out) ? -EIO : 0;
}

/* biopattern_fini - free the state */
static void biopattern_fini(struct iotap_ctx *ctx)
{
	struct biopattern_state *st = ctx->state;

	blktrack_free(st->bt);
	blk_lastpos_release(&st->pos);
	free(st->d);
	prom_free(st->prom);
}

const struct tool tool_biopattern = {
	.name = "biopattern",
	.summary = "Show random and sequential block I/O per disk.",
	.description =
		"Traces block device I/O and prints, for each disk and interval, the percentage of "
		"random and sequential requests, their count and the Kbytes they moved. A request "
		"is taken when it completes (block_rq_complete, paired with its issue) and is "
		"sequential when its first sector is the sector after the previous completed request "
		"on that disk; the first request seen on a disk counts as random. Requests are counted "
		"after the block layer merged and split bios; flushes and other requests without data "
		"are not counted. Percentages are rounded down, as the original's are. Disks without "
		"I/O in an interval print no line; the header is printed once, and -T adds a TIME "
		"column. This is the BPF Performance Tools book's biopattern with the DISK column of "
		"libbpf-tools.",
	.examples =
		"iotap biopattern\n  Trace until Ctrl-C, then print one line per disk.\n"
		"iotap biopattern -T 1\n  One line per disk every second, with the time.\n"
		"iotap biopattern -d sda 1 10\n  Only sda, every second, ten times.\n",
	.banner = "Tracing block device I/O patterns... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = biopattern_opts,
	.events = biopattern_events,
	.params_size = sizeof(struct biopattern_params),
	.state_size = sizeof(struct biopattern_state),
	.init = biopattern_init,
	.report = biopattern_report,
	.fini = biopattern_fini,
};
