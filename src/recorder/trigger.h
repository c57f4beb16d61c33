/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TRIGGER_H
#define IOTAP_TRIGGER_H

/*
 * What makes the flight recorder (record --ring) write what it holds: a
 * comma-separated list of conditions on each completed block request,
 *   latency>MS  its device time (issue to completion; with -Q from when it
 *               was queued) exceeded MS milliseconds (decimals to the
 *               nanosecond: 0.5, 12.25)
 *   error       it completed with an error
 * each at most once (with -d on an md or dm disk, each completed bio of
 * it). SIGUSR2 dumps whatever the list says.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blktrack.h"

struct trigger {
	bool error;
	uint64_t latency_ns;		/* 0: no latency condition */
};

/*
 * Parse s into *t: 0, or -EINVAL with one line saying what is wrong in why
 * (empty, an unknown condition, a bad number, a condition twice). s is not
 * modified and need not outlive t.
 */
int trigger_parse(const char *s, struct trigger *t, char *why, size_t whylen);

/*
 * trigger_match - whether io fires t: then *lat_ns gets its latency as the
 * condition measures it (queued: from its first event, as -Q). Inline: it
 * is asked of every request.
 */
static inline bool trigger_match(const struct trigger *t, const struct blk_io *io, bool queued,
				 uint64_t *lat_ns)
{
	uint64_t from = io->t_issue;

	if (queued && io->t_start && (!from || io->t_start < from))
		from = io->t_start;
	if (queued && io->t_insert && (!from || io->t_insert < from))
		from = io->t_insert;
	*lat_ns = from && io->t_done > from ? io->t_done - from : 0;
	if (t->error && io->error)
		return true;
	return t->latency_ns && from && *lat_ns > t->latency_ns;
}

#endif
