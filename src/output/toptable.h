/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TOPTABLE_H
#define IOTAP_TOPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The rows of a top-style screen (biotop, fileio): each found by its
 * identity, counted into during an interval, then sorted by a column
 * (largest first, ties in identity order), printed up to a row limit and
 * dropped. Rows are the caller's structs; the table owns them from
 * toptable_get on and frees them with row_free.
 */
typedef int (*toptable_cmp_fn)(const void *a, const void *b);	/* identity order */
typedef uint64_t (*toptable_key_fn)(const void *row, int how);	/* the sort column */

struct toptable {
	toptable_cmp_fn cmp;
	void (*row_free)(void *row);
	void *tree;			/* rows by identity */
	void **rows;			/* in order of creation until toptable_sort */
	size_t nr, cap;
};

#define TOPTABLE_INIT(cmp, row_free) { (cmp), (row_free), NULL, NULL, 0, 0 }

/*
 * toptable_get - the row equal to key, or a new one made by make(key, arg)
 *
 * make returns a row the table then owns, or NULL. Returns the row, or NULL
 * with nothing added when memory ran out.
 */
void *toptable_get(struct toptable *t, const void *key, void *(*make)(const void *key, void *arg),
		   void *arg);

/* toptable_find - the row equal to key, or NULL when none */
void *toptable_find(const struct toptable *t, const void *key);

/* toptable_sort - t->rows by key(row, how), largest first, equal ones in identity order */
void toptable_sort(struct toptable *t, toptable_key_fn key, int how);

/* toptable_reset - free every row; the table is empty and usable */
void toptable_reset(struct toptable *t);

/* toptable_release - free the rows and the table's arrays */
void toptable_release(struct toptable *t);

/*
 * toptable_screen - a new screen: cleared (as clear(1) does on xterm-like
 * terminals) or, with noclear, a blank line; then "TIME loadavg: LOAD" and a
 * blank line, cut to width columns when width is not 0
 */
void toptable_screen(FILE *out, bool noclear, const char *time, const char *load, int width);

/* toptable_line - one printf line, cut to width columns when width is not 0 */
void toptable_line(FILE *out, int width, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* toptable_width - the terminal's width when out is one, else 0 */
int toptable_width(FILE *out);

#endif
