// SPDX-License-Identifier: GPL-2.0-or-later
/* nvmelatency.c - NVMe command latency per disk and command, the book's nvmelatency */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cmdpair.h"
#include "hist.h"
#include "iotap.h"
#include "shared.h"

struct nvmelatency_params {
	bool timestamp, msecs, json, percentiles, admin;
	const char *disk;
};

struct nvmelatency_state {
	struct cmdpair_nvme pair;
	struct hist_set io, adm;	/* "disk, command" */
	struct hist_set status;		/* "disk, command, 0xSTATUS": counts only */
};

#define P(f) offsetof(struct nvmelatency_params, f)
static const struct opt nvmelatency_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms (@msecs)" },
	TOOL_OPT_DISK_HELP(P(disk), "trace this NVMe namespace only (nvme0n1); admin commands are then not traced"),
	{ 'A', "admin", OPT_FLAG, P(admin), NULL,
	  "time admin commands (queue 0) too, instead of only counting them" },
	TOOL_OPT_JSON(P(json), "one object per histogram and line"),
	{ 0, "percentiles", OPT_FLAG, P(percentiles), NULL,
	  "print p50, p90, p99, p99.9 and max under each histogram" },
	OPT_END
};

static const struct tool_event nvmelatency_events[] = {
	{ "nvme", "nvme_setup_cmd", 0 },
	{ "nvme", "nvme_complete_rq", 0 },
	{ NULL, NULL, 0 }
};

/* nvmelatency_done - a paired command: its latency into "disk, command" */
static int nvmelatency_done(struct iotap_ctx *ctx, const struct nvme_cmd *c, uint64_t ns)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	uint64_t delta = ns / (p->msecs ? 1000000 : 1000);
	char name[64], key[128];
	struct hist *h;

	if (nvme_cmd_name(&st->pair.f_setup, c, name, sizeof(name)))
		return 0;
	/* Admin commands name their controller: they have no namespace. */
	if (c->qid || c->disk[0])
		snprintf(key, sizeof(key), "%s, %s", c->disk, name);
	else
		snprintf(key, sizeof(key), "nvme%d, %s", c->ctrl_id, name);
	h = hist_set_get(c->qid ? &st->io : &st->adm, key);
	if (!h || hist_add(h, delta))
		return -ENOMEM;
	if (c->status) {
		snprintf(key + strlen(key), sizeof(key) - strlen(key), ", 0x%x", c->status);
		h = hist_set_get(&st->status, key);
		if (!h || hist_add(h, 0))
			return -ENOMEM;
	}
	return 0;
}

/* nvmelatency_init - check options and subscribe to command setup and completion */
static int nvmelatency_init(struct iotap_ctx *ctx)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	const char *disk = NULL;
	uint32_t dev, whole;
	uint64_t start, nr;

	if (p->disk) {
		if (iotap_disk_resolve(ctx, p->disk, &dev)) {
			iotap_err(ctx, "unknown disk '%s'", p->disk);
			return -ENODEV;
		}
		/* A partition's commands are its namespace's: the events name no partitions. */
		if (iotap_disk_partition(ctx, dev, &whole, &start, &nr) == 0)
			dev = whole;
		disk = iotap_disk_name(ctx, dev);
		if (strncmp(disk, "nvme", 4)) {
			iotap_err(ctx, "'%s' is not an NVMe namespace", p->disk);
			return -EINVAL;
		}
	}
	iotap_procs_unused(ctx);
	return cmdpair_nvme_use(&st->pair, ctx, disk, nvmelatency_done);
}

/* nvmelatency_report - print and reset: I/O histograms, admin commands, error statuses */
static int nvmelatency_report(struct iotap_ctx *ctx)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	const struct tool_cmd_part parts[] = {
		{ &st->io, NULL },
		{ &st->adm, p->admin ? NULL : "admin" },
		{ &st->status, "status" },
	};
	int ret;

	ret = tool_cmd_report(ctx, parts, 3, p->msecs, p->json, p->timestamp, p->percentiles);
	cmdpair_nvme_say(&st->pair, ctx);
	return ret;
}

/* nvmelatency_fini - free the state */
static void nvmelatency_fini(struct iotap_ctx *ctx)
{
	struct nvmelatency_state *st = ctx->state;

	cmdpair_nvme_release(&st->pair);
	hist_set_release(&st->io);
	hist_set_release(&st->adm);
	hist_set_release(&st->status);
}

const struct tool tool_nvmelatency = {
	.name = "nvmelatency",
	.summary = "Summarize NVMe command latency per disk and command as histograms.",
	.description =
		"Traces NVMe commands from nvme:nvme_setup_cmd to nvme:nvme_complete_rq, paired in "
		"user space by controller, queue and command id, and prints a latency histogram per "
		"namespace and command in bpftrace's layout (@usecs[nvme0n1, nvme_cmd_read]). Command "
		"names are read from the __print_symbolic tables of the kernel's own nvme_setup_cmd "
		"format (of the recording, when reporting one), so every command the kernel names is "
		"named; a built-in table gives the values of the enum names the format uses. Admin "
		"commands (queue 0) are counted per controller (@admin[nvme0, nvme_admin_identify]) "
		"or, with -A, timed. Completions with a non-zero status are counted per status "
		"(@status[nvme0n1, nvme_cmd_read, 0x281]).",
	.examples =
		"iotap nvmelatency\n  Trace until Ctrl-C, then print a histogram per disk and command.\n"
		"iotap nvmelatency -d nvme0n1 -m 1 5\n  Millisecond histograms of nvme0n1, every second, five times.\n"
		"iotap nvmelatency -A --percentiles\n  Time admin commands too; print percentiles.\n"
		"iotap nvmelatency -i trace.iotap\n  The same report from a recording.\n",
	.banner = "Tracing NVMe commands... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = nvmelatency_opts,
	.events = nvmelatency_events,
	.params_size = sizeof(struct nvmelatency_params),
	.state_size = sizeof(struct nvmelatency_state),
	.init = nvmelatency_init,
	.report = nvmelatency_report,
	.fini = nvmelatency_fini,
};
