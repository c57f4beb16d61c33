/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SYMBOLIZER_H
#define IOTAP_SYMBOLIZER_H

/*
 * The symbolizer: kernel and user symbols of one run, below the session.
 * It keeps user mappings current from side-band records (MMAP2, FORK,
 * EXIT, exec COMM), walks copied user stacks (frame pointers, or DWARF
 * CFI), rewrites samples with the walked frames, and names the frames of a
 * folded stack (stacks.h says what a folded stack is). It knows nothing of
 * sessions or sources: whoever makes it passes its options, and a loader
 * for the kernel symbols, called when a frame is first named.
 */
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

struct ksyms;
struct usyms;

/* Room for a folded stack: the deepest --max-stack plus the marker and the key. */
#define STACK_IPS_MAX	1040

/*
 * How user stacks are walked (--call-graph). Live, both take the user
 * registers and a copy of the top of the user stack (stack_copy_size())
 * and walk it here: the kernel's own frame-pointer walk has no end on a
 * binary built without frame pointers when a stale frame pointer points at
 * itself (127 frames of garbage, ~9 us a sample), while a copy costs about
 * what a kernel stack does. A recorder walks the copy too, as it records
 * (symbolizer_chain()), and writes what it found as an ordinary
 * callchain: recordings hold no stack copies, and report needs neither
 * the registers nor the binaries' CFI to read them.
 */
enum stack_call_graph {
	STACK_CG_FP,		/* follow frame pointers, within the copy */
	STACK_CG_DWARF,		/* unwind with the binaries' DWARF CFI */
};

extern const char *const stack_call_graph_names[];

uint64_t stack_regs_mask(int call_graph);
uint32_t stack_copy_size(int call_graph);

/* stack_limit - frames a stack may have: max_stack, within room for max ips and two markers */
static inline uint64_t stack_limit(uint64_t max_stack, uint32_t max)
{
	return !max_stack || max_stack > max - 2 ? max - 2 : max_stack;
}

/* The layout of a sample once its user stack copy is walked into its callchain. */
static inline uint64_t symbolizer_walked_type(uint64_t sample_type)
{
	return sample_type & ~(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

struct symbolizer_opts {
	int call_graph;			/* enum stack_call_graph */
	uint64_t max_stack;		/* 0: as deep as fits */
	const char *symfs;		/* more places to look for binaries */
	/* The kernel symbols (the symbolizer owns them), NULL after saying why. */
	struct ksyms *(*ksyms_load)(void *arg);
	void *ksyms_arg;
};

/* One named frame; strings live as long as the symbolizer. */
struct stack_frame {
	const char *name;		/* NULL: unknown */
	const char *module;		/* the user file's basename, NULL when unknown */
	uint64_t offset;		/* from name; else in module; else the address */
	uint64_t ip;			/* the address named: a caller's return address minus 1 */
	const char *file;		/* user frames: the source file, from DWARF; NULL: unknown */
	int line;			/* its line (usym_frame's), 0: unknown */
	bool user, inlined;
};

typedef int (*stack_frame_fn)(void *arg, const struct stack_frame *f);

struct symbolizer;

/* symbolizer_alloc - kernel frames only until symbolizer_want_user(); NULL with errno */
struct symbolizer *symbolizer_alloc(const struct symbolizer_opts *opts);
void symbolizer_free(struct symbolizer *sy);
/* symbolizer_want_user - user frames too: the user symbolizer and walk scratch; 0 or -errno */
int symbolizer_want_user(struct symbolizer *sy);
/* The user symbolizer, NULL until symbolizer_want_user() (for initial mappings). */
struct usyms *symbolizer_usyms(struct symbolizer *sy);
/* symbolizer_record - keep user mappings current from a side-band record */
void symbolizer_record(struct symbolizer *sy, const struct perf_event_header *rec);

/*
 * symbolizer_user_walk - walk a sample's copied user stack (fp or DWARF, by
 * the registers it carries); ips innermost first, callers' return addresses
 * minus 1. Returns their number, 0 when the sample has no copy.
 */
int symbolizer_user_walk(const struct symbolizer *sy, const struct perf_sample *s,
			 uint64_t *ips, uint32_t max);

/*
 * symbolizer_chain - for a recorder: a sample's callchain (the kernel's
 * frames, as sampled) followed by PERF_CONTEXT_USER and the frames of its
 * copied user stack, walked now, as return addresses like the kernel's own
 * user callchain. At most max entries, within max_stack frames.
 * Return: the number of entries in chain.
 */
int symbolizer_chain(const struct symbolizer *sy, const struct perf_sample *s,
		     uint64_t *chain, uint32_t max);

/*
 * symbolizer_walk_record - a sample carrying a copy of the user stack, laid
 * out for sample_type and regs_mask, rewritten with the copy walked into its
 * callchain (symbolizer_chain(), symbolizer_walked_type() layout); valid
 * until the next call. NULL when it does not parse or there is no scratch.
 */
const struct perf_event_header *symbolizer_walk_record(struct symbolizer *sy,
						       const struct perf_event_header *rec,
						       uint64_t sample_type, uint64_t regs_mask);
/* symbolizer_can_walk - whether symbolizer_walk_record() has its scratch; sy may be NULL */
bool symbolizer_can_walk(const struct symbolizer *sy);

/*
 * symbolizer_proc_key - the key of the image pid runs (usyms_proc_key), 0
 * unknown. With a new key *comm points at the 16 bytes where the caller
 * puts the process's name, so that stacks taken before an exec keep the
 * name they were taken under; else NULL. sy may be NULL.
 */
uint64_t symbolizer_proc_key(struct symbolizer *sy, uint32_t pid, char **comm);
/* symbolizer_key_comm - the name kept with key, NULL when none */
const char *symbolizer_key_comm(const struct symbolizer *sy, uint64_t key);

/* symbolizer_frames - name the frames of a folded stack, innermost first, each to fn: 0, or
 * fn's non-zero return */
int symbolizer_frames(struct symbolizer *sy, uint32_t pid, const uint64_t *ips, uint32_t nr,
		      stack_frame_fn fn, void *arg);

#endif
