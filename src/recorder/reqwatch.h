/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_REQWATCH_H
#define IOTAP_REQWATCH_H

/*
 * The recorder's view of the block requests it records, paired by blktrack
 * as the block tools pair them: which request each record belongs to (by
 * the time of the request's first event: the hand-over of rotate.h) and
 * each completed request (for triggers). The recorder takes raw records
 * (on_record), so it feeds each one here itself.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blktrack.h"
#include "rotate.h"
#include "session.h"

struct reqwatch;

typedef int (*reqwatch_done_fn)(void *arg, const struct blk_io *io);

/*
 * Pair the block requests of the events the session records (none are
 * added): *out is NULL when block_rq_issue or block_rq_complete is not
 * recorded. bio: pair bios instead (block_bio_queue to block_bio_complete,
 * for md and dm disks, whose bios never become requests); *out is NULL when
 * those are not recorded. done, if not NULL, gets each completed request
 * (or bio). 0 or -errno.
 */
int reqwatch_create(struct reqwatch **out, struct session *s, bool bio, reqwatch_done_fn done,
		    void *arg);
/* Count the requests in flight per part in ho (the recorder's; it outlives w). w may be NULL. */
void reqwatch_handover(struct reqwatch *w, struct handover *ho);
void reqwatch_free(struct reqwatch *w);

/*
 * Pair the bios of md and dm disks as well (they complete bios, never
 * requests), when block_bio_queue and block_bio_complete are recorded: each
 * such bio counts in flight like a request. 0 or -errno.
 */
int reqwatch_add_bio_disks(struct reqwatch *w, struct session *s);

/* A record parsed for reqwatch_feed. */
struct reqwatch_rec {
	struct iotap_event *ev;		/* NULL: not a sample of an event in use */
	struct perf_sample smp;
};

/* reqwatch_time - parse rec into r: its time, 0 for a record that is not such a sample */
uint64_t reqwatch_time(struct session *s, const struct perf_event_header *rec,
		       struct reqwatch_rec *r);

/*
 * Feed one parsed record, in time order: *first gets the time of the first
 * event of the request it belongs to, else the record's own time (0 when it
 * has none). w may be NULL. 0, or the done callback's error.
 */
int reqwatch_feed(struct reqwatch *w, struct session *s, struct reqwatch_rec *r,
		  uint64_t *first);

#endif
