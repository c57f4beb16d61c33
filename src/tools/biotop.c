// SPDX-License-Identifier: GPL-2.0-or-later
/* biotop.c - block device I/O by process, top style, BCC's biotop */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "blktrack.h"
#include "prom.h"
#include "shared.h"
#include "toptable.h"
#include "wbtrack.h"

#define BIOTOP_ROWS 20

/* -s choices; the first is the default, BCC's order. */
enum biotop_sort { BIOTOP_SORT_BYTES, BIOTOP_SORT_ALL, BIOTOP_SORT_IO, BIOTOP_SORT_TIME };
static const char *const biotop_sorts[] = { "bytes", "all", "io", "time", NULL };

struct biotop_params {
	bool noclear, show_cgroup, originator;
	uint64_t maxrows;
	int pid;
	int sort;
	const char *prom;
};

/* One line: the I/O of a process, in one direction, on one disk, this interval. */
struct biotop_row {
	uint32_t pid, dev;
	bool write;
	char comm[16];
	const char *cgroup;		/* --show-cgroup: the submitter's then (interned) */
	uint32_t idev;			/* --originator: the inode written back, on its disk */
	uint64_t ino;
	uint64_t io, bytes, ns;
};

struct biotop_state {
	struct blktrack *bt;
	struct wbtrack *wb;		/* --originator */
	struct toptable rows;		/* by (pid, comm, direction, disk, cgroup) */
	struct prom *prom;
};

#define P(f) offsetof(struct biotop_params, f)
static const struct opt biotop_opts[] = {
	{ 'C', "noclear", OPT_FLAG, P(noclear), NULL, "don't clear the screen" },
	{ 'r', "maxrows", OPT_UINT, P(maxrows), "MAXROWS", "maximum rows to print, default 20",
	  NULL, 1, 1u << 20 },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace I/O submitted by this process only (with --originator: the writes it dirtied, and its reads)" },
	{ 's', "sort", OPT_CHOICE, P(sort), "SORT",
	  "sort by bytes (the default, BCC's order), by I/O + bytes + microseconds (all, libbpf-tools' default), by I/O or by total latency",
	  biotop_sorts },
	TOOL_OPT_PROM(P(prom), "every row as Prometheus counters (requests, bytes, latency "
		      "seconds; labels pid, comm, disk, dir)"),
	{ 0, "show-cgroup", OPT_FLAG, P(show_cgroup), NULL,
	  "add a CGROUP column: one row per cgroup v2 a process submitted I/O from" },
	{ 0, "originator", OPT_FLAG, P(originator), NULL,
	  "charge writes to the processes that dirtied the pages (not the flusher, jbd2 or sync that submitted them), with an INODE column; the journal, metadata and undirtied inodes on rows of their own" },
	{ .long_name = "rows", .type = OPT_ALIAS, .arg = "ROWS", .same_as = "maxrows",
	  .help = "same as --maxrows, libbpf-tools' spelling" },
	{ .long_name = "ebpf", .type = OPT_REFUSE,
	  .help = "BCC prints its BPF program; iotap loads none (it reads tracepoints)" },
	OPT_END
};

static const struct tool_event biotop_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	WBTRACK_EVENT_BIO,
	WBTRACK_EVENTS,
	WBTRACK_EVENTS_SCHED,
	{ NULL, NULL, 0 }
};

/* biotop_cmp - order of the lookup tree */
static int biotop_cmp(const void *a, const void *b)
{
	const struct biotop_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->write != y->write)
		return x->write ? 1 : -1;
	if (x->idev != y->idev)
		return x->idev < y->idev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	/* Interned: one pointer per cgroup. */
	if (x->cgroup != y->cgroup)
		return (uintptr_t)x->cgroup < (uintptr_t)y->cgroup ? -1 : 1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

/* biotop_row_make - a new row, a copy of its key */
static void *biotop_row_make(const void *key, void *arg)
{
	struct biotop_row *row = malloc(sizeof(*row));

	if (row)
		*row = *(const struct biotop_row *)key;
	return row;
}

/* biotop_add - bytes of a completed request on the row of key; the request counts on each */
static int biotop_add(struct iotap_ctx *ctx, const struct blk_io *io, struct biotop_row *key,
		      uint64_t bytes)
{
	struct biotop_state *st = ctx->state;
	struct biotop_row *row;

	if (((struct biotop_params *)ctx->params)->show_cgroup)
		key->cgroup = io->cgroup ? io->cgroup : "?";
	row = toptable_get(&st->rows, key, biotop_row_make, NULL);
	if (!row)
		return -ENOMEM;
	row->io++;
	row->bytes += bytes;
	row->ns += io->t_done - io->t_issue;
	return 0;
}

/* biotop_on_share - --originator: one originator's bytes of a write */
static int biotop_on_share(void *arg, const struct blk_io *io, const struct wb_share *sh)
{
	struct iotap_ctx *ctx = arg;
	int pid = ((struct biotop_params *)ctx->params)->pid;
	const char *label = wb_kind_label(sh->kind);
	struct biotop_row key = { .pid = sh->kind == WB_SUBMITTER || sh->kind == WB_DIRTIER ?
				  sh->pid : 0, .dev = io->dev, .write = true };

	if (pid && (int)key.pid != pid)
		return 0;
	snprintf(key.comm, sizeof(key.comm), "%.15s", label ? label : sh->comm);
	if (sh->kind != WB_SUBMITTER && sh->kind != WB_JOURNAL) {
		key.idev = sh->dev;
		key.ino = sh->ino;
	}
	return biotop_add(ctx, io, &key, sh->bytes);
}

/* biotop_on_done - count a completed request on its row (--originator: its writes' rows) */
static int biotop_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct biotop_params *p = ctx->params;
	struct biotop_state *st = ctx->state;
	struct biotop_row key = { .pid = io->pid, .dev = io->dev, .write = io->op == BLOCK_OP_WRITE };

	if (st->wb && key.write)
		return wbtrack_split(st->wb, io, biotop_on_share, ctx);
	if (st->wb && p->pid && (int)io->pid != p->pid)
		return 0;
	memcpy(key.comm, io->comm, sizeof(key.comm));
	return biotop_add(ctx, io, &key, io->bytes);
}

/* biotop_init - check options and subscribe to the request events */
static int biotop_init(struct iotap_ctx *ctx)
{
	struct biotop_params *p = ctx->params;
	struct biotop_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_START_OPTIONAL,
		.on_done = biotop_on_done,
		.arg = ctx,
	};
	int ret;

	st->rows = (struct toptable)TOPTABLE_INIT(biotop_cmp, free);
	ret = tool_prom_open(ctx, p->prom, &st->prom);
	if (!ret)
		ret = blktrack_cfg_select(&cfg, ctx, NULL, p->pid);
	/* -p with --originator: the process's writes are the flusher's requests too. */
	if (p->originator)
		cfg.pid = 0;
	if (!ret && p->show_cgroup)
		ret = iotap_cgroup_track(ctx);
	/* Before the block layer's: a bio's charge is made before its request can complete. */
	if (!ret && p->originator)
		ret = wbtrack_create(&st->wb, ctx, NULL, NULL, NULL);
	/* What blk-throttle held keeps the inode its flusher sent it for. */
	wbtrack_blktrack(st->wb, &cfg);
	return ret ? ret : blktrack_create(&st->bt, ctx, &cfg);
}

/* biotop_loadavg - the load averages where the events come from, "?" when unknown */
static void biotop_loadavg(struct iotap_ctx *ctx, char *buf, size_t len)
{
	if (iotap_loadavg(ctx, buf, len))
		snprintf(buf, len, "?");
}

/* biotop_sort_key - the -s column of a row */
static uint64_t biotop_sort_key(const void *row, int sort)
{
	const struct biotop_row *r = row;

	switch (sort) {
	case BIOTOP_SORT_ALL:
		return r->io + r->bytes + r->ns / 1000;
	case BIOTOP_SORT_IO:
		return r->io;
	case BIOTOP_SORT_TIME:
		return r->ns;
	default:
		return r->bytes;
	}
}

/* biotop_prom - every row of the interval into the cumulative counters, then the file */
static int biotop_prom(struct iotap_ctx *ctx)
{
	struct biotop_params *p = ctx->params;
	struct biotop_state *st = ctx->state;
	char labels[512], pid[16];
	int ret = 0;

	for (size_t i = 0; i < st->rows.nr && !ret; i++) {
		const struct biotop_row *r = st->rows.rows[i];

		labels[0] = 0;
		snprintf(pid, sizeof(pid), "%u", r->pid);
		if (prom_label(labels, sizeof(labels), "pid", pid) ||
		    prom_label(labels, sizeof(labels), "comm", r->comm) ||
		    prom_label(labels, sizeof(labels), "disk", iotap_disk_name(ctx, r->dev)) ||
		    prom_label(labels, sizeof(labels), "dir", r->write ? "write" : "read"))
			ret = -ENOSPC;
		if (!ret)
			ret = prom_counter_add(st->prom, "iotap_biotop_requests_total",
					       "Block I/O requests completed, by submitting process",
					       labels, r->io);
		if (!ret)
			ret = prom_counter_add(st->prom, "iotap_biotop_bytes_total",
					       "Bytes of completed block I/O, by submitting process",
					       labels, r->bytes);
		if (!ret)
			ret = prom_counter_add(st->prom, "iotap_biotop_latency_seconds_total",
					       "Total block I/O latency from issue to completion",
					       labels, r->ns / 1e9);
	}
	return tool_prom_write(ctx, st->prom, p->prom, ret);
}

/* biotop_report - the screen of one interval, BCC's layout, then reset */
static int biotop_report(struct iotap_ctx *ctx)
{
	struct biotop_params *p = ctx->params;
	struct biotop_state *st = ctx->state;
	uint64_t maxrows = p->maxrows ? p->maxrows : BIOTOP_ROWS;
	int width = toptable_width(ctx->out);
	char ts[32], load[128];

	if (iotap_strftime(ctx, iotap_now(ctx), "%H:%M:%S", ts, sizeof(ts)))
		snprintf(ts, sizeof(ts), "?");
	biotop_loadavg(ctx, load, sizeof(load));
	toptable_screen(ctx->out, p->noclear, ts, load, width);
	toptable_line(ctx->out, width, "%-7s %-16s %1s %-3s %-3s %-8s %5s %7s %6s%s%s", "PID", "COMM",
		      "D", "MAJ", "MIN", "DISK", "I/O", "Kbytes", "AVGms",
		      p->show_cgroup ? " CGROUP" : "", p->originator ? " INODE" : "");
	toptable_sort(&st->rows, biotop_sort_key, p->sort);
	for (size_t i = 0; i < st->rows.nr && i < maxrows; i++) {
		const struct biotop_row *r = st->rows.rows[i];
		char inode[48] = "";

		if (p->originator && r->idev)
			snprintf(inode, sizeof(inode), " %u:%u/%llu", BLOCK_DEV_MAJOR(r->idev),
				 BLOCK_DEV_MINOR(r->idev), (unsigned long long)r->ino);
		else if (p->originator)
			snprintf(inode, sizeof(inode), " -");
		toptable_line(ctx->out, width, "%-7u %-16s %1s %-3u %-3u %-8s %5llu %7llu %6.2f%s%s%s",
			      r->pid, r->comm, r->write ? "W" : "R", BLOCK_DEV_MAJOR(r->dev),
			      BLOCK_DEV_MINOR(r->dev), iotap_disk_name(ctx, r->dev),
			      (unsigned long long)r->io, (unsigned long long)(r->bytes / 1024),
			      r->ns / 1e6 / r->io, r->cgroup ? " " : "", r->cgroup ? r->cgroup : "",
			      inode);
	}
	if (st->prom && biotop_prom(ctx))
		return -EIO;
	if (ctx->final) {
		blktrack_warn_stats(st->bt, ctx);
		if (st->wb)
			wbtrack_warn_stats(st->wb, ctx);
	} else if (st->wb) {
		/* What no completion claimed in a minute never will: counted, not kept forever. */
		uint64_t now = iotap_now(ctx);

		wbtrack_expire(st->wb, now > 60000000000ull ? now - 60000000000ull : 0);
	}
	toptable_reset(&st->rows);
	return ferror(ctx->out) ? -EIO : 0;
}

/* biotop_fini - free the state */
static void biotop_fini(struct iotap_ctx *ctx)
{
	struct biotop_state *st = ctx->state;

	blktrack_free(st->bt);
	wbtrack_free(st->wb);
	toptable_release(&st->rows);
	prom_free(st->prom);
}

const struct tool tool_biotop = {
	.name = "biotop",
	.summary = "Show block device I/O by process, top style.",
	.description =
		"Traces block device I/O and, every interval (1 second unless given), clears the "
		"screen and prints the time and load average, then one line per process, direction "
		"(R or W) and disk: the number of requests completed in the interval, their Kbytes "
		"and their average latency from issue to the device until completion, largest first. "
		"The process is the one that submitted the request (from block_io_start, or "
		"block_rq_insert on kernels before 6.5). Flushes and other requests without data are "
		"not counted; requests in flight when tracing starts are not either. Lines are cut to "
		"the terminal's width. Over a recording the load average is not known and prints as "
		"'?'. The layout and widths are those of BCC's biotop; -s comes from libbpf-tools. "
		"With --originator, writes are charged to the processes that dirtied the pages "
		"written back (from the writeback tracepoints), one row per process and inode "
		"(INODE: MAJ:MIN/ino), a request counting once on each row it gives bytes to; "
		"the journal's writes are '[jbd2 journal]', inodes dirtied by kernel threads "
		"'[metadata]', inodes with no dirtying seen '[no dirtier]', and writes no "
		"writeback queued stay their submitter's.",
	.examples =
		"iotap biotop\n  Refresh every second until Ctrl-C.\n"
		"iotap biotop -C 5 10\n  Every 5 seconds, ten times, without clearing the screen.\n"
		"iotap biotop -s io -r 5\n  The five busiest rows by number of I/O.\n"
		"iotap biotop -p 181\n  Only the I/O of PID 181.\n"
		"iotap biotop --originator -C 5 1\n  Five seconds, writeback charged to the writers.\n",
	.banner = "Tracing block device I/O by process... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.default_interval = 1,
	.opts = biotop_opts,
	.events = biotop_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct biotop_params),
	.state_size = sizeof(struct biotop_state),
	.init = biotop_init,
	.report = biotop_report,
	.fini = biotop_fini,
};
