// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stackout.c - a tool's stacks to its outputs: each stack named once, then folded (folded
 * lines, the SVG flame graph) and added to a pprof profile, from the same frames
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "outfile.h"
#include "session.h"
#include "stacks.h"

/* The mapping a profile gives kernel frames, as perf names the kernel's. */
#define STACK_KERNEL_MAPPING "[kernel.kallsyms]"

/* The frames of one stack, innermost first, and what the outputs make of them. */
struct stack_frames {
	struct stack_frame *f;
	size_t nr, cap;
	const char **names;		/* a fold's: the roots, then the frames outermost first */
	size_t cap_names;
	char **owned;			/* names made here ("[unknown] (module)"), freed by reset */
	size_t nr_owned, cap_owned;
	struct pprof_frame *pf;		/* a profile's, innermost first */
	size_t cap_pf;
};

/* stack_frames_push - one named frame of the symbolizer's walk */
static int stack_frames_push(void *arg, const struct stack_frame *f)
{
	struct stack_frames *b = arg;

	if (array_reserve(&b->f, &b->cap, b->nr + 1, sizeof(*b->f), 64))
		return -ENOMEM;
	b->f[b->nr++] = *f;
	return 0;
}

/* stack_frames_reset - ready for the next stack */
static void stack_frames_reset(struct stack_frames *b)
{
	for (size_t i = 0; i < b->nr_owned; i++)
		free(b->owned[i]);
	b->nr_owned = 0;
	b->nr = 0;
}

/* stack_frames_release - free the buffers */
static void stack_frames_release(struct stack_frames *b)
{
	stack_frames_reset(b);
	free(b->f);
	free(b->names);
	free(b->owned);
	free(b->pf);
}

/* stack_frames_walk - the named frames of a stack */
static int stack_frames_walk(struct iotap_ctx *ctx, struct stack_frames *b, uint32_t pid,
			     const uint64_t *ips, uint32_t nr)
{
	stack_frames_reset(b);
	return symbolizer_frames(ctx->sess->sym, pid, ips, nr, stack_frames_push, b);
}

/* stack_fold_name - a frame's name in FlameGraph's folded format; NULL without memory */
static const char *stack_fold_name(struct stack_frames *b, const struct stack_frame *f)
{
	char *name;

	if (f->name)
		return f->name;
	if (!f->module)
		return "[unknown]";
	if (array_reserve(&b->owned, &b->cap_owned, b->nr_owned + 1, sizeof(*b->owned), 16) ||
	    asprintf(&name, "[unknown] (%s)", f->module) < 0)
		return NULL;
	b->owned[b->nr_owned++] = name;
	return name;
}

/* stack_frames_fold - the walked frames into fold under roots (outermost first), with weight */
static int stack_frames_fold(struct stack_frames *b, struct fold *fold, const char *const *roots,
			     size_t nr_roots, uint64_t weight)
{
	size_t n = nr_roots + b->nr;

	if (array_reserve(&b->names, &b->cap_names, n ? n : 1, sizeof(*b->names), 64))
		return -ENOMEM;
	for (size_t i = 0; i < nr_roots; i++)
		b->names[i] = roots[i];
	/* The walk gave the frames innermost first; a fold wants them from the root. */
	for (size_t i = 0; i < b->nr; i++) {
		b->names[n - 1 - i] = stack_fold_name(b, &b->f[i]);
		if (!b->names[n - 1 - i])
			return -ENOMEM;
	}
	return n ? fold_add(fold, b->names, n, weight) : 0;
}

/* stack_fold_add - add a stack to fold under roots (outermost first) with weight */
int stack_fold_add(struct iotap_ctx *ctx, struct fold *fold, const char *const *roots,
		   size_t nr_roots, uint32_t pid, const uint64_t *ips, uint32_t nr,
		   uint64_t weight)
{
	struct stack_frames b = { 0 };
	int ret = stack_frames_walk(ctx, &b, pid, ips, nr);

	if (!ret)
		ret = stack_frames_fold(&b, fold, roots, nr_roots, weight);
	stack_frames_release(&b);
	return ret;
}

/* stack_frames_pprof - the walked frames into the profile, with the sample's values and labels */
static int stack_frames_pprof(struct iotap_ctx *ctx, struct stack_frames *b, struct pprof *pp,
			      const struct stack_sample *smp, uint32_t pid, const char *comm)
{
	char pidbuf[16];
	const struct pprof_label labels[] = {
		{ "comm", comm }, { "pid", pidbuf }, { "disk", smp->disk }, { "op", smp->op },
		{ "file", smp->file }, { "cgroup", smp->cgroup },
	};

	/* A stack that was lost (no frames) still counts: a sample without locations. */
	if (array_reserve(&b->pf, &b->cap_pf, b->nr ? b->nr : 1, sizeof(*b->pf), 64))
		return -ENOMEM;
	for (size_t i = 0; i < b->nr; i++) {
		const struct stack_frame *f = &b->f[i];

		b->pf[i] = (struct pprof_frame){
			.address = f->ip,
			.function = f->name,
			.file = f->file,
			.line = f->line,
			.mapping = f->user ? f->module : STACK_KERNEL_MAPPING,
			/* Only a named frame is inlined into the next: never the last. */
			.inlined = f->inlined && i + 1 < b->nr,
		};
	}
	snprintf(pidbuf, sizeof(pidbuf), "%" PRIu32, pid);
	return pprof_sample_add(pp, b->pf, b->nr, smp->values, labels,
				sizeof(labels) / sizeof(labels[0]));
}

/* What stack_output_one needs of its call. */
struct stack_out_ctx {
	struct iotap_ctx *ctx;
	stack_sample_fn fn;
	struct fold *fold;		/* NULL: no folded output */
	struct pprof *pp;		/* NULL: no profile */
	size_t nr_types;
	struct stack_frames b;
};

/* stack_output_one - one stack of the map: as the tool describes it, to each output */
static int stack_output_one(uint32_t pid, uint64_t key, const uint64_t *ips, uint32_t nr,
			    const uint64_t *v, void *arg)
{
	struct stack_out_ctx *oc = arg;
	struct stack_sample smp = { 0 };
	bool weighed = false;
	int ret = oc->fn(oc->ctx, pid, key, ips, nr, v, &smp);

	if (ret)
		return ret;
	for (size_t t = 0; oc->pp && t < oc->nr_types; t++)
		weighed |= smp.values[t] != 0;
	if (!weighed && !(oc->fold && smp.weight))
		return 0;
	ret = stack_frames_walk(oc->ctx, &oc->b, pid, ips, nr);
	if (!ret && oc->fold && smp.weight)
		ret = stack_frames_fold(&oc->b, oc->fold, smp.roots, smp.nr_roots, smp.weight);
	if (!ret && weighed)
		ret = stack_frames_pprof(oc->ctx, &oc->b, oc->pp, &smp, pid,
					 stack_comm(oc->ctx, pid, ips, nr));
	return ret;
}

/* stack_svg_write - the flame graph file, whole or not at all */
static int stack_svg_write(struct iotap_ctx *ctx, const struct fold *fold, const char *svg,
			   const struct flame_opts *fo)
{
	struct outfile of;
	int ret = outfile_open(&of, svg, 0644);

	if (ret) {
		iotap_err(ctx, "cannot create %s: %s", svg, strerror(-ret));
		return ret;
	}
	ret = flame_write_svg(fold, of.f, fo);
	if (ret)
		outfile_abort(&of);
	else
		ret = outfile_commit(&of);
	if (ret)
		iotap_err(ctx, "cannot write the flame graph to %s: %s", svg, strerror(-ret));
	return ret;
}

/* stack_pprof_write - the profile file, whole or not at all */
static int stack_pprof_write(struct iotap_ctx *ctx, struct pprof *pp, const char *path)
{
	uint64_t t0 = iotap_start_time(ctx), now = iotap_now(ctx);
	char comment[64];
	struct outfile of;
	int ret;

	snprintf(comment, sizeof(comment), "iotap %s", ctx->tool->name);
	ret = pprof_comment_add(pp, comment);
	if (ret) {
		iotap_err(ctx, "cannot write the profile to %s: %s", path, strerror(-ret));
		return ret;
	}
	pprof_time_set(pp, (int64_t)iotap_wall_ns(ctx, t0), now > t0 ? (int64_t)(now - t0) : 0);
	ret = outfile_open(&of, path, 0644);
	if (ret) {
		iotap_err(ctx, "cannot create %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = pprof_write(pp, of.f);
	if (ret)
		outfile_abort(&of);
	else
		ret = outfile_commit(&of);
	if (ret)
		iotap_err(ctx, "cannot write the profile to %s: %s", path, strerror(-ret));
	else if (!pprof_nr_samples(pp))
		iotap_warn(ctx, "the profile %s has no samples: no stacks were taken", path);
	return ret;
}

/* stack_outputs_alloc - the fold and the profile the outputs asked for: 0 or -errno */
static int stack_outputs_alloc(struct stack_out_ctx *oc, const struct stack_outputs *out)
{
	if (out->folded || out->svg) {
		oc->fold = fold_alloc();
		if (!oc->fold)
			return -ENOMEM;
	}
	if (out->pprof) {
		const struct stack_profile *pr = out->profile;

		oc->pp = pprof_alloc(pr->types, pr->nr_types);
		if (!oc->pp)
			return -errno;
		oc->nr_types = pr->nr_types;
		return pprof_default_type_set(oc->pp, pr->default_type);
	}
	return 0;
}

/* stack_output - every stack of map, named once, to each output asked for */
int stack_output(struct iotap_ctx *ctx, const struct stackmap *map, stack_sample_fn fn,
		 const struct stack_outputs *out)
{
	struct stack_out_ctx oc = { .ctx = ctx, .fn = fn };
	int ret;

	if (!out->folded && !out->svg && !out->pprof)
		return 0;
	ret = stack_outputs_alloc(&oc, out);
	if (!ret)
		ret = stackmap_for_each(map, stack_output_one, &oc);
	/* Each output, whatever became of the others: the first error is returned. */
	if (!ret) {
		int r;

		if (out->svg)
			ret = stack_svg_write(ctx, oc.fold, out->svg, out->fo);
		if (out->pprof && (r = stack_pprof_write(ctx, oc.pp, out->pprof)) && !ret)
			ret = r;
		if (out->folded && (r = fold_write(oc.fold, ctx->out, out->fo && out->fo->reverse)) &&
		    !ret)
			ret = r;
	}
	stack_frames_release(&oc.b);
	pprof_free(oc.pp);
	fold_free(oc.fold);
	return ret;
}

/* stack_pprof_init - whether this build writes the profile --pprof asks for; its cgroups */
int stack_pprof_init(struct iotap_ctx *ctx, const char *path)
{
	if (!path)
		return 0;
	if (!pprof_supported()) {
#ifdef IOTAP_PPROF_ABSENT
		iotap_err(ctx, "--pprof: this iotap has no pprof output (" IOTAP_PPROF_ABSENT ")");
#else
		iotap_err(ctx, "--pprof: this iotap has no pprof output");
#endif
		return -ENOTSUP;
	}
	if (!iotap_event_available(ctx, "sched", "sched_process_fork") ||
	    !iotap_event_available(ctx, "cgroup", "cgroup_attach_task")) {
		if (iotap_verbose(ctx))
			iotap_info(ctx, "--pprof: no cgroup labels (no sched_process_fork and cgroup_attach_task events%s)",
				   iotap_input_is_file(ctx) ? "; iotap record --cgroups records them" : "");
		return 0;
	}
	return iotap_cgroup_track(ctx);
}

/* stack_tags_hash - the table hash of a set of tags */
static uint32_t stack_tags_hash(const struct stack_tags *t)
{
	uint64_t h = hashtab_fnv(HASHTAB_FNV_BASIS, &t->dev, sizeof(t->dev));

	h = hashtab_fnv(h, &t->op, sizeof(t->op));
	h = hashtab_fnv(h, &t->file, sizeof(t->file));
	return hashtab_mix(hashtab_fnv(h, &t->cgroup, sizeof(t->cgroup)));
}

/* stack_tags_key - the key of tags, kept if new */
uint64_t stack_tags_key(struct stack_tagtab *tab, const struct stack_tags *tags)
{
	struct hashtab_pos pos;
	uint32_t *i;

	if (!tab->index.slots && hashtab_init(&tab->index, 64))
		return 0;
	for (i = hashtab_find(&tab->index, stack_tags_hash(tags), &pos); i;
	     i = hashtab_find_next(&tab->index, &pos)) {
		const struct stack_tags *t = &tab->t[*i];

		if (t->dev == tags->dev && t->op == tags->op && t->file == tags->file &&
		    t->cgroup == tags->cgroup)
			return (uint64_t)*i + 1;
	}
	if (tab->nr >= UINT32_MAX - 1 ||
	    array_reserve(&tab->t, &tab->cap, tab->nr + 1, sizeof(*tab->t), 64) ||
	    hashtab_add(&tab->index, &pos, (uint32_t)tab->nr))
		return 0;
	tab->t[tab->nr] = *tags;
	return ++tab->nr;
}

/* stack_tags_get - the tags a key stands for */
const struct stack_tags *stack_tags_get(const struct stack_tagtab *tab, uint64_t key)
{
	static const struct stack_tags none = { 0 };

	return key && key <= tab->nr ? &tab->t[key - 1] : &none;
}

/* stack_tagtab_release - free the table; safe on a zeroed or released one */
void stack_tagtab_release(struct stack_tagtab *tab)
{
	free(tab->t);
	hashtab_release(&tab->index);
	memset(tab, 0, sizeof(*tab));
}

/* stack_sample_tags - a sample's labels from the tags of key */
void stack_sample_tags(struct iotap_ctx *ctx, const struct stack_tagtab *tab, uint64_t key,
		       struct stack_sample *out)
{
	const struct stack_tags *t = stack_tags_get(tab, key);

	out->disk = t->dev ? iotap_disk_name(ctx, t->dev) : NULL;
	out->op = t->op;
	out->file = t->file;
	/* A cgroup not known at the time ("?") is no label. */
	out->cgroup = t->cgroup && strcmp(t->cgroup, "?") ? t->cgroup : NULL;
}
