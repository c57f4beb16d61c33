// SPDX-License-Identifier: GPL-2.0-or-later
/* dirty.c - decode writeback:balance_dirty_pages: who paused dirtying, how long, on which disk */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "dirty.h"

/* dirty_fmt_init - see dirty.h */
int dirty_fmt_init(struct dirty_fmt *f, struct tep_event *ev)
{
	memset(f, 0, sizeof(*f));
	if (field_init(&f->bdi, ev, "bdi") || field_init(&f->pause, ev, "pause"))
		return -ENOENT;
	/* 4.18 (RHEL 8) and later: the memory cgroup the pause was for. */
	field_init(&f->cgroup_ino, ev, "cgroup_ino");
	return 0;
}

/* dirty_pause_decode - see dirty.h */
int dirty_pause_decode(const struct dirty_fmt *f, const void *raw, uint32_t size,
		       struct dirty_pause *out)
{
	unsigned int ma, mi;
	char bdi[33];

	if ((uint32_t)f->pause.offset + f->pause.size > size ||
	    (uint32_t)f->bdi.offset + f->bdi.size > size)
		return -EINVAL;
	out->pause_ms = field_s64(&f->pause, raw, size);
	out->cgroup_ino = field_u64(&f->cgroup_ino, raw, size);
	field_str(&f->bdi, raw, size, bdi, sizeof(bdi));
	/* A disk's bdi is its "MAJ:MIN"; others (fuse, nfs: "0:53") name no block device here. */
	out->dev = sscanf(bdi, "%u:%u", &ma, &mi) == 2 && ma ? (ma << 20 | (mi & 0xfffff)) : 0;
	return 0;
}
