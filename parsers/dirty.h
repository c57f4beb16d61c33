/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_DIRTY_H
#define IOTAP_DIRTY_H

/*
 * writeback:balance_dirty_pages: a task that dirtied pages faster than its
 * share is paused before it may dirty more. The kernel fires it just before
 * the sleep, with the sleep's length in ms (pause; 0 or less: no sleep), and
 * names the device by its backing_dev_info ("MAJ:MIN" for a disk's).
 */
#include <stdint.h>

#include "field.h"

struct dirty_fmt {
	struct field bdi, pause, cgroup_ino;
};

struct dirty_pause {
	uint32_t dev;			/* the bdi's disk (major << 20 | minor), 0 when it names none */
	int64_t pause_ms;		/* the sleep that follows, <= 0: none */
	uint64_t cgroup_ino;		/* the memory cgroup's inode (root's on cgroup v1), 0 if absent */
};

/* dirty_fmt_init - the fields of balance_dirty_pages: 0, or -ENOENT without bdi and pause */
int dirty_fmt_init(struct dirty_fmt *f, struct tep_event *ev);
/* dirty_pause_decode - one record into *out: 0, or -EINVAL when it is too short */
int dirty_pause_decode(const struct dirty_fmt *f, const void *raw, uint32_t size,
		       struct dirty_pause *out);

#endif
