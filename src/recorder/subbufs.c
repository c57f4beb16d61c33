// SPDX-License-Identifier: GPL-2.0-or-later
/* subbufs.c - ftrace sub-buffers kept in the flight recorder's ring as read */
#include <errno.h>
#include <string.h>

#include "subbufs.h"

#define SUBBUFS_MAGIC "IOTSUBB1"
#define MAGIC_LEN 8
#define ENTRY_LEN 8

/* pad8 - n rounded up to 8 */
static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * subbufs_room - room for CPU cpu's next sub-buffer of size bytes after its
 * entry's; a new slab starts with the magic. NULL (the reader's own page,
 * not kept): the first such error is the store's
 */
static void *subbufs_room(void *arg, int cpu, size_t size)
{
	struct subbufs *sb = arg;
	uint8_t *p = ring_fill_room(sb->ring, MAGIC_LEN + ENTRY_LEN + size);

	if (!p) {
		if (!sb->err)
			sb->err = -errno;
		return NULL;
	}
	if (!ring_fill_len(sb->ring)) {
		/* A new slab (the last one full, or ended): its first time is still to come. */
		sb->t_first = 0;
		memcpy(p, SUBBUFS_MAGIC, MAGIC_LEN);
		ring_fill_commit(sb->ring, MAGIC_LEN, 0, 0);
		p += MAGIC_LEN;
	}
	return p + ENTRY_LEN;
}

/* subbufs_keep - the sub-buffer read into the room: its entry, its bytes, its times */
static int subbufs_keep(void *arg, int cpu, void *subbuf, size_t used,
			const struct subbuf_span *span)
{
	struct subbufs *sb = arg;
	uint8_t *e = (uint8_t *)subbuf - ENTRY_LEN;
	uint32_t v[2] = { (uint32_t)cpu, (uint32_t)used };

	memcpy(e, v, sizeof(v));
	ring_fill_commit(sb->ring, ENTRY_LEN + pad8(used), span->first, span->last);
	if (!sb->t_first)
		sb->t_first = span->first;
	if (span->last > sb->t_last)
		sb->t_last = span->last;
	return 0;
}

/* subbufs_init - a store over r */
void subbufs_init(struct subbufs *sb, struct ring *r)
{
	memset(sb, 0, sizeof(*sb));
	sb->ring = r;
	sb->ops.room = subbufs_room;
	sb->ops.keep = subbufs_keep;
	sb->ops.arg = sb;
}

/* subbufs_end - the slab being filled joins the ring */
void subbufs_end(struct subbufs *sb)
{
	if (sb->t_first)
		ring_fill_end(sb->ring);
	sb->t_first = 0;
}

/* subbufs_chunk - whether a ring chunk is one of sub-buffers */
bool subbufs_chunk(const void *chunk, size_t len)
{
	return len >= MAGIC_LEN && !memcmp(chunk, SUBBUFS_MAGIC, MAGIC_LEN);
}

/* subbufs_next - the entry at *pos of a chunk of sub-buffers */
int subbufs_next(const void *chunk, size_t len, size_t *pos, int *cpu, const void **subbuf,
		 size_t *sublen)
{
	const uint8_t *p = chunk;
	uint32_t v[2];

	if (*pos < MAGIC_LEN)
		*pos = MAGIC_LEN;
	if (*pos >= len)
		return 0;
	if (len - *pos < ENTRY_LEN)
		return -EINVAL;
	memcpy(v, p + *pos, sizeof(v));
	if (v[1] > len - *pos - ENTRY_LEN)
		return -EINVAL;
	*cpu = (int)v[0];
	*subbuf = p + *pos + ENTRY_LEN;
	*sublen = v[1];
	*pos += ENTRY_LEN + pad8(v[1]);
	return 1;
}
