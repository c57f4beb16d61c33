// SPDX-License-Identifier: GPL-2.0-or-later
/* mdflush.c - md flush requests with the process that sent them, BCC's mdflush */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "iotap.h"
#include "block.h"
#include "blktrack.h"
#include "shared.h"

struct mdflush_params {
	bool tracepoint, json;
};

struct mdflush_state {
	struct field dev;		/* kprobe: the md device, fetched through the bio */
	struct field major, minor, partno;	/* before 5.12: through the bio's gendisk */
	struct block_fmt bio;		/* fallback: block_bio_queue */
	bool header_done;
	uint64_t flushes;
};

#define P(f) offsetof(struct mdflush_params, f)
static const struct opt mdflush_opts[] = {
	{ 't', "tracepoint", OPT_FLAG, P(tracepoint), NULL,
	  "count preflush bios queued to md devices (block_bio_queue) even where kprobes exist" },
	TOOL_OPT_JSON(P(json), "one object per flush and line"),
	OPT_END
};

/* The fallback's tracepoint; the kprobe is in mdflush_probes. */
static const struct tool_event mdflush_events[] = {
	{ "block", "block_bio_queue", 0 },
	{ NULL, NULL, 0 }
};

/*
 * mdflush_args - md_flush_request(struct mddev *, struct bio *): the device of its bio, not
 * yet remapped (its partition number too before 5.12)
 */
static int mdflush_args(struct iotap_ctx *ctx, char *buf, size_t len)
{
	int n = blktrack_bio_dev_args(ctx, "$arg2", true, buf, len);

	return n < 0 ? n : 0;
}

/* Made where the kernel has kprobes and BTF; `iotap record` records it. */
static const struct probe_spec mdflush_probes[] = {
	{ .name = "mdflush", .symbol = "md_flush_request", .args_fn = mdflush_args },
	{ 0 }
};

/* mdflush_print - one flush: TIME PID COMM DEVICE, libbpf-tools' columns */
static int mdflush_print(struct iotap_ctx *ctx, uint64_t t, uint32_t pid, const char *comm,
			 uint32_t dev)
{
	struct mdflush_params *p = ctx->params;
	struct mdflush_state *st = ctx->state;
	const char *disk = iotap_disk_name(ctx, dev);
	char hms[16];

	st->flushes++;
	if (iotap_strftime(ctx, t, "%H:%M:%S", hms, sizeof(hms)))
		snprintf(hms, sizeof(hms), "?");
	if (p->json) {
		fprintf(ctx->out, "{\"time\": \"%s\", \"pid\": %u, \"comm\": ", hms, pid);
		json_str(ctx->out, comm);
		fputs(", \"device\": ", ctx->out);
		json_str(ctx->out, disk);
		fputs("}\n", ctx->out);
		return 0;
	}
	if (!st->header_done) {
		fprintf(ctx->out, "%-8s %-7s %-16s %s\n", "TIME", "PID", "COMM", "DEVICE");
		st->header_done = true;
	}
	fprintf(ctx->out, "%-8s %-7u %-16.16s %s\n", hms, pid, comm, disk);
	return 0;
}

/* mdflush_on_probe - md_flush_request() was called */
static int mdflush_on_probe(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct mdflush_state *st = ctx->state;
	uint32_t dev;

	if (st->dev.present)
		dev = field_u64(&st->dev, s->raw, s->raw_size);
	else
		dev = (uint32_t)field_u64(&st->major, s->raw, s->raw_size) << 20 |
		      (uint32_t)(field_u64(&st->minor, s->raw, s->raw_size) +
				 field_u64(&st->partno, s->raw, s->raw_size));
	return mdflush_print(ctx, s->time, s->pid, iotap_comm(ctx, s->pid), dev);
}

/* mdflush_on_bio - a bio queued: a flush when it carries a preflush and goes to an md device */
static int mdflush_on_bio(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct mdflush_state *st = ctx->state;
	struct block_rq b;

	if (block_rq_decode(&st->bio, s->raw, s->raw_size, &b) || !(b.flags & BLOCK_F_PREFLUSH))
		return 0;
	if (strncmp(iotap_disk_name(ctx, b.dev), "md", 2))
		return 0;
	return mdflush_print(ctx, s->time, s->pid, b.comm[0] ? b.comm : iotap_comm(ctx, s->pid),
			     b.dev);
}

/* mdflush_kprobe - the kprobe on md_flush_request, its bio's device read through BTF offsets */
static int mdflush_kprobe(struct iotap_ctx *ctx)
{
	struct mdflush_state *st = ctx->state;
	struct probe_spec spec = mdflush_probes[0];
	struct iotap_event *ev;
	const char *sys;
	char args[256];
	int ret;

	/* -ENODATA: a recording, whose probe was made with the recording kernel's offsets. */
	ret = spec.args_fn(ctx, args, sizeof(args));
	if (ret && ret != -ENODATA)
		return ret;
	spec.args = ret ? NULL : args;
	ret = iotap_probe_create(ctx, &spec, &sys);
	if (ret)
		return ret;
	ev = iotap_event_use(ctx, sys, "mdflush", 0, mdflush_on_probe, NULL);
	if (!ev)
		return -errno;
	if (!field_init(&st->dev, iotap_event_format(ev), "dev"))
		return 0;
	ret = field_init(&st->major, iotap_event_format(ev), "major");
	if (!ret)
		ret = field_init(&st->minor, iotap_event_format(ev), "minor");
	if (!ret)
		ret = field_init(&st->partno, iotap_event_format(ev), "partno");
	return ret;
}

/* mdflush_init - the kprobe where the kernel has kprobes and BTF, else the tracepoint */
static int mdflush_init(struct iotap_ctx *ctx)
{
	struct mdflush_params *p = ctx->params;
	struct mdflush_state *st = ctx->state;
	struct iotap_event *ev;
	int ret;

	if (!p->tracepoint && iotap_probe_available(ctx, &mdflush_probes[0])) {
		ret = mdflush_kprobe(ctx);
		if (ret != -ENOENT) {
			if (!ret)
				iotap_info(ctx, "tracing md_flush_request() with a kprobe");
			return ret;
		}
	}
	ev = iotap_event_use(ctx, "block", "block_bio_queue", 0, mdflush_on_bio, NULL);
	if (!ev)
		return -errno;
	ret = block_fmt_init(&st->bio, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "block:block_bio_queue has no dev/sector/nr_sector/rwbs fields");
		return ret;
	}
	iotap_info(ctx, "tracing preflush bios queued to md devices (block:block_bio_queue)%s",
		   p->tracepoint ? "" :
		   ": no md_flush_request kprobe (no kprobes or BTF here, or none recorded)");
	return iotap_event_filter(ev, "rwbs ~ \"F*\"");
}

/* mdflush_report - the lines went out as flushes came; the header even when there were none */
static int mdflush_report(struct iotap_ctx *ctx)
{
	struct mdflush_params *p = ctx->params;
	struct mdflush_state *st = ctx->state;

	if (!st->header_done && !p->json) {
		fprintf(ctx->out, "%-8s %-7s %-16s %s\n", "TIME", "PID", "COMM", "DEVICE");
		st->header_done = true;
	}
	return ferror(ctx->out) ? -EIO : 0;
}

const struct tool tool_mdflush = {
	.name = "mdflush",
	.summary = "Trace md flush requests with the process that sent them.",
	.description =
		"Prints one line per flush request sent to an md (software RAID) device: the time, "
		"the PID and command of the process that sent it, and the md device. Where the "
		"kernel has kprobes and BTF, a kprobe on md_flush_request() made for the run (and "
		"removed on every exit) catches each call, and reads the device through the bio at "
		"the offsets the kernel's BTF gives; iotap record records it too. Elsewhere, with -t, "
		"and over a recording without it, it counts the bios that carry a preflush and are "
		"queued to an md device "
		"(block:block_bio_queue): md calls md_flush_request() for exactly those. Which of "
		"the two is used is said when tracing starts.",
	.examples =
		"iotap mdflush\n  Print md flushes until Ctrl-C.\n"
		"iotap mdflush -t\n  The same from the block_bio_queue tracepoint.\n"
		"iotap mdflush -i trace.iotap\n  The md flushes of a recording.\n",
	.banner = "Tracing md flush requests... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_DURATION,
	.opts = mdflush_opts,
	.events = mdflush_events,
	.probes = mdflush_probes,
	.params_size = sizeof(struct mdflush_params),
	.state_size = sizeof(struct mdflush_state),
	.init = mdflush_init,
	.report = mdflush_report,
};
