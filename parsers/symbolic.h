/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SYMBOLIC_H
#define IOTAP_SYMBOLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;

/*
 * Value -> name tables read from the __print_symbolic() calls of an event's
 * print fmt, so that a kernel that names a new opcode is understood without
 * a code change. The kernel writes some values as enum identifiers it did not
 * export (nvme_cmd_read, DID_OK): those are resolved through a built-in table,
 * which also stands in when the format has no table at all. The names are
 * not copied: they point into the event's print fmt or into the built-in
 * table, so a table lasts no longer than the tep_event it was loaded from.
 */
struct sym_name {
	uint64_t value;
	const char *name;		/* the kernel's identifier and printed name */
};

struct symbolic_ent {
	uint64_t value;
	const char *name;
};

struct symbolic_table {
	struct symbolic_ent *e;		/* sorted by value, one name each */
	size_t nr, cap;
	bool from_format;		/* false: the built-in table */
	size_t unresolved;		/* format entries whose enum value is not known */
};

/* Which __print_symbolic to take: the one over (field >> shift), optionally under a ?: */
struct symbolic_want {
	const char *field;
	unsigned int shift;
	const char *cond_field;		/* NULL, or only in a "cond_field ? a : b" branch */
	bool cond_true;			/* with cond_field: a (true) or b (false) */
};

/* symbolic_load - the wanted table from ev's print fmt, else the built-in one: 0 or -ENOMEM */
int symbolic_load(struct symbolic_table *t, struct tep_event *ev, const struct symbolic_want *w,
		const struct sym_name *known, size_t nr_known);
/* symbolic_name - the name of value, or NULL when the table has none (no error) */
const char *symbolic_name(const struct symbolic_table *t, uint64_t value);
void symbolic_release(struct symbolic_table *t);

#endif
