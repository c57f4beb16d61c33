/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksyms - kernel text symbols from /proc/kallsyms text.
 *
 * The table is built from the live /proc/kallsyms or from a buffer holding
 * the same text (a recording stores it), so symbolization works offline.
 * Only text symbols (types t, T, w, W) are kept: they are the only ones a
 * stack can point into. Symbols with address 0 (kernel.kptr_restrict hides
 * them from unprivileged readers) are dropped, so such a table is empty and
 * every lookup returns NULL; ksyms_count() tells the caller why.
 */
#ifndef IOTAP_KSYMS_H
#define IOTAP_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for vmlinux, else the [mod] column */
	char type;		/* t, T, w or W */
};

struct ksyms;

/*
 * ksyms_parse - build a table from kallsyms text.
 * @buf: the text, not necessarily NUL-terminated; it is copied.
 * @len: its length in bytes.
 * Return: the table (free it with ksyms_free()) or NULL with errno set.
 * Malformed lines are skipped.
 */
struct ksyms *ksyms_parse(const char *buf, size_t len);

/*
 * ksyms_load - read and parse a kallsyms file.
 * @path: the file; NULL means /proc/kallsyms.
 * Return: the table or NULL with errno set.
 */
struct ksyms *ksyms_load(const char *path);

/*
 * ksyms_lookup - find the symbol containing an address.
 * @ks: the table.
 * @addr: a kernel text address.
 * @offset: if not NULL, receives addr minus the symbol's start.
 * Return: the symbol with the greatest start <= addr, as long as addr is
 * below the next symbol of the same module (the last symbol of a module
 * spans at most KSYMS_TAIL_SIZE bytes); NULL when none. The pointer lives
 * as long as the table. When several names share an address one is chosen:
 * global (T) before local (t) before weak (W, w), then the name with the
 * fewest leading underscores, then the first listed.
 */
const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
				uint64_t *offset);

/* ksyms_count - number of distinct symbol addresses in the table. */
size_t ksyms_count(const struct ksyms *ks);

/*
 * ksyms_get - another reference to a table, which ksyms_free() drops: a
 * table's owner can lend it and keep it. NULL is accepted. The count is not
 * atomic: a table's references are one thread's (a session's).
 */
struct ksyms *ksyms_get(struct ksyms *ks);

/* ksyms_free - drop a reference; the last one frees the table. NULL is accepted. */
void ksyms_free(struct ksyms *ks);

/* Extent given to the last symbol of a module, whose end is not known. */
#define KSYMS_TAIL_SIZE	(64 * 1024)

#endif /* IOTAP_KSYMS_H */
