// SPDX-License-Identifier: GPL-2.0-or-later
/* htmlreport-sections.c - report --html's sections written: disks, processes, slowest, stacks */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktrack.h"
#include "flame.h"
#include "fold.h"
#include "hist.h"
#include "html.h"
#include "htmlreport-local.h"
#include "shared.h"
#include "stacks.h"
#include "toptable.h"

#define HR_TOP 50

/* hr_disks_rest_write - the disks past the ones drawn, a row each with their counts */
void hr_disks_rest_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, size_t nr)
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
void hr_disk_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, double span)
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
void hr_procs_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st, int how)
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
void hr_slow_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st)
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
int hr_flame_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st)
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
