/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SUBBUFS_H
#define IOTAP_SUBBUFS_H

/*
 * The flight recorder's ftrace sub-buffers, kept in its ring as they were
 * read (live_store_subbufs): the event loop makes no record of them for the
 * ring, only a dump does (replay.h). A chunk of them is a slab the ring fills
 * in place (ring_fill_room): SUBBUFS_MAGIC, then one entry per sub-buffer, a
 * u32 CPU and a u32 length, then that many bytes of it (subbuf_used), padded
 * to 8. The store owns nothing but its first error; the ring is the flight's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftrace.h"
#include "ring.h"

struct subbufs {
	struct ftrace_store ops;	/* hand these to live_store_subbufs */
	struct ring *ring;
	uint64_t t_first;		/* of the slab being filled; 0: none */
	uint64_t t_last;		/* of the newest event kept */
	int err;			/* -errno of the first room refused: events not kept */
};

/* A store into r; sb->ops is what the ftrace reader is given. */
void subbufs_init(struct subbufs *sb, struct ring *r);
/* The slab being filled joins the ring (ring_fill_end). */
void subbufs_end(struct subbufs *sb);

/* Whether a ring chunk holds sub-buffers (not records). */
bool subbufs_chunk(const void *chunk, size_t len);
/*
 * The entry of a sub-buffer chunk at *pos (start at 0): 1 with its CPU and
 * bytes, *pos past it; 0 at the chunk's end; -EINVAL for an entry that
 * overruns the chunk.
 */
int subbufs_next(const void *chunk, size_t len, size_t *pos, int *cpu, const void **subbuf,
		 size_t *sublen);

#endif
