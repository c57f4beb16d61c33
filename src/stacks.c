// SPDX-License-Identifier: GPL-2.0-or-later
/* stacks.c - callchains made foldable, the session's symbolizer, stack output */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "log.h"
#include "session.h"
#include "stacks.h"
#include "usyms.h"

/* Ring pages per CPU at least, when samples carry user stack copies. */
#define STACKS_DWARF_PAGES 1024
#define STACKS_FP_PAGES 512
/* Frames one user ip may expand to: inlined functions, then the function. */
#define STACK_INLINE_MAX 8

const char *const stack_call_graph_names[] = { "fp", "dwarf", NULL };

/* Kernel and user symbols of one session. */
struct symbolizer {
	struct ksyms *ks;		/* NULL: kernel frames print as addresses */
	bool ks_tried;			/* loaded when first needed: a recorder never is */
	struct usyms *us;		/* NULL: no tool asked for user stacks */
	/* The name each process image had when its key was handed out (stack_proc_key()). */
	char (*key_comm)[16];
	size_t nr_key_comm, cap_key_comm;
	/* User stacks: one sample's scratch for stacks_walk_record(). */
	uint64_t *walk_chain;		/* STACK_IPS_MAX */
	uint8_t *walk_rec;		/* PERF_RECORD_MAX */
};

/* One named frame; strings live as long as the symbolizer. */
struct stack_frame {
	const char *name;		/* NULL: unknown */
	const char *module;		/* the user file's basename, NULL when unknown */
	uint64_t offset;		/* from name; else in module; else the address */
	bool user, inlined;
};

typedef int (*stack_frame_fn)(void *arg, const struct stack_frame *f);

/* The perf register numbers of x86_64 that a frame-pointer walk needs. */
#define STACK_REG_BP 6
#define STACK_REG_SP 7
#define STACK_REG_IP 8
/* Stack bytes a frame-pointer walk gets: some 40 frames of ordinary code. */
#define STACK_FP_COPY 4096

/* stack_regs_mask - the user registers to sample for a --call-graph mode */
uint64_t stack_regs_mask(int call_graph)
{
	if (call_graph == STACK_CG_DWARF)
		return usyms_regs_mask_x86_64();
	return 1ull << STACK_REG_BP | 1ull << STACK_REG_SP | 1ull << STACK_REG_IP;
}

/* stack_copy_size - user stack bytes to copy per sample: DWARF needs whole frames, fp the chain */
uint32_t stack_copy_size(int call_graph)
{
	return call_graph == STACK_CG_DWARF ? USYMS_STACK_USER_SIZE : STACK_FP_COPY;
}

/* stack_reg - a sampled register by its perf number; false when not sampled */
static bool stack_reg(const struct perf_sample *s, unsigned int reg, uint64_t *v)
{
	if (!(s->regs_mask & (1ull << reg)))
		return false;
	*v = s->regs[__builtin_popcountll(s->regs_mask & ((1ull << reg) - 1))];
	return true;
}

/*
 * stack_fp_walk - follow frame pointers through the copied stack; callers minus 1
 *
 * The chain must climb: a frame pointer outside the copy, misaligned, or not
 * above the one before ends it (a stale one in code built without frame
 * pointers, which the kernel's walk would follow in a loop).
 */
static int stack_fp_walk(const struct perf_sample *s, uint64_t *ips, uint32_t max)
{
	const uint8_t *stack = s->stack;
	uint64_t ip, sp, fp, next, ret;
	uint32_t n = 0;

	if (!max || !stack_reg(s, STACK_REG_IP, &ip) || !stack_reg(s, STACK_REG_SP, &sp) ||
	    !stack_reg(s, STACK_REG_BP, &fp))
		return 0;
	ips[n++] = ip;
	while (n < max && s->stack_size >= 16 && fp >= sp && !(fp & 7) &&
	       fp - sp <= s->stack_size - 16) {
		memcpy(&next, stack + (fp - sp), 8);
		memcpy(&ret, stack + (fp - sp) + 8, 8);
		if (!ret)
			break;
		ips[n++] = ret - 1;
		if (next <= fp)
			break;
		fp = next;
	}
	return (int)n;
}

/*
 * stack_user_walk - walk a sample's copied user stack (fp or DWARF, by the
 * registers it carries); ips innermost first, callers' return addresses
 * minus 1. Returns their number, 0 when the sample has no copy.
 */
static int stack_user_walk(const struct session *sess, const struct perf_sample *s,
			   uint64_t *ips, uint32_t max)
{
	const struct symbolizer *sy = sess->sym;

	if (!max || !s->regs || s->regs_abi != PERF_SAMPLE_REGS_ABI_64)
		return 0;
	if (s->regs_mask == stack_regs_mask(STACK_CG_DWARF)) {
		int r = sy && sy->us ? usyms_unwind(sy->us, s->pid, s->tid, s->regs, s->regs_mask,
						    s->stack, s->stack_size, ips, (int)max) : 0;

		return r > 0 ? r : 0;
	}
	return stack_fp_walk(s, ips, max);
}

/* stack_limit - frames a stack may have: --max-stack, within room for max ips and two markers */
static uint64_t stack_limit(const struct session *sess, uint32_t max)
{
	uint64_t limit = sess->opts.max_stack;

	return !limit || limit > max - 2 ? max - 2 : limit;
}

/*
 * stack_proc_key - the key of the image a sample's process runs
 * (usyms_proc_key), 0 unknown; the process's name is kept with a new key,
 * so that stacks taken before an exec keep the name they were taken under
 */
static uint64_t stack_proc_key(struct iotap_ctx *ctx, uint32_t pid)
{
	struct symbolizer *sy = ctx->sess->sym;
	uint32_t key = sy && sy->us ? usyms_proc_key(sy->us, pid) : 0;

	if (key && key > sy->nr_key_comm) {
		if (key > sy->cap_key_comm) {
			size_t cap = sy->cap_key_comm ? sy->cap_key_comm : 256;
			char (*kc)[16];

			while (cap < key)
				cap *= 2;
			kc = realloc(sy->key_comm, cap * sizeof(*kc));
			if (!kc)
				return key;	/* the name then comes from the pid */
			sy->key_comm = kc;
			sy->cap_key_comm = cap;
		}
		memset(sy->key_comm + sy->nr_key_comm, 0,
		       (key - sy->nr_key_comm) * sizeof(*sy->key_comm));
		snprintf(sy->key_comm[key - 1], sizeof(sy->key_comm[0]), "%s", iotap_comm(ctx, pid));
		sy->nr_key_comm = key;
	}
	return key;
}

/* stack_comm - see stacks.h */
const char *stack_comm(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	const struct symbolizer *sy = ctx->sess->sym;

	for (uint32_t i = 0; sy && i + 1 < nr; i++) {
		if (ips[i] != PERF_CONTEXT_USER)
			continue;
		if (ips[i + 1] && ips[i + 1] <= sy->nr_key_comm && sy->key_comm[ips[i + 1] - 1][0])
			return sy->key_comm[ips[i + 1] - 1];
		break;
	}
	return iotap_comm(ctx, pid);
}

/* stack_from_sample - a sample's callchain as a folded stack (see stacks.h); returns its length */
int stack_from_sample(struct iotap_ctx *ctx, const struct perf_sample *s, unsigned int which,
		      uint64_t *ips, uint32_t max)
{
	uint64_t context = PERF_CONTEXT_KERNEL, limit = stack_limit(ctx->sess, max);
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
		int r = stack_user_walk(ctx->sess, s, ips + n + 2, (uint32_t)(limit - frames));

		if (r > 0) {
			ips[n] = PERF_CONTEXT_USER;
			ips[n + 1] = stack_proc_key(ctx, s->pid);
			n += r + 2;
		}
	}
	return (int)n;
}

/* stacks_record_chain - see stacks.h */
int stacks_record_chain(const struct session *sess, const struct perf_sample *s,
			uint64_t *chain, uint32_t max)
{
	uint64_t limit = stack_limit(sess, max), frames = 0;
	uint32_t n = 0;
	int r;

	for (uint64_t i = 0; i < s->nr_ips && n < max - 1; i++) {
		chain[n++] = s->ips[i];
		frames += s->ips[i] < (uint64_t)PERF_CONTEXT_MAX;
	}
	if (frames >= limit || n >= max - 1)
		return (int)n;
	r = stack_user_walk(sess, s, chain + n + 1, (uint32_t)(limit - frames < max - 1 - n ?
								limit - frames : max - 1 - n));
	if (r <= 0)
		return (int)n;
	chain[n++] = PERF_CONTEXT_USER;
	/* Back to the return addresses a kernel callchain holds; readers take 1 off callers. */
	for (int i = 1; i < r; i++)
		chain[n + i] += 1;
	return (int)n + r;
}

/* stacks_walk_record - see stacks.h */
const struct perf_event_header *stacks_walk_record(struct session *s,
						   const struct perf_event_header *rec,
						   uint64_t sample_type, uint64_t regs_mask)
{
	struct symbolizer *sy = s->sym;
	struct perf_sample smp;
	int n;

	if (!sy || !sy->walk_rec || perf_sample_parse(rec, sample_type, regs_mask, &smp))
		return NULL;
	smp.nr_ips = stacks_record_chain(s, &smp, sy->walk_chain, STACK_IPS_MAX);
	smp.ips = sy->walk_chain;
	n = perf_sample_write(&smp, stacks_walked_type(sample_type), rec->misc, sy->walk_rec,
			      PERF_RECORD_MAX);
	return n > 0 ? (const void *)sy->walk_rec : NULL;
}

/* stacks_can_walk - see stacks.h */
bool stacks_can_walk(const struct session *s)
{
	return s->sym && s->sym->walk_rec;
}

/* stack_walk - name the frames of a folded stack, innermost first, and hand each to fn */
static int stack_walk(struct session *s, uint32_t pid, const uint64_t *ips, uint32_t nr,
		      stack_frame_fn fn, void *arg)
{
	struct usym_frame uf[STACK_INLINE_MAX];
	struct symbolizer *sy = s->sym;
	bool user = false, first_user = false;
	uint32_t key = 0;
	int ret = 0;

	if (sy && !sy->ks_tried) {
		sy->ks_tried = true;
		sy->ks = s->src->ksyms_load ? s->src->ksyms_load(s) : NULL;
	}

	for (uint32_t i = 0; i < nr && !ret; i++) {
		struct stack_frame f = { .offset = ips[i] };
		const struct ksym *k;
		int n;

		if (ips[i] == PERF_CONTEXT_USER) {
			user = first_user = true;
			key = i + 1 < nr ? (uint32_t)ips[++i] : 0;
			continue;
		}
		if (!user) {
			k = sy && sy->ks ? ksyms_lookup(sy->ks, ips[i], &f.offset) : NULL;
			if (k)
				f.name = k->name;
			ret = fn(arg, &f);
			continue;
		}
		f.user = true;
		if (!sy || !sy->us)
			n = -EINVAL;
		else if (key)
			n = usyms_key_lookup(sy->us, key, ips[i], uf, STACK_INLINE_MAX);
		else
			n = usyms_lookup(sy->us, pid, ips[i], uf, STACK_INLINE_MAX);
		if (n < 1) {
			f.offset += first_user ? 0 : 1;
			first_user = false;
			ret = fn(arg, &f);
			continue;
		}
		for (int j = 0; j < n && !ret; j++) {
			f.name = uf[j].name;
			f.module = uf[j].module;
			f.inlined = uf[j].inlined;
			/* Print the return address, as other tools do, though it was looked up minus 1. */
			f.offset = uf[j].offset + (first_user || uf[j].inlined ? 0 : 1);
			ret = fn(arg, &f);
		}
		first_user = false;
	}
	return ret;
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
	return stack_walk(ctx->sess, pid, ips, nr, stack_text_frame, out);
}

/* Frame names of one stack for a fold, innermost first. */
struct fold_names_buf {
	const char **names;
	char **owned;			/* formatted names, freed after the fold copied them */
	size_t nr, cap, nr_owned;
};

/* fold_names_push - append a name (owned: free it with the buffer) */
static int fold_names_push(struct fold_names_buf *b, const char *name, bool owned)
{
	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		const char **n = realloc(b->names, cap * sizeof(*n));
		char **o;

		if (!n)
			return -ENOMEM;
		b->names = n;
		o = realloc(b->owned, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		b->owned = o;
		b->cap = cap;
	}
	b->names[b->nr++] = name;
	if (owned)
		b->owned[b->nr_owned++] = (char *)name;
	return 0;
}

/* stack_fold_frame - one frame's name in FlameGraph's folded format */
static int stack_fold_frame(void *arg, const struct stack_frame *f)
{
	struct fold_names_buf *b = arg;
	char *name;

	if (f->name)
		return fold_names_push(b, f->name, false);
	if (!f->module)
		return fold_names_push(b, "[unknown]", false);
	if (asprintf(&name, "[unknown] (%s)", f->module) < 0)
		return -ENOMEM;
	return fold_names_push(b, name, true);
}

/* stack_fold_add - add a stack to fold under roots (outermost first) with weight */
int stack_fold_add(struct iotap_ctx *ctx, struct fold *fold, const char *const *roots,
		   size_t nr_roots, uint32_t pid, const uint64_t *ips, uint32_t nr,
		   uint64_t weight)
{
	struct fold_names_buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < nr_roots && !ret; i++)
		ret = fold_names_push(&b, roots[i], false);
	if (!ret)
		ret = stack_walk(ctx->sess, pid, ips, nr, stack_fold_frame, &b);
	if (!ret) {
		/* The walk gave the frames innermost first; a fold wants them from the root. */
		for (size_t i = nr_roots, j = b.nr - 1; i < j; i++, j--) {
			const char *t = b.names[i];

			b.names[i] = b.names[j];
			b.names[j] = t;
		}
		ret = fold_add(fold, b.names, b.nr, weight);
	}
	for (size_t i = 0; i < b.nr_owned; i++)
		free(b.owned[i]);
	free(b.owned);
	free(b.names);
	return ret;
}

/* stack_fold_write - the folded lines on the tool's output and/or an SVG flame graph file */
int stack_fold_write(struct iotap_ctx *ctx, const struct fold *fold, bool folded,
		     const char *svg, const struct flame_opts *fo)
{
	int ret = 0;

	if (svg) {
		FILE *f = fopen(svg, "we");

		if (!f) {
			ret = -errno;
			iotap_err(ctx, "cannot create %s: %s", svg, strerror(errno));
			return ret;
		}
		ret = flame_write_svg(fold, f, fo);
		if (fclose(f) && !ret)
			ret = -errno;
		if (ret) {
			iotap_err(ctx, "cannot write the flame graph to %s: %s", svg, strerror(-ret));
			return ret;
		}
	}
	if (folded)
		ret = fold_write(fold, ctx->out, fo && fo->reverse);
	return ret;
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

	if (lc->nr == lc->cap) {
		size_t cap = lc->cap ? lc->cap * 2 : 64;

		l = realloc(lc->l, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		lc->l = l;
		lc->cap = cap;
	}
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

/* stacks_session_want - a tool takes stacks: make the symbolizer (user: also for user frames) */
int stacks_session_want(struct session *s, bool user)
{
	struct symbolizer *sy = s->sym;
	uint64_t pages;

	if (!sy) {
		sy = calloc(1, sizeof(*sy));
		if (!sy)
			return -ENOMEM;
		s->sym = sy;
		if (s->src->ksyms_prefetch)
			s->src->ksyms_prefetch(s);
	}
	if (!user || sy->us)
		return 0;
	sy->us = usyms_alloc(s->opts.symfs);
	if (!sy->us)
		return -errno;
	sy->walk_chain = calloc(STACK_IPS_MAX, sizeof(*sy->walk_chain));
	sy->walk_rec = malloc(PERF_RECORD_MAX);
	if (!sy->walk_chain || !sy->walk_rec)
		return -ENOMEM;
	/* Live: MMAP2 side-band with build-ids for processes that start or exec while tracing. */
	s->opts.track_mmap = true;
	/* Samples carry a copy of the user stack, and a process's first unwind is slow: room for bursts. */
	pages = s->opts.call_graph == STACK_CG_DWARF ? STACKS_DWARF_PAGES : STACKS_FP_PAGES;
	if (s->opts.mmap_pages < pages)
		s->opts.mmap_pages = pages;
	return 0;
}

/* stacks_session_started - events flow: the mappings of the processes already running */
void stacks_session_started(struct session *s)
{
	/* A recorder stores the mappings itself, and needs them only to unwind DWARF as it records. */
	if (!s->sym || !s->sym->us || !s->src->maps_load ||
	    (s->opts.walk_only && s->opts.call_graph != STACK_CG_DWARF))
		return;
	s->src->maps_load(s, s->sym->us);
}

/* The PERF_RECORD_MMAP2 body (the build-id variant of the union). */
struct stacks_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t build_id_size, res1;
	uint16_t res2;
	uint8_t build_id[20];
	uint32_t prot, flags;
	char filename[];
};

/* stacks_mmap2 - an executable mapping appeared */
static void stacks_mmap2(struct usyms *us, const struct perf_event_header *rec)
{
	const struct stacks_mmap2 *m = (const void *)(rec + 1);
	size_t room;
	uint8_t blen;
	char path[4096];

	if (rec->size < sizeof(*rec) + sizeof(*m))
		return;
	room = rec->size - sizeof(*rec) - sizeof(*m);
	if (room > sizeof(path) - 1)
		room = sizeof(path) - 1;
	memcpy(path, m->filename, room);
	path[room] = 0;
	blen = rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? m->build_id_size : 0;
	if (blen > sizeof(m->build_id))
		blen = 0;
	usyms_map_add(us, m->pid, m->addr, m->len, m->pgoff, path, m->build_id, blen);
}

/* stacks_session_record - keep user mappings current from a side-band record */
void stacks_session_record(struct session *s, const struct perf_event_header *rec)
{
	const uint32_t *w = (const void *)(rec + 1);
	struct usyms *us = s->sym ? s->sym->us : NULL;

	if (!us || rec->size < sizeof(*rec) + 16)
		return;
	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		stacks_mmap2(us, rec);
		break;
	case PERF_RECORD_FORK:		/* pid, ppid, tid, ptid */
		usyms_proc_fork(us, w[1], w[0]);
		break;
	case PERF_RECORD_EXIT:
		if (w[0] == w[2])
			usyms_proc_exit(us, w[0]);
		break;
	case PERF_RECORD_COMM:
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC)
			usyms_proc_exec(us, w[0]);
		break;
	default:
		break;
	}
}

/* stacks_session_free - free the symbolizer; safe twice */
void stacks_session_free(struct session *s)
{
	if (!s->sym)
		return;
	free(s->sym->key_comm);
	free(s->sym->walk_chain);
	free(s->sym->walk_rec);
	ksyms_free(s->sym->ks);
	usyms_free(s->sym->us);
	free(s->sym);
	s->sym = NULL;
}
