// SPDX-License-Identifier: GPL-2.0-or-later
/* block.c - decode block:* tracepoints by field name, whatever the kernel's layout */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "block.h"

/* block_fmt_init - find the fields of a block event; -ENOENT if dev/sector/rwbs are missing */
int block_fmt_init(struct block_fmt *fmt, struct tep_event *ev)
{
	memset(fmt, 0, sizeof(*fmt));
	if (field_init(&fmt->dev, ev, "dev") || field_init(&fmt->sector, ev, "sector") ||
	    field_init(&fmt->nr_sector, ev, "nr_sector") || field_init(&fmt->rwbs, ev, "rwbs"))
		return -ENOENT;
	/* Optional: which of these exist depends on the event and the kernel version. */
	field_init(&fmt->bytes, ev, "bytes");
	field_init(&fmt->error, ev, "error");
	field_init(&fmt->ioprio, ev, "ioprio");
	field_init(&fmt->comm, ev, "comm");
	return 0;
}

/* block_rwbs_parse - operation and modifiers from the kernel's rwbs string */
void block_rwbs_parse(const char *rwbs, uint8_t *op, uint8_t *flags)
{
	const char *p = rwbs;

	*flags = 0;
	/* A leading F is a preflush when an operation letter follows it. */
	if (p[0] == 'F' && p[1] && strchr("WRDFN", p[1])) {
		*flags |= BLOCK_F_PREFLUSH;
		p++;
	}
	switch (*p) {
	case 'R':
		*op = BLOCK_OP_READ;
		break;
	case 'W':
		*op = BLOCK_OP_WRITE;
		break;
	case 'F':
		*op = BLOCK_OP_FLUSH;
		break;
	case 'D':
		*op = p[1] == 'E' ? BLOCK_OP_SECURE_ERASE : BLOCK_OP_DISCARD;
		if (p[1] == 'E')
			p++;
		break;
	default:
		*op = BLOCK_OP_OTHER;
		break;
	}
	if (*p)
		p++;
	for (; *p; p++) {
		switch (*p) {
		case 'F':
			*flags |= BLOCK_F_FUA;
			break;
		case 'A':
			*flags |= BLOCK_F_RAHEAD;
			break;
		case 'S':
			*flags |= BLOCK_F_SYNC;
			break;
		case 'M':
			*flags |= BLOCK_F_META;
			break;
		}
	}
}

/* block_rq_decode - decode one raw block event */
int block_rq_decode(const struct block_fmt *fmt, const void *raw, uint32_t size,
		    struct block_rq *rq)
{
	if ((uint32_t)fmt->rwbs.offset + fmt->rwbs.size > size)
		return -EINVAL;
	rq->dev = field_u64(&fmt->dev, raw, size);
	rq->sector = field_u64(&fmt->sector, raw, size);
	rq->nr_sector = field_u64(&fmt->nr_sector, raw, size);
	rq->bytes = fmt->bytes.present ? field_u64(&fmt->bytes, raw, size) :
		rq->nr_sector * 512u;
	rq->error = field_s64(&fmt->error, raw, size);
	rq->ioprio = field_u64(&fmt->ioprio, raw, size);
	field_str(&fmt->rwbs, raw, size, rq->rwbs, sizeof(rq->rwbs));
	field_str(&fmt->comm, raw, size, rq->comm, sizeof(rq->comm));
	block_rwbs_parse(rq->rwbs, &rq->op, &rq->flags);
	return 0;
}

/* block_flags_name - BCC biolatency -F's name for an operation and its flags */
int block_flags_name(uint8_t op, uint8_t flags, char *buf, size_t len)
{
	static const char *const ops[] = {
		[BLOCK_OP_READ] = "Read", [BLOCK_OP_WRITE] = "Write",
		[BLOCK_OP_FLUSH] = "Flush", [BLOCK_OP_DISCARD] = "Discard",
		[BLOCK_OP_SECURE_ERASE] = "SecureErase", [BLOCK_OP_OTHER] = "Unknown",
	};
	/* BCC prepends each name in this order, so the last one ends up first. */
	static const struct { uint8_t bit; const char *name; } mods[] = {
		{ BLOCK_F_SYNC, "Sync-" }, { BLOCK_F_META, "Metadata-" },
		{ BLOCK_F_FUA, "ForcedUnitAccess-" }, { BLOCK_F_RAHEAD, "ReadAhead-" },
		{ BLOCK_F_PREFLUSH, "PreFlush-" },
	};
	char tmp[128];
	int n;

	snprintf(tmp, sizeof(tmp), "%s", op <= BLOCK_OP_OTHER ? ops[op] : "Unknown");
	/* The kernel's own flush requests are REQ_OP_FLUSH|REQ_PREFLUSH ("FF"): one name. */
	if (op == BLOCK_OP_FLUSH)
		flags &= ~BLOCK_F_PREFLUSH;
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		if (flags & mods[i].bit) {
			char cur[128];

			snprintf(cur, sizeof(cur), "%s", tmp);
			snprintf(tmp, sizeof(tmp), "%s%s", mods[i].name, cur);
		}
	}
	n = snprintf(buf, len, "%s", tmp);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/*
 * block_status_name - the BLK_STS_* name of a block event's error. The events carry
 * blk_status_to_errno() of the status and their formats have no name table, so the
 * kernel's errno mapping (block/blk-core.c) is mirrored here. NULL when unknown.
 */
const char *block_status_name(int32_t error)
{
	static const struct { int err; const char *name; } sts[] = {
		{ 0, "BLK_STS_OK" }, { -EOPNOTSUPP, "BLK_STS_NOTSUPP" },
		{ -ETIMEDOUT, "BLK_STS_TIMEOUT" }, { -ENOSPC, "BLK_STS_NOSPC" },
		{ -ENOLINK, "BLK_STS_TRANSPORT" }, { -EREMOTEIO, "BLK_STS_TARGET" },
		{ -EBADE, "BLK_STS_RESV_CONFLICT" }, { -ENODATA, "BLK_STS_MEDIUM" },
		{ -EILSEQ, "BLK_STS_PROTECTION" }, { -ENOMEM, "BLK_STS_RESOURCE" },
		{ -EBUSY, "BLK_STS_DEV_RESOURCE" }, { -EAGAIN, "BLK_STS_AGAIN" },
		{ -ENODEV, "BLK_STS_OFFLINE" }, { -EREMCHG, "BLK_STS_DM_REQUEUE" },
		{ -ETOOMANYREFS, "BLK_STS_ZONE_OPEN_RESOURCE" },
		{ -EOVERFLOW, "BLK_STS_ZONE_ACTIVE_RESOURCE" }, { -ETIME, "BLK_STS_DURATION_LIMIT" },
		{ -EINVAL, "BLK_STS_INVAL" }, { -EIO, "BLK_STS_IOERR" },
	};

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
		if (sts[i].err == error)
			return sts[i].name;
	return NULL;
}

/* block_remap_fmt_init - the fields of block_bio_remap; -ENOENT if one is missing */
int block_remap_fmt_init(struct block_remap_fmt *fmt, struct tep_event *ev)
{
	memset(fmt, 0, sizeof(*fmt));
	if (field_init(&fmt->dev, ev, "dev") || field_init(&fmt->sector, ev, "sector") ||
	    field_init(&fmt->nr_sector, ev, "nr_sector") || field_init(&fmt->old_dev, ev, "old_dev") ||
	    field_init(&fmt->old_sector, ev, "old_sector"))
		return -ENOENT;
	return 0;
}

/* block_remap_decode - one block_bio_remap record; -EINVAL when it is too short */
int block_remap_decode(const struct block_remap_fmt *fmt, const void *raw, uint32_t size,
		       struct block_remap *r)
{
	if ((uint32_t)fmt->old_sector.offset + fmt->old_sector.size > size)
		return -EINVAL;
	r->dev = field_u64(&fmt->dev, raw, size);
	r->sector = field_u64(&fmt->sector, raw, size);
	r->nr_sector = field_u64(&fmt->nr_sector, raw, size);
	r->old_dev = field_u64(&fmt->old_dev, raw, size);
	r->old_sector = field_u64(&fmt->old_sector, raw, size);
	return 0;
}

/* block_op_name - see block.h; names outlive every caller (labels compare them by address) */
const char *block_op_name(uint8_t op)
{
	static const char *const names[] = {
		[BLOCK_OP_READ] = "read", [BLOCK_OP_WRITE] = "write", [BLOCK_OP_FLUSH] = "flush",
		[BLOCK_OP_DISCARD] = "discard", [BLOCK_OP_SECURE_ERASE] = "secure_erase",
		[BLOCK_OP_OTHER] = "other",
	};

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "other";
}
