// SPDX-License-Identifier: GPL-2.0-or-later
/* dirtytrack.c - the sleeps of tasks that dirty pages faster than their share */
#include <errno.h>
#include <stdlib.h>

#include "dirty.h"
#include "dirtytrack.h"

struct dirtytrack {
	struct dirtytrack_cfg cfg;
	struct dirty_fmt fmt;
};

/* dirtytrack_on_event - one balance_dirty_pages: a sleep that follows, to the callback */
static int dirtytrack_on_event(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct dirtytrack *dt = arg;
	struct dirty_pause p;

	(void)ctx;
	if (dirty_pause_decode(&dt->fmt, s->raw, s->raw_size, &p) || p.pause_ms <= 0)
		return 0;
	if (dt->cfg.has_dev && p.dev != dt->cfg.dev)
		return 0;
	return dt->cfg.on_pause(dt->cfg.arg, s, p.dev, (uint64_t)p.pause_ms * 1000000u);
}

/* dirtytrack_create - see dirtytrack.h */
int dirtytrack_create(struct dirtytrack **out, struct iotap_ctx *ctx,
		      const struct dirtytrack_cfg *cfg)
{
	struct iotap_event *ev;
	struct dirtytrack *dt;
	int ret;

	*out = NULL;
	if (!iotap_event_available(ctx, "writeback", "balance_dirty_pages"))
		return 0;
	dt = calloc(1, sizeof(*dt));
	if (!dt)
		return -ENOMEM;
	dt->cfg = *cfg;
	ev = iotap_event_use(ctx, "writeback", "balance_dirty_pages", 0, dirtytrack_on_event, dt);
	if (!ev) {
		free(dt);
		return -errno;
	}
	if (dirty_fmt_init(&dt->fmt, iotap_event_format(ev))) {
		iotap_err(ctx, "writeback:balance_dirty_pages has no bdi and pause fields");
		free(dt);
		return -ENOENT;
	}
	/* Only the sleeps: the kernel fires it for each check that found no need to pause too. */
	ret = iotap_event_filter(ev, "pause > 0");
	if (ret) {
		free(dt);
		return ret;
	}
	*out = dt;
	return 0;
}

/* dirtytrack_have - see dirtytrack.h */
bool dirtytrack_have(const struct dirtytrack *dt)
{
	return dt != NULL;
}

/* dirtytrack_free - see dirtytrack.h */
void dirtytrack_free(struct dirtytrack *dt)
{
	free(dt);
}
