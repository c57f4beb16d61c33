// SPDX-License-Identifier: GPL-2.0-or-later
/* cgtop.c - block I/O per cgroup and disk, top style: how much, and where its time went */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blktrack.h"
#include "cgname.h"
#include "cgstat.h"
#include "dirtytrack.h"
#include "shared.h"
#include "toptable.h"

#define CGTOP_ROWS 20

/* -s choices; the first is the default. */
enum cgtop_sort {
	CGTOP_SORT_WAIT, CGTOP_SORT_IO, CGTOP_SORT_BYTES, CGTOP_SORT_THROTTLE, CGTOP_SORT_RQOS,
	CGTOP_SORT_QUEUE, CGTOP_SORT_DEVICE, CGTOP_SORT_DIRTY, CGTOP_SORT_P99,
};
static const char *const cgtop_sorts[] = { "wait", "io", "bytes", "throttle", "rqos", "queue",
					   "device", "dirty", "p99", NULL };

struct cgtop_params {
	bool noclear;
	uint64_t maxrows, depth;
	int sort;
	const char *disk, *comm;
};

struct cgtop_state {
	struct blktrack *bt;
	struct dirtytrack *dt;
	struct cgstat *cs;
	uint64_t since;			/* the interval's start (stream time), 0: tracing's */
};

#define P(f) offsetof(struct cgtop_params, f)
static const struct opt cgtop_opts[] = {
	{ 'C', "noclear", OPT_FLAG, P(noclear), NULL, "don't clear the screen" },
	{ 'r', "maxrows", OPT_UINT, P(maxrows), "MAXROWS", "maximum rows to print, default 20",
	  NULL, 1, 1u << 20 },
	{ 's', "sort", OPT_CHOICE, P(sort), "SORT",
	  "sort by the time requests waited in all (wait, the default), by I/O, bytes, one "
	  "stage's time (throttle, rqos, queue, device), dirty-page pauses, or p99 latency",
	  cgtop_sorts },
	TOOL_OPT_DISK(P(disk)),
	{ 0, "depth", OPT_UINT, P(depth), "N",
	  "fold cgroups deeper than N into their ancestor at depth N (/a/b/c at 2: /a/b)",
	  NULL, 1, 64 },
	{ 0, "comm", OPT_STR, P(comm), "COMM",
	  "count the I/O and dirty-page pauses of tasks of this command name only" },
	{ .long_name = "rows", .type = OPT_ALIAS, .arg = "ROWS", .same_as = "maxrows",
	  .help = "same as --maxrows" },
	OPT_END
};

static const struct tool_event cgtop_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_STAGES,
	DIRTYTRACK_EVENTS,
	{ NULL, NULL, 0 }
};

/* cgtop_comm_ok - whether --comm keeps a task of this name */
static bool cgtop_comm_ok(const struct cgtop_params *p, const char *comm)
{
	return !p->comm || !strncmp(comm, p->comm, 15);
}

/* cgtop_on_bio - a bio queued or split: io.stat's count, its sender's cgroup's */
static int cgtop_on_bio(void *arg, enum blk_bio_fate fate, const struct block_rq *rq,
			const struct blk_sender *who)
{
	struct iotap_ctx *ctx = arg;
	struct cgtop_state *st = ctx->state;

	if ((fate != BLK_BIO_QUEUED && fate != BLK_BIO_SPLIT) || !cgtop_comm_ok(ctx->params, who->comm))
		return 0;
	return cgstat_bio(st->cs, rq, who->cgroup, fate == BLK_BIO_SPLIT);
}

/* cgtop_on_done - a completed request: its latency and stages, its submitter's cgroup's */
static int cgtop_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct cgtop_state *st = ctx->state;

	if (!cgtop_comm_ok(ctx->params, io->comm))
		return 0;
	return cgstat_request(st->cs, io);
}

/* cgtop_on_pause - a dirtying task's pause, its cgroup's then */
static int cgtop_on_pause(void *arg, const struct perf_sample *s, uint32_t dev, uint64_t ns)
{
	struct iotap_ctx *ctx = arg;
	struct cgtop_state *st = ctx->state;

	if (!cgtop_comm_ok(ctx->params, iotap_comm(ctx, s->pid)))
		return 0;
	return cgstat_dirty(st->cs, dev, iotap_cgroup_of(ctx, s), ns);
}

/* cgtop_init - check options, follow cgroups, subscribe to the request and pause events */
static int cgtop_init(struct iotap_ctx *ctx)
{
	struct cgtop_params *p = ctx->params;
	struct cgtop_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_INSERT | BT_STAGES,
		.on_done = cgtop_on_done,
		.on_bio = cgtop_on_bio,
		.arg = ctx,
	};
	struct dirtytrack_cfg dc = { .on_pause = cgtop_on_pause, .arg = ctx };
	char which[128];
	int ret;

	st->cs = cgstat_create((unsigned int)p->depth, 0, 0);
	if (!st->cs)
		return -ENOMEM;
	ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	/* A recording made without --cgroups still shows its disks' waits, each row's cgroup '?'. */
	if (!ret && iotap_input_is_file(ctx) && !iotap_cgroup_filtering(ctx) &&
	    !iotap_event_available(ctx, "cgroup", "cgroup_attach_task"))
		iotap_info(ctx, "this recording has no cgroups (iotap record --cgroups): every "
			   "row's CGROUP is '?'");
	else if (!ret && !(ret = iotap_cgroup_track_io(ctx, which, sizeof(which))) &&
		 !iotap_cgroup_filtering(ctx))
		/* The hierarchy whose limits and counters its rows are: say which. */
		iotap_info(ctx, "the cgroups of %s", which);
	if (!ret)
		ret = blktrack_create(&st->bt, ctx, &cfg);
	dc.has_dev = cfg.has_dev;
	dc.dev = cfg.dev;
	if (!ret)
		ret = dirtytrack_create(&st->dt, ctx, &dc);
	return ret;
}

/* cgtop_waited - a row's request time in all stages, ns */
static uint64_t cgtop_waited(const struct cgstat_row *r)
{
	uint64_t t = 0;

	for (int i = 0; i < BLK_WAITS; i++)
		t += r->wait[i];
	return t;
}

/* cgtop_sort_key - the -s column of a row */
static uint64_t cgtop_sort_key(const void *row, int sort)
{
	const struct cgstat_row *r = row;

	switch (sort) {
	case CGTOP_SORT_IO:
		return r->ios[CGSTAT_READ] + r->ios[CGSTAT_WRITE] + r->ios[CGSTAT_DISCARD];
	case CGTOP_SORT_BYTES:
		return r->bytes[CGSTAT_READ] + r->bytes[CGSTAT_WRITE] + r->bytes[CGSTAT_DISCARD];
	case CGTOP_SORT_THROTTLE:
		return r->wait[BLK_WAIT_THROTTLE];
	case CGTOP_SORT_RQOS:
		return r->wait[BLK_WAIT_RQOS];
	case CGTOP_SORT_QUEUE:
		return r->wait[BLK_WAIT_QUEUE];
	case CGTOP_SORT_DEVICE:
		return r->wait[BLK_WAIT_DEVICE];
	case CGTOP_SORT_DIRTY:
		return r->dirty_ns;
	case CGTOP_SORT_P99:
		return r->lat.count ? hist_percentile(&r->lat, 99) : 0;
	default:
		return cgtop_waited(r) + r->dirty_ns;
	}
}

/* cgtop_ms - a percentile of a row's latency, in ms, or "-" without requests */
static void cgtop_ms(const struct cgstat_row *r, double pct, char *buf, size_t len)
{
	if (!r->lat.count)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", hist_percentile(&r->lat, pct) / 1e3);
}

/* cgtop_row - one row of the screen */
static void cgtop_row(struct iotap_ctx *ctx, const struct cgstat_row *r, double secs, int width,
		      bool dirty)
{
	char p50[24], p99[24], ctr[80], dms[24];
	uint64_t reqs = r->reqs[CGSTAT_READ] + r->reqs[CGSTAT_WRITE] + r->reqs[CGSTAT_DISCARD];

	cgtop_ms(r, 50, p50, sizeof(p50));
	cgtop_ms(r, 99, p99, sizeof(p99));
	cgname_container(r->cgroup, ctr, sizeof(ctr));
	if (dirty)
		snprintf(dms, sizeof(dms), "%.1f", r->dirty_ns / 1e6);
	else
		snprintf(dms, sizeof(dms), "-");
	toptable_line(ctx->out, width,
		      "%-8s %6llu %6llu %8llu %8llu %6llu %7.0f %7s %7s %8.1f %7.1f %8.1f %8.1f %8s %-13s %s",
		      r->dev ? iotap_disk_name(ctx, r->dev) : "-",
		      (unsigned long long)r->ios[CGSTAT_READ], (unsigned long long)r->ios[CGSTAT_WRITE],
		      (unsigned long long)(r->bytes[CGSTAT_READ] / 1024),
		      (unsigned long long)(r->bytes[CGSTAT_WRITE] / 1024), (unsigned long long)reqs,
		      secs > 0 ? reqs / secs : 0.0, p50, p99, r->wait[BLK_WAIT_THROTTLE] / 1e6,
		      r->wait[BLK_WAIT_RQOS] / 1e6, r->wait[BLK_WAIT_QUEUE] / 1e6,
		      r->wait[BLK_WAIT_DEVICE] / 1e6, dms, ctr[0] ? ctr : "-", r->cgroup);
}

/* cgtop_report - the screen of one interval, then reset */
static int cgtop_report(struct iotap_ctx *ctx)
{
	struct cgtop_params *p = ctx->params;
	struct cgtop_state *st = ctx->state;
	uint64_t maxrows = p->maxrows ? p->maxrows : CGTOP_ROWS, now = iotap_now(ctx);
	uint64_t since = st->since ? st->since : iotap_start_time(ctx);
	int width = toptable_width(ctx->out);
	double secs = now > since ? (now - since) / 1e9 : 0;
	struct cgstat_row *const *rows;
	char ts[32], load[128];
	size_t nr;

	if (iotap_strftime(ctx, now, "%H:%M:%S", ts, sizeof(ts)))
		snprintf(ts, sizeof(ts), "?");
	if (iotap_loadavg(ctx, load, sizeof(load)))
		snprintf(load, sizeof(load), "?");
	toptable_screen(ctx->out, p->noclear, ts, load, width);
	toptable_line(ctx->out, width,
		      "%-8s %6s %6s %8s %8s %6s %7s %7s %7s %8s %7s %8s %8s %8s %-13s %s", "DISK",
		      "READS", "WRITES", "R-KB", "W-KB", "REQS", "IOPS", "P50ms", "P99ms", "THROTms",
		      "RQOSms", "QUEUEms", "DEVms", "DIRTYms", "CONTAINER", "CGROUP");
	cgstat_sort(st->cs, cgtop_sort_key, p->sort);
	rows = cgstat_rows(st->cs, &nr);
	for (size_t i = 0; i < nr && i < maxrows; i++)
		cgtop_row(ctx, rows[i], secs, width, dirtytrack_have(st->dt));
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	cgstat_reset(st->cs);
	st->since = now;
	return ferror(ctx->out) ? -EIO : 0;
}

/* cgtop_fini - free the state */
static void cgtop_fini(struct iotap_ctx *ctx)
{
	struct cgtop_state *st = ctx->state;

	blktrack_free(st->bt);
	dirtytrack_free(st->dt);
	cgstat_free(st->cs);
}

const struct tool tool_cgtop = {
	.name = "cgtop",
	.summary = "Show block I/O per cgroup and disk, top style, and where its time went.",
	.description =
		"Traces block I/O and, every interval (1 second unless given), clears the screen and "
		"prints the time and load average, then one line per cgroup and disk, the most "
		"waiting first. READS and WRITES count bios as cgroup v2's io.stat counts them "
		"(rios, wios: each bio as it is queued, each piece of a split one more), R-KB and "
		"W-KB their kilobytes; both are charged to the task that sent the bio, also when "
		"blk-throttle held it and its worker queued it. Writeback's bios are the flusher's "
		"(its cgroup's): cgroup v2's io.stat charges them to the cgroup that owns the "
		"inode, which cgtop does not follow yet, so a cgroup's buffered writes show in the "
		"flusher's row. REQS is the requests completed (the "
		"unit of /proc/diskstats), IOPS the same per second, P50ms and P99ms their latency from the first "
		"event that saw them (the send, where the kernel shows it) to completion. The "
		"requests' time, in ms summed over those completed in the interval, by stage: "
		"THROTms from the send to the bio's queue (blk-throttle: io.max, "
		"blkio.throttle.*; seen on a partition through its remap and, where kprobes exist, "
		"on a whole disk through blk-throttle's entry; elsewhere 0, and such requests are "
		"said to be started by a kernel worker); RQOSms from the queue to the request's "
		"allocation (rq-qos: wbt, iolatency and iocost's throttling at submission, and "
		"waits for a free tag: the kernel's events do not tell them apart); QUEUEms from the "
		"allocation to the issue (the I/O scheduler); DEVms from the issue to completion. "
		"iocost's debt and iolatency's delay, which the kernel makes a task pay on its way "
		"back to user space, are not in them. DIRTYms is the cgroup's tasks' pauses in "
		"balance_dirty_pages on the disk ('-' where the kernel lacks the event); memory.high "
		"reclaim is not a dirty pause. CONTAINER is the container or unit the cgroup names "
		"(Docker, Podman: 12 hex; containerd's CRI, CRI-O, kubepods: 13; systemd machines "
		"and services by name), CGROUP its path in the hierarchy the block controller is on "
		"(cgroup v1's blkio on a hybrid or v1 host, else v2; with --cgroup, that one's), "
		"folded with --depth. The cgroup is that of the task at "
		"the event that sends the bio, or starts the request (block_io_start, or "
		"block_rq_insert before 6.5); writeback's requests are the flusher's. Requests in "
		"flight when tracing starts are not counted.",
	.examples =
		"iotap cgtop\n  Refresh every second until Ctrl-C.\n"
		"iotap cgtop -C 5 3\n  Every 5 seconds, three times, without clearing the screen.\n"
		"iotap cgtop -s throttle --depth 3\n  Containers under a kubepods slice, the most "
		"throttled first.\n"
		"iotap cgtop -d nvme0n1 --comm postgres\n  One disk, one command's I/O.\n",
	.banner = "Tracing block I/O by cgroup... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.default_interval = 1,
	.opts = cgtop_opts,
	.events = cgtop_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct cgtop_params),
	.state_size = sizeof(struct cgtop_state),
	.init = cgtop_init,
	.report = cgtop_report,
	.fini = cgtop_fini,
};
