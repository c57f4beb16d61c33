// SPDX-License-Identifier: GPL-2.0-or-later
/* heatmap.c - latency heat maps as SVG: time columns, log2 latency rows */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "heatmap.h"
#include "hist.h"

#define HM_SLOTS 65
#define HM_LEFT 110		/* room for the row labels and the axis name */
#define HM_TOP 64
#define HM_BOTTOM 70
#define HM_RIGHT 30
#define HM_ROW_H 18

struct heatmap {
	uint64_t col_ns;
	uint64_t (*col)[HM_SLOTS];
	size_t nr, cap;
	uint64_t total;
};

/* heatmap_alloc - see heatmap.h */
struct heatmap *heatmap_alloc(uint64_t col_ns)
{
	struct heatmap *hm;

	if (!col_ns) {
		errno = EINVAL;
		return NULL;
	}
	hm = calloc(1, sizeof(*hm));
	if (hm)
		hm->col_ns = col_ns;
	return hm;
}

/* heatmap_free - see heatmap.h */
void heatmap_free(struct heatmap *hm)
{
	if (!hm)
		return;
	free(hm->col);
	free(hm);
}

/* heatmap_add - see heatmap.h */
int heatmap_add(struct heatmap *hm, uint64_t t_ns, unsigned int slot)
{
	size_t c = t_ns / hm->col_ns;

	if (slot < 1 || slot >= HM_SLOTS)
		return -EINVAL;
	if (c >= hm->cap) {
		size_t old = hm->cap;

		if (array_reserve(&hm->col, &hm->cap, c + 1, sizeof(*hm->col), 64))
			return -ENOMEM;
		memset(hm->col + old, 0, (hm->cap - old) * sizeof(*hm->col));
	}
	if (c >= hm->nr)
		hm->nr = c + 1;
	hm->col[c][slot]++;
	hm->total++;
	return 0;
}

/* heatmap_total - see heatmap.h */
uint64_t heatmap_total(const struct heatmap *hm)
{
	return hm->total;
}

/* heatmap_coarsen - see heatmap.h */
void heatmap_coarsen(struct heatmap *hm)
{
	size_t nr = (hm->nr + 1) / 2;

	for (size_t c = 0; c < nr; c++) {
		for (unsigned int s = 0; s < HM_SLOTS; s++) {
			uint64_t n = hm->col[2 * c][s];

			if (2 * c + 1 < hm->nr)
				n += hm->col[2 * c + 1][s];
			hm->col[c][s] = n;
		}
	}
	if (hm->cap > nr)
		memset(hm->col + nr, 0, (hm->cap - nr) * sizeof(*hm->col));
	hm->nr = nr;
	hm->col_ns *= 2;
}

/* heatmap_cols - see heatmap.h */
size_t heatmap_cols(const struct heatmap *hm)
{
	return hm->nr;
}

/* heatmap_col_ns - see heatmap.h */
uint64_t heatmap_col_ns(const struct heatmap *hm)
{
	return hm->col_ns;
}

/* heatmap_cell - see heatmap.h */
uint64_t heatmap_cell(const struct heatmap *hm, size_t col, unsigned int slot)
{
	return col < hm->nr && slot < HM_SLOTS ? hm->col[col][slot] : 0;
}

/* heatmap_xml - text with XML's special characters escaped */
static void heatmap_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			fputc(*s, f);
	}
}

/* heatmap_log2 - log2(v) for v >= 1, linear between powers of two: enough for a colour */
static double heatmap_log2(uint64_t v)
{
	unsigned int e = 63 - __builtin_clzll(v);

	return e + ((double)v / (double)(1ull << e) - 1);
}

/* heatmap_colour - see heatmap.h */
void heatmap_colour(uint64_t count, uint64_t max, char *buf, size_t len)
{
	static const unsigned char lo[3] = { 255, 237, 160 }, hi[3] = { 189, 0, 38 };
	double t = max > 1 ? heatmap_log2(count) / heatmap_log2(max) : 1;
	unsigned int rgb[3];

	for (int i = 0; i < 3; i++)
		rgb[i] = (unsigned int)(lo[i] + (hi[i] - lo[i]) * t + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* heatmap_seconds - a column boundary in seconds, as short as exact */
static void heatmap_seconds(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.9g", ns / 1e9);
}

/* heatmap_tick - a time axis tick and label at the start of column c */
static void heatmap_tick(FILE *f, const struct heatmap *hm, size_t c, unsigned int cw,
			 unsigned int rows)
{
	char a[32];

	heatmap_seconds(a, sizeof(a), c * hm->col_ns);
	fprintf(f, "<line x1=\"%zu\" y1=\"%u\" x2=\"%zu\" y2=\"%u\" stroke=\"#999\"/>\n"
		"<text x=\"%zu\" y=\"%u\" text-anchor=\"middle\">%s</text>\n",
		HM_LEFT + c * cw, HM_TOP + rows * HM_ROW_H, HM_LEFT + c * cw,
		HM_TOP + rows * HM_ROW_H + 5, HM_LEFT + c * cw, HM_TOP + rows * HM_ROW_H + 19, a);
}

/* heatmap_write_svg - see heatmap.h */
int heatmap_write_svg(const struct heatmap *hm, FILE *f, const struct heatmap_opts *opts)
{
	const char *title = opts && opts->title ? opts->title : "Latency Heat Map";
	const char *unit = opts && opts->unit ? opts->unit : "usecs";
	unsigned int lo = HM_SLOTS, hi = 0, rows, step;
	uint64_t max = 0;
	size_t cols = hm->nr ? hm->nr : 1;
	/* About 600 px of grid, columns 2 to 60 px wide: longer runs make wider maps. */
	unsigned int cw = cols >= 300 ? 2 : cols >= 100 ? 600 / 100 : 600 / cols > 60 ? 60 : 600 / cols;
	unsigned int width, height, gw;
	char colour[16], a[32], b[32];

	for (size_t c = 0; c < hm->nr; c++) {
		for (unsigned int s = 1; s < HM_SLOTS; s++) {
			if (!hm->col[c][s])
				continue;
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
			max = hm->col[c][s] > max ? hm->col[c][s] : max;
		}
	}
	if (!max)
		lo = hi = 1;
	rows = hi - lo + 1;
	gw = cols * cw;
	/* Room for the title under a narrow grid. */
	width = HM_LEFT + (gw > 480 ? gw : 480) + HM_RIGHT;
	height = HM_TOP + rows * HM_ROW_H + HM_BOTTOM;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #222; } "
		".title { font-size: 17px; } .cell:hover { stroke: #000; stroke-width: 1; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
		width, height, width, height, width, height);
	fprintf(f, "<text class=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">", width / 2);
	heatmap_xml(f, title);
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"%u\" y=\"44\" text-anchor=\"middle\">", width / 2);
	if (opts && opts->subtitle) {
		heatmap_xml(f, opts->subtitle);
		fputs("; ", f);
	}
	heatmap_seconds(a, sizeof(a), hm->col_ns);
	fprintf(f, "%llu I/O, %s s per column, colour: count (log scale, max %llu)</text>\n",
		(unsigned long long)hm->total, a, (unsigned long long)max);
	/* The grid frame, then the cells: row lo at the bottom, as latency grows upwards. */
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#f4f4f4\" "
		"stroke=\"#999\"/>\n<g id=\"cells\">\n", HM_LEFT, HM_TOP, gw, rows * HM_ROW_H);
	for (size_t c = 0; c < hm->nr; c++) {
		for (unsigned int s = lo; s <= hi && max; s++) {
			uint64_t n = hm->col[c][s];
			uint64_t low = (1ull << s) >> 1, high = s == 64 ? ~0ull : (1ull << s) - 1;

			if (!n)
				continue;
			if (s == 1)
				low = 0;
			heatmap_colour(n, max, colour, sizeof(colour));
			heatmap_seconds(a, sizeof(a), c * hm->col_ns);
			heatmap_seconds(b, sizeof(b), (c + 1) * hm->col_ns);
			fprintf(f, "<rect class=\"cell\" x=\"%zu\" y=\"%u\" width=\"%u\" height=\"%u\" "
				"fill=\"%s\"><title>%s-%s s, %llu -> %llu %s: count %llu</title></rect>\n",
				HM_LEFT + c * cw, HM_TOP + (hi - s) * HM_ROW_H, cw, HM_ROW_H, colour,
				a, b, (unsigned long long)low, (unsigned long long)high, unit,
				(unsigned long long)n);
		}
	}
	fputs("</g>\n", f);
	if (!max)
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">no I/O</text>\n",
			HM_LEFT + gw / 2, HM_TOP + HM_ROW_H - 5);
	/* Y axis: each row's range; the axis name turned along it. */
	for (unsigned int s = lo; s <= hi; s++) {
		uint64_t low = s == 1 ? 0 : (1ull << s) >> 1;

		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%llu</text>\n", HM_LEFT - 6,
			HM_TOP + (hi - s) * HM_ROW_H + HM_ROW_H - 5, (unsigned long long)low);
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%s</text>\n", HM_LEFT - 6,
		HM_TOP - 6, unit);
	fprintf(f, "<text x=\"16\" y=\"%u\" text-anchor=\"middle\" transform=\"rotate(-90 16 %u)\">"
		"latency</text>\n", HM_TOP + rows * HM_ROW_H / 2, HM_TOP + rows * HM_ROW_H / 2);
	/* X axis: a tick about every 80 px, and at the end unless one is close to it. */
	step = (80 + cw - 1) / cw;
	for (size_t c = 0; c <= cols; c += step)
		heatmap_tick(f, hm, c, cw, rows);
	if (cols % step && cols % step >= step / 2)
		heatmap_tick(f, hm, cols, cw, rows);
	fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">time since tracing began (s)</text>\n",
		HM_LEFT + gw / 2, HM_TOP + rows * HM_ROW_H + 40);
	/* Legend: the two ends of the colour scale. */
	heatmap_colour(1, max ? max : 1, colour, sizeof(colour));
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%u\" y=\"%u\">1</text>\n", HM_LEFT, height - 18, colour, HM_LEFT + 16,
		height - 8);
	heatmap_colour(max ? max : 1, max ? max : 1, colour, sizeof(colour));
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%u\" y=\"%u\">%llu I/O per cell</text>\n</svg>\n", HM_LEFT + 60,
		height - 18, colour, HM_LEFT + 76, height - 8, (unsigned long long)(max ? max : 1));
	return ferror(f) ? -EIO : 0;
}
