// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usyms-unwind.c - DWARF unwinding of user stack samples (x86_64): a Dwfl per process with its
 * modules at run-time addresses, served the sampled registers and the copied stack
 */
#include "usyms-local.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* perf register numbers on x86_64 (uapi asm/perf_regs.h), part of the ABI. */
enum {
	X86_AX = 0, X86_BX = 1, X86_CX = 2, X86_DX = 3, X86_SI = 4, X86_DI = 5,
	X86_BP = 6, X86_SP = 7, X86_IP = 8,
	X86_R8 = 16, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14,
	X86_R15,
	X86_NREGS
};

/* DWARF register numbers of the x86_64 psABI: rax rdx rcx rbx rsi rdi rbp
 * rsp r8-r15, then 16 for the return address (the ip). */
#define X86_DWARF_NREGS	17
#define X86_DWARF_SP	7
#define X86_DWARF_RA	16

/* The sample being unwound, served to libdwfl's thread callbacks. */
struct usample {
	Dwarf_Word regs[X86_DWARF_NREGS];
	bool have[X86_DWARF_NREGS];
	const uint8_t *stack;
	uint64_t sp;
	uint64_t size;
};

static const uint8_t x86_dwarf_to_perf[X86_DWARF_NREGS] = {
	X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP,
	X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
	X86_IP,
};

/* unwind_find_debuginfo - no separate debug files for unwinding modules */
int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink;
	(void)crc;
	(void)debuginfo_file_name;
	return -1;
}

/* usyms_regs_mask_x86_64 - registers to request for usyms_unwind() */
uint64_t usyms_regs_mask_x86_64(void)
{
	uint64_t mask = 0;
	int i;

	for (i = 0; i < X86_DWARF_NREGS; i++)
		mask |= 1ULL << x86_dwarf_to_perf[i];
	return mask;
}

/* unwind_next_thread - libdwfl callback; threads are only asked by tid */
static pid_t unwind_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0;
}

/* unwind_get_thread - libdwfl callback: the sampled thread */
static bool unwind_get_thread(Dwfl *dwfl, pid_t tid, void *arg,
			      void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	(void)tid;
	*thread_argp = p->sample;
	return p->sample != NULL;
}

/* unwind_memory_read - libdwfl callback: a word of the copied stack */
static bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			       void *arg)
{
	const struct uproc *p = arg;
	const struct usample *s = p->sample;

	(void)dwfl;
	if (!s || addr < s->sp || s->size < sizeof(*result) ||
	    addr - s->sp > s->size - sizeof(*result))
		return false;
	memcpy(result, s->stack + (addr - s->sp), sizeof(*result));
	return true;
}

/* unwind_set_initial_registers - libdwfl callback: the sampled registers */
static bool unwind_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct usample *s = arg;
	int i;

	for (i = 0; i < X86_DWARF_NREGS; i++) {
		if (s->have[i] &&
		    !dwfl_thread_state_registers(thread, i, 1, &s->regs[i]))
			return false;
	}
	dwfl_thread_state_register_pc(thread, s->regs[X86_DWARF_RA]);
	return true;
}

static const Dwfl_Thread_Callbacks unwind_thread_cbs = {
	.next_thread = unwind_next_thread,
	.get_thread = unwind_get_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = unwind_set_initial_registers,
};

/* uproc_dwfl_sync - (re)build a process's unwinding Dwfl from its mappings */
static int uproc_dwfl_sync(struct usyms *us, struct uproc *p)
{
	size_t i, j, nreported = 0;
	void **userdata;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	int err;

	if (p->dwfl && p->dwfl_gen == p->gen)
		return 0;
	uproc_dwfl_drop(p);
	dwfl = dwfl_begin(&us->unwind_cbs);
	if (!dwfl)
		return -ENOMEM;
	dwfl_report_begin(dwfl);
	for (i = 0; i < p->nmaps; i++) {
		struct umap *m = &p->maps[i];
		struct ufile *f = m->file;

		if (f->state == UFILE_NEW)
			ufile_resolve(us, f, NULL);
		if (!umap_bias_compute(m))
			continue;
		/* one module per file and load address */
		for (j = 0; j < i; j++) {
			if (p->maps[j].file == f && p->maps[j].bias_known &&
			    p->maps[j].bias == m->bias)
				break;
		}
		if (j < i)
			continue;
		mod = dwfl_report_module(dwfl, f->base, m->bias + f->low,
					 m->bias + f->high);
		if (!mod)
			continue;
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = f;
		nreported++;
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
		err = -EINVAL;
		goto end_dwfl;
	}
	if (!nreported) {
		err = -ENOENT;
		goto end_dwfl;
	}
	if (!dwfl_attach_state(dwfl, NULL, (pid_t)p->pid, &unwind_thread_cbs, p)) {
		err = -ENOEXEC;
		goto end_dwfl;
	}
	p->dwfl = dwfl;
	p->dwfl_gen = p->gen;
	return 0;

end_dwfl:
	dwfl_end(dwfl);
	return err;
}

struct unwind_ctx {
	uint64_t *ips;
	int max;
	int n;
};

/* unwind_frame_cb - store one frame's pc */
static int unwind_frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *ctx = arg;
	bool activation;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	if (ctx->n == 0) {
		/* the sampled ip is stored already */
		ctx->n = 1;
		return ctx->n < ctx->max ? DWARF_CB_OK : DWARF_CB_ABORT;
	}
	ctx->ips[ctx->n++] = activation ? pc : pc - 1;
	return ctx->n < ctx->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* usyms_unwind - unwind a user stack sample of an x86_64 process */
int usyms_unwind(struct usyms *us, uint32_t pid, uint32_t tid,
		 const uint64_t *regs, uint64_t regs_mask, const void *stack,
		 uint64_t stack_size, uint64_t *ips, int max)
{
	uint64_t perf[X86_NREGS];
	bool have[X86_NREGS] = { false };
	struct unwind_ctx ctx = { .ips = ips, .max = max };
	struct usample sample = { .stack = stack, .size = stack_size };
	struct uproc *p;
	int i, k = 0;

	if (!us || !regs || !ips || max < 1 || (stack_size && !stack))
		return -EINVAL;
	for (i = 0; i < 64; i++) {
		if (!(regs_mask & (1ULL << i)))
			continue;
		if (i < X86_NREGS) {
			perf[i] = regs[k];
			have[i] = true;
		}
		k++;
	}
	if (!have[X86_IP] || !have[X86_SP])
		return -EINVAL;
	ips[0] = perf[X86_IP];
	if (max == 1)
		return 1;
	for (i = 0; i < X86_DWARF_NREGS; i++) {
		sample.have[i] = have[x86_dwarf_to_perf[i]];
		sample.regs[i] = sample.have[i] ? perf[x86_dwarf_to_perf[i]] : 0;
	}
	sample.sp = sample.regs[X86_DWARF_SP];

	p = usyms_proc_find(us, pid);
	if (!p || uproc_dwfl_sync(us, p) != 0)
		return 1;
	p->sample = &sample;
	/* an error past the first frames is just the end of the stack */
	dwfl_getthread_frames(p->dwfl, (pid_t)tid, unwind_frame_cb, &ctx);
	p->sample = NULL;
	return ctx.n ? ctx.n : 1;
}
