/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FLIGHT_H
#define IOTAP_FLIGHT_H

/*
 * The flight recorder (record --ring): the recorder's records go into the
 * ring (ring.h) instead of a file; a trigger (trigger.h) or SIGUSR2 opens an
 * incident, and when its window is over, a dump of it goes to the writer
 * thread (dump.h) while the records go on into the ring. Each dump is said
 * (one line, or why it failed) when the writer is through with it.
 */
#include <stdint.h>

#include "blktrack.h"
#include "evstream.h"
#include "record-params.h"
#include "snapshot.h"

struct perf_event_header;
struct session;

struct flight;

/*
 * --ring and what goes with it, checked (one error line each): *out is NULL
 * without --ring. es->w becomes the ring's writer; es must outlive the
 * flight. SIGUSR2 asks for a dump until flight_free. 0 or -errno.
 */
int flight_setup(struct flight **out, const struct record_params *p, struct evstream *es);
/*
 * Tracing runs: -d resolved, the triggers' pairing, the writer thread. info
 * is what the dumps say besides the session; it must outlive the flight.
 * consumer is the priv of the session's consumer that hands records to
 * flight_record: when the ring keeps the ftrace sub-buffers and nothing here
 * pairs requests, it is told to skip the ftrace samples
 * (session_consumer_skip_ftrace), which flight_record would only time.
 * 0, or -errno (-EINVAL: -d names no disk, said; the thread's or the triggers' error).
 */
int flight_start(struct flight *f, struct session *s, const struct snap_info *info,
		 void *consumer);
/* One record into the ring, in time order; an incident over by then goes to the writer. 0 or
 * -errno (the ring's writer's). */
int flight_record(struct flight *f, struct session *s, const struct perf_event_header *rec);
/*
 * About once a second: the chunk being filled goes to the ring, an incident
 * over by the clock goes to the writer, the dumps written are said, and
 * --max-dumps stops the session. 0 or -errno (the ring's writer's).
 */
int flight_tick(struct flight *f, struct session *s);
/*
 * From the init of the session's consumer of priv consumer: its wake (which
 * calls flight_wake) runs when SIGUSR2 asks for a dump or the writer is
 * through with one, not at the next tick. Without a wake fd (none could be
 * made, or a source that waits on nothing) the ticks do it. 0 or -errno
 * (-ENOENT: consumer is no consumer of s).
 */
int flight_wake_join(struct flight *f, struct session *s, void *consumer);
/*
 * The wake of that consumer: what woke it is read, then flight_tick; nothing
 * to read (another consumer's wake), nothing done. 0 or -errno.
 */
int flight_wake(struct flight *f, struct session *s);
/*
 * Recording stopped: an open incident is dumped as far as it got; waits
 * for the writer and says every dump.
 */
void flight_finish(struct flight *f, struct session *s);
/*
 * In another program's session (iotap exporter --ring), call before
 * flight_start: that program pairs the block requests and hands each
 * completed one to flight_request, so the session pairs each request once;
 * --max-dumps ends the dumps, not the session.
 */
void flight_serve(struct flight *f);
/* A completed request (or flush) for the triggers, after its records went to flight_record. 0. */
int flight_request(struct flight *f, const struct blk_io *io);

/* What fires a dump, as TRIG's reason names it: latency, error, signal. */
#define FLIGHT_REASONS 3
extern const char *const flight_reason_names[FLIGHT_REASONS];

struct flight_stats {
	uint64_t dumps[FLIGHT_REASONS];	/* written, by what fired them */
	uint64_t failures;		/* dumps that could not be handed over or written */
	uint64_t ring_bytes;		/* what the ring holds now: its chunks, their bookkeeping, the chunk being filled */
	uint64_t ring_ns;		/* and the event time they span */
};

/* The counts so far; from the thread that runs the session. */
void flight_stats(const struct flight *f, struct flight_stats *st);
/* Bytes of the dumps written. */
uint64_t flight_bytes(const struct flight *f);
/* Stops a writer still running (flight_finish not called), frees es->w; accepts NULL. */
void flight_free(struct flight *f);

#endif
