/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FLAME_H
#define IOTAP_FLAME_H

#include <stdbool.h>
#include <stdio.h>

#include "fold.h"

/*
 * The drawing of a fold (fold.h) as an interactive SVG flame graph, written
 * to the caller's FILE; it reads the fold and changes nothing in it.
 */
struct flame_opts {
	const char *title;	/* NULL: "Flame Graph", "Icicle Graph" */
	const char *subtitle;	/* NULL: none */
	const char *units;	/* what weights count; NULL: "samples" */
	unsigned int width;	/* image width in px; 0: 1200 */
	bool reverse;		/* merge stacks from the leaf */
	bool inverted;		/* icicle graph: root at the top */
	double min_width;	/* omit narrower frames (px); <= 0: 0.1 */
	bool in_html;		/* no XML declaration or namespace: an SVG inside an HTML page */
};

/*
 * Write the fold as an interactive SVG flame graph: click a frame to zoom,
 * "Reset Zoom" to go back, "Search" or Ctrl-F to highlight frames matching a
 * regular expression.  opts may be NULL for the defaults.  Returns 0,
 * -EINVAL (width under 100 px), -ENOMEM, or -EIO when f reports an error.
 */
int flame_write_svg(const struct fold *fold, FILE *f,
		    const struct flame_opts *opts);

#endif
