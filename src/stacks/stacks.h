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
#include "hashtab.h"
#include "pprof.h"
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
 * The labels a tool's stacks carry in a profile beside their process's (comm, pid): kept
 * once in a table (zeroed to begin, stack_tagtab_release at the end), so that a stackmap's
 * key can stand for them (stack_tags_key) and give them back when the outputs are written.
 */
struct stack_tags {
	uint32_t dev;			/* a disk (kernel dev_t); 0: none */
	/* NULL: none. Strings that outlive the table, compared by address: names kept once. */
	const char *op, *file, *cgroup;
};

struct stack_tagtab {
	struct stack_tags *t;
	size_t nr, cap;
	struct hashtab index;
};

/* stack_tags_key - the key of tags (non-zero), kept if new; 0 without memory */
uint64_t stack_tags_key(struct stack_tagtab *tab, const struct stack_tags *tags);
/* stack_tags_get - the tags a key of stack_tags_key stands for (never NULL: 0 is no tags) */
const struct stack_tags *stack_tags_get(const struct stack_tagtab *tab, uint64_t key);
void stack_tagtab_release(struct stack_tagtab *tab);

/*
 * One stack of a tool's stackmap as its outputs take it, filled in by the tool
 * (stack_sample_fn, on a zeroed one): the frames the folded lines and flame graph show
 * above the stack's own (outermost first) and its weight there (0: left out of them); the
 * profile's values, one per sample type of the tool's stack_profile (all 0: left out of
 * it), and its labels beside comm and pid (stack_sample_tags fills them from tags).
 * Strings must last until the outputs are written.
 */
struct stack_sample {
	const char *roots[2];
	size_t nr_roots;
	uint64_t weight;
	uint64_t values[PPROF_TYPES_MAX];
	const char *disk, *op, *file, *cgroup;
};

typedef int (*stack_sample_fn)(struct iotap_ctx *ctx, uint32_t pid, uint64_t key,
			       const uint64_t *ips, uint32_t nr, const uint64_t *v,
			       struct stack_sample *out);

/* stack_sample_tags - a sample's labels from the tags of key */
void stack_sample_tags(struct iotap_ctx *ctx, const struct stack_tagtab *tab, uint64_t key,
		       struct stack_sample *out);

/* What a tool's profile measures: its sample types, and the one a viewer shows first. */
struct stack_profile {
	const struct pprof_type *types;
	size_t nr_types;
	size_t default_type;
};

/*
 * Where a tool's stacks go: folded lines on the tool's output, an SVG flame graph (from
 * the innermost frame with fo->reverse), a pprof profile (gzipped profile.proto) of the
 * tool's profile types. File names NULL: none.
 */
struct stack_outputs {
	bool folded;
	const char *svg;
	const struct flame_opts *fo;
	const char *pprof;
	const struct stack_profile *profile;
};

/*
 * stack_output - every stack of map, as fn describes it, named once and given to each
 * output asked for, each written whatever became of the others: 0, -ENOMEM, fn's non-zero
 * return, or the first output's -errno (a file's said through the tool's error line; a
 * file is written whole or left as it was)
 */
int stack_output(struct iotap_ctx *ctx, const struct stackmap *map, stack_sample_fn fn,
		 const struct stack_outputs *out);

/*
 * stack_pprof_init - from a tool's init, with --pprof (path; NULL: none): -ENOTSUP, said in
 * one error line, when this build writes no profiles; else every task's cgroup followed for
 * the cgroup label where the source has the events (a recording made with --cgroups), and 0
 * or the tracker's -errno
 */
int stack_pprof_init(struct iotap_ctx *ctx, const char *path);

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
