// SPDX-License-Identifier: GPL-2.0-or-later
/* cgmetrics.c - the exporter's series per cgroup and disk (cgmetrics.h) */
#include <errno.h>
#include <string.h>

#include "blkmetrics.h"
#include "cgmetrics.h"
#include "cgname.h"

/* The op label of io.stat's kinds (enum cgstat_dir). */
static const char *const cgmetrics_ops[CGSTAT_DIRS] = { "read", "write", "discard" };
/* The cause label of each stage (enum blk_wait). */
static const char *const cgmetrics_causes[BLK_WAITS] = { "throttle", "rqos", "queue", "device" };

/*
 * Room for a row's labels: a name cgstat folded into 4 KiB, each byte escaped into two at
 * most, a container's id or unit, a disk and one more label.
 */
#define CGM_LABELS (2 * 4096 + 512)

/* cgmetrics_init - see cgmetrics.h */
int cgmetrics_init(struct cgmetrics *cm, unsigned int depth, size_t max_cgroups, bool dirty)
{
	cm->cs = cgstat_create(depth, max_cgroups, CGSTAT_BUCKETS);
	cm->dirty = dirty;
	cm->folded = 0;
	return cm->cs ? 0 : -ENOMEM;
}

/* cgmetrics_with - labels (n bytes long: the row's) and name="value" after them, in place */
static int cgmetrics_with(char *labels, size_t n, const char *name, const char *value)
{
	labels[n] = 0;
	return prom_label(labels, CGM_LABELS, name, value) ? -ENOMEM : 0;
}

/* cgmetrics_row - one row's interval into p, labels its cgroup, container and disk (n bytes) */
static int cgmetrics_row(const struct cgmetrics *cm, struct prom *p,
			 const struct cgstat_row *r, char *labels, size_t n)
{
	int ret = 0;

	for (int d = 0; d < CGSTAT_DIRS && !ret; d++) {
		if (!r->ios[d])
			continue;
		ret = cgmetrics_with(labels, n, "op", cgmetrics_ops[d]);
		if (!ret)
			ret = prom_counter_add(p, "iotap_cgroup_ios_total",
					       "Bios sent by the cgroup's tasks to the disk, as cgroup "
					       "v2's io.stat (rios, wios, dios) and v1's "
					       "blkio.throttle.io_serviced count them: each bio queued, "
					       "each piece of a split one more", labels, (double)r->ios[d]);
		if (!ret)
			ret = prom_counter_add(p, "iotap_cgroup_bytes_total",
					       "Bytes of the bios sent by the cgroup's tasks to the disk, "
					       "as io.stat (rbytes, wbytes, dbytes) and "
					       "blkio.throttle.io_service_bytes count them", labels,
					       (double)r->bytes[d]);
	}
	for (int c = 0; c <= BLK_WAITS && !ret; c++) {
		static const char *const help =
			"Time the cgroup's requests to the disk waited, by cause: throttle (blk-throttle: "
			"io.max, blkio.throttle.*), rqos (rq-qos: wbt, iolatency, iocost; and tags), "
			"queue (the I/O scheduler), device (issue to completion), dirty (its tasks' "
			"pauses in balance_dirty_pages)";

		if (c == BLK_WAITS && !cm->dirty)
			break;
		ret = cgmetrics_with(labels, n, "cause", c < BLK_WAITS ? cgmetrics_causes[c] : "dirty");
		if (!ret)
			ret = prom_counter_add(p, "iotap_cgroup_wait_seconds_total", help, labels,
					       (c < BLK_WAITS ? r->wait[c] : r->dirty_ns) / 1e9);
	}
	labels[n] = 0;
	if (!ret && r->lat_buckets.count)
		ret = prom_buckets_add(p, "iotap_cgroup_request_duration_seconds",
				       "Requests of the cgroup's tasks to the disk (reads, writes, "
				       "discards), from the first event that saw them (the send) until "
				       "completion: the throttle's wait is in it", labels,
				       &r->lat_buckets, 1e-6, BLKM_TOP);
	return ret;
}

/* cgmetrics_fold - see cgmetrics.h */
int cgmetrics_fold(struct cgmetrics *cm, struct prom *p, cgmetrics_disk_fn disk, void *arg)
{
	char labels[CGM_LABELS], ctr[80];
	struct cgstat_row *const *rows;
	uint64_t folded = cgstat_folded_other(cm->cs);
	size_t nr;
	int ret = 0;

	rows = cgstat_rows(cm->cs, &nr);
	for (size_t i = 0; i < nr && !ret; i++) {
		labels[0] = 0;
		cgname_container(rows[i]->cgroup, ctr, sizeof(ctr));
		if (prom_label(labels, sizeof(labels), "cgroup", rows[i]->cgroup) ||
		    (ctr[0] && prom_label(labels, sizeof(labels), "container", ctr)) ||
		    prom_label(labels, sizeof(labels), "disk", disk(arg, rows[i]->dev)))
			ret = -ENOMEM;
		else
			ret = cgmetrics_row(cm, p, rows[i], labels, strlen(labels));
	}
	cgstat_reset(cm->cs);
	if (!ret)
		ret = prom_counter_add(p, "iotap_cgroup_folded_total",
				       "Cgroups past --cgroup-series, whose I/O counts as "
				       "cgroup=\"other\"", NULL, (double)(folded - cm->folded));
	cm->folded = folded;
	return ret;
}

/* cgmetrics_release - see cgmetrics.h */
void cgmetrics_release(struct cgmetrics *cm)
{
	cgstat_free(cm->cs);
	cm->cs = NULL;
}
