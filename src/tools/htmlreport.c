// SPDX-License-Identifier: GPL-2.0-or-later
/* htmlreport.c - the sections of report --html: per disk, per process, slowest requests, stacks */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "flame.h"
#include "heatmap.h"
#include "hist.h"
#include "html.h"
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
#define HR_SLOWEST 50
#define HR_TOP 50
/* Disks drawn in full, the busiest: the others are one row each, so the page stays a few MB. */
#define HR_DISKS_DRAWN 8

/* One disk: biolatency -D's histograms, the heat map, rates, sizes and the pattern. */
struct hr_disk {
	uint32_t dev;
	struct hist lat, queued, size;	/* usecs, usecs, KiB */
	struct heatmap *hm;
	uint64_t col_ns;		/* the columns' width */
	uint64_t *ios, *bytes;		/* per column */
	size_t nr, cap;
	uint64_t reads, writes, rbytes, wbytes, seq, rnd;
};

/* One biotop row over the whole recording: a process on a disk. */
struct hr_proc {
	uint32_t pid, dev;
	char comm[16];
	uint64_t io, reads, writes, bytes, dev_ns, queue_ns;
};

/* A distinct submitting stack: its frames, and the requests it started. */
struct hr_stack {
	uint32_t pid, nr;
	uint64_t *ips;
	uint64_t count;
};

/* One of the slowest requests, as biosnoop prints it. */
struct hr_slow {
	struct blk_io io;
	uint64_t lat;
};

struct hr_state {
	struct blktrack *bt;
	bool block, stacks;		/* it holds block requests; their starts' stacks */
	struct hr_disk *disks;
	size_t nr_disks, cap_disks;
	struct toptable procs;
	struct blk_lastpos pos;
	struct stackmap *map;		/* (pid, stack) -> v[0]: 1 + index into st */
	struct hr_stack *st;
	size_t nr_st, cap_st;
	struct hr_slow slow[HR_SLOWEST];	/* a heap, the fastest on top */
	size_t nr_slow;
	uint64_t ips[STACK_IPS_MAX];
};

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

/* hr_disks_rest_write - the disks past the ones drawn, a row each with their counts */
static void hr_disks_rest_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, size_t nr)
{
	fprintf(f, "<section id=\"more-disks\"><h2>%zu more disks</h2>\n<p class=\"facts\">Only the "
		"%d busiest disks are drawn; iotap report -i FILE biolatency -d DISK shows any.</p>\n"
		"<table class=\"procs\"><tr><th>DISK</th><th>READS</th><th>WRITES</th><th>KiB</th>"
		"<th>p50 us</th><th>p99 us</th><th>max us</th></tr>\n", nr, HR_DISKS_DRAWN);
	for (size_t i = 0; i < nr; i++, d++) {
		const char *name = iotap_disk_name(ctx, d->dev);

		fputs("<tr class=\"disk\" data-disk=\"", f);
		html_text(f, name);
		fprintf(f, "\" data-ios=\"%llu\" data-reads=\"%llu\" data-writes=\"%llu\"><td>",
			(unsigned long long)(d->reads + d->writes), (unsigned long long)d->reads,
			(unsigned long long)d->writes);
		html_text(f, name);
		fprintf(f, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td>"
			"<td>%llu</td></tr>\n", (unsigned long long)d->reads,
			(unsigned long long)d->writes,
			(unsigned long long)((d->rbytes + d->wbytes) / 1024),
			(unsigned long long)hist_percentile(&d->lat, 50),
			(unsigned long long)hist_percentile(&d->lat, 99), (unsigned long long)d->lat.max);
	}
	fputs("</table></section>\n", f);
}

/* hr_disk_write - one disk's section */
static void hr_disk_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, double span)
{
	const char *name = iotap_disk_name(ctx, d->dev);
	uint64_t total = d->reads + d->writes;
	char id[160];

	fputs("<section class=\"disk\" data-disk=\"", f);
	html_text(f, name);
	fprintf(f, "\" data-ios=\"%llu\" data-reads=\"%llu\" data-writes=\"%llu\" "
		"data-rbytes=\"%llu\" data-wbytes=\"%llu\" data-seq=\"%llu\" data-rnd=\"%llu\">\n<h2>Disk ",
		(unsigned long long)total, (unsigned long long)d->reads,
		(unsigned long long)d->writes, (unsigned long long)d->rbytes,
		(unsigned long long)d->wbytes, (unsigned long long)d->seq, (unsigned long long)d->rnd);
	html_text(f, name);
	fprintf(f, "</h2>\n<p class=\"facts\">%llu requests: %llu reads (%llu KiB), %llu writes "
		"(%llu KiB); %llu%% sequential, %llu%% random (biopattern: sequential when it "
		"starts where the disk's last request ended)</p>\n",
		(unsigned long long)total, (unsigned long long)d->reads,
		(unsigned long long)(d->rbytes / 1024), (unsigned long long)d->writes,
		(unsigned long long)(d->wbytes / 1024),
		(unsigned long long)(total ? d->seq * 100 / total : 0),
		(unsigned long long)(total ? d->rnd * 100 / total : 0));
	fputs("<div class=\"row\"><div><h3>Latency: device time (biolatency -D)</h3>\n", f);
	snprintf(id, sizeof(id), "lat-%s", name);
	html_hist(f, &d->lat, id, "usecs");
	fputs("</div><div><h3>Latency: queued + device time (biolatency -D -Q)</h3>\n", f);
	if (d->queued.count) {
		snprintf(id, sizeof(id), "queued-%s", name);
		html_hist(f, &d->queued, id, "usecs");
	} else {
		fputs("<p class=\"none\">The recording holds no start of these requests "
		      "(block_io_start or block_rq_insert): no queued time.</p>\n", f);
	}
	fputs("</div><div><h3>Sizes (bitesize)</h3>\n", f);
	snprintf(id, sizeof(id), "size-%s", name);
	html_hist(f, &d->size, id, "KiB");
	fputs("</div></div>\n<h3>Latency heat map (biolatency --heatmap)</h3>\n", f);
	snprintf(id, sizeof(id), "heat-%s", name);
	html_heatmap(f, d->hm, id, "usecs", span);
	snprintf(id, sizeof(id), "iops-%s", name);
	html_series(f, id, "Requests per second", "IOPS", d->ios, d->nr, d->col_ns / 1e9, span, 1);
	snprintf(id, sizeof(id), "tput-%s", name);
	html_series(f, id, "Throughput", "MiB/s", d->bytes, d->nr, d->col_ns / 1e9, span,
		    1024.0 * 1024.0);
	fputs("</section>\n", f);
}

/* hr_sort_key - a row's bytes (how 0, biotop's order) or its time waited, queued + device (how 1) */
static uint64_t hr_sort_key(const void *row, int how)
{
	const struct hr_proc *r = row;

	return how ? r->dev_ns + r->queue_ns : r->bytes;
}

/* hr_procs_write - the biotop table over the whole recording, sorted by how */
static void hr_procs_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st, int how)
{
	toptable_sort(&st->procs, hr_sort_key, how);
	fprintf(f, "<h3>%s</h3>\n<table class=\"procs\" data-by=\"%s\">\n<tr><th>PID</th><th>COMM</th>"
		"<th>DISK</th><th>READS</th><th>WRITES</th><th>KiB</th><th>AVG ms</th>"
		"<th>DEVICE ms</th><th>QUEUED ms</th></tr>\n",
		how ? "By time waited (queued + device)" : "By bytes (biotop)", how ? "time" : "bytes");
	for (size_t i = 0; i < st->procs.nr && i < HR_TOP; i++) {
		const struct hr_proc *r = st->procs.rows[i];
		const char *disk = iotap_disk_name(ctx, r->dev);

		fprintf(f, "<tr class=\"proc\" data-pid=\"%u\" data-comm=\"", r->pid);
		html_textn(f, r->comm, sizeof(r->comm));
		fputs("\" data-disk=\"", f);
		html_text(f, disk);
		fprintf(f, "\" data-reads=\"%llu\" data-writes=\"%llu\" data-bytes=\"%llu\"><td>%u</td><td>",
			(unsigned long long)r->reads, (unsigned long long)r->writes,
			(unsigned long long)r->bytes, r->pid);
		html_textn(f, r->comm, sizeof(r->comm));
		fputs("</td><td>", f);
		html_text(f, disk);
		fprintf(f, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%.3f</td><td>%.3f</td>"
			"<td>%.3f</td></tr>\n", (unsigned long long)r->reads,
			(unsigned long long)r->writes, (unsigned long long)(r->bytes / 1024),
			r->dev_ns / 1e6 / r->io, r->dev_ns / 1e6, r->queue_ns / 1e6);
	}
	fputs("</table>\n", f);
	if (st->procs.nr > HR_TOP)
		fprintf(f, "<p class=\"facts\">%zu more rows not shown.</p>\n", st->procs.nr - HR_TOP);
}

/* hr_slow_cmp - slowest first; equal latencies in completion order */
static int hr_slow_cmp(const void *a, const void *b)
{
	const struct hr_slow *x = a, *y = b;

	if (x->lat != y->lat)
		return x->lat > y->lat ? -1 : 1;
	return x->io.t_done < y->io.t_done ? -1 : x->io.t_done > y->io.t_done;
}

/* hr_slow_write - biosnoop's rows of the slowest requests, each with its stack */
static void hr_slow_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st)
{
	uint64_t t0 = iotap_start_time(ctx);
	char *text = NULL;
	size_t len = 0;

	if (st->nr_slow)
		qsort(st->slow, st->nr_slow, sizeof(st->slow[0]), hr_slow_cmp);
	fprintf(f, "<section id=\"slowest\"><h2>The %zu slowest requests (biosnoop)</h2>\n"
		"<table class=\"snoop\">\n<tr><th>TIME(s)</th><th>COMM</th><th>PID</th><th>DISK</th>"
		"<th>T</th><th>SECTOR</th><th>BYTES</th><th>QUE(ms)</th><th>LAT(ms)</th>%s</tr>\n",
		st->nr_slow, st->stacks ? "<th>STACK</th>" : "");
	for (size_t i = 0; i < st->nr_slow; i++) {
		const struct hr_slow *r = &st->slow[i];
		uint64_t from = r->io.t_start ? r->io.t_start : r->io.t_insert;
		const char *disk = iotap_disk_name(ctx, r->io.dev);

		fputs("<tr class=\"slow\" data-disk=\"", f);
		html_text(f, disk);
		fprintf(f, "\" data-pid=\"%u\" data-lat-ns=\"%llu\" data-t=\"%.6f\"><td>%.6f</td><td>",
			r->io.pid, (unsigned long long)r->lat, (r->io.t_done - t0) / 1e9,
			(r->io.t_issue > t0 ? r->io.t_issue - t0 : 0) / 1e9);
		html_textn(f, r->io.comm, sizeof(r->io.comm));
		fprintf(f, "</td><td>%u</td><td>", r->io.pid);
		html_text(f, disk);
		fprintf(f, "</td><td>%s</td><td>%llu</td><td>%u</td><td>%.3f</td><td>%.3f</td>",
			blk_io_type(&r->io), (unsigned long long)r->io.sector,
			r->io.bytes, from && from <= r->io.t_issue ? (r->io.t_issue - from) / 1e6 : 0.0,
			r->lat / 1e6);
		if (st->stacks) {
			const struct hr_stack *k = r->io.user && r->io.user <= st->nr_st ?
						   &st->st[r->io.user - 1] : NULL;
			FILE *m = k ? open_memstream(&text, &len) : NULL;

			fputs("<td>", f);
			if (m) {
				stack_text(ctx, k->pid, k->ips, k->nr, m);
				if (!fclose(m)) {
					fputs("<details><summary>stack</summary><pre>", f);
					html_textn(f, text, len);
					fputs("</pre></details>", f);
				}
				free(text);
				text = NULL;
			} else {
				fputs("no stack", f);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

/* hr_svg_height - the height an SVG document says it has, 400 when it says none */
static unsigned int hr_svg_height(const char *svg)
{
	const char *h = svg ? strstr(svg, " height=\"") : NULL;

	return h ? (unsigned int)strtoul(h + 9, NULL, 10) : 400;
}

/* hr_flame_write - biostacks --svg's flame graph, weighted by requests, in the page */
static int hr_flame_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st)
{
	struct flame_opts fo = {
		.title = "Block I/O by submitting stack (biostacks --svg)",
		.units = "I/Os",
		.in_html = true,
	};
	struct fold *fold = fold_alloc();
	uint64_t counted = 0;
	char *svg = NULL;
	size_t len = 0;
	FILE *m;
	int ret = 0;

	fputs("<section id=\"flame\"><h2>Submitting stacks</h2>\n", f);
	if (!st->stacks) {
		fputs("<p class=\"none\">The recording holds no stacks (iotap record -g, perf record -g): "
		      "no flame graph.</p></section>\n", f);
		fold_free(fold);
		return 0;
	}
	for (size_t i = 0; i < st->nr_st; i++)
		counted += st->st[i].count;
	if (!counted) {
		fputs("<p class=\"none\">No request the recording completed came with its submitter's "
		      "stack: no flame graph.</p></section>\n", f);
		fold_free(fold);
		return 0;
	}
	if (!fold)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_st && !ret; i++) {
		const struct hr_stack *k = &st->st[i];
		const char *root = stack_comm(ctx, k->pid, k->ips, k->nr);

		ret = stack_fold_add(ctx, fold, &root, 1, k->pid, k->ips, k->nr, k->count);
	}
	m = ret ? NULL : open_memstream(&svg, &len);
	if (!ret && !m)
		ret = -ENOMEM;
	if (!ret) {
		ret = flame_write_svg(fold, m, &fo);
		if (fclose(m) && !ret)
			ret = -ENOMEM;
	}
	if (!ret)
		html_svg_frame(f, svg, len, hr_svg_height(svg));
	fputs("<p class=\"facts\">Click a frame to zoom, Search (or Ctrl-F inside the graph) to "
	      "highlight frames matching a regular expression.</p></section>\n", f);
	free(svg);
	fold_free(fold);
	return ret;
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
