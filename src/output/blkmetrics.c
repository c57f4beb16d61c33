// SPDX-License-Identifier: GPL-2.0-or-later
/* blkmetrics.c - the exporter's block I/O and command series (blkmetrics.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blkmetrics.h"

static const char *const blkmetrics_op_names[] = {
	"read", "write", "flush", "discard", "other", "admin"
};

/* One disk and operation: what completed since the last snapshot. */
struct blkmetrics_series {
	char disk[32];
	unsigned int op;
	struct hist_buckets lat, queue, size;	/* size: hist_buckets_add_le */
	uint64_t seq, rnd;
};

/* Failed requests of one disk, operation and status since the last snapshot. */
struct blkmetrics_err {
	char disk[32];
	unsigned int op;
	char status[32];
	uint64_t n;
};

/* One NVMe or SCSI device and command class: what completed since the last snapshot. */
struct blkmetrics_cmd {
	bool scsi;
	char dev[32];			/* nvme0n1, nvme0 (admin commands), or H:C:I:L */
	unsigned int op;
	struct hist_buckets lat;
};

/* blkmetrics_op - see blkmetrics.h */
enum blkmetrics_op blkmetrics_op(uint8_t op)
{
	switch (op) {
	case BLOCK_OP_READ:
		return BLKM_READ;
	case BLOCK_OP_WRITE:
		return BLKM_WRITE;
	case BLOCK_OP_FLUSH:
		return BLKM_FLUSH;
	case BLOCK_OP_DISCARD:
	case BLOCK_OP_SECURE_ERASE:
		return BLKM_DISCARD;
	default:
		return BLKM_OTHER;
	}
}

/* blkmetrics_nvme_op - see blkmetrics.h */
enum blkmetrics_op blkmetrics_nvme_op(const struct nvme_cmd *c)
{
	if (!c->qid)
		return BLKM_ADMIN;
	switch (c->opcode) {
	case 0x00:			/* nvme_cmd_flush */
		return BLKM_FLUSH;
	case 0x01:			/* nvme_cmd_write */
		return BLKM_WRITE;
	case 0x02:			/* nvme_cmd_read */
		return BLKM_READ;
	case 0x09:			/* nvme_cmd_dsm: deallocate, how Linux discards */
		return BLKM_DISCARD;
	default:
		return BLKM_OTHER;
	}
}

/* blkmetrics_scsi_op - see blkmetrics.h */
enum blkmetrics_op blkmetrics_scsi_op(uint32_t opcode)
{
	switch (opcode) {
	case 0x08: case 0x28: case 0xa8: case 0x88:	/* READ_6, _10, _12, _16 */
		return BLKM_READ;
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:	/* WRITE_6, _10, _12, _16 */
		return BLKM_WRITE;
	case 0x35: case 0x91:				/* SYNCHRONIZE_CACHE, _16 */
		return BLKM_FLUSH;
	case 0x42:					/* UNMAP */
		return BLKM_DISCARD;
	default:
		return BLKM_OTHER;
	}
}

/* blkmetrics_series - the series of a disk and operation, made the first time; NULL: ENOMEM */
static struct blkmetrics_series *blkmetrics_series(struct blkmetrics *m, const char *disk,
						   unsigned int op)
{
	struct blkmetrics_series *s;

	for (size_t i = 0; i < m->nr; i++)
		if (m->s[i].op == op && !strcmp(m->s[i].disk, disk))
			return &m->s[i];
	if (array_reserve(&m->s, &m->cap, m->nr + 1, sizeof(*m->s), 16))
		return NULL;
	s = &m->s[m->nr++];
	memset(s, 0, sizeof(*s));
	snprintf(s->disk, sizeof(s->disk), "%s", disk);
	s->op = op;
	return s;
}

/* blkmetrics_error - count a failed request by disk, operation and BLK_STS name */
static int blkmetrics_error(struct blkmetrics *m, const char *disk, unsigned int op,
			    int32_t error)
{
	const char *name = block_status_name(error);
	char status[32];
	struct blkmetrics_err *e;

	snprintf(status, sizeof(status), "%s", name ? name : "unknown");
	for (size_t i = 0; i < m->nr_e; i++) {
		e = &m->e[i];
		if (e->op == op && !strcmp(e->disk, disk) && !strcmp(e->status, status)) {
			e->n++;
			return 0;
		}
	}
	if (array_reserve(&m->e, &m->cap_e, m->nr_e + 1, sizeof(*m->e), 8))
		return -ENOMEM;
	e = &m->e[m->nr_e++];
	memset(e, 0, sizeof(*e));
	snprintf(e->disk, sizeof(e->disk), "%s", disk);
	snprintf(e->status, sizeof(e->status), "%s", status);
	e->op = op;
	e->n = 1;
	return 0;
}

/* blkmetrics_request - see blkmetrics.h */
int blkmetrics_request(struct blkmetrics *m, const char *disk, const struct blk_io *io,
		       enum blkmetrics_pattern pattern)
{
	unsigned int op = blkmetrics_op(io->op);
	struct blkmetrics_series *s = blkmetrics_series(m, disk, op);
	uint64_t from = io->t_start ? io->t_start : io->t_insert;

	if (!s)
		return -ENOMEM;
	hist_buckets_add(&s->lat, io->t_done > io->t_issue ? (io->t_done - io->t_issue) / 1000 : 0);
	if (from)
		hist_buckets_add(&s->queue, io->t_issue > from ? (io->t_issue - from) / 1000 : 0);
	if (io->error && blkmetrics_error(m, disk, op, io->error))
		return -ENOMEM;
	if (pattern == BLKM_NODATA)
		return 0;
	hist_buckets_add_le(&s->size, io->bytes);
	if (pattern == BLKM_SEQUENTIAL)
		s->seq++;
	else
		s->rnd++;
	return 0;
}

/* blkmetrics_command - see blkmetrics.h */
int blkmetrics_command(struct blkmetrics *m, bool scsi, const char *dev, enum blkmetrics_op op,
		       uint64_t ns)
{
	struct blkmetrics_cmd *c;
	size_t mine = 0;

	for (size_t i = 0; i < m->nr_c; i++) {
		c = &m->c[i];
		if (c->scsi != scsi)
			continue;
		if (c->op == op && !strcmp(c->dev, dev)) {
			hist_buckets_add(&c->lat, ns / 1000);
			return 0;
		}
		mine++;
	}
	if (mine >= m->max_devs && strcmp(dev, "other"))
		return blkmetrics_command(m, scsi, "other", op, ns);
	if (array_reserve(&m->c, &m->cap_c, m->nr_c + 1, sizeof(*m->c), 8))
		return -ENOMEM;
	c = &m->c[m->nr_c++];
	memset(c, 0, sizeof(*c));
	c->scsi = scsi;
	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	c->op = op;
	hist_buckets_add(&c->lat, ns / 1000);
	return 0;
}

/* blkmetrics_labels - disk="...",op="..." (and a third label when name is not NULL) */
static int blkmetrics_labels(char *buf, size_t len, const char *disk, unsigned int op,
			   const char *name, const char *value)
{
	buf[0] = 0;
	if (prom_label(buf, len, "disk", disk) ||
	    prom_label(buf, len, "op", blkmetrics_op_names[op]) ||
	    (name && prom_label(buf, len, name, value)))
		return -ENOSPC;
	return 0;
}

/* blkmetrics_series_fold - one series' interval into the cumulative metrics, then reset */
static int blkmetrics_series_fold(struct blkmetrics *m, struct blkmetrics_series *s)
{
	char labels[256], seq[256], rnd[256];
	int ret;

	if (blkmetrics_labels(labels, sizeof(labels), s->disk, s->op, NULL, NULL) ||
	    blkmetrics_labels(seq, sizeof(seq), s->disk, s->op, "pattern", "sequential") ||
	    blkmetrics_labels(rnd, sizeof(rnd), s->disk, s->op, "pattern", "random"))
		return -ENOSPC;
	ret = prom_buckets_add(m->prom, "iotap_block_request_latency_seconds",
			       "Block I/O request latency from issue to the device until completion "
			       "(biolatency's histogram)", labels, &s->lat, 1e-6, BLKM_TOP);
	if (!ret && s->queue.count)
		ret = prom_buckets_add(m->prom, "iotap_block_request_queue_seconds",
				       "Block I/O request time from creation (block_io_start, else "
				       "block_rq_insert) until issue to the device", labels, &s->queue,
				       1e-6, BLKM_TOP);
	if (!ret && s->size.count)
		ret = prom_buckets_add(m->prom, "iotap_block_request_size_bytes",
				       "Block I/O request size", labels, &s->size, 1, BLKM_TOP);
	if (!ret && s->seq + s->rnd) {
		const char *help = "Block I/O requests with data, sequential when they start where "
				   "the disk's last completed request ended, else random";

		ret = prom_counter_add(m->prom, "iotap_block_requests_by_pattern_total", help, seq,
				       (double)s->seq);
		if (!ret)
			ret = prom_counter_add(m->prom, "iotap_block_requests_by_pattern_total", help,
					       rnd, (double)s->rnd);
	}
	memset(&s->lat, 0, sizeof(s->lat));
	memset(&s->queue, 0, sizeof(s->queue));
	memset(&s->size, 0, sizeof(s->size));
	s->seq = s->rnd = 0;
	return ret;
}

/* blkmetrics_cmd_fold - one command series' interval into the cumulative metrics, then reset */
static int blkmetrics_cmd_fold(struct blkmetrics *m, struct blkmetrics_cmd *c)
{
	char labels[256] = "";
	int ret;

	if (!c->lat.count)
		return 0;
	if (prom_label(labels, sizeof(labels), c->scsi ? "device" : "disk", c->dev) ||
	    prom_label(labels, sizeof(labels), "op", blkmetrics_op_names[c->op]))
		return -ENOSPC;
	if (c->scsi)
		ret = prom_buckets_add(m->prom, "iotap_scsi_command_latency_seconds",
				       "SCSI command latency from dispatch to the host adapter until "
				       "done, per device (host:channel:id:lun) and opcode class "
				       "(scsilatency's histogram)", labels, &c->lat, 1e-6, BLKM_TOP);
	else
		ret = prom_buckets_add(m->prom, "iotap_nvme_command_latency_seconds",
				       "NVMe command latency from setup until completion, per namespace "
				       "(admin commands: per controller) and command class "
				       "(nvmelatency's histogram)", labels, &c->lat, 1e-6, BLKM_TOP);
	memset(&c->lat, 0, sizeof(c->lat));
	return ret;
}

/* blkmetrics_forget_disk - see blkmetrics.h */
void blkmetrics_forget_disk(struct blkmetrics *m, const char *disk)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->nr; i++)
		if (strcmp(m->s[i].disk, disk))
			m->s[kept++] = m->s[i];
	m->nr = kept;
	kept = 0;
	for (size_t i = 0; i < m->nr_e; i++)
		if (strcmp(m->e[i].disk, disk))
			m->e[kept++] = m->e[i];
	m->nr_e = kept;
	prom_drop(m->prom, "disk", disk);
}

/* blkmetrics_forget_cmds - see blkmetrics.h */
void blkmetrics_forget_cmds(struct blkmetrics *m,
			    bool (*gone)(void *arg, bool scsi, bool admin, const char *dev),
			    void *arg)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->nr_c; i++) {
		struct blkmetrics_cmd *c = &m->c[i];

		if (!strcmp(c->dev, "other") || !gone(arg, c->scsi, c->op == BLKM_ADMIN, c->dev)) {
			m->c[kept++] = *c;
			continue;
		}
		prom_drop(m->prom, c->scsi ? "device" : "disk", c->dev);
	}
	m->nr_c = kept;
}

/* blkmetrics_fold - see blkmetrics.h */
int blkmetrics_fold(struct blkmetrics *m)
{
	char labels[256];
	int ret = 0;

	for (size_t i = 0; i < m->nr && !ret; i++)
		ret = blkmetrics_series_fold(m, &m->s[i]);
	for (size_t i = 0; i < m->nr_c && !ret; i++)
		ret = blkmetrics_cmd_fold(m, &m->c[i]);
	for (size_t i = 0; i < m->nr_e && !ret; i++) {
		struct blkmetrics_err *e = &m->e[i];

		if (!e->n)
			continue;
		if (blkmetrics_labels(labels, sizeof(labels), e->disk, e->op, "status", e->status))
			return -ENOSPC;
		ret = prom_counter_add(m->prom, "iotap_block_request_errors_total",
				       "Block I/O requests completed with an error, by block status",
				       labels, (double)e->n);
		e->n = 0;
	}
	return ret;
}

/* blkmetrics_release - see blkmetrics.h */
void blkmetrics_release(struct blkmetrics *m)
{
	free(m->c);
	free(m->s);
	free(m->e);
	m->c = NULL;
	m->s = NULL;
	m->e = NULL;
	m->nr = m->cap = m->nr_e = m->cap_e = m->nr_c = m->cap_c = 0;
}
