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
 * first). A part stays open after its boundary for the later events of its
 * requests still in flight (issue, completion), and closes when the last of
 * them has completed, so several parts may be open at once: one slow request
 * keeps its part open while later parts fill and close. A part is given up
 * with requests still in flight only ROTATE_HANDOVER_NS past its end (the
 * age at which pairing gives a request up), or when ROTATE_OPEN_MAX parts are
 * open and another must begin (the oldest); the recorder counts and says
 * those requests, and how many of them completed later (split). Else
 * every request has all its events in one part, and each tool, whether it
 * counts at issue or pairs to completion, counts it once over the parts.
 * Rotation never waits for a part to close: parts stay within their size
 * or time. md and dm disks complete bios, never requests: their bios are
 * handed over as requests are (reqwatch_add_bio_disks), so tools that pair
 * bios (biolatency -d dm-N) count each once too.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTATE_HANDOVER_NS (60ull * 1000000000ull)
#define ROTATE_OPEN_MAX 8		/* parts open at once, the one written to included */

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

/* The parts written so far, oldest (by name) first, and how many to keep (0: all). */
struct rotate_files {
	char **path;
	size_t nr;
	unsigned int max;
};

/*
 * Remember a part just closed; past max, the oldest (by name: names
 * sort as their start times) is removed from the disk and forgotten, which
 * may be the one just closed. 0 or -ENOMEM; a removal that fails is returned as
 * -errno after the part is remembered (the caller reports it).
 */
int rotate_files_add(struct rotate_files *f, const char *path);
void rotate_files_release(struct rotate_files *f);

/*
 * The parts open, each with the span of first-event times its requests fall
 * in and how many of them are in flight. Part i of nr is the recorder's
 * part i: the last is the one written to, the others wait for their requests.
 */
struct handover_part {
	uint64_t t0, t1;		/* span [t0, t1); t1 UINT64_MAX for the last */
	uint64_t inflight;		/* requests first seen in the span, not completed */
	bool dropped;			/* its file was removed (a full disk): no file to close */
};

struct handover {
	struct handover_part part[ROTATE_OPEN_MAX];	/* oldest first */
	size_t nr;
	uint64_t split;			/* requests that completed after their part closed */
};

/* The first part: it holds every request first seen before the next boundary. */
void handover_init(struct handover *h);
/* A request first seen at time first: one more in flight in its part. */
void handover_seen(struct handover *h, uint64_t first);
/*
 * A request first seen at first completed; counts never go below zero
 * (evicted, never seen). One whose part has closed is counted as split.
 */
void handover_done(struct handover *h, uint64_t first);
/* The open part whose span holds first, or -1: its part is closed (the last takes it). */
int handover_find(const struct handover *h, uint64_t first);
/*
 * A new part from t0 on, the last; the caller closes part 0 first when
 * ROTATE_OPEN_MAX are open (handover_full): else nothing happens, -ENOSPC.
 */
int handover_boundary(struct handover *h, uint64_t t0);
/* Whether a new part needs the oldest closed first. */
bool handover_full(const struct handover *h);
/*
 * A part before the last that may close at time now: no request in flight,
 * or ROTATE_HANDOVER_NS past its end. Its index, or -1 when none may.
 */
int handover_due(const struct handover *h, uint64_t now);
/* Part i's file was removed: its requests' later events have nowhere to go. */
void handover_drop(struct handover *h, size_t i);
/*
 * Forget part i (not the last); returns its requests still in flight, given
 * up (0 for a dropped part: those are counted as not written).
 */
uint64_t handover_close(struct handover *h, size_t i);

#endif
