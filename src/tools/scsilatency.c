// SPDX-License-Identifier: GPL-2.0-or-later
/* scsilatency.c - SCSI command latency per device and opcode, the book's scsilatency */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "iotap.h"
#include "reqtab.h"
#include "scsi.h"
#include "shared.h"

#define SCSI_MAX_INFLIGHT (1u << 20)
#define SCSI_MAX_AGE_NS (600ull * 1000000000ull)

struct scsilatency_params {
	bool timestamp, msecs, json, percentiles;
	const char *device;
};

struct scsilatency_state {
	struct scsi_fmt f_start, f_done, f_timeout, f_error;
	struct reqtab *tab;		/* (device, lun << 32 | driver tag) -> opcode, time */
	struct hist_set lat;		/* "H:C:I:L, OPCODE" */
	struct hist_set timeouts, errors;	/* counts only */
	bool has_dev;
	uint32_t host_no, channel, id, lun;
	uint64_t unmatched, replaced;
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

/*
 * scsi_key - the in-flight key of a command: its device and driver tag. Kernels that
 * do not trace the tag pair a device's commands in dispatch order (the table keeps
 * equal keys oldest first).
 */
static void scsi_key(const struct scsi_cmd *c, uint32_t *dev, uint64_t *tag)
{
	*dev = c->host_no << 16 | (c->channel & 0xff) << 8 | (c->id & 0xff);
	*tag = (uint64_t)c->lun << 32 | (uint32_t)c->driver_tag;
}

/* scsilatency_mine - decode s with f; false when it is short or of another device */
static bool scsilatency_mine(struct scsilatency_state *st, const struct scsi_fmt *f,
			     const struct perf_sample *s, struct scsi_cmd *c)
{
	if (scsi_cmd_decode(f, s->raw, s->raw_size, c))
		return false;
	return !st->has_dev || (c->host_no == st->host_no && c->channel == st->channel &&
				c->id == st->id && c->lun == st->lun);
}

/* scsilatency_on_start - a command is dispatched to the host adapter */
static int scsilatency_on_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct scsilatency_state *st = ctx->state;
	struct blkreq *r;
	struct scsi_cmd c;
	uint32_t dev;
	uint64_t tag;

	if (!scsilatency_mine(st, &st->f_start, s, &c))
		return 0;
	scsi_key(&c, &dev, &tag);
	if (c.driver_tag >= 0 && (r = reqtab_find(st->tab, dev, tag))) {
		reqtab_remove(st->tab, r);
		st->replaced++;
	}
	r = reqtab_insert(st->tab, dev, tag, s->time);
	if (!r)
		return -ENOMEM;
	r->t_issue = s->time;
	r->user = c.opcode;
	return 0;
}

/* scsilatency_count - one more "H:C:I:L, OPCODE" in a count set */
static int scsilatency_count(struct scsilatency_state *st, struct hist_set *hs,
			     const struct scsi_cmd *c, uint64_t v)
{
	char op[48], key[96];
	struct hist *h;

	scsi_opcode_name(&st->f_start, c->opcode, op, sizeof(op));
	snprintf(key, sizeof(key), "%u:%u:%u:%u, %s", c->host_no, c->channel, c->id, c->lun, op);
	h = hist_set_get(hs, key);
	return !h || hist_add(h, v) ? -ENOMEM : 0;
}

/* scsilatency_end - the command left the host: done (into lat), timed out or not dispatched */
static int scsilatency_end(struct iotap_ctx *ctx, const struct perf_sample *s,
			   const struct scsi_fmt *f, struct hist_set *hs)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
	struct blkreq *r;
	struct scsi_cmd c;
	uint64_t tag, delta;
	uint32_t dev;

	if (!scsilatency_mine(st, f, s, &c))
		return 0;
	scsi_key(&c, &dev, &tag);
	r = reqtab_find(st->tab, dev, tag);
	if (!r) {
		if (hs == &st->lat)
			st->unmatched++;
		return 0;
	}
	delta = s->time > r->t_issue ? s->time - r->t_issue : 0;
	delta /= p->msecs ? 1000000 : 1000;
	c.opcode = r->user;
	reqtab_remove(st->tab, r);
	return scsilatency_count(st, hs, &c, delta);
}

/* scsilatency_on_done - a completed command: its latency */
static int scsilatency_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct scsilatency_state *st = ctx->state;

	return scsilatency_end(ctx, s, &st->f_done, &st->lat);
}

/* scsilatency_on_timeout - the midlayer gave up waiting: counted, not timed */
static int scsilatency_on_timeout(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct scsilatency_state *st = ctx->state;

	return scsilatency_end(ctx, s, &st->f_timeout, &st->timeouts);
}

/* scsilatency_on_error - the host refused the command; it is dispatched again later */
static int scsilatency_on_error(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct scsilatency_state *st = ctx->state;

	return scsilatency_end(ctx, s, &st->f_error, &st->errors);
}

/* scsilatency_use - subscribe to one scsi event and find its fields */
static int scsilatency_use(struct iotap_ctx *ctx, const char *name, bool optional,
			   iotap_handler_fn fn, struct scsi_fmt *f)
{
	struct scsilatency_state *st = ctx->state;
	struct iotap_event *ev;
	int ret;

	if (optional && !iotap_event_available(ctx, "scsi", name))
		return 0;
	ev = iotap_event_use(ctx, "scsi", name, 0, fn, NULL);
	if (!ev)
		return -errno;
	ret = scsi_fmt_init(f, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "scsi:%s has no host_no/channel/id/lun/opcode fields", name);
		return ret;
	}
	if (!st->has_dev)
		return 0;
	return iotap_event_filter(ev, "host_no == %u && channel == %u && id == %u && lun == %u",
				  st->host_no, st->channel, st->id, st->lun);
}

/* scsilatency_init - check options and subscribe to dispatch and its endings */
static int scsilatency_init(struct iotap_ctx *ctx)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
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
	st->tab = reqtab_alloc(SCSI_MAX_INFLIGHT, SCSI_MAX_AGE_NS);
	if (!st->tab)
		return -errno;
	ret = scsilatency_use(ctx, "scsi_dispatch_cmd_start", false, scsilatency_on_start,
			      &st->f_start);
	if (!ret)
		ret = scsilatency_use(ctx, "scsi_dispatch_cmd_done", false, scsilatency_on_done,
				      &st->f_done);
	if (!ret)
		ret = scsilatency_use(ctx, "scsi_dispatch_cmd_timeout", true,
				      scsilatency_on_timeout, &st->f_timeout);
	if (!ret)
		ret = scsilatency_use(ctx, "scsi_dispatch_cmd_error", true, scsilatency_on_error,
				      &st->f_error);
	if (!ret && !st->f_start.driver_tag.present)
		iotap_info(ctx, "this kernel does not trace the driver tag: commands are paired per device in dispatch order");
	return ret;
}

/* scsilatency_report - print and reset the histograms, then timeouts and dispatch errors */
static int scsilatency_report(struct iotap_ctx *ctx)
{
	struct scsilatency_params *p = ctx->params;
	struct scsilatency_state *st = ctx->state;
	const char *label = p->msecs ? "msecs" : "usecs";
	char ts[32] = "";
	int ret = 0;

	if (p->json)
		iotap_strftime(ctx, iotap_now(ctx), "%Y-%m-%d %H:%M:%S", ts, sizeof(ts));
	else
		iotap_interval_header(ctx, p->timestamp);
	ret = hist_set_print_bt(&st->lat, ctx->out, label, p->json, p->percentiles, ts);
	if (!ret)
		ret = hist_set_print_counts(&st->timeouts, ctx->out, "timeout", p->json);
	if (!ret)
		ret = hist_set_print_counts(&st->errors, ctx->out, "dispatch_error", p->json);
	if (ctx->final) {
		const struct reqtab_stats *rs = reqtab_stats(st->tab);

		if (rs->evicted_age || rs->evicted_full || st->replaced)
			iotap_warn(ctx, "%llu commands never completed within 600 s, overflowed the in-flight table or were dispatched again before completing",
				   (unsigned long long)(rs->evicted_age + rs->evicted_full + st->replaced));
		if (iotap_verbose(ctx))
			iotap_info(ctx, "not timed: %llu completions whose dispatch was not seen (in flight at start); %zu still in flight",
				   (unsigned long long)st->unmatched, reqtab_count(st->tab));
	}
	hist_set_reset(&st->lat);
	hist_set_reset(&st->timeouts);
	hist_set_reset(&st->errors);
	return ret;
}

/* scsilatency_fini - free the state */
static void scsilatency_fini(struct iotap_ctx *ctx)
{
	struct scsilatency_state *st = ctx->state;

	reqtab_free(st->tab);
	scsi_fmt_release(&st->f_start);
	scsi_fmt_release(&st->f_done);
	scsi_fmt_release(&st->f_timeout);
	scsi_fmt_release(&st->f_error);
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
