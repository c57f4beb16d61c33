// SPDX-License-Identifier: GPL-2.0-or-later
/* symbolic.c - name tables from the __print_symbolic() calls of a kernel print fmt */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "symbolic.h"

/* symbolic_expr - the field an expression reads and how far right it shifts it */
static const char *symbolic_expr(const struct tep_print_arg *a, unsigned int *shift)
{
	while (a) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
			return a->field.name;
		case TEP_PRINT_TYPE:
			a = a->typecast.item;
			break;
		case TEP_PRINT_OP:
			if (!strcmp(a->op.op, ">>") && a->op.right &&
			    a->op.right->type == TEP_PRINT_ATOM)
				*shift += strtoul(a->op.right->atom.atom, NULL, 0);
			else if (strcmp(a->op.op, "&"))
				return NULL;
			a = a->op.left;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

/* symbolic_refers - whether an expression reads field name anywhere */
static bool symbolic_refers(const struct tep_print_arg *a, const char *name)
{
	if (!a)
		return false;
	switch (a->type) {
	case TEP_PRINT_FIELD:
		return !strcmp(a->field.name, name);
	case TEP_PRINT_TYPE:
		return symbolic_refers(a->typecast.item, name);
	case TEP_PRINT_OP:
		return symbolic_refers(a->op.left, name) || symbolic_refers(a->op.right, name);
	default:
		return false;
	}
}

/*
 * symbolic_value - a table value: a number, or an enum identifier the built-in
 * table knows. A format lists identifiers in the kernel's order, as the table
 * does: the search starts at *next, after the last one found, and wraps.
 */
static int symbolic_value(const char *text, const struct sym_name *known, size_t nr_known,
			size_t *next, uint64_t *v)
{
	char *end;

	*v = strtoull(text, &end, 0);
	if (end != text && !*end)
		return 0;
	for (size_t n = 0, i = *next; n < nr_known; n++, i = (i + 1) % nr_known) {
		if (!strcmp(known[i].name, text)) {
			*v = known[i].value;
			*next = (i + 1) % nr_known;
			return 0;
		}
	}
	return -ENOENT;
}

/* symbolic_find - where value is in t (sorted by value), or would go; whether it is there */
static bool symbolic_find(const struct symbolic_table *t, uint64_t value, size_t *at)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < t->nr && t->e[lo].value == value;
}

/* symbolic_add - value's name (borrowed), unless it has one: the first wins; 0 or -ENOMEM */
static int symbolic_add(struct symbolic_table *t, uint64_t value, const char *name)
{
	size_t at = t->nr;

	/* Formats list values mostly in ascending order: those append. */
	if (t->nr && t->e[t->nr - 1].value >= value && symbolic_find(t, value, &at))
		return 0;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		struct symbolic_ent *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->e = e;
		t->cap = cap;
	}
	memmove(&t->e[at + 1], &t->e[at], (t->nr - at) * sizeof(*t->e));
	t->e[at].value = value;
	t->e[at].name = name;
	t->nr++;
	return 0;
}

/* symbolic_take - one __print_symbolic's entries; the first of equal values wins */
static int symbolic_take(struct symbolic_table *t, const struct tep_print_flag_sym *sym,
		       const struct sym_name *known, size_t nr_known)
{
	size_t next = 0;

	for (; sym; sym = sym->next) {
		uint64_t v;

		if (symbolic_value(sym->value, known, nr_known, &next, &v)) {
			t->unresolved++;
			continue;
		}
		if (symbolic_add(t, v, sym->str))
			return -ENOMEM;
	}
	t->from_format = true;
	return 0;
}

/*
 * symbolic_walk - find the wanted __print_symbolic in expression a; branch: -1 outside any
 * conditional on w->cond_field, else 1 (its true side) or 0 (its false side)
 */
static int symbolic_walk(struct symbolic_table *t, const struct tep_print_arg *a,
		       const struct symbolic_want *w, int branch, const struct sym_name *known,
		       size_t nr_known)
{
	const struct tep_print_arg *r;
	unsigned int shift = 0;
	const char *f;
	int ret = 0;

	if (!a || t->from_format)
		return 0;
	switch (a->type) {
	case TEP_PRINT_SYMBOL:
		f = symbolic_expr(a->symbol.field, &shift);
		if (f && !strcmp(f, w->field) && shift == w->shift &&
		    (!w->cond_field || branch == (int)w->cond_true))
			ret = symbolic_take(t, a->symbol.symbols, known, nr_known);
		break;
	case TEP_PRINT_TYPE:
		ret = symbolic_walk(t, a->typecast.item, w, branch, known, nr_known);
		break;
	case TEP_PRINT_FUNC:
		for (r = a->func.args; r && !ret; r = r->next)
			ret = symbolic_walk(t, r, w, branch, known, nr_known);
		break;
	case TEP_PRINT_OP:
		r = a->op.right;
		/* "c ? x : y" is parsed as op "?" (left c, right op ":" (left x, right y)). */
		if (!strcmp(a->op.op, "?") && r && r->type == TEP_PRINT_OP && !strcmp(r->op.op, ":")) {
			bool on = w->cond_field && symbolic_refers(a->op.left, w->cond_field);

			ret = symbolic_walk(t, r->op.left, w, on ? 1 : branch, known, nr_known);
			if (!ret)
				ret = symbolic_walk(t, r->op.right, w, on ? 0 : branch, known, nr_known);
		}
		break;
	default:
		break;
	}
	return ret;
}

/* symbolic_load - the wanted table from ev's print fmt, else the built-in one; 0 or -ENOMEM */
int symbolic_load(struct symbolic_table *t, struct tep_event *ev, const struct symbolic_want *w,
		const struct sym_name *known, size_t nr_known)
{
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (ev) {
		for (const struct tep_print_arg *a = ev->print_fmt.args; a && !ret && !t->from_format;
		     a = a->next)
			ret = symbolic_walk(t, a, w, -1, known, nr_known);
		if (ret) {
			symbolic_release(t);
			return ret;
		}
		/* A table none of whose identifiers we know is no better than none. */
		if (t->from_format && t->nr)
			return 0;
		t->from_format = false;
	}
	for (size_t i = 0; i < nr_known; i++) {
		if (symbolic_add(t, known[i].value, known[i].name)) {
			symbolic_release(t);
			return -ENOMEM;
		}
	}
	return 0;
}

/* symbolic_name - the name of value, or NULL */
const char *symbolic_name(const struct symbolic_table *t, uint64_t value)
{
	size_t at;

	return symbolic_find(t, value, &at) ? t->e[at].name : NULL;
}

/* symbolic_release - free the table (not the names it borrows); safe twice */
void symbolic_release(struct symbolic_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
