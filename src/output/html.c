// SPDX-License-Identifier: GPL-2.0-or-later
/* html.c - one self-contained HTML page: escaped text, charts as inline SVG, the page around them */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"
#include "hist.h"
#include "html.h"
/* The page's script and style, html_js and html_css: html.js and html.css made into strings. */
#include "html-assets.h"

/* Geometry of the time charts, in px: the plot is HTML_PLOT_W wide at HTML_PLOT_X. */
#define HTML_PLOT_X 70
#define HTML_PLOT_W 1000
#define HTML_SERIES_H 120
#define HTML_ROW_H 14

/* html_utf8_len - the length of the UTF-8 sequence at s (n bytes left), 0 when it is not one */
static size_t html_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and what lies past U+10FFFF are no characters. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* html_textn - see html.h */
void html_textn(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n && u[i];) {
		size_t len = html_utf8_len(u + i, n - i);

		switch (u[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (!len || (u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') || u[i] == 0x7f)
				fputc('?', f);
			else
				fwrite(u + i, 1, len, f);
		}
		i += len ? len : 1;
	}
}

/* html_text - see html.h */
void html_text(FILE *f, const char *s)
{
	html_textn(f, s, s ? strlen(s) : 0);
}

/* html_slot_low - the lowest value of log2 slot s, as hist.h numbers them */
static uint64_t html_slot_low(unsigned int s)
{
	return s <= 1 ? 0 : 1ull << (s - 1);
}

/* html_slot_high - the highest value of log2 slot s */
static uint64_t html_slot_high(unsigned int s)
{
	return s >= 64 ? ~0ull : (1ull << s) - 1;
}

/* html_hist - see html.h */
void html_hist(FILE *f, const struct hist *h, const char *id, const char *unit)
{
	unsigned int lo = HIST_LOG2_SLOTS, hi = 0;
	uint64_t max = 0;

	for (unsigned int s = 0; s < HIST_LOG2_SLOTS; s++) {
		if (!h->slot[s])
			continue;
		lo = s < lo ? s : lo;
		hi = s;
		max = h->slot[s] > max ? h->slot[s] : max;
	}
	fputs("<div class=\"hist\" data-hist=\"", f);
	html_text(f, id);
	fprintf(f, "\" data-count=\"%llu\">\n", (unsigned long long)h->count);
	if (!h->count) {
		fputs("<p class=\"none\">no requests</p></div>\n", f);
		return;
	}
	fprintf(f, "<table class=\"bars\"><tr><th>");
	html_text(f, unit);
	fputs("</th><th>count</th><th></th></tr>\n", f);
	for (unsigned int s = lo; s <= hi; s++) {
		unsigned long long n = h->slot[s];

		fprintf(f, "<tr data-lo=\"%llu\" data-hi=\"%llu\" data-n=\"%llu\" title=\"%llu -> %llu ",
			(unsigned long long)html_slot_low(s), (unsigned long long)html_slot_high(s), n,
			(unsigned long long)html_slot_low(s), (unsigned long long)html_slot_high(s));
		html_text(f, unit);
		fprintf(f, ": %llu (%.1f%%)\"><td class=\"r\">%llu -&gt; %llu</td><td class=\"r\">%llu</td>"
			"<td class=\"bar\"><span style=\"width:%.1f%%\"></span></td></tr>\n",
			n, 100.0 * n / h->count, (unsigned long long)html_slot_low(s),
			(unsigned long long)html_slot_high(s), n, 100.0 * n / max);
	}
	fputs("</table>\n<p class=\"pct\">", f);
	fprintf(f, "count %llu, mean %.1f ", (unsigned long long)h->count,
		(double)h->sum / h->count);
	html_text(f, unit);
	fprintf(f, "; p50 <b data-p=\"50\">%llu</b>, p90 <b data-p=\"90\">%llu</b>, "
		"p99 <b data-p=\"99\">%llu</b>, p99.9 <b data-p=\"99.9\">%llu</b>, "
		"max <b data-p=\"max\">%llu</b></p>\n</div>\n",
		(unsigned long long)hist_percentile(h, 50), (unsigned long long)hist_percentile(h, 90),
		(unsigned long long)hist_percentile(h, 99),
		(unsigned long long)hist_percentile(h, 99.9), (unsigned long long)h->max);
}

/* html_merge - how many neighbours make one drawn point, to keep at most max */
static size_t html_merge(size_t nr, size_t max)
{
	return nr > max ? (nr + max - 1) / max : 1;
}

/* html_tchart_begin - a time chart's frame: the outer SVG, then the plot the script zooms */
static void html_tchart_begin(FILE *f, const char *id, const char *kind, unsigned int h,
			      double span_s, const char *unit, double col_s)
{
	fprintf(f, "<svg class=\"tchart %s\" id=\"", kind);
	html_text(f, id);
	fputs("\" data-unit=\"", f);
	html_text(f, unit);
	fprintf(f, "\" data-col=\"%.9g\" width=\"%d\" height=\"%u\" data-span=\"%.9g\">"
		"<rect class=\"frame\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%u\"/>"
		"<g class=\"yaxis\"></g><g class=\"xaxis\" transform=\"translate(%d,%u)\"></g>\n"
		"<svg class=\"plot\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"preserveAspectRatio=\"none\">\n",
		col_s, HTML_PLOT_X + HTML_PLOT_W + 10, h + 22, span_s, HTML_PLOT_X, HTML_PLOT_W, h,
		HTML_PLOT_X, h, HTML_PLOT_X, HTML_PLOT_W, h, HTML_PLOT_W, h);
}

/* html_x - where time t (s) lies on a plot of span_s */
static double html_x(double t, double span_s)
{
	return span_s > 0 ? t / span_s * HTML_PLOT_W : 0;
}

/* html_series - see html.h */
void html_series(FILE *f, const char *id, const char *title, const char *unit,
		 const uint64_t *v, size_t nr, double col_s, double span_s, double per)
{
	size_t k = html_merge(nr, HTML_SERIES_MAX), pts = (nr + k - 1) / k;
	double w = col_s * k, max = 0;
	double *y = calloc(pts ? pts : 1, sizeof(*y));

	if (!y) {
		fputs("<p class=\"none\">out of memory for this chart</p>\n", f);
		return;
	}
	for (size_t i = 0; i < nr; i++)
		y[i / k] += v[i];
	for (size_t p = 0; p < pts; p++) {
		y[p] /= per > 0 ? w * per : 1;
		max = y[p] > max ? y[p] : max;
	}
	fputs("<h4>", f);
	html_text(f, title);
	fputs("</h4>\n", f);
	html_tchart_begin(f, id, "series", HTML_SERIES_H, span_s, unit, w);
	for (size_t p = 0; p < pts && max > 0; p++) {
		double hgt = y[p] / max * (HTML_SERIES_H - 4);

		if (!y[p])
			continue;
		/* The hover text is the script's, from data-t and data-v: a title each would double the page. */
		fprintf(f, "<rect x=\"%.3f\" y=\"%.2f\" width=\"%.3f\" height=\"%.2f\" data-t=\"%.6g\" "
			"data-v=\"%.6g\"/>\n", html_x(p * w, span_s), HTML_SERIES_H - hgt,
			html_x(w, span_s), hgt, p * w, y[p]);
	}
	fprintf(f, "</svg><text class=\"ymax\" x=\"%d\" y=\"12\" text-anchor=\"end\">%.4g</text>"
		"<text class=\"ymax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>"
		"<text class=\"unit\" x=\"%d\" y=\"28\" text-anchor=\"end\">", HTML_PLOT_X - 4, max,
		HTML_PLOT_X - 4, HTML_SERIES_H, HTML_PLOT_X - 4);
	html_text(f, unit);
	fputs("</text></svg>\n", f);
	free(y);
}

/* html_heatmap - see html.h */
void html_heatmap(FILE *f, const struct heatmap *hm, const char *id, const char *unit,
		  double span_s)
{
	size_t nr = heatmap_cols(hm), k = html_merge(nr, HTML_HEAT_COLS_MAX);
	size_t cols = (nr + k - 1) / k;
	double w = heatmap_col_ns(hm) / 1e9 * k;
	unsigned int lo = 65, hi = 0, rows;
	uint64_t max = 0, *cell;
	char colour[16];

	cell = calloc((cols ? cols : 1) * 65, sizeof(*cell));
	if (!cell) {
		fputs("<p class=\"none\">out of memory for this chart</p>\n", f);
		return;
	}
	for (size_t c = 0; c < nr; c++)
		for (unsigned int s = 1; s < 65; s++)
			cell[c / k * 65 + s] += heatmap_cell(hm, c, s);
	for (size_t c = 0; c < cols; c++) {
		for (unsigned int s = 1; s < 65; s++) {
			uint64_t n = cell[c * 65 + s];

			if (!n)
				continue;
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
			max = n > max ? n : max;
		}
	}
	if (!max) {
		fputs("<p class=\"none\">no requests to draw</p>\n", f);
		free(cell);
		return;
	}
	rows = hi - lo + 1;
	html_tchart_begin(f, id, "heat", rows * HTML_ROW_H, span_s, unit, w);
	/* A row per slot, its range on the group; the script words each cell's hover text. */
	for (unsigned int s = lo; s <= hi; s++) {
		fprintf(f, "<g data-lo=\"%llu\" data-hi=\"%llu\">\n", (unsigned long long)html_slot_low(s),
			(unsigned long long)html_slot_high(s));
		for (size_t c = 0; c < cols; c++) {
			uint64_t n = cell[c * 65 + s];

			if (!n)
				continue;
			heatmap_colour(n, max, colour, sizeof(colour));
			fprintf(f, "<rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%d\" fill=\"%s\" "
				"data-t=\"%.6g\" data-n=\"%llu\"/>\n", html_x(c * w, span_s),
				(hi - s) * HTML_ROW_H, html_x(w, span_s), HTML_ROW_H, colour, c * w,
				(unsigned long long)n);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>", f);
	for (unsigned int s = lo; s <= hi; s++)
		fprintf(f, "<text class=\"ylab\" x=\"%d\" y=\"%u\" text-anchor=\"end\">%llu</text>",
			HTML_PLOT_X - 4, (hi - s + 1) * HTML_ROW_H - 3,
			(unsigned long long)html_slot_low(s));
	fprintf(f, "<text class=\"unit\" x=\"4\" y=\"%u\">", rows * HTML_ROW_H + 18);
	html_text(f, unit);
	fputs("</text></svg>\n", f);
	heatmap_colour(1, max, colour, sizeof(colour));
	fprintf(f, "<p class=\"legend\"><span class=\"sw\" style=\"background:%s\"></span> 1 ", colour);
	heatmap_colour(max, max, colour, sizeof(colour));
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span> %llu requests per cell "
		"(%.6g s columns, colour on a log scale)</p>\n", colour, (unsigned long long)max, w);
	free(cell);
}

/* html_svg_frame - see html.h */
void html_svg_frame(FILE *f, const char *svg, size_t len, unsigned int height)
{
	/* Its own document: the flame graph's ids, style and keys stay out of the page's. */
	fprintf(f, "<iframe class=\"svgframe\" style=\"height:%upx\" srcdoc=\"", height + 8);
	html_text(f, "<body style=\"margin:0\">");
	html_textn(f, svg, len);
	fputs("\"></iframe>\n", f);
}

/* html_page_write - see html.h */
int html_page_write(FILE *out, const char *title, const char *body_attrs, const char *head,
		    const char *body)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>", out);
	html_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body %s>\n", html_css,
		body_attrs ? body_attrs : "");
	fputs(head, out);
	fputs(body, out);
	fprintf(out, "<div id=\"tip\"></div>\n<script>\n%s</script>\n</body>\n</html>\n", html_js);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
