/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_STACKS_H
#define IOTAP_STACKS_H

/*
 * Stacks for the tools: a sample's callchain made ready to fold, and the
 * session's symbolizer that names the frames when the tool reports.
 *
 * A folded stack is an array of ips, innermost first: the kernel frames,
 * then, when it has user frames, the marker PERF_CONTEXT_USER, the key of
 * the process image they belong to (usyms_proc_key(); 0 when unknown) and
 * the user frames, every caller's return address already minus 1 so that it
 * names the call. User frames mean something only within their process
 * image: tools keep stacks in a stackmap with the pid as its ctx, and name
 * each distinct stack once, at report time, with the mappings the key
 * names, even if the pid exec'd or was reused meanwhile (stacks that name
 * alike are merged then).
 *
 * The symbolizer lives in the session. It is made when a tool first asks
 * for an event with a callchain: kernel symbols from /proc/kallsyms (or the
 * recording's copy), user symbols from the mappings of the processes
 * running when tracing starts, kept up to date from MMAP2, FORK, EXIT and
 * exec COMM side-band records (live and recorded alike).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iotap.h"
#include "flame.h"
#include "stackmap.h"

struct session;

/* Which frames a stack keeps. */
#define STACK_KERNEL	(1u << 0)
#define STACK_USER	(1u << 1)

/* Room for a folded stack: the deepest --max-stack plus the marker and the key. */
#define STACK_IPS_MAX	1040

/*
 * How user stacks are walked (--call-graph). Live, both take the user
 * registers and a copy of the top of the user stack (stack_copy_size())
 * and walk it here: the kernel's own frame-pointer walk has no end on a
 * binary built without frame pointers when a stale frame pointer points at
 * itself (127 frames of garbage, ~9 us a sample), while a copy costs about
 * what a kernel stack does. A recorder walks the copy too, as it records
 * (stacks_record_chain()), and writes what it found as an ordinary
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
int stack_from_sample(struct iotap_ctx *ctx, const struct perf_sample *s, unsigned int which,
		      uint64_t *ips, uint32_t max);
int stack_text(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr,
	       FILE *out);
int stack_fold_add(struct iotap_ctx *ctx, struct fold *fold, const char *const *roots,
		   size_t nr_roots, uint32_t pid, const uint64_t *ips, uint32_t nr,
		   uint64_t weight);
int stack_fold_write(struct iotap_ctx *ctx, const struct fold *fold, bool folded,
		     const char *svg, const struct flame_opts *fo);

/* One symbolized stack of a report: its printed text is what merges it with others. */
struct stack_line {
	char *text;
	uint32_t pid;
	uint64_t key;
	const uint64_t *v;		/* the stackmap's values */
	bool same;			/* same text as the line before (lines are sorted by text) */
};

/* Text a tool prints before (after == false) and after a stack's frames. */
typedef int (*stack_label_fn)(void *arg, uint32_t pid, const char *comm, uint64_t key,
			      bool after, FILE *out);

/*
 * stack_comm - the name of the process a stack was taken in: the one its
 * process image had then (a name changed by a later exec stays out), else
 * the pid's name now
 */
const char *stack_comm(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr);

int stack_lines(struct iotap_ctx *ctx, const struct stackmap *map, stack_label_fn label,
		void *arg, struct stack_line **lines, size_t *nr);
void stack_lines_free(struct stack_line *lines, size_t nr);

/* The session side: called by session.c and recording.c, not by tools. */
int stacks_session_want(struct session *s, bool user);
void stacks_session_started(struct session *s);
void stacks_session_record(struct session *s, const struct perf_event_header *rec);
void stacks_session_free(struct session *s);

/*
 * stacks_record_chain - for a recorder: a sample's callchain (the kernel's
 * frames, as sampled) followed by PERF_CONTEXT_USER and the frames of its
 * copied user stack, walked now, as return addresses like the kernel's own
 * user callchain. At most max entries, within --max-stack frames.
 * Return: the number of entries in chain.
 */
int stacks_record_chain(const struct session *sess, const struct perf_sample *s,
			uint64_t *chain, uint32_t max);

/* The layout of a sample once its user stack copy is walked into its callchain. */
static inline uint64_t stacks_walked_type(uint64_t sample_type)
{
	return sample_type & ~(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

/*
 * stacks_walk_record - live: a sample carrying a copy of the user stack,
 * laid out for sample_type and regs_mask, rewritten with the copy walked
 * into its callchain (stacks_record_chain(), stacks_walked_type() layout);
 * valid until the next call. NULL when it does not parse.
 */
const struct perf_event_header *stacks_walk_record(struct session *s,
						   const struct perf_event_header *rec,
						   uint64_t sample_type, uint64_t regs_mask);

/* stacks_can_walk - whether stacks_walk_record() has its scratch (a tool took user stacks) */
bool stacks_can_walk(const struct session *s);

#endif
