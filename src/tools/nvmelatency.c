// SPDX-License-Identifier: GPL-2.0-or-later
/* nvmelatency.c - NVMe command latency per disk and command, the book's nvmelatency */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "hist.h"
#include "iotap.h"
#include "reqtab.h"
#include "nvme.h"
#include "shared.h"

#define NVME_MAX_INFLIGHT (1u << 20)
#define NVME_MAX_AGE_NS (60ull * 1000000000ull)

struct nvmelatency_params {
	bool timestamp, msecs, json, percentiles, admin;
	const char *disk;
};

struct nvmelatency_state {
	struct nvme_fmt f_setup, f_done;
	struct reqtab *tab;		/* (ctrl_id << 16 | qid, cid) -> opcode, fctype, time */
	struct hist_set io, adm;	/* "disk, command" */
	struct hist_set status;		/* "disk, command, 0xSTATUS": counts only */
	const char *disk;		/* -d, as the events name it */
	uint64_t unmatched, replaced;
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

/* nvme_key - the in-flight key of a command: its controller, queue and command id */
static void nvme_key(const struct nvme_cmd *c, uint32_t *dev, uint64_t *id)
{
	*dev = (uint32_t)c->ctrl_id << 16 | (c->qid & 0xffff);
	*id = c->cid;
}

/* nvmelatency_on_setup - a command goes to the controller: remember what and when */
static int nvmelatency_on_setup(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct nvmelatency_state *st = ctx->state;
	struct blkreq *r;
	struct nvme_cmd c;
	uint32_t dev;
	uint64_t id;

	if (nvme_cmd_decode(&st->f_setup, s->raw, s->raw_size, &c))
		return 0;
	if (st->disk && strcmp(c.disk, st->disk))
		return 0;
	nvme_key(&c, &dev, &id);
	/* A command id in use again: its first completion was not seen (a retry, or lost). */
	r = reqtab_find(st->tab, dev, id);
	if (r) {
		reqtab_remove(st->tab, r);
		st->replaced++;
	}
	r = reqtab_insert(st->tab, dev, id, s->time);
	if (!r)
		return -ENOMEM;
	r->t_issue = s->time;
	r->op = c.opcode;
	r->flags = c.fctype;
	return 0;
}

/* nvmelatency_on_done - the command completed: its latency into "disk, command" */
static int nvmelatency_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	char name[64], key[128];
	struct blkreq *r;
	struct nvme_cmd c;
	struct hist *h;
	uint32_t dev;
	uint64_t id, delta;

	if (nvme_cmd_decode(&st->f_done, s->raw, s->raw_size, &c))
		return 0;
	if (st->disk && strcmp(c.disk, st->disk))
		return 0;
	nvme_key(&c, &dev, &id);
	r = reqtab_find(st->tab, dev, id);
	if (!r) {
		st->unmatched++;
		return 0;
	}
	delta = s->time > r->t_issue ? s->time - r->t_issue : 0;
	delta /= p->msecs ? 1000000 : 1000;
	c.opcode = r->op;
	c.fctype = r->flags;
	reqtab_remove(st->tab, r);
	if (nvme_cmd_name(&st->f_setup, &c, name, sizeof(name)))
		return 0;
	/* Admin commands name their controller: they have no namespace. */
	if (c.qid || c.disk[0])
		snprintf(key, sizeof(key), "%s, %s", c.disk, name);
	else
		snprintf(key, sizeof(key), "nvme%d, %s", c.ctrl_id, name);
	h = hist_set_get(c.qid ? &st->io : &st->adm, key);
	if (!h || hist_add(h, delta))
		return -ENOMEM;
	if (c.status) {
		snprintf(key + strlen(key), sizeof(key) - strlen(key), ", 0x%x", c.status);
		h = hist_set_get(&st->status, key);
		if (!h || hist_add(h, 0))
			return -ENOMEM;
	}
	return 0;
}

/* nvmelatency_use - subscribe to one nvme event and find its fields */
static int nvmelatency_use(struct iotap_ctx *ctx, const char *name, iotap_handler_fn fn,
			   struct nvme_fmt *f)
{
	struct nvmelatency_state *st = ctx->state;
	struct iotap_event *ev = iotap_event_use(ctx, "nvme", name, 0, fn, NULL);
	int ret;

	if (!ev)
		return -errno;
	ret = nvme_fmt_init(f, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "nvme:%s has no ctrl_id/qid/cid fields", name);
		return ret;
	}
	return st->disk ? iotap_event_filter(ev, "disk == \"%s\"", st->disk) : 0;
}

/* nvmelatency_init - check options and subscribe to command setup and completion */
static int nvmelatency_init(struct iotap_ctx *ctx)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	uint32_t dev, whole;
	uint64_t start, nr;
	int ret;

	if (p->disk) {
		if (iotap_disk_resolve(ctx, p->disk, &dev)) {
			iotap_err(ctx, "unknown disk '%s'", p->disk);
			return -ENODEV;
		}
		/* A partition's commands are its namespace's: the events name no partitions. */
		if (iotap_disk_partition(ctx, dev, &whole, &start, &nr) == 0)
			dev = whole;
		st->disk = iotap_disk_name(ctx, dev);
		if (strncmp(st->disk, "nvme", 4)) {
			iotap_err(ctx, "'%s' is not an NVMe namespace", p->disk);
			return -EINVAL;
		}
	}
	st->tab = reqtab_alloc(NVME_MAX_INFLIGHT, NVME_MAX_AGE_NS);
	if (!st->tab)
		return -errno;
	ret = nvmelatency_use(ctx, "nvme_setup_cmd", nvmelatency_on_setup, &st->f_setup);
	if (!ret)
		ret = nvmelatency_use(ctx, "nvme_complete_rq", nvmelatency_on_done, &st->f_done);
	return ret;
}

/* nvmelatency_report - print and reset: I/O histograms, admin commands, error statuses */
static int nvmelatency_report(struct iotap_ctx *ctx)
{
	struct nvmelatency_params *p = ctx->params;
	struct nvmelatency_state *st = ctx->state;
	const char *label = p->msecs ? "msecs" : "usecs";
	char ts[32] = "";
	int ret;

	if (p->json)
		iotap_strftime(ctx, iotap_now(ctx), "%Y-%m-%d %H:%M:%S", ts, sizeof(ts));
	else
		iotap_interval_header(ctx, p->timestamp);
	ret = hist_set_print_bt(&st->io, ctx->out, label, p->json, p->percentiles, ts);
	if (!ret && p->admin)
		ret = hist_set_print_bt(&st->adm, ctx->out, label, p->json, p->percentiles, ts);
	else if (!ret)
		ret = hist_set_print_counts(&st->adm, ctx->out, "admin", p->json);
	if (!ret)
		ret = hist_set_print_counts(&st->status, ctx->out, "status", p->json);
	if (ctx->final) {
		const struct reqtab_stats *rs = reqtab_stats(st->tab);

		if (rs->evicted_age || rs->evicted_full || st->replaced)
			iotap_warn(ctx, "%llu commands never completed within 60 s, overflowed the in-flight table or were set up again before completing",
				   (unsigned long long)(rs->evicted_age + rs->evicted_full + st->replaced));
		if (iotap_verbose(ctx))
			iotap_info(ctx, "not timed: %llu completions whose setup was not seen (in flight at start); %zu still in flight",
				   (unsigned long long)st->unmatched, reqtab_count(st->tab));
	}
	hist_set_reset(&st->io);
	hist_set_reset(&st->adm);
	hist_set_reset(&st->status);
	return ret;
}

/* nvmelatency_fini - free the state */
static void nvmelatency_fini(struct iotap_ctx *ctx)
{
	struct nvmelatency_state *st = ctx->state;

	reqtab_free(st->tab);
	nvme_fmt_release(&st->f_setup);
	nvme_fmt_release(&st->f_done);
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
