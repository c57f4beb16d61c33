// SPDX-License-Identifier: GPL-2.0-or-later
/* biolatency.c - block I/O latency histograms, BCC's biolatency on tracepoints */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "heatmap.h"
#include "hist.h"
#include "prom.h"
#include "shared.h"

struct biolatency_params {
	bool timestamp, queued, msecs, disks, flags, extension, json, percentiles, bio;
	const char *disk, *prom, *heatmap;
	int pid;
};

struct biolatency_state {
	struct blktrack *bt;
	struct hist_set hs;
	uint64_t ext_total, ext_count;
	struct prom *prom;
	struct heatmap *hm;
};

#define P(f) offsetof(struct biolatency_params, f)
static const struct opt biolatency_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'Q', "queued", OPT_FLAG, P(queued), NULL,
	  "include OS queued time in I/O time (from block_io_start, or block_rq_insert on kernels before 6.5)" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histogram" },
	{ 'D', "disks", OPT_FLAG, P(disks), NULL, "print a histogram per disk device" },
	{ 'F', "flags", OPT_FLAG, P(flags), NULL,
	  "print a histogram per set of I/O flags (from rwbs: Read, Sync-Write, Flush...)" },
	{ 'e', "extension", OPT_FLAG, P(extension), NULL, "summarize average/total value" },
	TOOL_OPT_JSON(P(json), "one object per histogram and line"),
	TOOL_OPT_DISK(P(disk)),
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process only" },
	{ 0, "percentiles", OPT_FLAG, P(percentiles), NULL,
	  "print p50, p90, p99, p99.9 and max under each histogram" },
	TOOL_OPT_PROM(P(prom), "the histograms as Prometheus metrics (node_exporter textfile "
		      "format, cumulative, in seconds)"),
	{ 0, "heatmap", OPT_OUTFILE, P(heatmap), "FILE",
	  "at the end, write an SVG latency heat map to FILE: a column per interval (1 s without "
	  "one), a row per log2 latency bucket, colour by count, the count in each cell's hover text" },
	{ 0, "bio", OPT_FLAG, P(bio), NULL,
	  "time bios from block_bio_queue to block_bio_complete instead of requests, on the devices that complete bios as such: md and dm (the default for them)" },
	{ .short_name = 'c', .type = OPT_ALIAS, .arg = "PATH", .same_as = "cgroup",
	  .help = "same as --cgroup, libbpf-tools' spelling" },
	{ .long_name = "flag", .type = OPT_ALIAS, .same_as = "flags",
	  .help = "same as --flags, libbpf-tools' spelling" },
	{ .long_name = "ebpf", .type = OPT_REFUSE,
	  .help = "BCC prints its BPF program; iotap loads none (it reads tracepoints)" },
	OPT_END
};

static const struct tool_event biolatency_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_BIO,
	{ NULL, NULL, 0 }
};

/* biolatency_on_done - one completed request into its section's histogram */
static int biolatency_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biolatency_params *p = ctx->params;
	struct biolatency_state *st = ctx->state;
	uint64_t from = io->t_issue, delta;
	char flags[128];
	const char *key = flags;
	struct hist *h;

	flags[0] = 0;
	if (p->queued)
		from = io->t_start ? io->t_start : io->t_insert ? io->t_insert : io->t_issue;
	delta = io->t_done > from ? io->t_done - from : 0;
	delta /= p->msecs ? 1000000 : 1000;
	if (p->disks)
		key = iotap_disk_name(ctx, io->dev);
	else if (p->flags)
		block_flags_name(io->op, io->flags, flags, sizeof(flags));
	h = hist_set_get(&st->hs, key);
	if (!h || hist_add(h, delta))
		return -ENOMEM;
	if (st->hm && heatmap_add(st->hm, io->t_done > iotap_start_time(ctx) ?
				  io->t_done - iotap_start_time(ctx) : 0, hist_log2_slot(delta)))
		return -ENOMEM;
	st->ext_total += delta;
	st->ext_count++;
	return 0;
}

/* biolatency_heatmap_open - the heat map's columns (the option table checked FILE) */
static int biolatency_heatmap_open(struct iotap_ctx *ctx)
{
	struct biolatency_state *st = ctx->state;

	st->hm = heatmap_alloc(ctx->interval_ns ? ctx->interval_ns : 1000000000ull);
	return st->hm ? 0 : -ENOMEM;
}

/* The heat map and how to draw it, for tool_file_write. */
struct biolatency_svg {
	const struct heatmap *hm;
	const struct heatmap_opts *ho;
};

/* biolatency_svg - draw the heat map into f */
static int biolatency_svg(FILE *f, void *arg)
{
	struct biolatency_svg *svg = arg;

	return heatmap_write_svg(svg->hm, f, svg->ho);
}

/* biolatency_heatmap_write - the heat map of the whole run */
static int biolatency_heatmap_write(struct iotap_ctx *ctx)
{
	struct biolatency_params *p = ctx->params;
	struct biolatency_state *st = ctx->state;
	struct heatmap_opts ho = {
		.title = p->queued ? "Block I/O latency heat map (biolatency -Q: queued + device time)" :
			 "Block I/O latency heat map (biolatency: device time)",
		.subtitle = p->disk,
		.unit = p->msecs ? "msecs" : "usecs",
	};
	struct biolatency_svg svg = { st->hm, &ho };

	return tool_file_write(ctx, p->heatmap, biolatency_svg, &svg);
}

/* biolatency_init - check options and subscribe to the request events */
static int biolatency_init(struct iotap_ctx *ctx)
{
	struct biolatency_params *p = ctx->params;
	struct biolatency_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = p->queued ? BT_START : 0,
		.on_done = biolatency_on_done,
		.arg = ctx,
	};
	int ret;

	if (p->disks && p->flags) {
		iotap_err(ctx, "can only use -D or -F");
		return -EINVAL;
	}
	ret = tool_prom_open(ctx, p->prom, &st->prom);
	if (ret)
		return ret;
	if (p->heatmap) {
		ret = biolatency_heatmap_open(ctx);
		if (ret)
			return ret;
	}
	/* Histograms by latency, disk or flags: a process matters only to -p. */
	if (!p->pid)
		iotap_procs_unused(ctx);
	ret = blktrack_cfg_select(&cfg, ctx, p->disk, p->pid);
	if (ret)
		return ret;
	ret = blktrack_cfg_bio(&cfg, ctx, p->disk, p->bio);
	if (ret)
		return ret;
	/* The flags view shows flushes too, under their own flag set (doc/attribution.md,
	 * Flushes). */
	if (p->flags)
		cfg.on_nodata = biolatency_on_done;
	return blktrack_create(&st->bt, ctx, &cfg);
}

/* biolatency_print_one - one histogram with its optional percentile line */
static int biolatency_print_one(struct iotap_ctx *ctx, struct hist *h, const char *section,
				const char *key, const char *ts)
{
	struct biolatency_params *p = ctx->params;
	const char *label = p->msecs ? "msecs" : "usecs";

	if (p->json)
		return hist_print_json(h, ctx->out, label, ts, section, key);
	if (section)
		fprintf(ctx->out, "\n%s = %s\n", section, key);
	hist_print_log2(h, ctx->out, label);
	return p->percentiles ? hist_print_percentiles(h, ctx->out, label) : 0;
}

/* biolatency_prom - add the interval to the Prometheus series and rewrite the file */
static int biolatency_prom(struct iotap_ctx *ctx)
{
	struct biolatency_params *p = ctx->params;
	struct biolatency_state *st = ctx->state;
	/* Up to 2^27 us or 2^17 ms, about 134 s, as buckets; slower only in +Inf. */
	int ret = prom_hist_set_add(st->prom, "iotap_biolatency_seconds", p->queued ?
				    "Block I/O latency from creation to completion (biolatency -Q)" :
				    "Block I/O latency from issue to the device until completion",
				    p->disks ? "disk" : p->flags ? "flags" : NULL, &st->hs,
				    p->msecs ? 1e-3 : 1e-6, p->msecs ? 17 : 27, false);

	return tool_prom_write(ctx, st->prom, p->prom, ret);
}

/* biolatency_report - print and reset the histograms, BCC's layout */
static int biolatency_report(struct iotap_ctx *ctx)
{
	struct biolatency_params *p = ctx->params;
	struct biolatency_state *st = ctx->state;
	const char *section = p->disks ? "disk" : p->flags ? "flags" : NULL;
	const char *label = p->msecs ? "msecs" : "usecs";
	char ts[32] = "";
	int ret = 0;

	tool_report_begin(ctx, p->json, p->timestamp, ts, sizeof(ts));
	hist_set_sort(&st->hs);
	for (size_t i = 0; i < st->hs.nr && !ret; i++)
		ret = biolatency_print_one(ctx, &st->hs.h[i], section, st->hs.keys[i], ts);
	if (p->extension && st->ext_count && !p->json)
		fprintf(ctx->out, "\navg = %llu %s, total: %llu %s, count: %llu\n\n",
			(unsigned long long)(st->ext_total / st->ext_count), label,
			(unsigned long long)st->ext_total, label, (unsigned long long)st->ext_count);
	if (!ret && st->prom)
		ret = biolatency_prom(ctx);
	if (!ret && st->hm && ctx->final)
		ret = biolatency_heatmap_write(ctx);
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	hist_set_reset(&st->hs);
	st->ext_total = st->ext_count = 0;
	return ret;
}

/* biolatency_fini - free the state */
static void biolatency_fini(struct iotap_ctx *ctx)
{
	struct biolatency_state *st = ctx->state;

	blktrack_free(st->bt);
	hist_set_release(&st->hs);
	prom_free(st->prom);
	heatmap_free(st->hm);
}

const struct tool tool_biolatency = {
	.name = "biolatency",
	.summary = "Summarize block device I/O latency as a histogram.",
	.description =
		"Traces block device I/O and prints a histogram of its latency: from issue to the "
		"device until completion (device time), or with -Q from when the request was created "
		"in the submitting task. Requests are paired by device and sector in user space from "
		"the block_rq_issue and block_rq_complete tracepoints; flushes and other requests "
		"without a sector are not timed. Output is byte-compatible with BCC's biolatency; "
		"-F works on tracepoints since the flags come from rwbs. md and dm devices never "
		"issue requests: for them (or for any device with --bio) bios are timed from "
		"block_bio_queue to block_bio_complete, each bio once, merged or not.",
	.examples =
		"iotap biolatency\n  Trace until Ctrl-C, then print a histogram in microseconds.\n"
		"iotap biolatency -mT 1 10\n  Print a millisecond histogram with a timestamp every second, ten times.\n"
		"iotap biolatency -D -Q\n  One histogram per disk, including time queued in the OS.\n"
		"iotap biolatency -F -d sda --percentiles\n  One histogram per I/O flag set on sda, with percentiles.\n"
		"iotap biolatency -d md0\n  Bio latency of a software RAID device.\n"
		"iotap biolatency -i trace.iotap -D\n  The same report from a recording.\n"
		"iotap biolatency -D --prom /var/lib/node_exporter/biolatency.prom 15\n"
		"  Every 15 seconds, per-disk latency histograms for node_exporter's textfile collector.\n"
		"iotap biolatency -d sda --heatmap lat.svg 0.5 120\n"
		"  Trace sda for a minute, then draw a heat map of half-second columns.\n",
	.banner = "Tracing block device I/O... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = biolatency_opts,
	.events = biolatency_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct biolatency_params),
	.state_size = sizeof(struct biolatency_state),
	.init = biolatency_init,
	.report = biolatency_report,
	.fini = biolatency_fini,
};
