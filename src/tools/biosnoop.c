// SPDX-License-Identifier: GPL-2.0-or-later
/* biosnoop.c - one line per block I/O with its submitter and latency, BCC's biosnoop */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "timeline.h"
#include "shared.h"

struct biosnoop_params {
	bool queued, pattern, timestamp, json, bio, remap, show_cgroup;
	const char *disk, *comm, *timeline;
	int pid;
	uint64_t min_ms;
};

/* Where a stacked device's bio was sent, until the bio completes. */
struct biosnoop_remap {
	uint32_t old_dev;
	uint64_t old_sector;
	char to[48];			/* "nvme0n1:2048" */
};

#define BIOSNOOP_MAX_REMAPS 4096

struct biosnoop_state {
	struct blktrack *bt;
	struct block_remap_fmt f_remap;
	struct biosnoop_remap *remaps;	/* oldest first */
	size_t nr_remaps;
	uint64_t remaps_dropped;
	struct blk_lastpos pos;
	uint64_t first_us;		/* completion of the first line: TIME(s) counts from it */
	bool header_done;
	struct timeline *tl;
};

#define P(f) offsetof(struct biosnoop_params, f)
static const struct opt biosnoop_opts[] = {
	{ 'Q', "queue", OPT_FLAG, P(queued), NULL,
	  "include OS queued time (from block_io_start, or block_rq_insert on kernels before 6.5)" },
	TOOL_OPT_DISK(P(disk)),
	{ 'P', "pattern", OPT_FLAG, P(pattern), NULL,
	  "display block I/O pattern: S sequential (starts where the disk's last I/O ended), R random" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process only" },
	{ 0, "comm", OPT_STR, P(comm), "COMM", "trace I/O submitted by this command only" },
	{ 'm', "min", OPT_UINT, P(min_ms), "MIN_MS", "hide I/O whose latency is below MIN_MS milliseconds",
	  NULL, 0, 86400000 },
	{ 't', "timestamp", OPT_FLAG, P(timestamp), NULL,
	  "print wall-clock time (HH:MM:SS.mmm) instead of seconds since the first I/O" },
	TOOL_OPT_JSON(P(json), "one object per I/O and line"),
	{ 0, "timeline", OPT_OUTFILE, P(timeline), "FILE",
	  "at the end, also write the I/O shown as a Trace Event Format timeline (JSON for "
	  "ui.perfetto.dev and chrome://tracing) to FILE: a track per disk and per process, each "
	  "request split into queued and device time, flushes and errors marked" },
	{ 0, "bio", OPT_FLAG, P(bio), NULL,
	  "trace bios from block_bio_queue to block_bio_complete instead of requests, on the devices that complete bios as such: md and dm (the default for them)" },
	{ 0, "remap", OPT_FLAG, P(remap), NULL,
	  "add a REMAP column: the devices and sectors a stacked device (md, dm) sent the bio to (block_bio_remap)" },
	{ 0, "show-cgroup", OPT_FLAG, P(show_cgroup), NULL,
	  "add a CGROUP column: the cgroup v2 the submitter was in when it submitted the I/O" },
	{ .long_name = "queued", .type = OPT_ALIAS, .same_as = "queue",
	  .help = "same as --queue, libbpf-tools' spelling" },
	{ .short_name = 'c', .type = OPT_ALIAS, .arg = "PATH", .same_as = "cgroup", .clash = "--comm",
	  .help = "same as --cgroup, as in libbpf-tools; a value without a '/' is refused (the command "
		  "name filter is --comm)" },
	{ .long_name = "ebpf", .type = OPT_REFUSE,
	  .help = "BCC prints its BPF program; iotap loads none (it reads tracepoints)" },
	OPT_END
};

static const struct tool_event biosnoop_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_BIO,
	{ NULL, NULL, 0 }
};

/* biosnoop_header - the column names, BCC's widths; libbpf-tools' TIMESTAMP with -t */
static void biosnoop_header(struct iotap_ctx *ctx)
{
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;

	if (st->header_done || p->json)
		return;
	st->header_done = true;
	if (p->timestamp)
		fprintf(ctx->out, "%-12s ", "TIMESTAMP");
	else
		fprintf(ctx->out, "%-11s ", "TIME(s)");
	fprintf(ctx->out, "%-14s %-7s %-9s %-1s %-10s %-7s", "COMM", "PID", "DISK", "T", "SECTOR",
		"BYTES");
	if (p->pattern)
		fprintf(ctx->out, "%-1s ", "P");
	if (p->queued)
		fprintf(ctx->out, "%7s ", "QUE(ms)");
	fprintf(ctx->out, "%7s%s%s\n", "LAT(ms)", p->show_cgroup ? " CGROUP" : "", p->remap ? " REMAP" : "");
}

/* biosnoop_on_remap - a stacked device sent a bio on: remember where, until it completes */
static int biosnoop_on_remap(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct biosnoop_state *st = ctx->state;
	struct biosnoop_remap *m;
	struct block_remap r;

	/* Partitions remap too, but their I/O is shown as the disk's: only md/dm bios wait here. */
	if (block_remap_decode(&st->f_remap, s->raw, s->raw_size, &r) ||
	    !blktrack_dev_bio_based(ctx, r.old_dev))
		return 0;
	if (st->nr_remaps == BIOSNOOP_MAX_REMAPS) {
		memmove(st->remaps, st->remaps + 1, --st->nr_remaps * sizeof(*st->remaps));
		st->remaps_dropped++;
	}
	m = &st->remaps[st->nr_remaps++];
	m->old_dev = r.old_dev;
	m->old_sector = r.old_sector;
	snprintf(m->to, sizeof(m->to), "%s:%llu", iotap_disk_name(ctx, r.dev),
		 (unsigned long long)r.sector);
	return 0;
}

/* biosnoop_remaps - the REMAP column of io: where its bio went ("-" for none); forgets them */
static void biosnoop_remaps(struct biosnoop_state *st, const struct blk_io *io, char *buf,
			    size_t len)
{
	size_t n = 0, i = 0;

	buf[0] = 0;
	while (i < st->nr_remaps) {
		struct biosnoop_remap *m = &st->remaps[i];

		if (m->old_dev != io->dev || m->old_sector != io->sector) {
			i++;
			continue;
		}
		if (n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", m->to);
		memmove(m, m + 1, (--st->nr_remaps - i) * sizeof(*m));
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* biosnoop_time - the first column: seconds since the first line, or the wall clock with -t */
static void biosnoop_time(struct iotap_ctx *ctx, const struct blk_io *io, char *buf, size_t len)
{
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;
	uint64_t us = io->t_done / 1000;
	char hms[16];

	if (p->timestamp) {
		if (iotap_strftime(ctx, io->t_done, "%H:%M:%S", hms, sizeof(hms)))
			snprintf(hms, sizeof(hms), "?");
		snprintf(buf, len, "%s.%03llu", hms,
			 (unsigned long long)(iotap_wall_ns(ctx, io->t_done) % 1000000000 / 1000000));
		return;
	}
	/* BCC subtracts whole microseconds: print them exactly. */
	if (!st->first_us)
		st->first_us = us;
	us -= st->first_us;
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(us / 1000000),
		 (unsigned long long)(us % 1000000));
}

/* biosnoop_print - one line for a completed request; pat is "" without -P */
static int biosnoop_print(struct iotap_ctx *ctx, const struct blk_io *io, const char *pat)
{
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;
	uint64_t lat = io->t_done - io->t_issue, que = 0;
	const char *disk = iotap_disk_name(ctx, io->dev);
	char t[32], sector[24] = "-", remap[256] = "";
	FILE *out = ctx->out;

	if (p->remap)
		biosnoop_remaps(st, io, remap, sizeof(remap));
	if (p->comm && strncmp(io->comm, p->comm, sizeof(io->comm) - 1))
		return 0;
	if (lat < p->min_ms * 1000000)
		return 0;
	if (io->t_start && io->t_issue > io->t_start)
		que = io->t_issue - io->t_start;
	if (io->nr_sector)
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)io->sector);
	if (st->tl) {
		struct timeline_req tr = {
			.dev = io->dev, .disk = disk, .pid = io->pid, .comm = io->comm,
			.t_start = io->t_start, .t_issue = io->t_issue, .t_done = io->t_done,
			.sector = io->sector, .bytes = io->bytes, .rwbs = io->rwbs,
			.error = io->error, .flush = io->op == BLOCK_OP_FLUSH,
		};
		int ret = timeline_add(st->tl, &tr);

		if (ret)
			return ret;
	}
	biosnoop_header(ctx);
	biosnoop_time(ctx, io, t, sizeof(t));
	if (p->json) {
		fprintf(out, p->timestamp ? "{\"timestamp\": \"%s\"" : "{\"time\": %s", t);
		fputs(", \"comm\": ", out);
		json_str(out, io->comm);
		fprintf(out, ", \"pid\": %u, \"disk\": ", io->pid);
		json_str(out, disk);
		fprintf(out, ", \"type\": \"%s\", \"rwbs\": ", blk_io_type(io));
		json_str(out, io->rwbs);
		fprintf(out, ", \"sector\": %s, \"bytes\": %u", io->nr_sector ? sector : "null",
			io->bytes);
		if (p->pattern)
			fprintf(out, ", \"pattern\": \"%s\"", pat);
		if (p->queued)
			fprintf(out, ", \"que_ms\": %.3f", que / 1e6);
		fprintf(out, ", \"lat_ms\": %.3f", lat / 1e6);
		if (p->show_cgroup) {
			fputs(", \"cgroup\": ", out);
			json_str(out, io->cgroup ? io->cgroup : "?");
		}
		if (p->remap) {
			fputs(", \"remap\": ", out);
			json_str(out, remap);
		}
		fputs("}\n", out);
		return 0;
	}
	fprintf(out, "%-*s %-14.14s %-7u %-9s %-1s %-10s %-7u", p->timestamp ? 12 : 11, t, io->comm,
		io->pid, disk, blk_io_type(io), sector, io->bytes);
	if (p->pattern)
		fprintf(out, "%-1s ", pat);
	if (p->queued)
		fprintf(out, "%7.2f ", que / 1e6);
	fprintf(out, "%7.2f", lat / 1e6);
	if (p->show_cgroup)
		fprintf(out, " %s", io->cgroup ? io->cgroup : "?");
	fprintf(out, "%s%s\n", p->remap ? " " : "", remap);
	return 0;
}

/* biosnoop_on_done - a request with data: its pattern moves the disk's position */
static int biosnoop_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;
	const char *pat = "";
	uint64_t dist;
	int ret;

	if (p->pattern) {
		/* Every completion moves the position, shown or not, as BCC's does. */
		ret = blk_lastpos_seek(&st->pos, io->dev, io->sector, io->nr_sector, &dist);
		if (ret < 0)
			return ret;
		pat = !ret ? "?" : dist ? "R" : "S";
	}
	return biosnoop_print(ctx, io, pat);
}

/* biosnoop_on_nodata - a flush: no sector, no bytes, no pattern */
static int biosnoop_on_nodata(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biosnoop_params *p = ctx->params;

	return biosnoop_print(ctx, io, p->pattern ? "-" : "");
}

/* biosnoop_init - check options and subscribe to the request events */
static int biosnoop_init(struct iotap_ctx *ctx)
{
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START,
		.on_done = biosnoop_on_done,
		.on_nodata = biosnoop_on_nodata,
		.arg = ctx,
	};
	struct iotap_event *ev;
	int ret;

	if (p->timeline && !(st->tl = timeline_alloc()))
		return -ENOMEM;
	/* -Q times from the submitter's event; without it, who issued each request will do. */
	if (!p->queued)
		cfg.flags |= BT_START_OPTIONAL;
	ret = blktrack_cfg_select(&cfg, ctx, p->disk, p->pid);
	if (!ret && p->show_cgroup)
		ret = iotap_cgroup_track(ctx);
	if (ret)
		return ret;
	ret = blktrack_cfg_bio(&cfg, ctx, p->disk, p->bio);
	if (ret)
		return ret;
	ret = blktrack_create(&st->bt, ctx, &cfg);
	if (ret || !p->remap)
		return ret;
	st->remaps = calloc(BIOSNOOP_MAX_REMAPS, sizeof(*st->remaps));
	if (!st->remaps)
		return -ENOMEM;
	ev = iotap_event_use(ctx, "block", "block_bio_remap", 0, biosnoop_on_remap, NULL);
	if (!ev)
		return -errno;
	ret = block_remap_fmt_init(&st->f_remap, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "block:block_bio_remap has no dev/sector/old_dev/old_sector fields");
		return ret;
	}
	/* As blktrack's own use of the event: the kernel ANDs the two. */
	return cfg.has_dev ? iotap_event_filter(ev, "dev == %u || old_dev == %u", cfg.dev, cfg.dev) : 0;
}

/* biosnoop_json - the timeline into f */
static int biosnoop_json(FILE *f, void *arg)
{
	return timeline_write_json(arg, f);
}

/* biosnoop_timeline_write - every request shown, as one Trace Event file */
static int biosnoop_timeline_write(struct iotap_ctx *ctx)
{
	struct biosnoop_params *p = ctx->params;
	struct biosnoop_state *st = ctx->state;

	return tool_file_write(ctx, p->timeline, biosnoop_json, st->tl);
}

/* biosnoop_report - the lines went out as requests completed; say what was not paired */
static int biosnoop_report(struct iotap_ctx *ctx)
{
	struct biosnoop_state *st = ctx->state;

	biosnoop_header(ctx);
	blktrack_warn_stats(st->bt, ctx);
	if (st->remaps_dropped)
		iotap_warn(ctx, "%llu remaps were forgotten before their bio completed (more than %d pending)",
			   (unsigned long long)st->remaps_dropped, BIOSNOOP_MAX_REMAPS);
	if (st->tl && ctx->final && biosnoop_timeline_write(ctx))
		return -EIO;
	return ferror(ctx->out) ? -EIO : 0;
}

/* biosnoop_fini - free the state */
static void biosnoop_fini(struct iotap_ctx *ctx)
{
	struct biosnoop_state *st = ctx->state;

	blktrack_free(st->bt);
	blk_lastpos_release(&st->pos);
	timeline_free(st->tl);
	free(st->remaps);
}

const struct tool tool_biosnoop = {
	.name = "biosnoop",
	.summary = "Trace block device I/O with its process, disk and latency.",
	.description =
		"Prints one line per completed block device request, in completion order: the "
		"process that submitted it (from block_io_start, or block_rq_insert on kernels "
		"before 6.5; never the completing context), the disk, the type (R, W, F for flushes, "
		"D for discards), the first sector, the size, and the latency from issue to the "
		"device until completion. -Q adds the time queued in the OS before the issue. "
		"TIME(s) counts from the first line. Requests are paired by device and sector from "
		"block_rq_issue and block_rq_complete; flushes carry no sector and are paired per "
		"device in issue order, named after the oldest fsync waiting for them, with SECTOR "
		"'-' and 0 bytes. Requests in flight when tracing starts are not shown. The columns "
		"and widths are those of BCC's biosnoop; -t prints libbpf-tools' TIMESTAMP column "
		"instead of TIME(s). md and dm devices never issue requests: for them (or for any "
		"device with --bio) bios are traced from block_bio_queue to block_bio_complete, and "
		"--remap adds a REMAP column with the member devices and sectors each bio was sent "
		"to (block_bio_remap).",
	.examples =
		"iotap biosnoop\n  Trace every block I/O until Ctrl-C.\n"
		"iotap biosnoop -Q -d sda\n  Only sda, with the time queued in the OS.\n"
		"iotap biosnoop -P --comm postgres\n  The I/O of postgres, marked sequential or random.\n"
		"iotap biosnoop -c /sys/fs/cgroup/system.slice\n"
		"  The I/O of the services, as libbpf-tools' biosnoop -c selects a cgroup.\n"
		"iotap biosnoop -m 10 -t\n  I/O slower than 10 ms, with wall-clock times.\n"
		"iotap biosnoop -j 10\n  Ten seconds of I/O as JSON, one object per line.\n"
		"iotap biosnoop -Q --timeline io.json 10\n"
		"  Ten seconds of I/O, also as a timeline to open in ui.perfetto.dev.\n"
		"iotap biosnoop -d md0 --remap\n  The bios of a RAID device and the member disks they went to.\n",
	.banner = "Tracing block device I/O... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_DURATION,
	.opts = biosnoop_opts,
	.events = biosnoop_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct biosnoop_params),
	.state_size = sizeof(struct biosnoop_state),
	.init = biosnoop_init,
	.report = biosnoop_report,
	.fini = biosnoop_fini,
};
