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
 * The session makes its symbolizer (symbolizer.h) when a tool first asks
 * for an event with a callchain: kernel symbols from its source, user
 * symbols from the mappings of the processes running when tracing starts
 * (also the source's), kept up to date from side-band records.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iotap.h"
#include "flame.h"
#include "stackmap.h"
#include "symbolizer.h"

/* Which frames a stack keeps. */
#define STACK_KERNEL	(1u << 0)
#define STACK_USER	(1u << 1)
/* stack_sample_get: a sample without frames makes no entry */
#define STACK_NONEMPTY	(1u << 2)

/* stack_from_sample - a sample's callchain (the frames which asks for) as a folded stack: its length */
int stack_from_sample(struct iotap_ctx *ctx, const struct perf_sample *s, unsigned int which,
		      uint64_t *ips, uint32_t max);
/*
 * stack_sample_get - the map's values of the sample's process, key and stack (the frames which
 * asks for, left in ips[0..*nr), ips STACK_IPS_MAX long), zero on first sight
 *
 * While v[seen] is 0 (the caller makes it non-zero once it has filled the slot) the process's
 * name is learnt: it lives now, and the report may come after it exits. NULL with errno
 * ENOMEM, or ENODATA for a sample without frames when which has STACK_NONEMPTY.
 */
uint64_t *stack_sample_get(struct iotap_ctx *ctx, struct stackmap *map,
			   const struct perf_sample *s, unsigned int which, uint64_t key,
			   unsigned int seen, uint64_t *ips, uint32_t *nr);
/*
 * stack_text - write a stack's frames, innermost first, one indented line each; always 0
 * (out's errors show at its flush)
 */
int stack_text(struct iotap_ctx *ctx, uint32_t pid, const uint64_t *ips, uint32_t nr,
	       FILE *out);
/* stack_fold_add - add a stack to fold under roots (outermost first) with weight: 0 or -ENOMEM */
int stack_fold_add(struct iotap_ctx *ctx, struct fold *fold, const char *const *roots,
		   size_t nr_roots, uint32_t pid, const uint64_t *ips, uint32_t nr,
		   uint64_t weight);

/*
 * The folded-stack and flame-graph outputs of a tool that keeps stacks in a
 * stackmap: fn adds each stack of map to fold (stack_fold_add(), under the
 * tool's roots, with its weight; it may leave a stack out), then the fold
 * goes to the tool's output as folded lines (folded) and/or to an SVG file
 * (svg, NULL: none), from the innermost frame with fo->reverse. 0, -ENOMEM, fn's non-zero
 * return, or the SVG file's -errno (said through the tool's error line).
 */
typedef int (*stack_flame_fn)(struct iotap_ctx *ctx, struct fold *fold, uint32_t pid,
			      uint64_t key, const uint64_t *ips, uint32_t nr, const uint64_t *v);
int stack_flame(struct iotap_ctx *ctx, const struct stackmap *map, stack_flame_fn fn,
		bool folded, const char *svg, const struct flame_opts *fo);

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

/*
 * stack_lines - every stack of map symbolized and sorted by its text, equal texts marked: 0,
 * or -ENOMEM or label's non-zero return (nothing kept)
 */
int stack_lines(struct iotap_ctx *ctx, const struct stackmap *map, stack_label_fn label,
		void *arg, struct stack_line **lines, size_t *nr);
void stack_lines_free(struct stack_line *lines, size_t nr);

struct session;

/*
 * stacks_session_want - the sessions' stacks_want (session_stacks_set() it
 * once, before the first session): a consumer takes stacks (user: user
 * frames too), so s->sym is made, fed as an observer of the records, and
 * freed with the session. Return: 0 or -errno.
 */
int stacks_session_want(struct session *s, bool user);

#endif
