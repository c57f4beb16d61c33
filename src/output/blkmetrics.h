/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BLKMETRICS_H
#define IOTAP_BLKMETRICS_H

/*
 * The exporter's block I/O metrics: per disk and operation, request latency,
 * queue time, size and pattern, and errors by block status; per NVMe
 * namespace (admin commands: controller) or SCSI device and command class,
 * command latency. What completes is kept per interval, then folded into the
 * cumulative Prometheus series (prom.h), with the metric names, help texts and
 * labels that make the exporter's page; a device that goes away loses its
 * series. Here beside prom, whose page it fills: the tool decides what it
 * traces and when to publish.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blktrack.h"
#include "nvme.h"
#include "hist.h"
#include "prom.h"

/* Log2 buckets up to 2^27 us (134 s) and 2^27 bytes (128 MiB), as biolatency --prom. */
#define BLKM_TOP 27

/* The op label's values, and the index of each. */
enum blkmetrics_op { BLKM_READ, BLKM_WRITE, BLKM_FLUSH, BLKM_DISCARD, BLKM_OTHER, BLKM_ADMIN };

struct blkmetrics {
	struct prom *prom;		/* every series, cumulative since the start */
	struct blkmetrics_series *s;
	size_t nr, cap;
	struct blkmetrics_err *e;
	size_t nr_e, cap_e;
	struct blkmetrics_cmd *c;
	size_t nr_c, cap_c;
	size_t max_devs;		/* command devices of a kind with series of their own */
};

/* Whether a request with data started where its disk's last one ended. */
enum blkmetrics_pattern { BLKM_NODATA, BLKM_RANDOM, BLKM_SEQUENTIAL };

/* blkmetrics_op - the op label of a block_op */
enum blkmetrics_op blkmetrics_op(uint8_t op);
/* blkmetrics_nvme_op - the op label of an NVMe command (admin: its queue 0) */
enum blkmetrics_op blkmetrics_nvme_op(const struct nvme_cmd *c);
/* blkmetrics_scsi_op - the op label of a SCSI opcode */
enum blkmetrics_op blkmetrics_scsi_op(uint32_t opcode);

/*
 * blkmetrics_request - one completed request of disk: latency from issue (as biolatency
 * times it), queue time from creation, and with data its size and pattern; errors by
 * status. 0 or -ENOMEM.
 */
int blkmetrics_request(struct blkmetrics *m, const char *disk, const struct blk_io *io,
		       enum blkmetrics_pattern pattern);

/*
 * blkmetrics_command - one paired NVMe or SCSI command's latency into its device and class;
 * past max_devs devices of a kind, device "other" keeps labels bounded. 0 or -ENOMEM.
 */
int blkmetrics_command(struct blkmetrics *m, bool scsi, const char *dev, enum blkmetrics_op op,
		       uint64_t ns);

/* blkmetrics_fold - the interval's series into the cumulative metrics, then reset; 0 or -errno */
int blkmetrics_fold(struct blkmetrics *m);

/* blkmetrics_forget_disk - a block disk is gone: drop its series, here and in the metrics */
void blkmetrics_forget_disk(struct blkmetrics *m, const char *disk);

/*
 * blkmetrics_forget_cmds - drop the series of the command devices gone says are gone (dev:
 * a SCSI device's H:C:I:L, an NVMe controller's name with admin, else a namespace's)
 */
void blkmetrics_forget_cmds(struct blkmetrics *m,
			    bool (*gone)(void *arg, bool scsi, bool admin, const char *dev),
			    void *arg);

/* blkmetrics_release - free the series (not prom); safe on a zeroed or released one */
void blkmetrics_release(struct blkmetrics *m);

#endif
