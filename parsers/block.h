/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BLOCK_H
#define IOTAP_BLOCK_H

#include <stdint.h>

#include "field.h"

/* Operation, from the first letters of rwbs. */
enum block_op {
	BLOCK_OP_READ,
	BLOCK_OP_WRITE,
	BLOCK_OP_FLUSH,
	BLOCK_OP_DISCARD,
	BLOCK_OP_SECURE_ERASE,
	BLOCK_OP_OTHER,
};

/* Modifiers, from the letters that follow. */
#define BLOCK_F_PREFLUSH	(1u << 0)
#define BLOCK_F_FUA		(1u << 1)
#define BLOCK_F_RAHEAD		(1u << 2)
#define BLOCK_F_SYNC		(1u << 3)
#define BLOCK_F_META		(1u << 4)

/* The fields of every block:* request and bio event, found by name. */
struct block_fmt {
	struct field dev, sector, nr_sector, bytes, error, ioprio, rwbs, comm;
};

/* One decoded block event. Absent fields read as zero (bytes: nr_sector * 512). */
struct block_rq {
	uint32_t dev;			/* kernel dev_t: major << 20 | minor */
	uint64_t sector;
	uint32_t nr_sector;
	uint32_t bytes;
	int32_t error;
	uint16_t ioprio;
	uint8_t op;			/* enum block_op */
	uint8_t flags;			/* BLOCK_F_* */
	char rwbs[12];
	char comm[16];
};

/* block_bio_remap: a bio sent on from a stacked device (md, dm, a partition) to another. */
struct block_remap_fmt {
	struct field dev, sector, nr_sector, old_dev, old_sector;
};

struct block_remap {
	uint32_t dev, old_dev;
	uint64_t sector, old_sector;
	uint32_t nr_sector;
};

#define BLOCK_DEV_MAJOR(d) ((unsigned int)((d) >> 20))
#define BLOCK_DEV_MINOR(d) ((unsigned int)((d) & ((1u << 20) - 1)))
#define BLOCK_DEV(ma, mi) ((uint32_t)(((ma) << 20) | (mi)))

/*
 * block_fmt_init - find the fields of a block event: 0, or -ENOENT if dev/sector/rwbs are
 * missing
 */
int block_fmt_init(struct block_fmt *fmt, struct tep_event *ev);
/* block_rq_decode - decode one raw block event: 0, or -EINVAL when it is too short */
int block_rq_decode(const struct block_fmt *fmt, const void *raw, uint32_t size,
		    struct block_rq *rq);
void block_rwbs_parse(const char *rwbs, uint8_t *op, uint8_t *flags);
/*
 * block_flags_name - BCC biolatency -F's name for an operation and its flags: 0, or -ENOSPC
 * when it does not fit
 */
int block_flags_name(uint8_t op, uint8_t flags, char *buf, size_t len);
const char *block_status_name(int32_t error);
/* block_op_name - an operation's name as labels give it: "read", "write", "flush", ... */
const char *block_op_name(uint8_t op);
/* block_remap_fmt_init - the fields of block_bio_remap: 0, or -ENOENT if one is missing */
int block_remap_fmt_init(struct block_remap_fmt *fmt, struct tep_event *ev);
/* block_remap_decode - one block_bio_remap record: 0, or -EINVAL when it is too short */
int block_remap_decode(const struct block_remap_fmt *fmt, const void *raw, uint32_t size,
		       struct block_remap *r);

#endif
