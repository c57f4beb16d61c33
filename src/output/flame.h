/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FLAME_H
#define IOTAP_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A fold merges symbolised stacks, each a list of frame names from the root
 * (outermost, e.g. the process name) to the leaf, with a weight: samples,
 * bytes, microseconds...  Frame names are stored sanitised for the folded
 * format: ';' becomes ':', newlines and carriage returns become spaces, and
 * NULL or empty names become "[unknown]"; stacks equal after that merge.
 */
struct fold;

/* Empty fold; NULL with errno ENOMEM. */
struct fold *fold_alloc(void);

/* Release the fold; fold may be NULL. */
void fold_free(struct fold *fold);

/*
 * Add weight to the stack frames[0..nr), root first.  A zero weight adds
 * nothing.  Returns 0, -EINVAL (nr is 0 or frames NULL), -EOVERFLOW (the
 * total weight would pass UINT64_MAX) or -ENOMEM.
 */
int fold_add(struct fold *fold, const char *const *frames, size_t nr,
	     uint64_t weight);

/*
 * Write the stacks in FlameGraph's folded format, "root;...;leaf weight\n",
 * one line per distinct stack, lines sorted bytewise; reverse writes each
 * stack leaf first.  Returns 0, -ENOMEM, or -EIO when f reports an error.
 */
int fold_write(const struct fold *fold, FILE *f, bool reverse);

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
