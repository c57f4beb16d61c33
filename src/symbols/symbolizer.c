// SPDX-License-Identifier: GPL-2.0-or-later
/* symbolizer.c - side-band records, user stack walking, sample rewriting, frame naming */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ksyms.h"
#include "symbolizer.h"
#include "usyms.h"

/* Frames one user ip may expand to: inlined functions, then the function. */
#define STACK_INLINE_MAX 8
/* The perf register numbers of x86_64 that a frame-pointer walk needs. */
#define STACK_REG_BP 6
#define STACK_REG_SP 7
#define STACK_REG_IP 8
/* Stack bytes a frame-pointer walk gets: some 40 frames of ordinary code. */
#define STACK_FP_COPY 4096

const char *const stack_call_graph_names[] = { "fp", "dwarf", NULL };

struct symbolizer {
	struct symbolizer_opts opts;
	struct ksyms *ks;		/* NULL: kernel frames print as addresses */
	bool ks_tried;			/* loaded when first needed: a recorder never is */
	struct usyms *us;		/* NULL: nobody asked for user frames */
	/* The name each process image had when its key was handed out. */
	char (*key_comm)[16];
	size_t nr_key_comm, cap_key_comm;
	/* User stacks: one sample's scratch for symbolizer_walk_record(). */
	uint64_t *walk_chain;		/* STACK_IPS_MAX */
	uint8_t *walk_rec;		/* PERF_RECORD_MAX */
};

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

/* symbolizer_alloc - see symbolizer.h */
struct symbolizer *symbolizer_alloc(const struct symbolizer_opts *opts)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (sy)
		sy->opts = *opts;
	return sy;
}

/* symbolizer_want_user - see symbolizer.h */
int symbolizer_want_user(struct symbolizer *sy)
{
	if (sy->us)
		return 0;
	sy->us = usyms_alloc(sy->opts.symfs);
	if (!sy->us)
		return -errno;
	sy->walk_chain = calloc(STACK_IPS_MAX, sizeof(*sy->walk_chain));
	sy->walk_rec = malloc(PERF_RECORD_MAX);
	if (!sy->walk_chain || !sy->walk_rec)
		return -ENOMEM;
	return 0;
}

/* symbolizer_usyms - see symbolizer.h */
struct usyms *symbolizer_usyms(struct symbolizer *sy)
{
	return sy ? sy->us : NULL;
}

/* symbolizer_free - free everything; accepts NULL */
void symbolizer_free(struct symbolizer *sy)
{
	if (!sy)
		return;
	free(sy->key_comm);
	free(sy->walk_chain);
	free(sy->walk_rec);
	ksyms_free(sy->ks);
	usyms_free(sy->us);
	free(sy);
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

/* symbolizer_user_walk - see symbolizer.h */
int symbolizer_user_walk(const struct symbolizer *sy, const struct perf_sample *s,
			 uint64_t *ips, uint32_t max)
{
	if (!max || !s->regs || s->regs_abi != PERF_SAMPLE_REGS_ABI_64)
		return 0;
	if (s->regs_mask == stack_regs_mask(STACK_CG_DWARF)) {
		int r = sy && sy->us ? usyms_unwind(sy->us, s->pid, s->tid, s->regs, s->regs_mask,
						    s->stack, s->stack_size, ips, (int)max) : 0;

		return r > 0 ? r : 0;
	}
	return stack_fp_walk(s, ips, max);
}

/* symbolizer_chain - see symbolizer.h */
int symbolizer_chain(const struct symbolizer *sy, const struct perf_sample *s,
		     uint64_t *chain, uint32_t max)
{
	uint64_t limit = stack_limit(sy->opts.max_stack, max), frames = 0;
	uint32_t n = 0;
	int r;

	for (uint64_t i = 0; i < s->nr_ips && n < max - 1; i++) {
		chain[n++] = s->ips[i];
		frames += s->ips[i] < (uint64_t)PERF_CONTEXT_MAX;
	}
	if (frames >= limit || n >= max - 1)
		return (int)n;
	r = symbolizer_user_walk(sy, s, chain + n + 1,
				 (uint32_t)(limit - frames < max - 1 - n ? limit - frames : max - 1 - n));
	if (r <= 0)
		return (int)n;
	chain[n++] = PERF_CONTEXT_USER;
	/* Back to the return addresses a kernel callchain holds; readers take 1 off callers. */
	for (int i = 1; i < r; i++)
		chain[n + i] += 1;
	return (int)n + r;
}

/* symbolizer_walk_record - see symbolizer.h */
const struct perf_event_header *symbolizer_walk_record(struct symbolizer *sy,
						       const struct perf_event_header *rec,
						       uint64_t sample_type, uint64_t regs_mask)
{
	struct perf_sample smp;
	int n;

	if (!sy || !sy->walk_rec || perf_sample_parse(rec, sample_type, regs_mask, &smp))
		return NULL;
	smp.nr_ips = symbolizer_chain(sy, &smp, sy->walk_chain, STACK_IPS_MAX);
	smp.ips = sy->walk_chain;
	n = perf_sample_write(&smp, symbolizer_walked_type(sample_type), rec->misc, sy->walk_rec,
			      PERF_RECORD_MAX);
	return n > 0 ? (const void *)sy->walk_rec : NULL;
}

/* symbolizer_can_walk - see symbolizer.h */
bool symbolizer_can_walk(const struct symbolizer *sy)
{
	return sy && sy->walk_rec;
}

/* symbolizer_proc_key - see symbolizer.h */
uint64_t symbolizer_proc_key(struct symbolizer *sy, uint32_t pid, char **comm)
{
	uint32_t key = sy && sy->us ? usyms_proc_key(sy->us, pid) : 0;

	*comm = NULL;
	if (key && key > sy->nr_key_comm) {
		if (array_reserve(&sy->key_comm, &sy->cap_key_comm, key,
				  sizeof(*sy->key_comm), 256))
			return key;	/* the name then comes from the pid */
		memset(sy->key_comm + sy->nr_key_comm, 0,
		       (key - sy->nr_key_comm) * sizeof(*sy->key_comm));
		sy->nr_key_comm = key;
		*comm = sy->key_comm[key - 1];
	}
	return key;
}

/* symbolizer_key_comm - see symbolizer.h */
const char *symbolizer_key_comm(const struct symbolizer *sy, uint64_t key)
{
	if (sy && key && key <= sy->nr_key_comm && sy->key_comm[key - 1][0])
		return sy->key_comm[key - 1];
	return NULL;
}

/* symbolizer_frames - see symbolizer.h */
int symbolizer_frames(struct symbolizer *sy, uint32_t pid, const uint64_t *ips, uint32_t nr,
		      stack_frame_fn fn, void *arg)
{
	struct usym_frame uf[STACK_INLINE_MAX];
	bool user = false, first_user = false;
	uint32_t key = 0;
	int ret = 0;

	if (sy && !sy->ks_tried) {
		sy->ks_tried = true;
		sy->ks = sy->opts.ksyms_load ? sy->opts.ksyms_load(sy->opts.ksyms_arg) : NULL;
	}

	for (uint32_t i = 0; i < nr && !ret; i++) {
		struct stack_frame f = { .offset = ips[i], .ip = ips[i] };
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
			f.file = uf[j].file;
			f.line = uf[j].line;
			/* Print the return address, as other tools do, though it was looked up minus 1. */
			f.offset = uf[j].offset + (first_user || uf[j].inlined ? 0 : 1);
			ret = fn(arg, &f);
		}
		first_user = false;
	}
	return ret;
}

/* The PERF_RECORD_MMAP2 body (the build-id variant of the union). */
struct symbolizer_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t build_id_size, res1;
	uint16_t res2;
	uint8_t build_id[20];
	uint32_t prot, flags;
	char filename[];
};

/* symbolizer_mmap2 - an executable mapping appeared */
static void symbolizer_mmap2(struct usyms *us, const struct perf_event_header *rec)
{
	const struct symbolizer_mmap2 *m = (const void *)(rec + 1);
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

/* symbolizer_record - see symbolizer.h */
void symbolizer_record(struct symbolizer *sy, const struct perf_event_header *rec)
{
	const uint32_t *w = (const void *)(rec + 1);
	struct usyms *us = sy ? sy->us : NULL;

	if (!us || rec->size < sizeof(*rec) + 16)
		return;
	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		symbolizer_mmap2(us, rec);
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
