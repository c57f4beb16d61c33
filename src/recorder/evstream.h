/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_EVSTREAM_H
#define IOTAP_EVSTREAM_H

/*
 * The records of a recording (its EVTS stream) as the file keeps them: a
 * sample's callchain is named by the id of a REC_RECORD_STACK written before
 * it the first time (a copied user stack is walked into it first); any other
 * record goes as it is. One evstream per file being written (a part, or the
 * flight recorder's ring); the caller owns w and swaps whole evstreams
 * between parts.
 */
#include <stdbool.h>
#include <stdint.h>

#include "container.h"
#include "stackmap.h"

struct perf_event_header;
struct session;

struct evstream {
	struct rec_writer *w;
	struct stackmap *stacks;	/* -g: distinct callchains written so far: their id + 1 */
	uint8_t *rewrite;		/* -g: PERF_RECORD_MAX, a sample with its callchain id */
	uint64_t records, samples;	/* written */
};

/* -g: the stack ids and the rewrite buffer (kept when es is swapped): 0 or -ENOMEM. */
int evstream_init_stacks(struct evstream *es);
/* Frees the stacks and the buffer, not w; accepts a zeroed es. */
void evstream_release(struct evstream *es);

/*
 * One record into the stream: 0, or the writer's -errno. A sample that does
 * not parse is dropped (counted in the session's dropped and malformed).
 */
int evstream_write(struct evstream *es, struct session *s, const struct perf_event_header *rec);

#endif
