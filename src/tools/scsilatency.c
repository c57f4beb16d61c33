// SPDX-License-Identifier: GPL-2.0-or-later
/* scsilatency.c - SCSI command latency per device and opcode, the book's scsilatency */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmdpair.h"
#include "hist.h"
#include "iotap.h"
#include "shared.h"

struct scsilatency_params {
	bool timestamp, msecs, json, percentiles;
	const char *device;
};

struct scsilatency_state {
	struct cmdpair_scsi pair;
	struct hist_set lat;		/* "H:C:I:L, OPCODE" */
	struct hist_set timeouts, errors;	/* counts only */
};

#define P(f) offsetof(struct scsilatency_params, f)
static const struct opt scsilatency_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms (@msecs)" },
	{ 'd', "device", OPT_STR, P(device), "H:C:I:L",
	  "trace this SCSI device only, by its address (host:channel:id:lun, as in /sys/class/scsi_device)" },
	TOOL_OPT_JSON(P(json), "one object per histogram and line"),
	{ 0, "percentiles", OPT_FLAG, P(percentiles), NULL,
	  "print p50, p90, p99, p99.9 and max under each histogram" },
	OPT_END
};

static const struct tool_event scsilatency_events[] = {
	{ "scsi", "scsi_dispatch_cmd_start", 0 },
	{ "scsi", "scsi_dispatch_cmd_done", 0 },
	{ "scsi", "scsi_dispatch_cmd_timeout", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_error", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* scsilatency_done - a command left the host: done (timed), timed out or not dispatched */
static int scsilatency_done(struct iotap_ctx *ctx, const struct scsi_cmd *c, enum scsi_end end,
			    uint64_t ns)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
	struct hist_set *hs = end == SCSI_END_DONE ? &st->lat :
			      end == SCSI_END_TIMEOUT ? &st->timeouts : &st->errors;
	char op[48], key[96];
	struct hist *h;

	scsi_opcode_name(&st->pair.f_start, c->opcode, op, sizeof(op));
	snprintf(key, sizeof(key), "%u:%u:%u:%u, %s", c->host_no, c->channel, c->id, c->lun, op);
	h = hist_set_get(hs, key);
	return !h || hist_add(h, ns / (p->msecs ? 1000000 : 1000)) ? -ENOMEM : 0;
}

/* scsilatency_init - check options and subscribe to dispatch and its endings */
static int scsilatency_init(struct iotap_ctx *ctx)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
	struct cmdpair_scsi *sp = &st->pair;
	char c;
	int ret;

	if (p->device) {
		if (sscanf(p->device, "%u:%u:%u:%u%c", &sp->host_no, &sp->channel, &sp->id,
			   &sp->lun, &c) != 4) {
			iotap_err(ctx, "invalid SCSI device '%s': expected host:channel:id:lun", p->device);
			return -EINVAL;
		}
		sp->has_dev = true;
	}
	iotap_procs_unused(ctx);
	ret = cmdpair_scsi_use(sp, ctx, scsilatency_done);
	if (!ret && !sp->f_start.driver_tag.present)
		iotap_info(ctx, "this kernel does not trace the driver tag: commands are paired per device in dispatch order");
	return ret;
}

/* scsilatency_report - print and reset the histograms, then timeouts and dispatch errors */
static int scsilatency_report(struct iotap_ctx *ctx)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
	const struct tool_cmd_part parts[] = {
		{ &st->lat, NULL },
		{ &st->timeouts, "timeout" },
		{ &st->errors, "dispatch_error" },
	};
	int ret;

	ret = tool_cmd_report(ctx, parts, 3, p->msecs, p->json, p->timestamp, p->percentiles);
	cmdpair_scsi_say(&st->pair, ctx);
	return ret;
}

/* scsilatency_fini - free the state */
static void scsilatency_fini(struct iotap_ctx *ctx)
{
	struct scsilatency_state *st = ctx->state;

	cmdpair_scsi_release(&st->pair);
	hist_set_release(&st->lat);
	hist_set_release(&st->timeouts);
	hist_set_release(&st->errors);
}

const struct tool tool_scsilatency = {
	.name = "scsilatency",
	.summary = "Summarize SCSI command latency per device and opcode as histograms.",
	.description =
		"Traces SCSI commands from scsi:scsi_dispatch_cmd_start to scsi_dispatch_cmd_done, "
		"paired in user space by device (host:channel:id:lun) and driver tag, and prints a "
		"latency histogram per device and opcode in bpftrace's layout "
		"(@usecs[2:0:0:0, READ_10]). On kernels that do not trace the driver tag a device's "
		"commands are paired in dispatch order. Opcode names are read from the "
		"__print_symbolic table of the kernel's own format (of the recording, when reporting "
		"one). Commands that time out (scsi_dispatch_cmd_timeout) or that the host refuses "
		"to queue (scsi_dispatch_cmd_error, dispatched again later) are counted, not timed.",
	.examples =
		"iotap scsilatency\n  Trace until Ctrl-C, then print a histogram per device and opcode.\n"
		"iotap scsilatency -d 2:0:0:0 -m 1 5\n  Millisecond histograms of one device, every second, five times.\n"
		"iotap scsilatency -i trace.iotap --percentiles\n  The same report from a recording, with percentiles.\n",
	.banner = "Tracing SCSI commands... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = scsilatency_opts,
	.events = scsilatency_events,
	.params_size = sizeof(struct scsilatency_params),
	.state_size = sizeof(struct scsilatency_state),
	.init = scsilatency_init,
	.report = scsilatency_report,
	.fini = scsilatency_fini,
};
