// SPDX-License-Identifier: GPL-2.0-or-later
/* htmlreport.c - report --html's analysis: one pass over the requests, then the page in order */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "heatmap.h"
#include "hist.h"
#include "html.h"
#include "htmlreport-local.h"
#include "stacks.h"
#include "toptable.h"
#include "tools/htmlreport.h"
#include "tools/shared.h"

/*
 * Time columns of a disk's heat map and rate charts: 1 ms at first, twice as wide whenever
 * a disk would pass HR_COLS_MAX of them, so that memory stays bounded on any span; the page
 * draws at most 1000 points of them.
 */
#define HR_COL_NS 1000000ull
#define HR_COLS_MAX 4096

static const struct tool_event hr_events[] = {
	TOOL_EVENTS_BLOCK_REQ_STACK,
	{ NULL, NULL, 0 }
};

/* hr_disk_get - the disk's entry, made on its first request; NULL when out of memory */
static struct hr_disk *hr_disk_get(struct hr_state *st, uint32_t dev)
{
	struct hr_disk *d;

	for (size_t i = 0; i < st->nr_disks; i++)
		if (st->disks[i].dev == dev)
			return &st->disks[i];
	if (array_reserve(&st->disks, &st->cap_disks, st->nr_disks + 1, sizeof(*st->disks), 4))
		return NULL;
	d = &st->disks[st->nr_disks];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->col_ns = HR_COL_NS;
	d->hm = heatmap_alloc(HR_COL_NS);
	if (!d->hm)
		return NULL;
	st->nr_disks++;
	return d;
}

/* hr_proc_cmp - biotop's identity of a row, without the direction */
static int hr_proc_cmp(const void *a, const void *b)
{
	const struct hr_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

/* hr_proc_make - a new row, a copy of its key */
static void *hr_proc_make(const void *key, void *arg)
{
	struct hr_proc *row = malloc(sizeof(*row));

	if (row)
		*row = *(const struct hr_proc *)key;
	return row;
}

/* hr_slow_less - whether a is faster than b: equal latencies, the later is */
static bool hr_slow_less(const struct hr_slow *a, const struct hr_slow *b)
{
	if (a->lat != b->lat)
		return a->lat < b->lat;
	return a->io.t_done > b->io.t_done;
}

/* hr_slow_add - keep the request when it is among the slowest so far */
static void hr_slow_add(struct hr_state *st, const struct blk_io *io, uint64_t lat)
{
	struct hr_slow n = { .io = *io, .lat = lat }, t;
	size_t i = 0;

	n.io.cgroup = NULL;
	if (st->nr_slow < HR_SLOWEST) {
		/* Sift up. */
		i = st->nr_slow++;
		st->slow[i] = n;
		while (i && hr_slow_less(&st->slow[i], &st->slow[(i - 1) / 2])) {
			t = st->slow[i], st->slow[i] = st->slow[(i - 1) / 2], st->slow[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
		return;
	}
	if (!hr_slow_less(&st->slow[0], &n))
		return;
	st->slow[0] = n;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < st->nr_slow && hr_slow_less(&st->slow[l], &st->slow[m]))
			m = l;
		if (r < st->nr_slow && hr_slow_less(&st->slow[r], &st->slow[m]))
			m = r;
		if (m == i)
			break;
		t = st->slow[i], st->slow[i] = st->slow[m], st->slow[m] = t;
		i = m;
	}
}

/* hr_coarsen - the disk's columns twice as wide, the heat map's with them */
static void hr_coarsen(struct hr_disk *d)
{
	size_t nr = (d->nr + 1) / 2;

	for (size_t c = 0; c < nr; c++) {
		d->ios[c] = d->ios[2 * c] + (2 * c + 1 < d->nr ? d->ios[2 * c + 1] : 0);
		d->bytes[c] = d->bytes[2 * c] + (2 * c + 1 < d->nr ? d->bytes[2 * c + 1] : 0);
	}
	if (d->cap > nr) {
		memset(d->ios + nr, 0, (d->cap - nr) * sizeof(*d->ios));
		memset(d->bytes + nr, 0, (d->cap - nr) * sizeof(*d->bytes));
	}
	d->nr = nr;
	d->col_ns *= 2;
	heatmap_coarsen(d->hm);
}

/* hr_col_add - one request into its disk's rate columns */
static int hr_col_add(struct hr_disk *d, uint64_t t, uint32_t bytes)
{
	size_t c;

	while (t / d->col_ns >= HR_COLS_MAX)
		hr_coarsen(d);
	c = t / d->col_ns;

	if (c >= d->cap) {
		size_t old = d->cap, cap = d->cap;

		if (array_reserve(&d->ios, &cap, c + 1, sizeof(*d->ios), 64))
			return -ENOMEM;
		if (array_reserve(&d->bytes, &d->cap, c + 1, sizeof(*d->bytes), 64))
			return -ENOMEM;
		memset(d->ios + old, 0, (d->cap - old) * sizeof(*d->ios));
		memset(d->bytes + old, 0, (d->cap - old) * sizeof(*d->bytes));
	}
	if (c >= d->nr)
		d->nr = c + 1;
	d->ios[c]++;
	d->bytes[c] += bytes;
	return 0;
}

/* hr_on_start - the submitter starts a request: tag it with its stack */
static int hr_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct hr_state *st = ctx->state;
	uint32_t n;
	uint64_t *v = stack_sample_get(ctx, st->map, s, STACK_KERNEL | STACK_USER | STACK_NONEMPTY,
				       0, 0, st->ips, &n);

	if (!v)
		return errno == ENODATA ? 0 : -ENOMEM;
	if (!v[0]) {
		struct hr_stack *k;

		if (array_reserve(&st->st, &st->cap_st, st->nr_st + 1, sizeof(*st->st), 64))
			return -ENOMEM;
		k = &st->st[st->nr_st];
		k->ips = malloc(n * sizeof(*k->ips));
		if (!k->ips)
			return -ENOMEM;
		memcpy(k->ips, st->ips, n * sizeof(*k->ips));
		k->pid = s->pid;
		k->nr = n;
		k->count = 0;
		v[0] = ++st->nr_st;
	}
	r->user = v[0];
	return 0;
}

/* hr_on_done - a completed request into every view of it */
static int hr_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct hr_state *st = ctx->state;
	struct hr_disk *d = hr_disk_get(st, io->dev);
	struct hr_proc key = { .pid = io->pid, .dev = io->dev }, *row;
	uint64_t lat = io->t_done > io->t_issue ? io->t_done - io->t_issue : 0;
	uint64_t from = io->t_start ? io->t_start : io->t_insert, t0 = iotap_start_time(ctx);
	uint64_t t = io->t_done > t0 ? io->t_done - t0 : 0;
	bool write = io->op == BLOCK_OP_WRITE;
	int ret;

	if (!d)
		return -ENOMEM;
	/* The columns first: they may widen the heat map's. */
	if (hr_col_add(d, t, io->bytes) || hist_add(&d->lat, lat / 1000) ||
	    hist_add(&d->size, io->bytes / 1024) || heatmap_add(d->hm, t, hist_log2_slot(lat / 1000)))
		return -ENOMEM;
	if (from && from <= io->t_done && hist_add(&d->queued, (io->t_done - from) / 1000))
		return -ENOMEM;
	ret = blk_lastpos_sequential(&st->pos, io);
	if (ret < 0)
		return ret;
	d->seq += ret;
	d->rnd += !ret;
	d->reads += !write;
	d->writes += write;
	d->rbytes += write ? 0 : io->bytes;
	d->wbytes += write ? io->bytes : 0;
	memcpy(key.comm, io->comm, sizeof(key.comm));
	row = toptable_get(&st->procs, &key, hr_proc_make, NULL);
	if (!row)
		return -ENOMEM;
	row->io++;
	row->reads += !write;
	row->writes += write;
	row->bytes += io->bytes;
	row->dev_ns += lat;
	row->queue_ns += from && from <= io->t_issue ? io->t_issue - from : 0;
	if (io->user && io->user <= st->nr_st)
		st->st[io->user - 1].count++;
	hr_slow_add(st, io, lat);
	return 0;
}

/* hr_on_nodata - a flush: among the slowest requests, as biosnoop lists flushes, and nowhere else */
static int hr_on_nodata(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;

	hr_slow_add(ctx->state, io, io->t_done > io->t_issue ? io->t_done - io->t_issue : 0);
	return 0;
}

/* hr_init - the request events, with the submitter's stacks when the recording has them */
static int hr_init(struct iotap_ctx *ctx)
{
	struct hr_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = BT_START | BT_START_OPTIONAL,
		.on_done = hr_on_done,
		.on_nodata = hr_on_nodata,
		.arg = ctx,
	};

	st->procs = (struct toptable)TOPTABLE_INIT(hr_proc_cmp, free);
	/* A recording of other events only (record --tools fileio): the page says so. */
	st->block = iotap_event_available(ctx, "block", "block_rq_issue") &&
		    iotap_event_available(ctx, "block", "block_rq_complete");
	if (!st->block)
		return 0;
	/* Without a start event (perf record of issue and completion alone) no submitter. */
	if (!iotap_event_available(ctx, "block", "block_io_start") &&
	    !iotap_event_available(ctx, "block", "block_rq_insert"))
		cfg.flags = 0;
	/* blktrack starts requests at block_io_start where there is one, else at the insert. */
	st->stacks = iotap_event_available(ctx, "block", "block_io_start") ?
		     iotap_event_stacks(ctx, "block", "block_io_start") :
		     iotap_event_stacks(ctx, "block", "block_rq_insert");
	st->stacks = st->stacks && cfg.flags;
	if (st->stacks) {
		st->map = stackmap_alloc();
		if (!st->map)
			return -ENOMEM;
		cfg.flags = BT_START_STACK;
		cfg.stack_flags = IOTAP_EV_KSTACK | IOTAP_EV_USTACK;
		cfg.on_start = hr_on_start;
	}
	return blktrack_create(&st->bt, ctx, &cfg);
}

/* hr_disk_cmp - disks by name */
static int hr_disk_cmp(const void *a, const void *b, void *arg)
{
	const struct hr_disk *x = a, *y = b;

	return strcmp(iotap_disk_name(arg, x->dev), iotap_disk_name(arg, y->dev));
}

/* hr_disk_busy_cmp - the busiest disks first, equal ones by name */
static int hr_disk_busy_cmp(const void *a, const void *b, void *arg)
{
	const struct hr_disk *x = a, *y = b;

	if (x->reads + x->writes != y->reads + y->writes)
		return x->reads + x->writes > y->reads + y->writes ? -1 : 1;
	return hr_disk_cmp(a, b, arg);
}

/* hr_report - every section, once, at the end */
static int hr_report(struct iotap_ctx *ctx)
{
	struct htmlreport_params *p = ctx->params;
	struct hr_state *st = ctx->state;
	uint64_t now = iotap_now(ctx), t0 = iotap_start_time(ctx);
	double span = now > t0 ? (now - t0) / 1e9 : 0;
	FILE *f = p->body;
	size_t drawn;
	int ret;

	if (!ctx->final)
		return 0;
	for (size_t i = 0; i < st->nr_disks; i++)
		if (st->disks[i].nr * st->disks[i].col_ns / 1e9 > span)
			span = st->disks[i].nr * st->disks[i].col_ns / 1e9;
	drawn = st->nr_disks < HR_DISKS_DRAWN ? st->nr_disks : HR_DISKS_DRAWN;
	/* A recording of no block I/O has no disks, and no array to sort. */
	if (st->nr_disks) {
		qsort_r(st->disks, st->nr_disks, sizeof(*st->disks), hr_disk_busy_cmp, ctx);
		qsort_r(st->disks, drawn, sizeof(*st->disks), hr_disk_cmp, ctx);
	}
	if (st->nr_disks > drawn)
		qsort_r(st->disks + drawn, st->nr_disks - drawn, sizeof(*st->disks), hr_disk_cmp, ctx);
	fputs("<nav id=\"disks\"><label>Disk: <select id=\"disk\"><option value=\"\">all</option>", f);
	for (size_t i = 0; i < drawn; i++) {
		fputs("<option>", f);
		html_text(f, iotap_disk_name(ctx, st->disks[i].dev));
		fputs("</option>", f);
	}
	fputs("</select></label> <span id=\"zoom\">drag across a time chart to zoom them all; "
	      "double-click to reset</span></nav>\n", f);
	if (!st->block)
		fputs("<section><h2>Disks</h2><p class=\"none\">The recording holds no block requests "
		      "(block:block_rq_issue and block_rq_complete; iotap record records them unless "
		      "--tools leaves them out): no latency, rates or sizes to show.</p></section>\n", f);
	else if (!st->nr_disks)
		fputs("<section><h2>Disks</h2><p class=\"none\">No block request completed in the "
		      "recording: no latency, rates or sizes to show.</p></section>\n", f);
	for (size_t i = 0; i < drawn; i++)
		hr_disk_write(ctx, f, &st->disks[i], span);
	if (st->nr_disks > drawn)
		hr_disks_rest_write(ctx, f, st->disks + drawn, st->nr_disks - drawn);
	fputs("<section id=\"top\"><h2>Top processes (biotop, whole recording)</h2>\n", f);
	if (st->procs.nr) {
		hr_procs_write(ctx, f, st, 0);
		hr_procs_write(ctx, f, st, 1);
	} else {
		fputs("<p class=\"none\">No requests: no processes to rank.</p>\n", f);
	}
	fputs("</section>\n", f);
	if (st->nr_slow)
		hr_slow_write(ctx, f, st);
	else
		fputs("<section id=\"slowest\"><h2>Slowest requests</h2><p class=\"none\">No "
		      "requests.</p></section>\n", f);
	ret = hr_flame_write(ctx, f, st);
	if (st->bt)
		blktrack_warn_stats(st->bt, ctx);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

/* hr_fini - free the state */
static void hr_fini(struct iotap_ctx *ctx)
{
	struct hr_state *st = ctx->state;

	blktrack_free(st->bt);
	for (size_t i = 0; i < st->nr_disks; i++) {
		struct hr_disk *d = &st->disks[i];

		hist_release(&d->lat);
		hist_release(&d->queued);
		hist_release(&d->size);
		heatmap_free(d->hm);
		free(d->ios);
		free(d->bytes);
	}
	free(st->disks);
	toptable_release(&st->procs);
	blk_lastpos_release(&st->pos);
	stackmap_free(st->map);
	for (size_t i = 0; i < st->nr_st; i++)
		free(st->st[i].ips);
	free(st->st);
}

const struct tool tool_htmlreport = {
	.name = "report",
	.summary = "The sections of report --html.",
	.events = hr_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct htmlreport_params),
	.state_size = sizeof(struct hr_state),
	.init = hr_init,
	.report = hr_report,
	.fini = hr_fini,
};
