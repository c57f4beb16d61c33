/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_STAGEHIST_H
#define IOTAP_STAGEHIST_H

/*
 * btt's stages of block requests, per disk and operation (the exporter's op
 * label: read, write, flush, discard, other): Q2G (bio queued until its
 * request is allocated), G2I (allocated until inserted into the scheduler),
 * I2D (inserted until issued to the driver), D2C (issued until complete) and
 * Q2C (first bio queued until complete), with the fate of the bios. Kept for
 * the whole run (ns, for percentiles: biostages) and per interval (us, for the
 * Prometheus histogram iotap_block_request_stage_seconds, biolatency's log2
 * buckets: the exporter). A stage is counted only when both its events were
 * seen for the request, so a count of 0 means the kernel showed nothing.
 */
#include <stdint.h>

#include "blktrack.h"
#include "hist.h"
#include "prom.h"

enum stage { STAGE_Q2G, STAGE_G2I, STAGE_I2D, STAGE_D2C, STAGE_Q2C, STAGE_NR };

/* One disk and operation. */
struct stage_series {
	uint32_t dev;
	char disk[32];
	unsigned int op;		/* enum blkmetrics_op */
	struct hist ns[STAGE_NR];	/* since the start (or the last stagehist_reset) */
	struct hist us[STAGE_NR];	/* since the last stagehist_prom */
	uint64_t requests;		/* completed */
	uint64_t bios;			/* the bios those requests carried, where known */
	uint64_t unknown_bios;		/* completed requests whose allocation was not seen */
	uint64_t fate[BLK_BIO_SPLIT + 1];	/* enum blk_bio_fate counts */
	uint64_t max_bios;		/* most bios in one request */
};

struct stagehist {
	struct stage_series *s;
	size_t nr, cap;
};

/* stage_name - "Q2G", ... */
const char *stage_name(enum stage st);
/* stagehist_op_name - the op label of a series: "read", "write", ... */
const char *stagehist_op_name(unsigned int op);

/* stagehist_request - one completed request's stages into disk's series: 0 or -ENOMEM */
int stagehist_request(struct stagehist *sh, const char *disk, const struct blk_io *io);

/* stagehist_bio - a bio's or request's fate (blktrack's on_bio) into disk's series: 0 or -ENOMEM */
int stagehist_bio(struct stagehist *sh, const char *disk, uint32_t dev, enum blk_bio_fate fate,
		  uint8_t op);

/* stagehist_sort - series by disk, then op */
void stagehist_sort(struct stagehist *sh);

/*
 * stagehist_prom - the interval's stages into iotap_block_request_stage_seconds{disk,op,stage}
 * (stages with a count only), then reset the interval: 0 or as prom_hist_add
 */
int stagehist_prom(struct stagehist *sh, struct prom *p);

/* stagehist_forget_disk - a disk is gone: drop its series (prom's are dropped by prom_drop) */
void stagehist_forget_disk(struct stagehist *sh, const char *disk);

/* stagehist_reset - forget every series' counts, keeping the series */
void stagehist_reset(struct stagehist *sh);

/* stagehist_release - free everything; safe on a zeroed or released one */
void stagehist_release(struct stagehist *sh);

#endif
