/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_DUMP_H
#define IOTAP_DUMP_H

/*
 * The flight recorder's dumps, written by a thread of their own so that the
 * event loop reads the rings on meanwhile. The loop hands a dump over whole:
 * the sections that need the session, made on the loop into chunks (a sink
 * writer over dump_sink), and the ring's chunks of its window, held
 * (ring_hold), not copied. The writer adds what /proc says (snapshot.h),
 * keeps only the records within the window of the chunks at its edges, and
 * writes the file; a file that fails is removed. At most DUMP_INFLIGHT dumps
 * are queued or being written, so that the memory held past the ring's cap
 * is at most that many windows; the loop takes each back (dumper_done) to
 * say how it went. The same writer finishes the parts of a recording in
 * parts (--switch-output): their STAT, END and fsync, off the loop too.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "snapshot.h"
#include "subbuf.h"
#include "tgidmap.h"

#define DUMP_INFLIGHT 2

struct dump_chunk;

struct dump {
	/* The loop's, before dumper_submit. */
	char *path;
	bool force;
	uint64_t from, to;		/* the window: records outside it are left out */
	uint64_t t_end;			/* STAT's end of the events */
	struct dump_chunk *head;	/* FMTH, DISK: before KSYM */
	struct dump_chunk *names;	/* TRIG, EVNT, META: after it */
	bool to_names;			/* dump_sink fills names from now on */
	struct ring_held *held;
	size_t nr_held;
	struct subbuf_decoder *dec;	/* the window holds sub-buffers: its records are replayed (replay.h) */
	struct tgidmap *tgids;		/* and the map as of from; NULL: pids stay tids */
	struct snap_info info;		/* its pointers outlive the dumper */
	struct rec_writer *w;		/* a part to finish instead: its STAT, END, close */
	uint64_t records, samples;	/* the part's, for its STAT */
	uint64_t t, more;		/* the trigger's time; triggers that joined it */
	char what[512];			/* what fired */
	unsigned int reason;		/* and its kind: flight_reason_names */
	/* The writer's, when dumper_done gives it back. */
	int err;
	uint64_t bytes;
	struct dump *next;
};

/* An empty dump of path (copied): NULL with errno ENOMEM. */
struct dump *dump_alloc(const char *path);
/* Its chunks, its hold on the ring's, a part's writer, itself; the file stays. Accepts NULL. */
void dump_free(struct dump *d);
/* The rec_chunk_fn of a sink writer made with d: keeps a copy of each chunk. 0 or -ENOMEM. */
int dump_sink(void *d, const void *chunk, size_t len);

struct dumper;

/*
 * The writer thread, started with every signal blocked (the loop takes
 * them); after each dump it adds 1 to the eventfd notify (the caller's, open
 * until dumper_stop; -1: none) for a loop that polls it. 0 or -errno.
 */
int dumper_start(struct dumper **out, int notify);
/*
 * Hand d to the writer: 0, and the dumper owns d until dumper_done gives it
 * back; with DUMP_INFLIGHT dumps queued or being written, -EBUSY (d stays
 * the caller's), or with wait, once one of them is written.
 */
int dumper_submit(struct dumper *dp, struct dump *d, bool wait);
/* A dump written (err 0) or failed, oldest first, or NULL; never waits. The caller frees it. */
struct dump *dumper_done(struct dumper *dp);
/* Dumps submitted and not yet given back. */
size_t dumper_pending(struct dumper *dp);
/*
 * Write what is queued, end the thread and free the dumper; the dumps not
 * given back yet go to *rest (a list by next, oldest first; NULL for none).
 * Accepts NULL.
 */
void dumper_stop(struct dumper *dp, struct dump **rest);

#endif
