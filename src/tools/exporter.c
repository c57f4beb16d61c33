// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter.c - block I/O metrics for Prometheus: a /metrics endpoint and a textfile */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "cmdpair.h"
#include "health.h"
#include "hist.h"
#include "httpd.h"
#include "prom.h"
#include "shared.h"

/*
 * The default port: 9100-9999, the range of Prometheus' default port
 * allocation list, has had every number taken since 2023, so this one sits
 * just above it, clear of the ports the list and IANA's registry name.
 */
#define EXPORTER_PORT "10033"
#define EXPORTER_LISTEN ":" EXPORTER_PORT
/* Disks with series of their own; I/O on any further one counts as disk="other". */
#define EXPORTER_MAX_DISKS 64
/* Log2 buckets up to 2^27 us (134 s) and 2^27 bytes (128 MiB), as biolatency --prom. */
#define EXPORTER_TOP 27

struct exporter_params {
	const char *listen, *textfile, *disk;
};

static const char *const exporter_op_names[] = {
	"read", "write", "flush", "discard", "other", "admin"
};
#define EXPORTER_OP_OTHER 4
#define EXPORTER_OP_ADMIN 5

/* One disk and operation: what completed since the last snapshot. */
struct exporter_series {
	char disk[32];
	unsigned int op;
	struct hist lat, queue, size;
	uint64_t seq, rnd;
};

/* Failed requests of one disk, operation and status since the last snapshot. */
struct exporter_err {
	char disk[32];
	unsigned int op;
	char status[32];
	uint64_t n;
};

/* One NVMe or SCSI device and command class: what completed since the last snapshot. */
struct exporter_cmd {
	bool scsi;
	char dev[32];			/* nvme0n1, nvme0 (admin commands), or H:C:I:L */
	unsigned int op;
	struct hist lat;
};

struct exporter_state {
	struct blktrack *bt;
	struct nvme_pair nvme;
	struct scsi_pair scsi;
	struct exporter_cmd *c;
	size_t nr_c, cap_c;
	struct blk_lastpos pos;
	struct exporter_series *s;
	size_t nr, cap;
	struct exporter_err *e;
	size_t nr_e, cap_e;
	uint32_t *devs;			/* the disks with series of their own */
	size_t nr_devs;
	struct prom *prom;		/* every series, cumulative since the start */
	struct httpd *httpd;
	struct health health;
};

#define P(f) offsetof(struct exporter_params, f)
static const struct opt exporter_opts[] = {
	{ 'l', "listen", OPT_STR, P(listen), "ADDR:PORT",
	  "serve /metrics over HTTP on this address (default " EXPORTER_LISTEN ": every address, "
	  "port " EXPORTER_PORT "; 127.0.0.1:" EXPORTER_PORT " for this host only, "
	  "[::1]:" EXPORTER_PORT " for IPv6)" },
	{ 0, "textfile", OPT_OUTFILE, P(textfile), "FILE",
	  "each interval, also write the metrics to a temporary and rename it over FILE, for "
	  "node_exporter's textfile collector; without --listen, no HTTP server is started" },
	TOOL_OPT_DISK(P(disk)),
	OPT_END
};

static const struct tool_event exporter_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	{ "nvme", "nvme_setup_cmd", TOOL_EV_OPTIONAL },
	{ "nvme", "nvme_complete_rq", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_start", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_done", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_timeout", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_error", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* exporter_op - the operation label's index for a block_op */
static unsigned int exporter_op(uint8_t op)
{
	switch (op) {
	case BLOCK_OP_READ:
		return 0;
	case BLOCK_OP_WRITE:
		return 1;
	case BLOCK_OP_FLUSH:
		return 2;
	case BLOCK_OP_DISCARD:
	case BLOCK_OP_SECURE_ERASE:
		return 3;
	default:
		return 4;
	}
}

/* exporter_disk - the disk label of dev: its name, or "other" past EXPORTER_MAX_DISKS */
static const char *exporter_disk(struct iotap_ctx *ctx, uint32_t dev)
{
	struct exporter_state *st = ctx->state;
	size_t i;

	for (i = 0; i < st->nr_devs; i++)
		if (st->devs[i] == dev)
			break;
	if (i == st->nr_devs) {
		if (st->nr_devs == EXPORTER_MAX_DISKS)
			return "other";
		st->devs[st->nr_devs++] = dev;
	}
	return iotap_disk_name(ctx, dev);
}

/* exporter_series - the series of a disk and operation, made the first time; NULL: ENOMEM */
static struct exporter_series *exporter_series(struct exporter_state *st, const char *disk,
					       unsigned int op)
{
	struct exporter_series *s;

	for (size_t i = 0; i < st->nr; i++)
		if (st->s[i].op == op && !strcmp(st->s[i].disk, disk))
			return &st->s[i];
	if (st->nr == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;

		s = realloc(st->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		st->s = s;
		st->cap = cap;
	}
	s = &st->s[st->nr++];
	memset(s, 0, sizeof(*s));
	snprintf(s->disk, sizeof(s->disk), "%s", disk);
	s->op = op;
	return s;
}

/* exporter_error - count a failed request by disk, operation and BLK_STS name */
static int exporter_error(struct exporter_state *st, const char *disk, unsigned int op,
			  int32_t error)
{
	const char *name = block_status_name(error);
	char status[32];
	struct exporter_err *e;

	snprintf(status, sizeof(status), "%s", name ? name : "unknown");
	for (size_t i = 0; i < st->nr_e; i++) {
		e = &st->e[i];
		if (e->op == op && !strcmp(e->disk, disk) && !strcmp(e->status, status)) {
			e->n++;
			return 0;
		}
	}
	if (st->nr_e == st->cap_e) {
		size_t cap = st->cap_e ? st->cap_e * 2 : 8;

		e = realloc(st->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		st->e = e;
		st->cap_e = cap;
	}
	e = &st->e[st->nr_e++];
	memset(e, 0, sizeof(*e));
	snprintf(e->disk, sizeof(e->disk), "%s", disk);
	snprintf(e->status, sizeof(e->status), "%s", status);
	e->op = op;
	e->n = 1;
	return 0;
}

/* exporter_add - one completed request: latency as biolatency times it, queue time, errors */
static int exporter_add(struct iotap_ctx *ctx, const struct blk_io *io,
			struct exporter_series **out)
{
	struct exporter_state *st = ctx->state;
	const char *disk = exporter_disk(ctx, io->dev);
	unsigned int op = exporter_op(io->op);
	struct exporter_series *s = exporter_series(st, disk, op);
	uint64_t from = io->t_start ? io->t_start : io->t_insert;

	if (!s)
		return -ENOMEM;
	if (hist_add(&s->lat, io->t_done > io->t_issue ? (io->t_done - io->t_issue) / 1000 : 0))
		return -ENOMEM;
	if (from && hist_add(&s->queue, io->t_issue > from ? (io->t_issue - from) / 1000 : 0))
		return -ENOMEM;
	if (io->error && exporter_error(st, disk, op, io->error))
		return -ENOMEM;
	*out = s;
	return 0;
}

/* exporter_on_done - a request with data: also its size and whether it was sequential */
static int exporter_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_state *st = ctx->state;
	struct exporter_series *s;
	uint64_t dist;
	int ret;

	ret = exporter_add(ctx, io, &s);
	if (ret)
		return ret;
	if (hist_add(&s->size, io->bytes))
		return -ENOMEM;
	ret = blk_lastpos_seek(&st->pos, io->dev, io->sector, io->nr_sector, &dist);
	if (ret < 0)
		return ret;
	if (ret && !dist)
		s->seq++;
	else
		s->rnd++;
	return 0;
}

/* exporter_on_nodata - a flush (no sector, no bytes): latency and errors only */
static int exporter_on_nodata(void *arg, const struct blk_io *io)
{
	struct exporter_series *s;

	return exporter_add(arg, io, &s);
}

/* exporter_nvme_op - the operation label's index for an NVMe command */
static unsigned int exporter_nvme_op(const struct nvme_cmd *c)
{
	if (!c->qid)
		return EXPORTER_OP_ADMIN;
	switch (c->opcode) {
	case 0x00:			/* nvme_cmd_flush */
		return 2;
	case 0x01:			/* nvme_cmd_write */
		return 1;
	case 0x02:			/* nvme_cmd_read */
		return 0;
	case 0x09:			/* nvme_cmd_dsm: deallocate, how Linux discards */
		return 3;
	default:
		return EXPORTER_OP_OTHER;
	}
}

/* exporter_scsi_op - the operation label's index for a SCSI opcode */
static unsigned int exporter_scsi_op(uint32_t opcode)
{
	switch (opcode) {
	case 0x08: case 0x28: case 0xa8: case 0x88:	/* READ_6, _10, _12, _16 */
		return 0;
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:	/* WRITE_6, _10, _12, _16 */
		return 1;
	case 0x35: case 0x91:				/* SYNCHRONIZE_CACHE, _16 */
		return 2;
	case 0x42:					/* UNMAP */
		return 3;
	default:
		return EXPORTER_OP_OTHER;
	}
}

/*
 * exporter_cmd_add - one paired NVMe or SCSI command's latency into its device and
 * class; past EXPORTER_MAX_DISKS series of a kind, device "other" keeps labels bounded
 */
static int exporter_cmd_add(struct exporter_state *st, bool scsi, const char *dev,
			    unsigned int op, uint64_t ns)
{
	struct exporter_cmd *c;
	size_t mine = 0;

	for (size_t i = 0; i < st->nr_c; i++) {
		c = &st->c[i];
		if (c->scsi != scsi)
			continue;
		if (c->op == op && !strcmp(c->dev, dev))
			return hist_add(&c->lat, ns / 1000) ? -ENOMEM : 0;
		mine++;
	}
	if (mine >= EXPORTER_MAX_DISKS && strcmp(dev, "other"))
		return exporter_cmd_add(st, scsi, "other", op, ns);
	if (array_reserve(&st->c, &st->cap_c, st->nr_c + 1, sizeof(*st->c), 8))
		return -ENOMEM;
	c = &st->c[st->nr_c++];
	memset(c, 0, sizeof(*c));
	c->scsi = scsi;
	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	c->op = op;
	return hist_add(&c->lat, ns / 1000) ? -ENOMEM : 0;
}

/* exporter_on_nvme - a paired NVMe command: by namespace, admin ones by controller */
static int exporter_on_nvme(struct iotap_ctx *ctx, const struct nvme_cmd *c, uint64_t ns)
{
	char dev[32];

	if (c->qid || c->disk[0])
		snprintf(dev, sizeof(dev), "%s", c->disk);
	else
		snprintf(dev, sizeof(dev), "nvme%d", c->ctrl_id);
	return exporter_cmd_add(ctx->state, false, dev, exporter_nvme_op(c), ns);
}

/* exporter_on_scsi - a completed SCSI command (timeouts and refusals are not timed) */
static int exporter_on_scsi(struct iotap_ctx *ctx, const struct scsi_cmd *c, enum scsi_end end,
			    uint64_t ns)
{
	char dev[32];

	if (end != SCSI_END_DONE)
		return 0;
	snprintf(dev, sizeof(dev), "%u:%u:%u:%u", c->host_no, c->channel, c->id, c->lun);
	return exporter_cmd_add(ctx->state, true, dev, exporter_scsi_op(c->opcode), ns);
}

/* exporter_labels - disk="...",op="..." (and a third label when name is not NULL) */
static int exporter_labels(char *buf, size_t len, const char *disk, unsigned int op,
			   const char *name, const char *value)
{
	buf[0] = 0;
	if (prom_label(buf, len, "disk", disk) ||
	    prom_label(buf, len, "op", exporter_op_names[op]) ||
	    (name && prom_label(buf, len, name, value)))
		return -ENOSPC;
	return 0;
}

/* exporter_series_flush - one series' interval into the cumulative metrics, then reset */
static int exporter_series_flush(struct exporter_state *st, struct exporter_series *s)
{
	char labels[256], seq[256], rnd[256];
	int ret;

	if (exporter_labels(labels, sizeof(labels), s->disk, s->op, NULL, NULL) ||
	    exporter_labels(seq, sizeof(seq), s->disk, s->op, "pattern", "sequential") ||
	    exporter_labels(rnd, sizeof(rnd), s->disk, s->op, "pattern", "random"))
		return -ENOSPC;
	ret = prom_hist_add(st->prom, "iotap_block_request_latency_seconds",
			    "Block I/O request latency from issue to the device until completion "
			    "(biolatency's histogram)", labels, &s->lat, 1e-6, EXPORTER_TOP);
	if (!ret && s->queue.count)
		ret = prom_hist_add(st->prom, "iotap_block_request_queue_seconds",
				    "Block I/O request time from creation (block_io_start, else "
				    "block_rq_insert) until issue to the device", labels, &s->queue,
				    1e-6, EXPORTER_TOP);
	if (!ret && s->size.count)
		ret = prom_hist_add(st->prom, "iotap_block_request_size_bytes",
				    "Block I/O request size", labels, &s->size, 1, EXPORTER_TOP);
	if (!ret && s->seq + s->rnd) {
		const char *help = "Block I/O requests with data, sequential when they start where "
				   "the disk's last completed request ended, else random";

		ret = prom_counter_add(st->prom, "iotap_block_requests_by_pattern_total", help, seq,
				       (double)s->seq);
		if (!ret)
			ret = prom_counter_add(st->prom, "iotap_block_requests_by_pattern_total", help,
					       rnd, (double)s->rnd);
	}
	hist_reset(&s->lat);
	hist_reset(&s->queue);
	hist_reset(&s->size);
	s->seq = s->rnd = 0;
	return ret;
}

/* exporter_cmd_flush - one command series' interval into the cumulative metrics, then reset */
static int exporter_cmd_flush(struct exporter_state *st, struct exporter_cmd *c)
{
	char labels[256] = "";
	int ret;

	if (!c->lat.count)
		return 0;
	if (prom_label(labels, sizeof(labels), c->scsi ? "device" : "disk", c->dev) ||
	    prom_label(labels, sizeof(labels), "op", exporter_op_names[c->op]))
		return -ENOSPC;
	if (c->scsi)
		ret = prom_hist_add(st->prom, "iotap_scsi_command_latency_seconds",
				    "SCSI command latency from dispatch to the host adapter until "
				    "done, per device (host:channel:id:lun) and opcode class "
				    "(scsilatency's histogram)", labels, &c->lat, 1e-6, EXPORTER_TOP);
	else
		ret = prom_hist_add(st->prom, "iotap_nvme_command_latency_seconds",
				    "NVMe command latency from setup until completion, per namespace "
				    "(admin commands: per controller) and command class "
				    "(nvmelatency's histogram)", labels, &c->lat, 1e-6, EXPORTER_TOP);
	hist_reset(&c->lat);
	return ret;
}

/* exporter_forget - a block disk is gone: drop its series, here and in the metrics */
static void exporter_forget(struct exporter_state *st, const char *disk)
{
	size_t kept = 0;

	for (size_t i = 0; i < st->nr; i++) {
		if (strcmp(st->s[i].disk, disk)) {
			st->s[kept++] = st->s[i];
			continue;
		}
		hist_release(&st->s[i].lat);
		hist_release(&st->s[i].queue);
		hist_release(&st->s[i].size);
	}
	st->nr = kept;
	kept = 0;
	for (size_t i = 0; i < st->nr_e; i++)
		if (strcmp(st->e[i].disk, disk))
			st->e[kept++] = st->e[i];
	st->nr_e = kept;
	prom_drop(st->prom, "disk", disk);
}

/*
 * exporter_gone - drop the series of disks and devices that have gone (checked every
 * interval): a removed disk's series would otherwise be served forever
 */
static void exporter_gone(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	char num[24];
	size_t kept = 0;

	for (size_t i = 0; i < st->nr_devs;) {
		uint32_t dev = st->devs[i];

		snprintf(num, sizeof(num), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
		if (iotap_device_gone(ctx, IOTAP_DEV_BLOCK, num) <= 0) {
			i++;
			continue;
		}
		exporter_forget(st, iotap_disk_name(ctx, dev));
		st->devs[i] = st->devs[--st->nr_devs];
	}
	for (size_t i = 0; i < st->nr_c; i++) {
		struct exporter_cmd *c = &st->c[i];

		enum iotap_device kind = c->scsi ? IOTAP_DEV_SCSI :
					 c->op == EXPORTER_OP_ADMIN ? IOTAP_DEV_NVME : IOTAP_DEV_DISK;

		if (!strcmp(c->dev, "other") || iotap_device_gone(ctx, kind, c->dev) <= 0) {
			st->c[kept++] = *c;
			continue;
		}
		prom_drop(st->prom, c->scsi ? "device" : "disk", c->dev);
		hist_release(&c->lat);
	}
	st->nr_c = kept;
}

/* exporter_health - the exporter's own series: stream, pairing, HTTP, process, build */
static int exporter_health(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	struct health_now now = {
		.unpaired = blktrack_stats(st->bt)->unmatched,
		.cmd = {
			{ "nvme", st->nvme.tab != NULL, st->nvme.unmatched },
			{ "scsi", st->scsi.tab != NULL, st->scsi.unmatched },
		},
	};

	iotap_stream_stats(ctx, &now.events, &now.lost, &now.undelivered);
	return health_add(&st->health, st->prom, &now, st->httpd);
}

/* exporter_snapshot - fold the interval in, then publish the page and write the textfile */
static int exporter_snapshot(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	char labels[256], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	for (size_t i = 0; i < st->nr && !ret; i++)
		ret = exporter_series_flush(st, &st->s[i]);
	for (size_t i = 0; i < st->nr_c && !ret; i++)
		ret = exporter_cmd_flush(st, &st->c[i]);
	for (size_t i = 0; i < st->nr_e && !ret; i++) {
		struct exporter_err *e = &st->e[i];

		if (!e->n)
			continue;
		if (exporter_labels(labels, sizeof(labels), e->disk, e->op, "status", e->status))
			return -ENOSPC;
		ret = prom_counter_add(st->prom, "iotap_block_request_errors_total",
				       "Block I/O requests completed with an error, by block status",
				       labels, (double)e->n);
		e->n = 0;
	}
	if (!ret) {
		exporter_gone(ctx);
		ret = exporter_health(ctx);
	}
	if (ret)
		return ret;
	if (st->httpd) {
		f = open_memstream(&text, &len);
		if (!f)
			return -errno;
		ret = prom_print(st->prom, f);
		if (fclose(f) && !ret)
			ret = -ENOMEM;
		if (!ret)
			ret = httpd_publish(st->httpd, text, len);
		free(text);
		if (ret)
			return ret;
	}
	if (p->textfile) {
		ret = prom_write(st->prom);
		if (ret)
			iotap_err(ctx, "cannot write %s: %s", p->textfile, strerror(-ret));
	}
	return ret;
}

/*
 * exporter_commands - NVMe and SCSI command metrics where the kernel traces them;
 * with --disk, only that NVMe namespace's
 */
static int exporter_commands(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *disk = NULL;
	bool nvme = iotap_event_available(ctx, "nvme", "nvme_setup_cmd") &&
		    iotap_event_available(ctx, "nvme", "nvme_complete_rq");
	bool scsi = iotap_event_available(ctx, "scsi", "scsi_dispatch_cmd_start") &&
		    iotap_event_available(ctx, "scsi", "scsi_dispatch_cmd_done");
	uint32_t dev, whole;
	uint64_t start, nr;
	int ret = 0;

	if (!nvme || !scsi)
		iotap_info(ctx, "no %s%s%s events in this kernel: no such command metrics",
			   nvme ? "" : "nvme:nvme_setup_cmd/nvme_complete_rq",
			   !nvme && !scsi ? " or " : "",
			   scsi ? "" : "scsi:scsi_dispatch_cmd_start/done");
	if (p->disk) {
		/* The command events name NVMe namespaces, never partitions nor SCSI disks. */
		scsi = false;
		if (iotap_disk_resolve(ctx, p->disk, &dev))
			return -ENODEV;
		if (iotap_disk_partition(ctx, dev, &whole, &start, &nr) == 0)
			dev = whole;
		disk = iotap_disk_name(ctx, dev);
		nvme = nvme && !strncmp(disk, "nvme", 4);
	}
	if (nvme)
		ret = nvme_pair_use(&st->nvme, ctx, disk, exporter_on_nvme);
	if (!ret && scsi)
		ret = scsi_pair_use(&st->scsi, ctx, exporter_on_scsi);
	return ret;
}

/* exporter_listen - take the port before anything is traced: a busy one is the only error said */
static int exporter_listen(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *listen = p->listen ? p->listen : EXPORTER_LISTEN;
	struct sockaddr_storage ss;
	socklen_t len;
	int ret;

	if (p->listen && httpd_parse_listen(p->listen, &ss, &len)) {
		iotap_err(ctx, "invalid --listen '%s': expected ADDR:PORT, [IPV6]:PORT or :PORT",
			  p->listen);
		return -EINVAL;
	}
	if (!p->listen && p->textfile)
		return 0;
	ret = httpd_start(&st->httpd, listen, "text/plain; version=0.0.4; charset=utf-8");
	if (ret)
		iotap_err(ctx, "cannot listen on %s: %s", listen, strerror(-ret));
	return ret;
}

/* exporter_init - check options, take the port, subscribe to the request events */
static int exporter_init(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START,
		.on_done = exporter_on_done,
		.on_nodata = exporter_on_nodata,
		.arg = ctx,
	};
	int ret;

	health_init(&st->health);
	if (!(st->devs = calloc(EXPORTER_MAX_DISKS, sizeof(*st->devs))))
		return -ENOMEM;
	if (!(st->prom = prom_alloc(p->textfile))) {
		iotap_err(ctx, "cannot write %s: %s", p->textfile, strerror(errno));
		return -EINVAL;
	}
	ret = exporter_listen(ctx);
	if (!ret)
		ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	if (!ret)
		ret = blktrack_create(&st->bt, ctx, &cfg);
	if (!ret)
		ret = exporter_commands(ctx);
	return ret;
}

/* exporter_start - tracing runs: publish a first page before any interval */
static int exporter_start(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;

	if (st->httpd)
		iotap_info(ctx, "serving metrics on http://%s/metrics",
			   p->listen ? p->listen : "localhost" EXPORTER_LISTEN);
	return exporter_snapshot(ctx);
}

/* exporter_report - every interval: a new snapshot; at the end, the final textfile */
static int exporter_report(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	int ret = exporter_snapshot(ctx);

	nvme_pair_say(&st->nvme, ctx);
	scsi_pair_say(&st->scsi, ctx);
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	return ret;
}

/* exporter_fini - stop serving, then free the state */
static void exporter_fini(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;

	httpd_stop(st->httpd);
	blktrack_free(st->bt);
	nvme_pair_release(&st->nvme);
	scsi_pair_release(&st->scsi);
	for (size_t i = 0; i < st->nr_c; i++)
		hist_release(&st->c[i].lat);
	free(st->c);
	blk_lastpos_release(&st->pos);
	for (size_t i = 0; i < st->nr; i++) {
		hist_release(&st->s[i].lat);
		hist_release(&st->s[i].queue);
		hist_release(&st->s[i].size);
	}
	free(st->s);
	free(st->e);
	free(st->devs);
	prom_free(st->prom);
}

const struct tool tool_exporter = {
	.name = "exporter",
	.summary = "Serve block I/O latency, size and error metrics to Prometheus.",
	.description =
		"A long-running service: traces block device requests and serves their metrics "
		"at /metrics over HTTP in Prometheus' text format (default port " EXPORTER_PORT
		"), and with --textfile writes them for node_exporter's textfile collector. Per "
		"disk and operation (read, write, flush, discard, other): "
		"iotap_block_request_latency_seconds, a histogram from issue to completion with "
		"biolatency's log2 buckets (its counts equal biolatency's for the same I/O); "
		"iotap_block_request_queue_seconds, from creation to issue; "
		"iotap_block_request_size_bytes; iotap_block_requests_by_pattern_total "
		"(sequential or random); and iotap_block_request_errors_total by BLK_STS name. "
		"Where the kernel traces NVMe and SCSI commands (nvme:nvme_setup_cmd, "
		"scsi:scsi_dispatch_cmd_start and their completions; else one info line says "
		"so): iotap_nvme_command_latency_seconds per namespace and command class "
		"(read, write, flush, discard, other; admin commands per controller, "
		"op=\"admin\") and iotap_scsi_command_latency_seconds per device "
		"(host:channel:id:lun) and opcode class, paired as nvmelatency and "
		"scsilatency pair them, so their counts equal those tools' for the same I/O; "
		"with --disk, only that NVMe namespace's commands. "
		"Its own health: iotap_exporter_events_total, _events_lost_total, "
		"_events_undelivered_total, _unpaired_completions_total, _http_requests_total, "
		"process_cpu_seconds_total, process_resident_memory_bytes and iotap_build_info. "
		"Series are cumulative since the start; the page is rebuilt every interval "
		"(1 second by default) and served from a thread of its own, so scrapes never wait "
		"on tracing nor tracing on scrapes. Disks that appear later get series of their "
		"own under their name, up to 64; I/O on further disks counts as disk=\"other\". "
		"A disk or device that goes away (its /sys/dev/block entry, or a size of 0: a "
		"detached loop device) loses its series at the next interval; should it come "
		"back, they start again from zero. "
		"Only GET and HEAD of /metrics and / are answered (404 and 405 otherwise); at most "
		"32 connections, 8 KiB of request headers and 10 idle seconds each. "
		"md and dm devices, which complete bios rather than requests, have no series. "
		"systemd/iotap-exporter.service runs it as a service.",
	.examples =
		"iotap exporter\n  Serve /metrics on every address, port " EXPORTER_PORT ".\n"
		"iotap exporter -l 127.0.0.1:" EXPORTER_PORT "\n  Serve this host only.\n"
		"iotap exporter --textfile /var/lib/prometheus/node-exporter/iotap.prom 15\n"
		"  No HTTP: every 15 seconds, a file for node_exporter's textfile collector.\n"
		"systemctl enable --now iotap-exporter\n"
		"  Run it as a service, options from /etc/default/iotap-exporter.\n",
	.banner = "Tracing block device I/O for Prometheus... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.default_interval = 1,
	.interval_does = "publish the metrics, cumulative since the start,",
	.opts = exporter_opts,
	.events = exporter_events,
	.params_size = sizeof(struct exporter_params),
	.state_size = sizeof(struct exporter_state),
	.init = exporter_init,
	.report = exporter_report,
	.fini = exporter_fini,
	.start = exporter_start,
};
