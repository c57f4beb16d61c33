/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HTML_H
#define IOTAP_HTML_H

/*
 * One self-contained HTML page (report --html): text escaped for it, and the
 * charts it is made of, as inline SVG with the values in data- attributes and
 * hover titles. The page's script and style (html.js, html.css, made into C
 * strings at build time) are written into it: it names nothing outside
 * itself, so it opens from a file with no network. Everything written is
 * deterministic: the same input gives the same bytes.
 *
 * Time charts share one axis, 0 to span seconds from the start of the
 * recording: the script zooms them together and marks a trigger on each.
 * Every function writes to f and returns nothing: f's error shows at its
 * flush (html_page_write checks).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hist;
struct heatmap;

/* At most this many points in a time chart, this many columns in a heat map. */
#define HTML_SERIES_MAX 1000
#define HTML_HEAT_COLS_MAX 250

/*
 * html_text - s as HTML text or attribute value: & < > " ' as references,
 * control characters other than newline and tab and bytes that are not UTF-8 as '?'
 */
void html_text(FILE *f, const char *s);
void html_textn(FILE *f, const char *s, size_t n);

/*
 * html_hist - a log2 histogram as BCC prints it (rows from the lowest to the
 * highest used slot), as horizontal bars with its count and percentiles; id
 * names it (data-hist), unit labels it ("usecs", "KiB")
 */
void html_hist(FILE *f, const struct hist *h, const char *id, const char *unit);

/*
 * html_series - a time chart of nr values, each col_s seconds wide from 0, as
 * bars (at most HTML_SERIES_MAX: neighbours are summed, then divided by per
 * to give a rate); span_s: the axis' end. title and unit label it. Each bar
 * carries its start (data-t) and value (data-v), the chart its unit and bar
 * width (data-unit, data-col): the script words the hover text from them.
 */
void html_series(FILE *f, const char *id, const char *title, const char *unit,
		 const uint64_t *v, size_t nr, double col_s, double span_s, double per);

/*
 * html_heatmap - hm as a heat map on the shared time axis (at most
 * HTML_HEAT_COLS_MAX columns: neighbours are summed), rows its used log2
 * slots (a group each, its range in data-lo and data-hi), each cell's start
 * and count in data-t and data-n, which the script shows on hover
 */
void html_heatmap(FILE *f, const struct heatmap *hm, const char *id, const char *unit,
		  double span_s);

/*
 * html_svg_frame - an SVG document (svg, len bytes) shown in a frame of its own, height px:
 * its ids, style and script (a flame graph's) stay out of the page's
 */
void html_svg_frame(FILE *f, const char *svg, size_t len, unsigned int height);

/*
 * html_page_write - the whole page to out: title, then head (the header's
 * HTML) and body, the script and style; body_attrs go into <body> as
 * written (data- attributes the script reads). 0 or -EIO when out failed.
 */
int html_page_write(FILE *out, const char *title, const char *body_attrs, const char *head,
		    const char *body);

#endif
