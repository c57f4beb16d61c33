/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FOLD_H
#define IOTAP_FOLD_H

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
 *
 * The caller owns the fold (fold_alloc, fold_free); the fold keeps copies of
 * the names it is given, so frames may be freed once fold_add returns. The
 * SVG drawing of a fold is flame.h's.
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

#endif
