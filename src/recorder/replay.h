/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_REPLAY_H
#define IOTAP_REPLAY_H

/*
 * A flight recorder dump's records, made again from the ring's chunks of its
 * window: the records the flight recorder wrote (a sink writer's chunks: the
 * side-band, perf's records) and the ftrace sub-buffers it kept as read
 * (subbufs.h), decoded, all in time order as the live source's merge gave
 * them, each thread's process filled in by a map as of the window's start
 * (tgidmap_copy_at) that the records replayed keep up to date. It runs on
 * the dump writer's thread: everything in struct replay is the caller's own.
 */
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "container.h"
#include "ring.h"
#include "subbuf.h"
#include "tgidmap.h"

struct replay {
	struct subbuf_decoder *dec;	/* for this thread (subbuf_decoder_clone) */
	struct tgidmap *tgids;		/* a copy for this window; NULL: pids stay tids */
	struct rec_inflater *z;
	uint8_t *raw;			/* REC_CHUNK_MAX + 1 bytes */
	uint8_t *rec;			/* PERF_RECORD_MAX bytes */
};

/* Where each record goes, valid during the call only; non-zero ends the replay. */
typedef int (*replay_emit_fn)(void *arg, const struct perf_event_header *rec);

/*
 * The records of the held chunks (ring_hold: oldest first) in [from, to] (and
 * those without a time) to emit, in time order; a thread's birth goes to the
 * map only, as live. 0, -EINVAL for a chunk that does not parse, -ENOMEM, or
 * emit's non-zero return.
 */
int replay_window(struct replay *rp, const struct ring_held *held, size_t nr, uint64_t from,
		  uint64_t to, replay_emit_fn emit, void *arg);

#endif
