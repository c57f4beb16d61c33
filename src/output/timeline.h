/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TIMELINE_H
#define IOTAP_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A timeline of block requests in the Trace Event Format that chrome://tracing
 * and ui.perfetto.dev open. Each disk is a process with one thread ("lane") per
 * request it had in flight at once, each submitting process too; on a disk,
 * every request is a slice with a "queued" child (creation to issue, when the
 * creation was seen) and a "device" child (issue to completion). Flushes and
 * failed requests are named so and marked with an instant event.
 */
struct timeline;

/* One completed request, as the block tracker reports it. Strings are copied. */
struct timeline_req {
	uint32_t dev;
	const char *disk;
	uint32_t pid;
	const char *comm;
	uint64_t t_start;		/* created in the submitter; 0: not seen */
	uint64_t t_issue, t_done;
	uint64_t sector;
	uint32_t bytes;
	const char *rwbs;
	int32_t error;
	bool flush;
};

/* An empty timeline; NULL with errno ENOMEM. */
struct timeline *timeline_alloc(void);

/* Release tl; tl may be NULL. */
void timeline_free(struct timeline *tl);

/* Add a request. 0, -EINVAL (completion before issue) or -ENOMEM. */
int timeline_add(struct timeline *tl, const struct timeline_req *r);

/* Requests added so far. */
uint64_t timeline_count(const struct timeline *tl);

/*
 * Write the timeline as one JSON object {"traceEvents": [...]}, times in
 * microseconds from the earliest request. Returns 0, -ENOMEM or -EIO when f
 * reports an error.
 */
int timeline_write_json(struct timeline *tl, FILE *f);

#endif
