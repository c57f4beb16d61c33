// SPDX-License-Identifier: GPL-2.0-or-later
/* scsiresult.c - SCSI command results by host and status byte, the book's scsiresult */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "iotap.h"
#include "scsi.h"
#include "shared.h"

struct scsiresult_params {
	bool timestamp, devices, bytes, json;
	const char *device;
};

struct scsiresult_state {
	struct scsi_fmt f_done;
	struct hist_set res;		/* "[H:C:I:L, ]DID_x, SAM_STAT_y[, msg, driver]": counts */
	bool has_dev;
	uint32_t host_no, channel, id, lun;
};

#define P(f) offsetof(struct scsiresult_params, f)
static const struct opt scsiresult_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'D', "devices", OPT_FLAG, P(devices), NULL,
	  "count per device (host:channel:id:lun) too" },
	{ 'b', "bytes", OPT_FLAG, P(bytes), NULL,
	  "also key by the message and driver bytes of the result (hex)" },
	{ 'd', "device", OPT_STR, P(device), "H:C:I:L",
	  "trace this SCSI device only, by its address (host:channel:id:lun)" },
	TOOL_OPT_JSON(P(json), "one object per result and line"),
	OPT_END
};

static const struct tool_event scsiresult_events[] = {
	{ "scsi", "scsi_dispatch_cmd_done", 0 },
	{ NULL, NULL, 0 }
};

/* scsiresult_on_done - one completed command counted under its result's names */
static int scsiresult_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct scsiresult_params *p = ctx->params;
	struct scsiresult_state *st = ctx->state;
	char host[48], status[64], key[192];
	struct scsi_cmd c;
	struct hist *h;
	size_t n = 0;

	if (scsi_cmd_decode(&st->f_done, s->raw, s->raw_size, &c))
		return 0;
	if (st->has_dev && (c.host_no != st->host_no || c.channel != st->channel ||
			    c.id != st->id || c.lun != st->lun))
		return 0;
	scsi_host_name(&st->f_done, c.result, host, sizeof(host));
	scsi_status_name(&st->f_done, c.result, status, sizeof(status));
	if (p->devices)
		n = snprintf(key, sizeof(key), "%u:%u:%u:%u, ", c.host_no, c.channel, c.id, c.lun);
	n += snprintf(key + n, sizeof(key) - n, "%s, %s", host, status);
	if (p->bytes)
		snprintf(key + n, sizeof(key) - n, ", 0x%02x, 0x%02x", SCSI_MSG_BYTE(c.result),
			 SCSI_DRIVER_BYTE(c.result));
	h = hist_set_get(&st->res, key);
	return !h || hist_add(h, 0) ? -ENOMEM : 0;
}

/* scsiresult_init - check options and subscribe to command completions */
static int scsiresult_init(struct iotap_ctx *ctx)
{
	struct scsiresult_params *p = ctx->params;
	struct scsiresult_state *st = ctx->state;
	struct iotap_event *ev;
	char c;
	int ret;

	if (p->device) {
		if (sscanf(p->device, "%u:%u:%u:%u%c", &st->host_no, &st->channel, &st->id,
			   &st->lun, &c) != 4) {
			iotap_err(ctx, "invalid SCSI device '%s': expected host:channel:id:lun", p->device);
			return -EINVAL;
		}
		st->has_dev = true;
	}
	iotap_procs_unused(ctx);
	ev = iotap_event_use(ctx, "scsi", "scsi_dispatch_cmd_done", 0, scsiresult_on_done, NULL);
	if (!ev)
		return -errno;
	ret = scsi_fmt_init(&st->f_done, iotap_event_format(ev));
	if (ret || !st->f_done.result.present) {
		iotap_err(ctx, "scsi:scsi_dispatch_cmd_done has no host_no/channel/id/lun/result fields");
		return ret ? ret : -ENOENT;
	}
	if (!st->has_dev)
		return 0;
	return iotap_event_filter(ev, "host_no == %u && channel == %u && id == %u && lun == %u",
				  st->host_no, st->channel, st->id, st->lun);
}

/* scsiresult_cmp - bpftrace prints count maps smallest first */
static int scsiresult_cmp(const void *a, const void *b, void *arg)
{
	const struct hist_set *hs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (hs->h[x].count != hs->h[y].count)
		return hs->h[x].count < hs->h[y].count ? -1 : 1;
	return strcmp(hs->keys[x], hs->keys[y]);
}

/* scsiresult_report - print and reset the counts, bpftrace's @[host, status]: N */
static int scsiresult_report(struct iotap_ctx *ctx)
{
	struct scsiresult_params *p = ctx->params;
	struct scsiresult_state *st = ctx->state;
	size_t *order = calloc(st->res.nr ? st->res.nr : 1, sizeof(*order));
	char ts[32] = "";

	if (!order)
		return -ENOMEM;
	tool_report_begin(ctx, p->json, p->timestamp, ts, sizeof(ts));
	for (size_t i = 0; i < st->res.nr; i++)
		order[i] = i;
	qsort_r(order, st->res.nr, sizeof(*order), scsiresult_cmp, &st->res);
	for (size_t i = 0; i < st->res.nr; i++) {
		size_t k = order[i];

		if (p->json) {
			fputs("{\"ts\": ", ctx->out);
			json_str(ctx->out, ts);
			fputs(", \"result\": ", ctx->out);
			json_str(ctx->out, st->res.keys[k]);
			fprintf(ctx->out, ", \"count\": %llu}\n",
				(unsigned long long)st->res.h[k].count);
		} else {
			fprintf(ctx->out, "@[%s]: %llu\n", st->res.keys[k],
				(unsigned long long)st->res.h[k].count);
		}
	}
	free(order);
	hist_set_reset(&st->res);
	return ferror(ctx->out) ? -EIO : 0;
}

/* scsiresult_fini - free the state */
static void scsiresult_fini(struct iotap_ctx *ctx)
{
	struct scsiresult_state *st = ctx->state;

	scsi_fmt_release(&st->f_done);
	hist_set_release(&st->res);
}

const struct tool tool_scsiresult = {
	.name = "scsiresult",
	.summary = "Count SCSI command results by host byte and status byte names.",
	.description =
		"Counts completed SCSI commands (scsi:scsi_dispatch_cmd_done) by the names of the "
		"host byte ((result >> 16) & 0xff, DID_*) and the status byte (result & 0xff, "
		"SAM_STAT_*) of their result, as the book's scsiresult prints them: "
		"@[DID_OK, SAM_STAT_GOOD]: 2202. The names are read from the __print_symbolic "
		"tables of the kernel's own format (of the recording, when reporting one); a built-in "
		"table gives the values of the names it uses. -b adds the message and driver bytes, "
		"-D the device.",
	.examples =
		"iotap scsiresult\n  Trace until Ctrl-C, then print the count of each result.\n"
		"iotap scsiresult -D 5\n  Counts per device and result every five seconds.\n"
		"iotap scsiresult -i trace.iotap\n  The same report from a recording.\n",
	.banner = "Tracing SCSI command results... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = scsiresult_opts,
	.events = scsiresult_events,
	.params_size = sizeof(struct scsiresult_params),
	.state_size = sizeof(struct scsiresult_state),
	.init = scsiresult_init,
	.report = scsiresult_report,
	.fini = scsiresult_fini,
};
