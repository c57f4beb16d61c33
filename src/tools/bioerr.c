// SPDX-License-Identifier: GPL-2.0-or-later
/* bioerr.c - one line per failed block request, with its submitter and BLK_STS name */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "shared.h"

struct bioerr_params {
	bool json, bio;
	const char *disk;
	int pid;
};

struct bioerr_state {
	struct blktrack *bt;
	bool header_done;
	uint64_t errors;
};

#define P(f) offsetof(struct bioerr_params, f)
static const struct opt bioerr_opts[] = {
	TOOL_OPT_DISK(P(disk)),
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process only" },
	TOOL_OPT_JSON(P(json), "one object per failed request and line"),
	{ 0, "bio", OPT_FLAG, P(bio), NULL,
	  "failed bios of the devices that complete bios as such: md and dm (the default for them)" },
	OPT_END
};

static const struct tool_event bioerr_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_BIO,
	{ NULL, NULL, 0 }
};

/* bioerr_print - one failed request: wall time, submitter, disk, rwbs, sector, bytes, status */
static int bioerr_print(struct iotap_ctx *ctx, const struct blk_io *io)
{
	struct bioerr_params *p = ctx->params;
	struct bioerr_state *st = ctx->state;
	const char *disk = iotap_disk_name(ctx, io->dev), *sts = block_status_name(io->error);
	char hms[16], t[32], sector[24] = "-", err[32];
	FILE *out = ctx->out;

	if (!io->error)
		return 0;
	st->errors++;
	if (iotap_strftime(ctx, io->t_done, "%H:%M:%S", hms, sizeof(hms)))
		snprintf(hms, sizeof(hms), "?");
	snprintf(t, sizeof(t), "%s.%06llu", hms,
		 (unsigned long long)(iotap_wall_ns(ctx, io->t_done) % 1000000000 / 1000));
	if (io->nr_sector)
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)io->sector);
	if (sts)
		snprintf(err, sizeof(err), "%s", sts);
	else
		snprintf(err, sizeof(err), "errno %d", io->error);
	if (p->json) {
		fprintf(out, "{\"time\": \"%s\", \"comm\": ", t);
		json_str(out, io->comm);
		fprintf(out, ", \"pid\": %u, \"disk\": ", io->pid);
		json_str(out, disk);
		fputs(", \"rwbs\": ", out);
		json_str(out, io->rwbs);
		fprintf(out, ", \"sector\": %s, \"bytes\": %u, \"errno\": %d, \"error\": ",
			io->nr_sector ? sector : "null", io->bytes, io->error);
		json_str(out, err);
		fputs("}\n", out);
		return 0;
	}
	if (!st->header_done) {
		fprintf(out, "%-15s %-14s %-7s %-9s %-4s %-10s %-7s %s\n", "TIME", "COMM", "PID",
			"DISK", "RWBS", "SECTOR", "BYTES", "ERROR");
		st->header_done = true;
	}
	fprintf(out, "%-15s %-14.14s %-7u %-9s %-4s %-10s %-7u %s\n", t, io->comm, io->pid, disk,
		io->rwbs, sector, io->bytes, err);
	return 0;
}

/* bioerr_on_done - a request with data completed: printed when it failed */
static int bioerr_on_done(void *arg, const struct blk_io *io)
{
	return bioerr_print(arg, io);
}

/* bioerr_init - check options and subscribe to the request events */
static int bioerr_init(struct iotap_ctx *ctx)
{
	struct bioerr_params *p = ctx->params;
	struct bioerr_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_START_OPTIONAL,
		.on_done = bioerr_on_done,
		.on_nodata = bioerr_on_done,
		.arg = ctx,
	};
	int ret = blktrack_cfg_select(&cfg, ctx, p->disk, p->pid);

	if (ret)
		return ret;
	ret = blktrack_cfg_bio(&cfg, ctx, p->disk, p->bio);
	if (ret)
		return ret;
	return blktrack_create(&st->bt, ctx, &cfg);
}

/* bioerr_report - the lines went out as requests failed; say how many and what was not paired */
static int bioerr_report(struct iotap_ctx *ctx)
{
	struct bioerr_params *p = ctx->params;
	struct bioerr_state *st = ctx->state;

	if (!p->json)
		iotap_info(ctx, "%llu failed requests", (unsigned long long)st->errors);
	blktrack_warn_stats(st->bt, ctx);
	return ferror(ctx->out) ? -EIO : 0;
}

/* bioerr_fini - free the state */
static void bioerr_fini(struct iotap_ctx *ctx)
{
	struct bioerr_state *st = ctx->state;

	blktrack_free(st->bt);
}

const struct tool tool_bioerr = {
	.name = "bioerr",
	.summary = "Trace failed block device requests with their process and error.",
	.description =
		"Prints one line per block device request that completed with an error: the wall "
		"clock time of the completion, the process that submitted it (from block_io_start, "
		"or block_rq_insert on kernels before 6.5; never the completing context), the disk, "
		"the kernel's rwbs flags, the first sector, the size, and the error as the block "
		"layer's BLK_STS name (BLK_STS_MEDIUM, BLK_STS_IOERR...). The block events carry the "
		"status as an errno (blk_status_to_errno) and their formats have no name table, so "
		"the names come from the kernel's errno mapping, built in; an errno without a name "
		"prints as a number. Requests are paired from block_rq_issue and block_rq_complete; "
		"requests in flight when tracing starts are not shown. md and dm devices complete "
		"bios, not requests: for them (-d md0, or --bio for all of them) failed bios are "
		"shown, from block_bio_queue and block_bio_complete.",
	.examples =
		"iotap bioerr\n  Print failed requests until Ctrl-C.\n"
		"iotap bioerr -d sda -j\n  Only sda, as JSON.\n"
		"iotap bioerr -i trace.iotap\n  The failed requests of a recording.\n",
	.banner = "Tracing block I/O errors... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_DURATION,
	.opts = bioerr_opts,
	.events = bioerr_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct bioerr_params),
	.state_size = sizeof(struct bioerr_state),
	.init = bioerr_init,
	.report = bioerr_report,
	.fini = bioerr_fini,
};
