/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_ROTATE_H
#define IOTAP_ROTATE_H

/*
 * Recordings in parts: when a part is due (--switch-output SIZE|TIME), the
 * naming of parts (FILE.<timestamp>), and which parts to keep (--max-files).
 * Pure functions and memory only; the recorder (recorder.c) writes the parts.
 *
 * The hand-over at a boundary: a request belongs to the part in which its
 * first event falls (block_io_start, insert or issue, whichever was seen
 * first). The part before a boundary stays open after it for the later
 * events of its requests still in flight (issue, completion), and closes
 * when the last of them has completed (or after ROTATE_HANDOVER_NS, the age
 * at which pairing gives a request up). So every request has all its
 * events in one part, and each tool, whether it counts at issue or pairs
 * to completion, counts it once over the parts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTATE_HANDOVER_NS (60ull * 1000000000ull)

/* --switch-output: a part is due after bytes written, or ns of event time (one of them). */
struct rotate_spec {
	uint64_t bytes;
	uint64_t ns;
};

/*
 * "100M", "1G", "4096B" (B, K, M, G: powers of 1024) or "30s", "10m", "1h",
 * "1d"; a bare number is bytes. 0, or -EINVAL for anything else (zero,
 * overflow, a sign, trailing characters).
 */
int rotate_parse(const char *s, struct rotate_spec *out);

/* A size only ("512M", "64K"; a bare number is bytes): 0 or -EINVAL. */
int rotate_parse_size(const char *s, uint64_t *bytes);

/*
 * base.YYYYmmddHHMMSSmmm from wall-clock time wall_ns (UTC), into buf:
 * 0, or -ENAMETOOLONG when it does not fit.
 */
int rotate_part_name(const char *base, uint64_t wall_ns, char *buf, size_t len);

/* The parts written so far, oldest first, and how many to keep (0: all). */
struct rotate_files {
	char **path;
	size_t nr;
	unsigned int max;
};

/*
 * Remember a part just closed; past max, the oldest is removed from the
 * disk and forgotten. 0 or -ENOMEM; a removal that fails is returned as
 * -errno after the part is remembered (the caller reports it).
 */
int rotate_files_add(struct rotate_files *f, const char *path);
void rotate_files_release(struct rotate_files *f);

/*
 * Requests in flight on either side of the boundary at t0: counted by the
 * time of their first event, so that the part before knows when its last
 * request completed.
 */
struct handover {
	uint64_t t0;			/* the boundary: the later part starts here */
	uint64_t before, after;		/* requests in flight first seen before / after t0 */
};

/* A request first seen at time first. */
void handover_seen(struct handover *h, uint64_t first);
/* A request first seen at first completed. */
void handover_done(struct handover *h, uint64_t first);
/* Whether an event of a request first seen at first belongs to the part before t0. */
bool handover_before(const struct handover *h, uint64_t first);
/* A new boundary at t0: what was in flight is now before it. */
void handover_boundary(struct handover *h, uint64_t t0);

#endif
