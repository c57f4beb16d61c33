/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SUBBUF_H
#define IOTAP_SUBBUF_H

/*
 * ftrace sub-buffers (one page of a CPU's ring buffer, as trace_pipe_raw
 * gives it) read event by event: each where it lies, or laid out as a perf
 * sample as ftrace.h says. The walk is this file's own, bounds-checked
 * against the sub-buffer's commit, with the time stamps kbuffer would give. A
 * decoder lays out samples in a buffer of its own, so each thread that
 * decodes has its own: subbuf_decoder_clone makes another for the same layout
 * and events. The decoder owns its copy of the header_page text and
 * of the event types; nothing it returns outlives the next call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

/* Sample ids of ftrace events: far above the ids perf hands out (a counter from 1). */
#define FTRACE_ID_BASE (1ull << 62)

/* ftrace_sample_id - the sample id the records of tracepoint tp_id carry */
static inline uint64_t ftrace_sample_id(int tp_id)
{
	return FTRACE_ID_BASE | (uint32_t)tp_id;
}

/* ftrace_sample_is - whether rec is the sample of an ftrace event (its id first, as ftrace.h lays it) */
static inline bool ftrace_sample_is(const struct perf_event_header *rec)
{
	uint64_t id;

	if (rec->type != PERF_RECORD_SAMPLE || rec->size < sizeof(*rec) + sizeof(id))
		return false;
	memcpy(&id, rec + 1, sizeof(id));
	return (id & ~(uint64_t)UINT32_MAX) == FTRACE_ID_BASE;
}

/* What one CPU's buffer delivered and lost. */
struct ftrace_stats {
	uint64_t records;	/* events decoded */
	uint64_t missed;	/* sub-buffer headers' missed-event counts */
	uint64_t overrun;	/* per_cpu/cpuN/stats: overrun */
	uint64_t dropped;	/* per_cpu/cpuN/stats: dropped events (buffer full, no overwrite) */
	uint64_t foreign;	/* events of a type not added (none expected) */
};

/* A record ready for the merge: valid during the call only. */
typedef int (*ftrace_record_fn)(void *arg, uint64_t time, const struct perf_event_header *rec);
/* A trace entry (struct trace_entry and the event's fields) of size bytes, where it lies. */
typedef int (*subbuf_entry_fn)(void *arg, uint64_t time, const void *entry, uint32_t size);

struct subbuf_decoder;

/*
 * A decoder of the layout events/header_page describes (text, len bytes):
 * NULL with errno EINVAL (a text that is no sub-buffer header) or ENOMEM.
 */
struct subbuf_decoder *subbuf_decoder_new(const char *text, size_t len);
/* Another decoder of the same layout and types, for another thread: NULL with errno. */
struct subbuf_decoder *subbuf_decoder_clone(const struct subbuf_decoder *d);
/* Accepts NULL. */
void subbuf_decoder_free(struct subbuf_decoder *d);

/* The bytes of a whole sub-buffer. */
size_t subbuf_size(const struct subbuf_decoder *d);
/* Decode events of tracepoint id tp_id too (others are counted foreign): 0 or -ENOMEM. */
int subbuf_decoder_add(struct subbuf_decoder *d, int tp_id);

/*
 * Every event of the sub-buffer at subbuf to fn as a perf sample of CPU cpu,
 * in order; missed-event counts go to st->missed, events to st->records.
 * span (may be NULL) gets the oldest and newest event times, 0 for none.
 * 0, -EINVAL for a sub-buffer whose commit runs past its end, or fn's non-zero return.
 */
struct subbuf_span {
	uint64_t first, last;
};

int subbuf_decode(struct subbuf_decoder *d, int cpu, void *subbuf, struct ftrace_stats *st,
		  struct subbuf_span *span, ftrace_record_fn fn, void *arg);
/*
 * subbuf_entries - as subbuf_decode, but each event to fn as it lies in the
 * sub-buffer (entry points into subbuf), laid out as nothing else: a reader
 * that keeps subbuf decodes each event once, from there.
 */
int subbuf_entries(struct subbuf_decoder *d, void *subbuf, struct ftrace_stats *st,
		   struct subbuf_span *span, subbuf_entry_fn fn, void *arg);
/*
 * subbuf_sample_lay - the trace entry of size bytes, of CPU cpu at time, as
 * the perf sample subbuf_decode makes of it, into buf (PERF_RECORD_MAX
 * bytes): buf, or NULL for an entry too short or too long for one
 */
const struct perf_event_header *subbuf_sample_lay(void *buf, int cpu, uint64_t time,
						  const void *entry, uint32_t size);

/*
 * The bytes of the sub-buffer at subbuf that decoding it again needs: its
 * header, its events and the missed-event count stored after them; at most
 * subbuf_size. 0 for a sub-buffer whose commit runs past its end.
 */
size_t subbuf_used(struct subbuf_decoder *d, void *subbuf);

#endif
