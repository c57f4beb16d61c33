/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FTRACE_H
#define IOTAP_FTRACE_H

/*
 * The ftrace ring buffer of a tracefs instance private to this run,
 * "iotap_<pid>": the tracepoints are enabled and filtered in it, its clock is
 * "mono" (CLOCK_MONOTONIC, perf's use_clockid clock), and its per-CPU raw
 * sub-buffers are read through trace_pipe_raw and walked by subbuf.h. Each
 * event comes out either as it lies in the sub-buffer, read into the merge's
 * own room and queued there (ftrace_ring_read_into: decoded once, by the one
 * who takes it from the merge), or as a PERF_RECORD_SAMPLE laid out as the
 * kernel lays out a perf sample of IOTAP_SAMPLE_BASE (sample.h), for what
 * takes perf records: recordings, the join with perf's callchains. On this kernel the ftrace
 * ring buffer loses nothing that perf sampling silently drops, and costs
 * about a third per event.
 *
 * The instance is removed on every exit path (ftrace_ring_free); one left by
 * a killed run is removed at the next start (ftrace_instance_remove_stale).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "subbuf.h"

struct ftrace_ring;

/*
 * Where sub-buffers are read, when not into the ring's own page: room gives
 * size bytes for CPU cpu's next sub-buffer (the same room until keep takes
 * it; NULL: the ring's page, not kept); once its events went to the reader's
 * fn, keep is told the bytes of it decoding again needs (subbuf_used) and
 * its events' times (a sub-buffer without events is not kept). keep's
 * non-zero return ends the read with it.
 */
struct ftrace_store {
	void *(*room)(void *arg, int cpu, size_t size);
	int (*keep)(void *arg, int cpu, void *subbuf, size_t used, const struct subbuf_span *span);
	void *arg;
};

/*
 * ftrace_ring_alloc - an empty ring, no instance until ftrace_ring_open: NULL with errno
 * (ENOMEM)
 */
struct ftrace_ring *ftrace_ring_alloc(void);
void ftrace_ring_free(struct ftrace_ring *fr);
/*
 * ftrace_ring_add - declare a tracepoint to enable in the instance, with an optional filter:
 * 0, -EBUSY once open, or -ENOMEM
 */
int ftrace_ring_add(struct ftrace_ring *fr, const char *sys, const char *name, int tp_id,
		    const char *filter);
/*
 * ftrace_ring_add_early - declare a tracepoint that traces from ftrace_ring_track on, before
 * the others start with ftrace_ring_enable (a thread's birth, say, which must be known before
 * its first event): 0, -EBUSY once open, or -ENOMEM
 */
int ftrace_ring_add_early(struct ftrace_ring *fr, const char *sys, const char *name, int tp_id);
/*
 * ftrace_ring_set_header_page - the sub-buffer layout to decode with (events/header_page
 * text): 0, -EBUSY once open, -EINVAL for a text that is no sub-buffer header, or -ENOMEM
 */
int ftrace_ring_set_header_page(struct ftrace_ring *fr, const char *text, size_t len);
/* 0 or -errno; what was refused goes to the log hook (log.h) as one LOG_ERR line. */
int ftrace_ring_open(struct ftrace_ring *fr, const int *cpus, int nr_cpus, size_t buffer_kb);
/*
 * ftrace_ring_track - start recording the early events alone (none: nothing to do): 0, -EINVAL
 * before ftrace_ring_open, or -errno writing tracing_on
 */
int ftrace_ring_track(struct ftrace_ring *fr);
/*
 * ftrace_ring_enable - start recording every event in the instance: 0, -EINVAL before
 * ftrace_ring_open, or -errno (an event's enable refused, with a LOG_ERR line; tracing_on)
 */
int ftrace_ring_enable(struct ftrace_ring *fr);
/*
 * ftrace_ring_disable - stop recording (the buffers can still be read): 0, or -errno writing
 * tracing_on
 */
int ftrace_ring_disable(struct ftrace_ring *fr);
/* 0 while the instance traces as set up; -ECANCELED and a LOG_ERR line once another process changed it. */
int ftrace_ring_check(struct ftrace_ring *fr);
/*
 * Read every CPU's buffer once: at most the buffer's size from each (all of it
 * when flush, after disabling). 0, -errno, or fn's non-zero return.
 */
int ftrace_ring_read(struct ftrace_ring *fr, bool flush, ftrace_record_fn fn, void *arg);

/* The merge tag (merge.h) of a trace entry of CPU cpu that ftrace_ring_read_into queued. */
#define FTRACE_ENTRY_TAG 0x80000000u
static inline uint32_t ftrace_entry_tag(int cpu)
{
	return FTRACE_ENTRY_TAG | (uint32_t)cpu;
}

/*
 * ftrace_ring_read_into - as ftrace_ring_read, but each sub-buffer is read
 * into m's own room (merge_take) and each event queued there as it lies,
 * tagged ftrace_entry_tag(its CPU): no perf sample is made of it, nothing is
 * copied. Not with a store set (ftrace_ring_set_store). 0, -ENOMEM, -errno.
 */
struct merge;
int ftrace_ring_read_into(struct ftrace_ring *fr, bool flush, struct merge *m);
/*
 * After a read: every record not newer than this has been handed to fn (a
 * CPU read only in part holds newer ones back); UINT64_MAX when all was read.
 */
uint64_t ftrace_ring_horizon(const struct ftrace_ring *fr);
/* ftrace_ring_fd - CPU i's trace_pipe_raw, to poll; -1 when i is no CPU of the ring (no error) */
int ftrace_ring_fd(const struct ftrace_ring *fr, int i);
/*
 * ftrace_ring_stats_update - read each CPU's overrun and dropped-event counters: 0, or -EIO
 * when a CPU's could not be read (the others are read still)
 */
int ftrace_ring_stats_update(struct ftrace_ring *fr);
/*
 * ftrace_ring_stats - what CPU i's buffer delivered and lost, or NULL when i is no CPU of the
 * ring
 */
const struct ftrace_stats *ftrace_ring_stats(const struct ftrace_ring *fr, int i);
uint64_t ftrace_stats_lost(const struct ftrace_stats *st);
/*
 * ftrace_ring_unread_cpu - the events the instance's buffer of a CPU the ring
 * does not read has been written (its per_cpu stats: entries, overrun, dropped),
 * into *n: a CPU that came online after the ring opened. 0, -ENOENT (no such
 * CPU's buffer: still offline), or -EIO
 */
int ftrace_ring_unread_cpu(struct ftrace_ring *fr, int cpu, uint64_t *n);
/* The decoder of the instance's sub-buffers (subbuf.h), NULL before its header page; the ring's. */
const struct subbuf_decoder *ftrace_ring_decoder(const struct ftrace_ring *fr);
/* Read sub-buffers into store's rooms from now on (NULL: into the ring's own page again). */
void ftrace_ring_set_store(struct ftrace_ring *fr, const struct ftrace_store *store);
/*
 * ftrace_instance_remove_stale - remove iotap_<pid> instances whose run is dead: how many, or
 * -errno (tfs_libtracefs_sync's)
 */
int ftrace_instance_remove_stale(void);

#endif
