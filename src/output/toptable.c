// SPDX-License-Identifier: GPL-2.0-or-later
/* toptable.c - the rows of a top-style screen (toptable.h) */
#include <search.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "array.h"
#include "toptable.h"

/* toptable_get - find the row by identity, or add the one make gives */
void *toptable_get(struct toptable *t, const void *key, void *(*make)(const void *key, void *arg),
		   void *arg)
{
	void **node = tfind(key, &t->tree, t->cmp);
	void *row;

	if (node)
		return *node;
	if (array_reserve(&t->rows, &t->cap, t->nr + 1, sizeof(*t->rows), 64))
		return NULL;
	row = make(key, arg);
	if (!row)
		return NULL;
	if (!tsearch(row, &t->tree, t->cmp)) {
		t->row_free(row);
		return NULL;
	}
	t->rows[t->nr++] = row;
	return row;
}

/* toptable_find - see toptable.h */
void *toptable_find(const struct toptable *t, const void *key)
{
	void *const *node = tfind(key, &t->tree, t->cmp);

	return node ? *node : NULL;
}

struct toptable_order {
	const struct toptable *t;
	toptable_key_fn key;
	int how;
};

/* toptable_by_key - largest sort column first; ties in identity order */
static int toptable_by_key(const void *a, const void *b, void *arg)
{
	const struct toptable_order *o = arg;
	const void *x = *(void *const *)a, *y = *(void *const *)b;
	uint64_t kx = o->key(x, o->how), ky = o->key(y, o->how);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return o->t->cmp(x, y);
}

/* toptable_sort - order the rows for printing */
void toptable_sort(struct toptable *t, toptable_key_fn key, int how)
{
	struct toptable_order o = { t, key, how };

	if (t->nr)
		qsort_r(t->rows, t->nr, sizeof(*t->rows), toptable_by_key, &o);
}

/* toptable_reset - drop the interval's rows */
void toptable_reset(struct toptable *t)
{
	tdestroy(t->tree, t->row_free);
	t->tree = NULL;
	t->nr = 0;
}

/* toptable_release - drop the rows and free the arrays */
void toptable_release(struct toptable *t)
{
	toptable_reset(t);
	free(t->rows);
	t->rows = NULL;
	t->cap = 0;
}

/* toptable_line - print one line, cut to width */
void toptable_line(FILE *out, int width, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (width && n > width)
		n = width;
	fprintf(out, "%.*s\n", n, buf);
}

/* toptable_screen - clear or skip a line, then the time and load line */
void toptable_screen(FILE *out, bool noclear, const char *time, const char *load, int width)
{
	fputs(noclear ? "\n" : "\033[H\033[2J\033[3J", out);
	/* BCC prints the load file with its newline: a blank line follows. */
	toptable_line(out, width, "%-8s loadavg: %s", time, load);
	fputc('\n', out);
}

/* toptable_width - the terminal's columns, 0 when out is not a terminal */
int toptable_width(FILE *out)
{
	struct winsize ws;

	if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &ws) || !ws.ws_col)
		return 0;
	return ws.ws_col;
}
