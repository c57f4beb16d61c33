/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HEATMAP_H
#define IOTAP_HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A latency heat map: time columns col_ns wide, rows that are log2 slots as
 * hist.h numbers them (slot i holds [2^(i-1), 2^i - 1] units, 0 and 1 in slot
 * 1), each cell the number of requests that completed in that column with a
 * latency in that row.
 */
struct heatmap;

/* An empty map of col_ns-wide columns; NULL with errno (EINVAL: col_ns 0, ENOMEM). */
struct heatmap *heatmap_alloc(uint64_t col_ns);

/* Release hm; hm may be NULL. */
void heatmap_free(struct heatmap *hm);

/*
 * Count one request completed t_ns after the start of tracing, in log2 slot
 * (1..64). Returns 0, -EINVAL (slot out of range) or -ENOMEM.
 */
int heatmap_add(struct heatmap *hm, uint64_t t_ns, unsigned int slot);

/* Requests counted so far. */
uint64_t heatmap_total(const struct heatmap *hm);
/*
 * Halve the columns: each pair summed into one twice as wide, so a map of an
 * unknown span stays bounded (counted so far, and from now on at that width).
 */
void heatmap_coarsen(struct heatmap *hm);
/* The map's cells, for another drawing of it: columns so far, their width, one cell (0 outside). */
size_t heatmap_cols(const struct heatmap *hm);
uint64_t heatmap_col_ns(const struct heatmap *hm);
uint64_t heatmap_cell(const struct heatmap *hm, size_t col, unsigned int slot);
/*
 * heatmap_colour - a cell's colour as "#rrggbb" into buf: pale yellow to dark red by
 * log(count) / log(max), so that every drawing of a map (SVG, HTML) shades it alike
 */
void heatmap_colour(uint64_t count, uint64_t max, char *buf, size_t len);

struct heatmap_opts {
	const char *title;	/* NULL: "Latency Heat Map" */
	const char *subtitle;	/* NULL: none */
	const char *unit;	/* the slots' unit, "usecs" or "msecs"; NULL: "usecs" */
};

/*
 * Write the map as an SVG: a column per interval (empty ones too), a row per
 * log2 slot from the lowest to the highest used, cells coloured by count on a
 * log scale, each non-empty cell with a <title> hover text ending in
 * "count N", a title, a colour legend and labelled axes. Writes
 * a frame with "no I/O" when nothing was counted. opts may be NULL.
 * Returns 0 or -EIO when f reports an error.
 */
int heatmap_write_svg(const struct heatmap *hm, FILE *f, const struct heatmap_opts *opts);

#endif
