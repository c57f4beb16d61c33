// SPDX-License-Identifier: GPL-2.0-or-later
/* biostacks.c - block I/O latency per initialization stack, the book's biostacks */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "hist.h"
#include "common-opts.h"
#include "stacks.h"
#include "shared.h"

enum bs_weight { BS_WEIGHT_COUNT, BS_WEIGHT_LATENCY };

static const char *const bs_weights[] = { "count", "latency", NULL };

struct biostacks_params {
	const char *disk;
	bool msecs, folded, reverse;
	const char *svg, *pprof;
	int weight;			/* enum bs_weight */
};

/* What the requests a stack started came to. */
struct bs_stack {
	struct hist_bt h;		/* their latencies, in the histogram unit */
	uint64_t bytes, ns;		/* their bytes and latencies, for the profile */
};

struct biostacks_state {
	struct blktrack *bt;
	/* (pid, tags with --pprof, stack) -> v[0]: 1 + index into stk */
	struct stackmap *map;
	struct bs_stack *stk;
	size_t nr, cap;
	struct stack_tagtab tags;	/* --pprof: the disk, op and cgroup of a stack's requests */
	uint64_t ips[STACK_IPS_MAX];
};

/* The profile: per stack, the requests it started, their bytes, their latencies. */
static const struct pprof_type bs_pprof_types[] = {
	{ "requests", "count" }, { "bytes", "bytes" }, { "latency", "nanoseconds" },
};
static const struct stack_profile bs_profile = {
	.types = bs_pprof_types, .nr_types = 3, .default_type = 2,
};

#define P(f) offsetof(struct biostacks_params, f)
static const struct opt biostacks_opts[] = {
	TOOL_OPT_DISK(P(disk)),
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms (@msecs)" },
	{ 'f', "folded", OPT_FLAG, P(folded), NULL,
	  "print folded stacks instead (comm;outermost;...;innermost weight), for flamegraph.pl" },
	{ 0, "svg", OPT_OUTFILE, P(svg), "FILE", "also write an interactive SVG flame graph to FILE" },
	{ 0, "weight", OPT_CHOICE, P(weight), "WHAT",
	  "what folded stacks and the flame graph weigh: I/O count, or total latency in the histogram unit",
	  bs_weights },
	{ 0, "reverse", OPT_FLAG, P(reverse), NULL,
	  "folded stacks and flame graph from the innermost frame (which block paths issue the I/O)" },
	{ 0, "pprof", OPT_OUTFILE, P(pprof), "FILE",
	  "also write a pprof profile (gzipped profile.proto) to FILE at the end: requests, bytes and latency in ns per stack, labelled disk, op, comm, pid and cgroup" },
	OPT_END
};

static const struct tool_event biostacks_events[] = {
	TOOL_EVENTS_BLOCK_REQ_STACK,
	{ NULL, NULL, 0 }
};

/* biostacks_on_start - the submitter starts a request: tag it with its stack's index */
static int biostacks_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	const struct stack_tags tags = {
		.dev = r->dev, .op = block_op_name(r->op), .cgroup = r->cgroup,
	};
	uint64_t key = p->pprof ? stack_tags_key(&st->tags, &tags) : 0, *v;
	uint32_t n;

	if (p->pprof && !key)
		return -ENOMEM;
	v = stack_sample_get(ctx, st->map, s, STACK_KERNEL | STACK_USER, key, 0, st->ips, &n);
	if (!v)
		return -ENOMEM;
	if (!v[0]) {
		if (array_reserve(&st->stk, &st->cap, st->nr + 1, sizeof(*st->stk), 64))
			return -ENOMEM;
		memset(&st->stk[st->nr], 0, sizeof(st->stk[0]));
		v[0] = ++st->nr;
	}
	r->user = v[0];
	return 0;
}

/* biostacks_on_done - a request completes: its latency into its stack's histogram */
static int biostacks_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	struct bs_stack *b;
	uint64_t lat;

	if (!io->user || !io->t_start || io->user > st->nr)
		return 0;
	lat = io->t_done > io->t_start ? io->t_done - io->t_start : 0;
	b = &st->stk[io->user - 1];
	b->bytes += io->bytes;
	b->ns += lat;
	hist_bt_add(&b->h, lat / (p->msecs ? 1000000 : 1000));
	return 0;
}

/* biostacks_init - the request events, with stacks on the submitter's */
static int biostacks_init(struct iotap_ctx *ctx)
{
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START_STACK,
		.stack_flags = IOTAP_EV_KSTACK | IOTAP_EV_USTACK,
		.on_start = biostacks_on_start,
		.on_done = biostacks_on_done,
		.arg = ctx,
	};
	int ret = stack_pprof_init(ctx, p->pprof);

	if (!ret)
		ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	if (ret)
		return ret;
	st->map = stackmap_alloc();
	if (!st->map)
		return -ENOMEM;
	ctx->data_out = p->folded;
	return blktrack_create(&st->bt, ctx, &cfg);
}

/* bs_hist_cmp - bpftrace prints the smallest totals first, the busiest stack last */
static int bs_hist_cmp(const void *a, const void *b)
{
	const struct hist_bt *x = *(const struct hist_bt *const *)a;
	const struct hist_bt *y = *(const struct hist_bt *const *)b;

	return x->count < y->count ? -1 : x->count > y->count;
}

/* biostacks_print - one histogram per distinct stack, as the book's biostacks.bt prints */
static int biostacks_print(struct iotap_ctx *ctx)
{
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	struct stack_line *lines;
	struct hist_bt *merged = NULL, **order = NULL;
	const char **text = NULL;
	size_t nr, ng = 0;
	int ret = stack_lines(ctx, st->map, NULL, NULL, &lines, &nr);

	if (ret)
		return ret;
	merged = calloc(nr ? nr : 1, sizeof(*merged));
	order = calloc(nr ? nr : 1, sizeof(*order));
	text = calloc(nr ? nr : 1, sizeof(*text));
	if (!merged || !order || !text) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* Stacks that name alike (one program run by several processes) are one. */
	for (size_t i = 0; i < nr; i++) {
		const struct hist_bt *h;
		struct hist_bt *m;

		/* A stack whose index could not be allocated has no latencies. */
		if (!lines[i].v[0])
			continue;
		h = &st->stk[lines[i].v[0] - 1].h;
		if (!ng || strcmp(text[ng - 1], lines[i].text)) {
			text[ng] = lines[i].text;
			ng++;
		}
		m = &merged[ng - 1];
		hist_bt_merge(m, h);
	}
	for (size_t g = 0; g < ng; g++)
		order[g] = &merged[g];
	if (ng)
		qsort(order, ng, sizeof(*order), bs_hist_cmp);
	fputc('\n', ctx->out);
	for (size_t g = 0; g < ng; g++) {
		if (!order[g]->count)
			continue;
		fprintf(ctx->out, "@%s[\n%s]: \n", p->msecs ? "msecs" : "usecs",
			text[order[g] - merged]);
		hist_bt_print(order[g], ctx->out);
		fputc('\n', ctx->out);
	}
out_free:
	free(text);
	free(order);
	free(merged);
	stack_lines_free(lines, nr);
	return ret;
}

/* biostacks_sample - one stack for the outputs: under its process name, weighed by count or latency */
static int biostacks_sample(struct iotap_ctx *ctx, uint32_t pid, uint64_t key,
			    const uint64_t *ips, uint32_t nr, const uint64_t *v,
			    struct stack_sample *out)
{
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	const struct bs_stack *b = v[0] ? &st->stk[v[0] - 1] : NULL;

	if (!b)
		return 0;
	out->roots[0] = stack_comm(ctx, pid, ips, nr);
	out->nr_roots = 1;
	out->weight = p->weight == BS_WEIGHT_LATENCY ? b->h.sum : b->h.count;
	out->values[0] = b->h.count;
	out->values[1] = b->bytes;
	out->values[2] = b->ns;
	stack_sample_tags(ctx, &st->tags, key, out);
	return 0;
}

/* biostacks_outputs - folded stacks, the SVG flame graph, the profile (at the end) */
static int biostacks_outputs(struct iotap_ctx *ctx)
{
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	struct flame_opts fo = {
		.title = "Block I/O by initialization stack",
		.units = p->weight == BS_WEIGHT_COUNT ? "I/Os" : p->msecs ? "ms" : "us",
		.reverse = p->reverse,
	};
	const struct stack_outputs out = {
		.folded = p->folded, .svg = p->svg, .fo = &fo,
		.pprof = ctx->final ? p->pprof : NULL, .profile = &bs_profile,
	};

	return stack_output(ctx, st->map, biostacks_sample, &out);
}

/* biostacks_report - the histograms, or folded stacks; the flame graph on the side */
static int biostacks_report(struct iotap_ctx *ctx)
{
	struct biostacks_params *p = ctx->params;
	struct biostacks_state *st = ctx->state;
	int ret = biostacks_outputs(ctx), r;

	/* The histograms whatever became of a file: the error is said, and returned. */
	if (!p->folded && (r = biostacks_print(ctx)) && !ret)
		ret = r;
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	return ret;
}

/* biostacks_fini - free the state */
static void biostacks_fini(struct iotap_ctx *ctx)
{
	struct biostacks_state *st = ctx->state;

	blktrack_free(st->bt);
	stackmap_free(st->map);
	free(st->stk);
	stack_tagtab_release(&st->tags);
}

const struct tool tool_biostacks = {
	.name = "biostacks",
	.summary = "Show block I/O latency with the initialization stack of each request.",
	.description =
		"Takes the kernel and user stack of the task that starts each block request (at "
		"block_io_start, or block_rq_insert on kernels before 6.5) and prints, per distinct "
		"stack, a histogram of the request's latency from then until it completes, as the "
		"book's biostacks.bt prints them: frames innermost first, kernel then user, in "
		"bpftrace's @usecs[stack] layout. Different paths (an application's reads, log "
		"flushes, readahead, writeback) show their own latencies. Only the start event takes "
		"a callchain; the other events are plain. Stacks are folded as they come and named "
		"once at the end (kernel symbols from /proc/kallsyms, user symbols from the "
		"binaries, found through the processes' mappings and build-ids), so processes that "
		"have exited are still named. -f prints FlameGraph's folded format instead, and "
		"--svg writes a flame graph, weighted by I/O count or total latency. User stacks "
		"follow frame pointers; --call-graph dwarf unwinds programs built without them.",
	.examples =
		"iotap biostacks\n  Trace until Ctrl-C, then print a latency histogram per stack.\n"
		"iotap biostacks -d sda -m 10\n  Stacks of sda's I/O for ten seconds, in milliseconds.\n"
		"iotap biostacks -f > out.folded\n  Folded stacks for flamegraph.pl.\n"
		"iotap biostacks --svg io.svg --weight latency\n  A flame graph of where I/O latency comes from.\n"
		"iotap biostacks --call-graph dwarf\n  User stacks of programs built without frame pointers.\n"
		"iotap record -g -o io.iotap --tools biostacks; iotap biostacks -i io.iotap\n  The same from a recording.\n",
	.banner = "Tracing block I/O with init stacks. Hit Ctrl-C to end.",
	.args = TOOL_ARGS_DURATION,
	.opts = biostacks_opts,
	.common = stack_common_opts,
	.events = biostacks_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct biostacks_params),
	.state_size = sizeof(struct biostacks_state),
	.init = biostacks_init,
	.report = biostacks_report,
	.fini = biostacks_fini,
};
