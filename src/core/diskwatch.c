// SPDX-License-Identifier: GPL-2.0-or-later
/* diskwatch.c - a disk that goes away under a live session is said once (diskwatch.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "consumer.h"
#include "diskwatch.h"
#include "host.h"
#include "iotap.h"
#include "log.h"
#include "session.h"

struct diskwatch {
	bool *up;		/* by index into the session's disk table: there at the last look */
	size_t cap;
};

/* diskwatch_look - each whole disk's state now, and the ones gone since the last look said */
static int diskwatch_look(struct session *s, struct diskwatch *w)
{
	if (!s->host->device_gone)
		return 0;
	if (s->disks.nr > w->cap) {
		size_t cap = s->disks.nr + 16;
		bool *up = realloc(w->up, cap * sizeof(*up));

		/* No memory: look at those known, and again for the rest next time. */
		if (up) {
			memset(up + w->cap, 0, (cap - w->cap) * sizeof(*up));
			w->up = up;
			w->cap = cap;
		}
	}
	for (size_t i = 0; i < s->disks.nr && i < w->cap; i++) {
		const struct disk *d = &s->disks.d[i];
		int gone;

		/* A partition goes with its disk; a name of numbers was never in sysfs. */
		if (d->parent || strchr(d->name, ':'))
			continue;
		gone = s->host->device_gone(s, IOTAP_DEV_DISK, d->name);
		if (gone < 0)
			continue;
		if (!gone) {
			w->up[i] = true;
		} else if (w->up[i]) {
			w->up[i] = false;
			log_msg(LOG_WARN, "disk %s (%u:%u) went away: none of its I/O from here on, the other disks' still traced",
				d->name, BLOCK_DEV_MAJOR(d->dev), BLOCK_DEV_MINOR(d->dev));
		}
	}
	return 0;
}

/* diskwatch_start - the disks there as tracing starts */
static int diskwatch_start(struct session *s, void *priv)
{
	return diskwatch_look(s, priv);
}

/* diskwatch_tick - once a second */
static int diskwatch_tick(struct session *s, void *priv)
{
	return diskwatch_look(s, priv);
}

/* diskwatch_fini - the watch goes with the session */
static void diskwatch_fini(struct session *s, void *priv)
{
	struct diskwatch *w = priv;

	free(w->up);
	free(w);
}

static const struct consumer_ops diskwatch_observer = {
	.name = "disks",
	.observer = true,
	.start = diskwatch_start,
	.tick = diskwatch_tick,
	.fini = diskwatch_fini,
};

/* diskwatch_add - see diskwatch.h */
int diskwatch_add(struct session *s)
{
	struct diskwatch *w;
	int ret;

	for (size_t i = 0; i < s->nr_cons; i++)
		if (s->cons[i].ops == &diskwatch_observer)
			return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = session_consumer_add(s, &diskwatch_observer, w);
	if (ret)
		free(w);
	return ret;
}
