/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGMETRICS_H
#define IOTAP_CGMETRICS_H

/*
 * The exporter's series per cgroup and disk (exporter --cgroups), with the
 * metric names, help texts and labels of its page: a cgstat counts what
 * completes between two pages, each page adds that into the cumulative
 * Prometheus series (prom.h) and drops the rows. The cgstat keeps the names,
 * at most its limit of them before "other", so that memory holds one page's
 * rows and prom the series of at most the limit's cgroups (and "other") on
 * each disk, however long the exporter runs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgstat.h"
#include "prom.h"

struct cgmetrics {
	struct cgstat *cs;		/* the interval: count into it with cgstat_bio and the rest */
	bool dirty;			/* dirty-page pauses are traced: cause="dirty" is published */
	uint64_t folded;		/* cgstat_folded_other, as published */
};

/*
 * cgmetrics_init - an empty table folding at depth (0: none) with at most max_cgroups
 * cgroups before "other" (cgstat_create); dirty: whether pauses are counted. 0 or -ENOMEM
 */
int cgmetrics_init(struct cgmetrics *cm, unsigned int depth, size_t max_cgroups, bool dirty);

/* The disk label of a row's disk (dev: a kernel dev_t). */
typedef const char *(*cgmetrics_disk_fn)(void *arg, uint32_t dev);

/*
 * cgmetrics_fold - the interval into p, then its rows dropped: per cgroup and disk,
 * iotap_cgroup_ios_total and iotap_cgroup_bytes_total by op (read, write, discard; the ops
 * it had), iotap_cgroup_wait_seconds_total by cause (throttle, rqos, queue, device, and with
 * pauses dirty), iotap_cgroup_request_duration_seconds once it had a request; labelled
 * cgroup, container (where cgname_container names one) and disk (disk(arg, dev)). And
 * iotap_cgroup_folded_total, the cgroups counted as "other". 0, or -ENOMEM
 */
int cgmetrics_fold(struct cgmetrics *cm, struct prom *p, cgmetrics_disk_fn disk, void *arg);

/* cgmetrics_release - free the table (not p); safe on a zeroed or released one */
void cgmetrics_release(struct cgmetrics *cm);

#endif
