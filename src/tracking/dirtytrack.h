/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_DIRTYTRACK_H
#define IOTAP_DIRTYTRACK_H

/*
 * Dirty-page pauses: each sleep balance_dirty_pages puts a dirtying task to
 * (writeback:balance_dirty_pages, fired just before it), with its disk and
 * the task, whose cgroup a caller looks up at that moment (iotap_cgroup_of):
 * on cgroup v1 the event's own cgroup_ino is the memory hierarchy's root, so
 * the task is the key on every host. Reclaim sleeps (memory.high) are other
 * events and are not counted. The tracker owns nothing the callback keeps.
 */
#include <stdbool.h>
#include <stdint.h>

#include "iotap.h"

/* For a tool's events table: the event, where the kernel has it. */
#define DIRTYTRACK_EVENTS { "writeback", "balance_dirty_pages", TOOL_EV_OPTIONAL }

struct dirtytrack_cfg {
	bool has_dev;
	uint32_t dev;			/* with has_dev: that disk's pauses only */
	/* One pause of the task of s, ns long, dirtying pages of disk dev (0: not a disk's). */
	int (*on_pause)(void *arg, const struct perf_sample *s, uint32_t dev, uint64_t ns);
	void *arg;
};

struct dirtytrack;

/*
 * dirtytrack_create - subscribe to the pauses: 0 (*out NULL where the session has no
 * such event: dirtytrack_have says so), -ENOENT for a format without its fields (with an
 * error line), or -ENOMEM
 */
int dirtytrack_create(struct dirtytrack **out, struct iotap_ctx *ctx,
		      const struct dirtytrack_cfg *cfg);
/* dirtytrack_have - whether pauses are traced (accepts NULL: no) */
bool dirtytrack_have(const struct dirtytrack *dt);
/* dirtytrack_free - accepts NULL */
void dirtytrack_free(struct dirtytrack *dt);

#endif
