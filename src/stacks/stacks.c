// SPDX-License-Identifier: GPL-2.0-or-later
/* stacks.c - the tools' stack API: callchains made foldable, named, folded and printed */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "session.h"
#include "stacks.h"

/* stack_proc_key - the key of pid's process image; a new key keeps the name it has now */
static uint64_t stack_proc_key(struct iotap_ctx *ctx, uint32_t pid)
{
	char *comm;
	uint64_t key = symbolizer_proc_key(ctx->sess->sym, pid, &comm);

	if (comm)
		snprintf(comm, 16, "%s", iotap_comm(ctx, pid));
	return key;
}

/* stack_comm - see stacks.h */
const char *stack_comm(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i + 1 < nr; i++) {
		const char *comm;

		if (ips[i] != PERF_CONTEXT_USER)
			continue;
		comm = symbolizer_key_comm(ctx->sess->sym, ips[i + 1]);
		if (comm)
			return comm;
		break;
	}
	return iotap_comm(ctx, pid);
}

/* stack_from_sample - a sample's callchain as a folded stack (see stacks.h); returns its length */
int stack_from_sample(struct iotap_ctx *ctx, const struct perf_sample *s, unsigned int which,
		      uint64_t *ips, uint32_t max)
{
	uint64_t context = PERF_CONTEXT_KERNEL, limit = stack_limit(ctx->sess->opts.max_stack, max);
	uint32_t n = 0, frames = 0, nu = 0;
	bool want_k = which & STACK_KERNEL, want_u = which & STACK_USER;

	for (uint64_t i = 0; i < s->nr_ips && frames < limit; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			context = ip;
			continue;
		}
		if (context == PERF_CONTEXT_KERNEL && want_k) {
			ips[n++] = ip;
			frames++;
		} else if (context == PERF_CONTEXT_USER && want_u) {
			if (!nu++) {
				ips[n++] = PERF_CONTEXT_USER;
				ips[n++] = stack_proc_key(ctx, s->pid);
			}
			/* Callers' return addresses: minus 1 names the call, not what follows it. */
			ips[n++] = nu > 1 ? ip - 1 : ip;
			frames++;
		}
	}
	if (want_u && !nu && frames < limit) {
		int r = symbolizer_user_walk(ctx->sess->sym, s, ips + n + 2, (uint32_t)(limit - frames));

		if (r > 0) {
			ips[n] = PERF_CONTEXT_USER;
			ips[n + 1] = stack_proc_key(ctx, s->pid);
			n += r + 2;
		}
	}
	return (int)n;
}

/* stack_sample_get - see stacks.h */
uint64_t *stack_sample_get(struct iotap_ctx *ctx, struct stackmap *map,
			   const struct perf_sample *s, unsigned int which, uint64_t key,
			   unsigned int seen, uint64_t *ips, uint32_t *nr)
{
	uint64_t *v;

	*nr = (uint32_t)stack_from_sample(ctx, s, which, ips, STACK_IPS_MAX);
	if (!*nr && (which & STACK_NONEMPTY)) {
		errno = ENODATA;
		return NULL;
	}
	v = stackmap_get(map, s->pid, key, ips, *nr);
	if (v && !v[seen])
		iotap_comm(ctx, s->pid);
	return v;
}

/* stack_text_frame - one frame as bpftrace prints kstack and ustack */
static int stack_text_frame(void *arg, const struct stack_frame *f)
{
	FILE *out = arg;

	if (f->name && f->inlined)
		fprintf(out, "    %s (inlined)\n", f->name);
	else if (f->name)
		fprintf(out, "    %s+%" PRIu64 "\n", f->name, f->offset);
	else if (f->module)
		fprintf(out, "    [unknown] (%s+0x%" PRIx64 ")\n", f->module, f->offset);
	else
		fprintf(out, "    0x%" PRIx64 "\n", f->offset);
	return 0;
}

/* stack_text - write a stack's frames, innermost first, one indented line each */
int stack_text(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr, FILE *out)
{
	return symbolizer_frames(ctx->sess->sym, pid, ips, nr, stack_text_frame, out);
}

struct lines_ctx {
	struct iotap_ctx *ctx;
	stack_label_fn label;
	void *arg;
	struct stack_line *l;
	size_t nr, cap;
};

/* stack_lines_one - symbolize one stack of the map into its text */
static int stack_lines_one(uint32_t pid, uint64_t key, const uint64_t *ips, uint32_t nr,
			   const uint64_t *v, void *arg)
{
	struct lines_ctx *lc = arg;
	struct stack_line *l;
	const char *comm;
	size_t size = 0;
	FILE *out;
	int ret;

	if (array_reserve(&lc->l, &lc->cap, lc->nr + 1, sizeof(*lc->l), 64))
		return -ENOMEM;
	l = &lc->l[lc->nr];
	memset(l, 0, sizeof(*l));
	out = open_memstream(&l->text, &size);
	if (!out)
		return -ENOMEM;
	comm = stack_comm(lc->ctx, pid, ips, nr);
	ret = lc->label ? lc->label(lc->arg, pid, comm, key, false, out) : 0;
	if (!ret)
		ret = stack_text(lc->ctx, pid, ips, nr, out);
	if (!ret && lc->label)
		ret = lc->label(lc->arg, pid, comm, key, true, out);
	if (fclose(out) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(l->text);
		return ret;
	}
	l->pid = pid;
	l->key = key;
	l->v = v;
	lc->nr++;
	return 0;
}

/* stack_line_cmp - order lines by text, keeping map order among equals */
static int stack_line_cmp(const void *a, const void *b)
{
	const struct stack_line *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	if (c)
		return c;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* stack_lines - every stack of map symbolized and sorted by its text, equal texts marked */
int stack_lines(struct iotap_ctx *ctx, const struct stackmap *map, stack_label_fn label,
		void *arg, struct stack_line **lines, size_t *nr)
{
	struct lines_ctx lc = { .ctx = ctx, .label = label, .arg = arg };
	int ret = stackmap_for_each(map, stack_lines_one, &lc);

	if (ret) {
		stack_lines_free(lc.l, lc.nr);
		return ret;
	}
	if (lc.nr)
		qsort(lc.l, lc.nr, sizeof(*lc.l), stack_line_cmp);
	for (size_t i = 1; i < lc.nr; i++)
		lc.l[i].same = !strcmp(lc.l[i].text, lc.l[i - 1].text);
	*lines = lc.l;
	*nr = lc.nr;
	return 0;
}

/* stack_lines_free - free what stack_lines returned; accepts NULL */
void stack_lines_free(struct stack_line *lines, size_t nr)
{
	for (size_t i = 0; lines && i < nr; i++)
		free(lines[i].text);
	free(lines);
}

/* Ring pages per CPU at least, when samples carry user stack copies. */
#define STACKS_DWARF_PAGES 1024
#define STACKS_FP_PAGES 512

/* stacks_ksyms_load - the symbolizer's kernel symbols come from the source */
static struct ksyms *stacks_ksyms_load(void *arg)
{
	struct session *s = arg;

	return s->host->ksyms_load ? s->host->ksyms_load(s) : NULL;
}

/* stacks_maps_wanted - whether the symbolizer follows the processes' mappings */
static bool stacks_maps_wanted(const struct session *s)
{
	/* A recorder stores the mappings itself, and needs them only to unwind DWARF as it records. */
	return s->sym && !(s->opts.walk_only && s->opts.call_graph != STACK_CG_DWARF);
}

/* stacks_on_record - the side-band records (mmaps, comms, forks) keep the symbolizer current */
static int stacks_on_record(struct session *s, void *priv, const struct perf_event_header *rec)
{
	if (rec->type != PERF_RECORD_SAMPLE && stacks_maps_wanted(s))
		symbolizer_record(s->sym, rec);
	return 0;
}

/* stacks_start - events flow: the mappings of the processes already running */
static int stacks_start(struct session *s, void *priv)
{
	struct usyms *us = symbolizer_usyms(s->sym);

	if (us && s->host->maps_load && stacks_maps_wanted(s))
		s->host->maps_load(s, us);
	return 0;
}

/* stacks_fini - the symbolizer goes with the session */
static void stacks_fini(struct session *s, void *priv)
{
	symbolizer_free(s->sym);
	s->sym = NULL;
}

/* The symbolizer watches the session's records. */
static const struct consumer_ops stacks_observer = {
	.name = "symbolizer",
	.observer = true,
	.on_record = stacks_on_record,
	.start = stacks_start,
	.fini = stacks_fini,
};

/* stacks_session_want - a consumer takes stacks: make the symbolizer (user: also for user frames) */
int stacks_session_want(struct session *s, bool user)
{
	struct symbolizer_opts so = {
		.call_graph = s->opts.call_graph,
		.max_stack = s->opts.max_stack,
		.symfs = s->opts.symfs,
		.ksyms_load = stacks_ksyms_load,
		.ksyms_arg = s,
	};
	uint64_t pages;
	int ret;

	if (!s->sym) {
		s->sym = symbolizer_alloc(&so);
		if (!s->sym)
			return -ENOMEM;
		ret = session_consumer_add(s, &stacks_observer, NULL);
		if (ret) {
			symbolizer_free(s->sym);
			s->sym = NULL;
			return ret;
		}
		if (s->host->ksyms_prefetch)
			s->host->ksyms_prefetch(s);
	}
	if (!user || symbolizer_usyms(s->sym))
		return 0;
	ret = symbolizer_want_user(s->sym);
	if (ret)
		return ret;
	/* Live: MMAP2 side-band with build-ids for processes that start or exec while tracing. */
	s->opts.track_mmap = true;
	/* Samples carry a copy of the user stack, and a process's first unwind is slow: room for bursts. */
	pages = s->opts.call_graph == STACK_CG_DWARF ? STACKS_DWARF_PAGES : STACKS_FP_PAGES;
	if (s->opts.mmap_pages < pages)
		s->opts.mmap_pages = pages;
	return 0;
}
