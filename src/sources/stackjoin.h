/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_STACKJOIN_H
#define IOTAP_STACKJOIN_H

/*
 * One event read from two rings at once, joined back into one stream.
 *
 * perf sampling on tracepoints now and then drops a sample without a lost
 * record, while the ftrace ring buffer of an instance keeps every event but
 * has no callchains. An event that takes stacks is therefore read from both:
 * the ftrace copy says that it happened, the perf sample where from. Both are
 * written by the same tracepoint call on the same CPU, so per CPU the two
 * rings hold the same events, nearly always in the same order (an interrupt
 * that fires the event between the two writes swaps two of them), with
 * clocks some microseconds apart. The join pairs them by CPU, thread and raw
 * bytes, in arrival order, never by time.
 *
 * Every ftrace copy comes out once:
 * - with its perf sample: the sample, stamped with the ftrace time, so that
 *   it orders and subtracts with the events read from ftrace alone;
 * - once its sample is overdue (older than the grace period when a round
 *   starts, or at the end): a stackless substitute laid out as the perf
 *   sample would be, with an empty callchain, counted as stackless.
 * A perf sample whose ftrace copy is overdue (the ftrace buffer was full)
 * comes out as it is. An overdue record whose twin is held but did not
 * compare equal (a field the kernel leaves partly unwritten) is paired by
 * thread and time instead, and counted as loose. A twin that turns up after
 * the other half went out alone is dropped and counted as late, so counts
 * stay exact even then.
 *
 * Records held back for their twin are older than the ones released later,
 * which newer records already in the caller's merge would overtake: the
 * caller emits nothing newer than stackjoin_horizon() until they are out.
 */
#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

enum stackjoin_side {
	STACKJOIN_FTRACE,	/* IOTAP_SAMPLE_BASE records from the ftrace ring */
	STACKJOIN_PERF,		/* perf samples, laid out as the event's perf_type */
};

/* What the join did with one event's records. */
struct stackjoin_stats {
	uint64_t joined;	/* ftrace copies that came out with their perf sample */
	uint64_t stackless;	/* ftrace copies that came out as substitutes */
	uint64_t perf_only;	/* perf samples that came out without an ftrace copy */
	uint64_t late;		/* twins dropped: the other half had gone out alone */
	uint64_t loose;		/* of the joined: paired by thread and time, their fields differed */
};

/* A record coming out of the join; rec is valid during the call only. */
typedef int (*stackjoin_emit_fn)(void *arg, uint64_t time, const struct perf_event_header *rec);

struct stackjoin;

/* stackjoin_alloc - an empty join; NULL with errno on failure */
struct stackjoin *stackjoin_alloc(uint64_t grace_ns);
/* stackjoin_free - free every held record; accepts NULL */
void stackjoin_free(struct stackjoin *sj);
/* Bytes of an event's raw data: a field. */
struct stackjoin_range {
	uint32_t off, len;
	bool string;		/* up to its NUL: what follows is whatever the buffer held */
};

/*
 * stackjoin_event_add - declare an event read from both rings: the layout of
 * its perf samples (sample type and user register mask), the perf id its
 * substitutes carry, and the raw bytes that tell one event from another: its
 * own fields, nr_key ranges in any order (copied). Not the common fields
 * (each ring's writer samples the preempt count apart; the thread is compared
 * from the sample), nor the holes between fields (perf zeroes them, ftrace
 * leaves what was there). Returns the event's index for stackjoin_push(), or
 * -errno.
 */
int stackjoin_event_add(struct stackjoin *sj, uint64_t perf_type, uint64_t regs_mask,
			uint64_t perf_id, const struct stackjoin_range *key, size_t nr_key);
/*
 * stackjoin_push - hand over one record of a declared event, read from side;
 * the join copies it. -EINVAL when it does not parse as that side's layout,
 * -ENOMEM.
 */
int stackjoin_push(struct stackjoin *sj, int event, enum stackjoin_side side,
		   const struct perf_event_header *rec);
/*
 * stackjoin_resolve - emit every pair found, and every record whose twin is
 * overdue at now (CLOCK_MONOTONIC, taken before the rings were read); final:
 * the rings are drained for good, everything comes out. Stops at the first
 * non-zero return of emit and returns it.
 */
int stackjoin_resolve(struct stackjoin *sj, uint64_t now, bool final, stackjoin_emit_fn emit,
		      void *arg);
/* stackjoin_horizon - the newest time safe to emit after the join's output; UINT64_MAX: no limit */
uint64_t stackjoin_horizon(const struct stackjoin *sj);
/* stackjoin_stats - event's figures so far; NULL for an unknown index */
const struct stackjoin_stats *stackjoin_stats(const struct stackjoin *sj, int event);

#endif
