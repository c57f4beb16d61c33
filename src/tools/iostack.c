// SPDX-License-Identifier: GPL-2.0-or-later
/* iostack.c - bytes read and written per disk and submitting stack */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common-opts.h"
#include "stacks.h"
#include "block.h"

enum iostack_io { IOSTACK_RW, IOSTACK_R, IOSTACK_W };

static const char *const iostack_io_names[] = { "rw", "r", "w", NULL };

struct iostack_params {
	bool kernel, user, folded, per_pid, reverse;
	int io;				/* enum iostack_io */
	uint64_t duration;		/* seconds; 0: until stopped */
	const char *svg, *pprof;
};

/* Stackmap values: bytes read, bytes written, whether the name was taken, bios. */
#define IOSTACK_R_BYTES 0
#define IOSTACK_W_BYTES 1
#define IOSTACK_SEEN 2
#define IOSTACK_BIOS 3

struct iostack_state {
	struct block_fmt fmt;
	struct stackmap *map;		/* (pid, tags, stack) */
	struct stack_tagtab tags;	/* the disk, op and (with --pprof) cgroup of a stack's bios */
	unsigned int which;		/* STACK_KERNEL | STACK_USER */
	char who[64];			/* the process column of the stack the outputs take now */
	uint64_t ips[STACK_IPS_MAX];
};

/* The profile: per stack, the bios it submitted and their bytes (a bio's end is not traced). */
static const struct pprof_type iostack_pprof_types[] = {
	{ "requests", "count" }, { "bytes", "bytes" },
};
static const struct stack_profile iostack_profile = {
	.types = iostack_pprof_types, .nr_types = 2, .default_type = 1,
};

#define P(f) offsetof(struct iostack_params, f)
static const struct opt iostack_opts[] = {
	{ 'K', "kernel-stack", OPT_FLAG, P(kernel), NULL,
	  "kernel stacks (with neither -K nor -U: kernel and user)" },
	{ 'U', "user-stack", OPT_FLAG, P(user), NULL, "user stacks" },
	{ 'f', "folded", OPT_FLAG, P(folded), NULL,
	  "print folded stacks instead (disk;comm;outermost;...;innermost bytes), for flamegraph.pl" },
	{ 'P', "per-pid", OPT_FLAG, P(per_pid), NULL, "one entry per process ('comm [pid]'), not per name" },
	{ 0, "io", OPT_CHOICE, P(io), "DIR", "count reads, writes or both", iostack_io_names,
	  0, 0, true },
	{ 'D', "duration", OPT_UINT, P(duration), "SECS", "trace for SECS seconds (default: until Ctrl-C)",
	  NULL, 1, 0 },
	{ 0, "svg", OPT_OUTFILE, P(svg), "FILE", "also write an interactive SVG flame graph of the bytes to FILE" },
	{ 0, "reverse", OPT_FLAG, P(reverse), NULL,
	  "folded stacks and flame graph from the innermost frame" },
	{ 0, "pprof", OPT_OUTFILE, P(pprof), "FILE",
	  "also write a pprof profile (gzipped profile.proto) to FILE at the end: bios (as requests) and bytes per stack, labelled disk, op, comm, pid and cgroup" },
	OPT_END
};

static const struct tool_event iostack_events[] = {
	{ "block", "block_bio_queue", TOOL_EV_STACK },
	{ NULL, NULL, 0 }
};

/* iostack_on_bio - a bio submitted: its bytes to the submitter's stack on its disk */
static int iostack_on_bio(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iostack_params *p = ctx->params;
	struct iostack_state *st = ctx->state;
	struct stack_tags tags = { 0 };
	struct block_rq rq;
	uint64_t *v, key;
	uint32_t n;

	if (block_rq_decode(&st->fmt, s->raw, s->raw_size, &rq) || !rq.nr_sector)
		return 0;
	/* block_bio_queue runs in the submitter: --cgroup decides here. */
	if (!iotap_cgroup_match(ctx, s))
		return 0;
	if (rq.op == BLOCK_OP_READ ? p->io == IOSTACK_W : rq.op != BLOCK_OP_WRITE || p->io == IOSTACK_R)
		return 0;
	tags.dev = rq.dev;
	tags.op = block_op_name(rq.op);
	if (p->pprof)
		tags.cgroup = iotap_cgroup_of(ctx, s);
	key = stack_tags_key(&st->tags, &tags);
	v = key ? stack_sample_get(ctx, st->map, s, st->which, key, IOSTACK_SEEN, st->ips, &n) : NULL;
	if (!v)
		return -ENOMEM;
	v[IOSTACK_SEEN] = 1;
	v[IOSTACK_BIOS]++;
	/* block_bio_queue has no bytes field: the decoder gives nr_sector * 512. */
	v[rq.op == BLOCK_OP_READ ? IOSTACK_R_BYTES : IOSTACK_W_BYTES] += rq.bytes;
	return 0;
}

/* iostack_init - bio submissions, with the stacks asked for */
static int iostack_init(struct iotap_ctx *ctx)
{
	struct iostack_params *p = ctx->params;
	struct iostack_state *st = ctx->state;
	struct iotap_event *ev;
	int ret;

	ret = stack_pprof_init(ctx, p->pprof);
	if (ret)
		return ret;
	if (!p->kernel && !p->user)
		p->kernel = p->user = true;
	st->which = (p->kernel ? STACK_KERNEL : 0) | (p->user ? STACK_USER : 0);
	st->map = stackmap_alloc();
	if (!st->map)
		return -ENOMEM;
	ev = iotap_event_use(ctx, "block", "block_bio_queue",
			     (p->kernel ? IOTAP_EV_KSTACK : 0) | (p->user ? IOTAP_EV_USTACK : 0),
			     iostack_on_bio, NULL);
	if (!ev)
		return -errno;
	ret = block_fmt_init(&st->fmt, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "block:block_bio_queue has no dev/sector/nr_sector/rwbs fields");
		return ret;
	}
	if (p->io != IOSTACK_RW) {
		ret = iotap_event_filter(ev, "rwbs ~ \"*%c*\"", p->io == IOSTACK_R ? 'R' : 'W');
		if (ret)
			return ret;
	}
	if (p->duration)
		ctx->duration_ns = p->duration * 1000000000ull;
	ctx->data_out = p->folded;
	return 0;
}

/* iostack_weight - what a stack weighs in folded output: the bytes of the chosen direction */
static uint64_t iostack_weight(const struct iostack_params *p, const uint64_t *v)
{
	if (p->io == IOSTACK_R)
		return v[IOSTACK_R_BYTES];
	if (p->io == IOSTACK_W)
		return v[IOSTACK_W_BYTES];
	return v[IOSTACK_R_BYTES] + v[IOSTACK_W_BYTES];
}

/* iostack_who - the process column: comm, or comm [pid] with -P */
static void iostack_who(struct iotap_ctx *ctx, uint32_t pid, const char *comm, char *buf,
			size_t len)
{
	struct iostack_params *p = ctx->params;

	if (p->per_pid)
		snprintf(buf, len, "%s [%" PRIu32 "]", comm, pid);
	else
		snprintf(buf, len, "%s", comm);
}

/* iostack_label - the disk line before a stack's frames, the process after them */
static int iostack_label(void *arg, uint32_t pid, const char *comm, uint64_t key, bool after,
			 FILE *out)
{
	struct iotap_ctx *ctx = arg;
	struct iostack_state *st = ctx->state;
	char who[64];

	if (!after) {
		fprintf(out, "disk %s\n", iotap_disk_name(ctx, stack_tags_get(&st->tags, key)->dev));
		return 0;
	}
	iostack_who(ctx, pid, comm, who, sizeof(who));
	fprintf(out, "    %s\n", who);
	return 0;
}

/* One entry of the text report: stacks of the same text, summed. */
struct iostack_entry {
	const char *text;
	uint64_t r, w;
};

/* iostack_entry_cmp - most bytes first; equal totals by text, for a stable report */
static int iostack_entry_cmp(const void *a, const void *b)
{
	const struct iostack_entry *x = a, *y = b;
	uint64_t tx = x->r + x->w, ty = y->r + y->w;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* iostack_print - per disk and stack: frames, process, bytes; most bytes first */
static int iostack_print(struct iotap_ctx *ctx)
{
	struct iostack_state *st = ctx->state;
	struct iostack_entry *e;
	struct stack_line *lines;
	size_t nr, ne = 0;
	int ret = stack_lines(ctx, st->map, iostack_label, ctx, &lines, &nr);

	if (ret)
		return ret;
	e = calloc(nr ? nr : 1, sizeof(*e));
	if (!e) {
		stack_lines_free(lines, nr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!lines[i].same)
			e[ne++].text = lines[i].text;
		e[ne - 1].r += lines[i].v[IOSTACK_R_BYTES];
		e[ne - 1].w += lines[i].v[IOSTACK_W_BYTES];
	}
	if (ne)
		qsort(e, ne, sizeof(*e), iostack_entry_cmp);
	for (size_t i = 0; i < ne; i++)
		fprintf(ctx->out, "%s    R: %" PRIu64 ", W: %" PRIu64 "\n\n", e[i].text, e[i].r, e[i].w);
	free(e);
	stack_lines_free(lines, nr);
	return 0;
}

/* iostack_sample - one stack for the outputs: under its disk and process, weighed in bytes */
static int iostack_sample(struct iotap_ctx *ctx, uint32_t pid, uint64_t key,
			  const uint64_t *ips, uint32_t nr, const uint64_t *v,
			  struct stack_sample *out)
{
	struct iostack_state *st = ctx->state;

	iostack_who(ctx, pid, stack_comm(ctx, pid, ips, nr), st->who, sizeof(st->who));
	stack_sample_tags(ctx, &st->tags, key, out);
	out->roots[0] = iotap_disk_name(ctx, stack_tags_get(&st->tags, key)->dev);
	out->roots[1] = st->who;
	out->nr_roots = 2;
	out->weight = iostack_weight(ctx->params, v);
	out->values[0] = v[IOSTACK_BIOS];
	out->values[1] = v[IOSTACK_R_BYTES] + v[IOSTACK_W_BYTES];
	return 0;
}

/* iostack_report - the text report, or folded stacks; the flame graph and profile on the side */
static int iostack_report(struct iotap_ctx *ctx)
{
	struct iostack_params *p = ctx->params;
	struct iostack_state *st = ctx->state;
	struct flame_opts fo = {
		.title = "Block I/O bytes by submitting stack",
		.units = "bytes",
		.reverse = p->reverse,
	};
	const struct stack_outputs out = {
		.folded = p->folded, .svg = p->svg, .fo = &fo,
		.pprof = ctx->final ? p->pprof : NULL, .profile = &iostack_profile,
	};
	int ret = stack_output(ctx, st->map, iostack_sample, &out), r;

	/* The report whatever became of a file: the error is said, and returned. */
	if (!p->folded && (r = iostack_print(ctx)) && !ret)
		ret = r;
	return ret;
}

/* iostack_fini - free the state */
static void iostack_fini(struct iotap_ctx *ctx)
{
	struct iostack_state *st = ctx->state;

	stackmap_free(st->map);
	stack_tagtab_release(&st->tags);
}

const struct tool tool_iostack = {
	.name = "iostack",
	.summary = "Count block I/O bytes read and written per disk and submitting stack.",
	.description =
		"Takes the stack of the task submitting each bio (block_bio_queue, in the "
		"submitter's context) and sums the bytes it reads and writes per disk and distinct "
		"stack: which code paths put which load on which disk. Bytes are the bio's "
		"nr_sector * 512, counted before merges and splits. -K keeps the kernel stack, -U "
		"the user stack; with neither both are kept. The report prints, most bytes first, "
		"the disk, the frames innermost first, the process (comm, or comm [pid] with -P) "
		"and R: and W: byte totals. -f prints FlameGraph's folded format instead "
		"(disk;comm;outermost;...;innermost bytes, the bytes of --io), and --svg writes a "
		"flame graph. --io can also be spelled -io, as the tool it comes from does.",
	.examples =
		"iotap iostack -D 10\n  Bytes per disk and kernel+user stack for ten seconds.\n"
		"iotap iostack -U -P\n  User stacks only, one entry per process.\n"
		"iotap iostack -io w -f > writes.folded\n  Folded stacks of the bytes written.\n"
		"iotap iostack -K --svg io.svg\n  A flame graph of the kernel paths that submit I/O.\n",
	.banner = "Tracing block I/O submissions with stacks. Hit Ctrl-C to end.",
	.args = TOOL_ARGS_NONE,
	.opts = iostack_opts,
	.common = stack_common_opts,
	.events = iostack_events,
	.params_size = sizeof(struct iostack_params),
	.state_size = sizeof(struct iostack_state),
	.init = iostack_init,
	.report = iostack_report,
	.fini = iostack_fini,
};
