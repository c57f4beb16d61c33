// SPDX-License-Identifier: GPL-2.0-or-later
/* biosnoop.c - one line per block I/O with its submitter and latency, BCC's biosnoop */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"

struct biosnoop_params {
	bool queued, pattern, timestamp, json, show_cgroup;
	const char *disk, *comm;
	int pid;
	uint64_t min_ms;
};

struct biosnoop_state {
	struct blktrack *bt;
	struct blk_lastpos pos;
	uint64_t first_us;		/* completion of the first line: TIME(s) counts from it */
	bool header_done;
};

#define P(f) offsetof(struct biosnoop_params, f)
static const struct opt biosnoop_opts[] = {
	{ 'Q', "queue", OPT_FLAG, P(queued), NULL,
	  "include OS queued time (from block_io_start, or block_rq_insert on kernels before 6.5)" },
	{ 'd', "disk", OPT_DISK, P(disk), "DISK", "trace this disk only" },
	{ 'P', "pattern", OPT_FLAG, P(pattern), NULL,
	  "display block I/O pattern: S sequential (starts where the disk's last I/O ended), R random" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process only" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM", "trace I/O submitted by this command only" },
	{ 'm', "min", OPT_UINT, P(min_ms), "MIN_MS", "hide I/O whose latency is below MIN_MS milliseconds",
	  NULL, 0, 86400000 },
	{ 't', "timestamp", OPT_FLAG, P(timestamp), NULL,
	  "print wall-clock time (HH:MM:SS.mmm) instead of seconds since the first I/O" },
	{ 'j', "json", OPT_FLAG, P(json), NULL, "json output: one object per I/O and line" },
	{ 0, "show-cgroup", OPT_FLAG, P(show_cgroup), NULL,
	  "add a CGROUP column: the cgroup v2 the submitter was in when it submitted the I/O" },
	OPT_END
};

static const struct tool_event biosnoop_events[] = {
	{ "block", "block_rq_issue", 0 },
	{ "block", "block_rq_complete", 0 },
	{ "block", "block_io_start", TOOL_EV_OPTIONAL },
	{ "block", "block_rq_insert", TOOL_EV_OPTIONAL },
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
	fprintf(ctx->out, "%7s", "LAT(ms)");
	fputs(p->show_cgroup ? " CGROUP\n" : "\n", ctx->out);
}

/* biosnoop_type - the T column: W, R, F for flushes, D for discards */
static const char *biosnoop_type(const struct blk_io *io)
{
	switch (io->op) {
	case BLOCK_OP_WRITE:
		return "W";
	case BLOCK_OP_FLUSH:
		return "F";
	case BLOCK_OP_DISCARD:
	case BLOCK_OP_SECURE_ERASE:
		return "D";
	default:
		return "R";
	}
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
	uint64_t lat = io->t_done - io->t_issue, que = 0;
	const char *disk = iotap_disk_name(ctx, io->dev);
	char t[32], sector[24] = "-";
	FILE *out = ctx->out;

	if (p->comm && strncmp(io->comm, p->comm, sizeof(io->comm) - 1))
		return 0;
	if (lat < p->min_ms * 1000000)
		return 0;
	if (io->t_start && io->t_issue > io->t_start)
		que = io->t_issue - io->t_start;
	if (io->nr_sector)
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)io->sector);
	biosnoop_header(ctx);
	biosnoop_time(ctx, io, t, sizeof(t));
	if (p->json) {
		fprintf(out, p->timestamp ? "{\"timestamp\": \"%s\"" : "{\"time\": %s", t);
		fputs(", \"comm\": ", out);
		json_str(out, io->comm);
		fprintf(out, ", \"pid\": %u, \"disk\": ", io->pid);
		json_str(out, disk);
		fprintf(out, ", \"type\": \"%s\", \"rwbs\": ", biosnoop_type(io));
		json_str(out, io->rwbs);
		fprintf(out, ", \"sector\": %s, \"bytes\": %u", io->nr_sector ? sector : "null",
			io->bytes);
		if (p->pattern)
			fprintf(out, ", \"pattern\": \"%s\"", pat);
		if (p->queued)
			fprintf(out, ", \"que_ms\": %.3f", que / 1e6);
		if (p->show_cgroup) {
			fputs(", \"cgroup\": ", out);
			json_str(out, io->cgroup ? io->cgroup : "?");
		}
		fprintf(out, ", \"lat_ms\": %.3f}\n", lat / 1e6);
		return 0;
	}
	fprintf(out, "%-*s %-14.14s %-7u %-9s %-1s %-10s %-7u", p->timestamp ? 12 : 11, t, io->comm,
		io->pid, disk, biosnoop_type(io), sector, io->bytes);
	if (p->pattern)
		fprintf(out, "%-1s ", pat);
	if (p->queued)
		fprintf(out, "%7.2f ", que / 1e6);
	fprintf(out, "%7.2f", lat / 1e6);
	if (p->show_cgroup)
		fprintf(out, " %s", io->cgroup ? io->cgroup : "?");
	fputc('\n', out);
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
	int ret = blktrack_cfg_select(&cfg, ctx, p->disk, p->pid);

	if (!ret && p->show_cgroup)
		ret = iotap_cgroup_track(ctx);
	return ret ? ret : blktrack_create(&st->bt, ctx, &cfg);
}

/* biosnoop_report - the lines went out as requests completed; say what was not paired */
static int biosnoop_report(struct iotap_ctx *ctx)
{
	struct biosnoop_state *st = ctx->state;

	biosnoop_header(ctx);
	blktrack_warn_stats(st->bt, ctx);
	return ferror(ctx->out) ? -EIO : 0;
}

/* biosnoop_fini - free the state */
static void biosnoop_fini(struct iotap_ctx *ctx)
{
	struct biosnoop_state *st = ctx->state;

	blktrack_free(st->bt);
	blk_lastpos_release(&st->pos);
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
		"instead of TIME(s).",
	.examples =
		"iotap biosnoop\n  Trace every block I/O until Ctrl-C.\n"
		"iotap biosnoop -Q -d sda\n  Only sda, with the time queued in the OS.\n"
		"iotap biosnoop -P -c postgres\n  The I/O of postgres, marked sequential or random.\n"
		"iotap biosnoop -m 10 -t\n  I/O slower than 10 ms, with wall-clock times.\n"
		"iotap biosnoop -j 10\n  Ten seconds of I/O as JSON, one object per line.\n",
	.banner = "Tracing block device I/O... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_DURATION,
	.opts = biosnoop_opts,
	.events = biosnoop_events,
	.params_size = sizeof(struct biosnoop_params),
	.state_size = sizeof(struct biosnoop_state),
	.init = biosnoop_init,
	.report = biosnoop_report,
	.fini = biosnoop_fini,
};
