// SPDX-License-Identifier: GPL-2.0-or-later
/* biostages.c - btt's request stages per disk and operation, without blktrace */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "blktrack.h"
#include "hist.h"
#include "shared.h"
#include "stagehist.h"

struct biostages_params {
	bool timestamp, json;
	const char *disk;
};

struct biostages_state {
	struct blktrack *bt;
	struct stagehist sh;
};

#define P(f) offsetof(struct biostages_params, f)
static const struct opt biostages_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	TOOL_OPT_JSON(P(json), "one object per disk and operation and line"),
	TOOL_OPT_DISK(P(disk)),
	OPT_END
};

static const struct tool_event biostages_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_STAGES,
	{ NULL, NULL, 0 }
};

/* biostages_on_done - one completed request's stages */
static int biostages_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biostages_state *st = ctx->state;

	return stagehist_request(&st->sh, iotap_disk_name(ctx, io->dev), io);
}

/* biostages_on_bio - a bio's or request's fate: queued, merged, split, requeued */
static int biostages_on_bio(void *arg, enum blk_bio_fate fate, const struct block_rq *rq,
			    const struct blk_sender *who)
{
	struct iotap_ctx *ctx = arg;
	struct biostages_state *st = ctx->state;

	(void)who;
	return stagehist_bio(&st->sh, iotap_disk_name(ctx, rq->dev), rq->dev, fate, rq->op);
}

/* biostages_init - check options and subscribe to the stage events */
static int biostages_init(struct iotap_ctx *ctx)
{
	struct biostages_params *p = ctx->params;
	struct biostages_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_INSERT | BT_STAGES,
		.on_done = biostages_on_done,
		.on_nodata = biostages_on_done,
		.on_bio = biostages_on_bio,
		.arg = ctx,
	};
	int ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);

	iotap_procs_unused(ctx);
	/* JSON lines are for a program: the banner goes to the log. */
	ctx->data_out = p->json;
	if (ret)
		return ret;
	return blktrack_create(&st->bt, ctx, &cfg);
}

/*
 * biostages_why - why stage has no value for series s: what the kernel lacks, else what
 * the disk did not show
 */
static const char *biostages_why(struct iotap_ctx *ctx, const struct stage_series *s,
				 enum stage stage)
{
	const struct blktrack_stage_events *ev =
		blktrack_stage_events(((struct biostages_state *)ctx->state)->bt);
	bool need_q = stage == STAGE_Q2G || stage == STAGE_Q2C;
	bool need_g = stage == STAGE_Q2G || stage == STAGE_G2I;
	bool need_i = stage == STAGE_G2I || stage == STAGE_I2D;

	if (!s->requests)
		return "no request completed";
	if (stage != STAGE_D2C && !strcmp(stagehist_op_name(s->op), "flush"))
		return "flushes: issue to completion only";
	if (need_q && !ev->queue)
		return "no block_bio_queue event";
	if (need_g && !ev->getrq)
		return "no block_getrq event";
	if (need_i && !ev->insert)
		return "no block_rq_insert event";
	if (need_i && !strcmp(iotap_disk_sched(ctx, s->dev), "none"))
		return "no insert: scheduler none";
	if (need_i)
		return "no insert seen";
	if (need_q)
		return "no queued bio seen for its requests";
	return "no pair seen";
}

/* biostages_us - ns as microseconds with three decimals */
static double biostages_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* The bio and request counts, each with the event that shows it. */
static const struct {
	enum blk_bio_fate fate;
	const char *text, *json, *event;
	size_t have;				/* offset of its flag in blktrack_stage_events */
} biostages_fate_tab[] = {
	{ BLK_BIO_QUEUED, "bios queued", "bios_queued", "block_bio_queue",
	  offsetof(struct blktrack_stage_events, queue) },
	{ BLK_BIO_BACKMERGE, "back merges", "back_merges", "block_bio_backmerge",
	  offsetof(struct blktrack_stage_events, backmerge) },
	{ BLK_BIO_FRONTMERGE, "front merges", "front_merges", "block_bio_frontmerge",
	  offsetof(struct blktrack_stage_events, frontmerge) },
	{ BLK_RQ_MERGE, "request merges", "request_merges", "block_rq_merge",
	  offsetof(struct blktrack_stage_events, rq_merge) },
	{ BLK_BIO_SPLIT, "splits", "splits", "block_split",
	  offsetof(struct blktrack_stage_events, split) },
	{ BLK_RQ_REQUEUE, "requeues", "requeues", "block_rq_requeue",
	  offsetof(struct blktrack_stage_events, requeue) },
};

/* biostages_have - whether the session has the event of fate table row i */
static bool biostages_have(const struct blktrack_stage_events *ev, size_t i)
{
	return *(const bool *)((const char *)ev + biostages_fate_tab[i].have);
}

/* biostages_fates - the text line of bio and request counts; a dash where the event is missing */
static void biostages_fates(struct iotap_ctx *ctx, const struct stage_series *s,
			    const struct blktrack_stage_events *ev)
{
	const size_t n = sizeof(biostages_fate_tab) / sizeof(biostages_fate_tab[0]);

	fputs("  ", ctx->out);
	for (size_t i = 0; i < n; i++) {
		fprintf(ctx->out, "%s%s ", i ? ", " : "", biostages_fate_tab[i].text);
		if (biostages_have(ev, i))
			fprintf(ctx->out, "%llu", (unsigned long long)s->fate[biostages_fate_tab[i].fate]);
		else
			fprintf(ctx->out, "\u2014 (no %s event)", biostages_fate_tab[i].event);
	}
	fputc('\n', ctx->out);
}

/* biostages_print_text - one disk and operation: its bios, then a row per stage */
static void biostages_print_text(struct iotap_ctx *ctx, const struct stage_series *s)
{
	const struct blktrack_stage_events *ev =
		blktrack_stage_events(((struct biostages_state *)ctx->state)->bt);
	bool flush = !strcmp(stagehist_op_name(s->op), "flush");
	FILE *out = ctx->out;

	fprintf(out, "\n%s %s: %llu requests", s->disk, stagehist_op_name(s->op),
		(unsigned long long)s->requests);
	if (s->requests > s->unknown_bios && !flush)
		fprintf(out, " of %llu bios (at most %llu in one)", (unsigned long long)s->bios,
			(unsigned long long)s->max_bios);
	/* Without block_getrq no request is seen made, so none knows its bios. */
	if (s->unknown_bios && !flush && !ev->getrq)
		fputs(", bios per request not known: no block_getrq event", out);
	else if (s->unknown_bios && !flush)
		fprintf(out, ", %llu allocated before tracing began", (unsigned long long)s->unknown_bios);
	fputs(flush ? " (flush requests carry no bios)\n" : "\n", out);
	if (!flush)
		biostages_fates(ctx, s, ev);
	fprintf(out, "  %-5s %10s %12s %12s %12s\n", "STAGE", "COUNT", "P50(us)", "P99(us)",
		"MAX(us)");
	for (int i = 0; i < STAGE_NR; i++) {
		const struct hist *h = &s->ns[i];

		if (!h->count) {
			/* The dash is three bytes wide in UTF-8, one column on a terminal. */
			fprintf(out, "  %-5s %12s  %s\n", stage_name(i), "\u2014",
				biostages_why(ctx, s, i));
			continue;
		}
		fprintf(out, "  %-5s %10llu %12.3f %12.3f %12.3f\n", stage_name(i),
			(unsigned long long)h->count, biostages_us(hist_percentile(h, 50)),
			biostages_us(hist_percentile(h, 99)), biostages_us(h->max));
	}
}

/* biostages_print_json - one disk and operation as one JSON object on a line */
static void biostages_print_json(struct iotap_ctx *ctx, const struct stage_series *s,
				 const char *ts)
{
	const struct blktrack_stage_events *ev =
		blktrack_stage_events(((struct biostages_state *)ctx->state)->bt);
	FILE *out = ctx->out;

	fputc('{', out);
	if (ts[0]) {
		fputs("\"ts\": ", out);
		json_str(out, ts);
		fputs(", ", out);
	}
	fputs("\"disk\": ", out);
	json_str(out, s->disk);
	fprintf(out, ", \"op\": \"%s\", \"requests\": %llu, \"bios\": %llu, \"max_bios\": %llu, "
		"\"requests_bios_unknown\": %llu",
		stagehist_op_name(s->op), (unsigned long long)s->requests,
		(unsigned long long)s->bios, (unsigned long long)s->max_bios,
		(unsigned long long)s->unknown_bios);
	/* null: the session has no event that shows it */
	for (size_t i = 0; i < sizeof(biostages_fate_tab) / sizeof(biostages_fate_tab[0]); i++) {
		fprintf(out, ", \"%s\": ", biostages_fate_tab[i].json);
		if (biostages_have(ev, i))
			fprintf(out, "%llu", (unsigned long long)s->fate[biostages_fate_tab[i].fate]);
		else
			fputs("null", out);
	}
	fputs(", \"stages\": {", out);
	for (int i = 0; i < STAGE_NR; i++) {
		const struct hist *h = &s->ns[i];

		fprintf(out, "%s\"%s\": {\"count\": %llu", i ? ", " : "", stage_name(i),
			(unsigned long long)h->count);
		if (h->count) {
			fprintf(out, ", \"p50_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f}",
				biostages_us(hist_percentile(h, 50)),
				biostages_us(hist_percentile(h, 99)), biostages_us(h->max));
		} else {
			fputs(", \"unavailable\": ", out);
			json_str(out, biostages_why(ctx, s, i));
			fputc('}', out);
		}
	}
	fputs("}}\n", out);
}

/* biostages_report - print and reset the interval's stages */
static int biostages_report(struct iotap_ctx *ctx)
{
	struct biostages_params *p = ctx->params;
	struct biostages_state *st = ctx->state;
	char ts[32] = "";

	tool_report_begin(ctx, p->json, p->timestamp, ts, sizeof(ts));
	stagehist_sort(&st->sh);
	for (size_t i = 0; i < st->sh.nr; i++) {
		const struct stage_series *s = &st->sh.s[i];
		uint64_t fates = 0;

		for (size_t f = 0; f < sizeof(s->fate) / sizeof(s->fate[0]); f++)
			fates += s->fate[f];
		/* A disk and operation idle this interval: nothing to say. */
		if (!s->requests && !fates)
			continue;
		if (p->json)
			biostages_print_json(ctx, &st->sh.s[i], ts);
		else
			biostages_print_text(ctx, &st->sh.s[i]);
	}
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	stagehist_reset(&st->sh);
	return ferror(ctx->out) ? -EIO : 0;
}

/* biostages_fini - free the state */
static void biostages_fini(struct iotap_ctx *ctx)
{
	struct biostages_state *st = ctx->state;

	blktrack_free(st->bt);
	stagehist_release(&st->sh);
}

const struct tool tool_biostages = {
	.name = "biostages",
	.summary = "Break block request latency into btt's stages per disk and operation.",
	.description =
		"Traces block requests through their stages, as blktrace and btt show them, from "
		"tracepoints: Q2G from a bio queued (block_bio_queue) until a request is allocated "
		"for it (block_getrq), G2I until the request is inserted into the I/O scheduler "
		"(block_rq_insert), I2D until it is issued to the driver (block_rq_issue), D2C until "
		"it completes (block_rq_complete), and Q2C from its first bio queued until it "
		"completes. For each disk and operation (read, write, flush, discard, other, from "
		"rwbs) it prints each stage's count, p50, p99 and max in microseconds, and what "
		"became of the bios: how many were queued, joined a request at its back or front, "
		"came with a request merged into another (block_rq_merge), were split, and how many "
		"requests the driver requeued; a request carries the bios merged into it, and its "
		"Q2C is timed from the earliest. A stage the kernel cannot show is printed as "
		"\u2014 with the reason, never as 0: requests dispatched without an insert (most on "
		"a disk whose scheduler is none), events a kernel or recording lacks "
		"(block_rq_merge on 5.4), flushes (paired by order: D2C only).",
	.examples =
		"iotap biostages\n  Trace until Ctrl-C, then print the stages of every disk.\n"
		"iotap biostages -d nvme0n1 -T 5 3\n  Three 5-second intervals on one disk.\n"
		"iotap biostages -j -i trace.iotap\n  The stages of a recording as JSON lines.\n",
	.banner = "Tracing block request stages... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = biostages_opts,
	.events = biostages_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct biostages_params),
	.state_size = sizeof(struct biostages_state),
	.init = biostages_init,
	.report = biostages_report,
	.fini = biostages_fini,
};
