// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksyms - kernel text symbols from /proc/kallsyms text.
 *
 * The text is kept in one owned buffer and split in place, so names and
 * module names point into it: one allocation for the text, one for the
 * sorted array, whatever the number of symbols.
 */
#include "ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ksym_entry {
	struct ksym sym;
	uint64_t end;		/* first address past the symbol */
};

struct ksyms {
	char *text;		/* owned copy of the text, split in place */
	struct ksym_entry *syms; /* sorted by address, one per address */
	size_t nr;
	unsigned int refs;	/* ksyms_get() and the first: ksyms_free() drops one */
};

/* ksym_type_rank - preference among names sharing an address, lower wins */
static int ksym_type_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 't':
		return 1;
	case 'W':
		return 2;
	default:
		return 3;
	}
}

/* ksym_underscores - number of leading underscores of a name */
static int ksym_underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* ksym_entry_cmp - qsort order: address, then preference, then file order */
static int ksym_entry_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = &((const struct ksym_entry *)pa)->sym;
	const struct ksym *b = &((const struct ksym_entry *)pb)->sym;
	int ra, rb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	ra = ksym_type_rank(a->type);
	rb = ksym_type_rank(b->type);
	if (ra != rb)
		return ra - rb;
	ra = ksym_underscores(a->name);
	rb = ksym_underscores(b->name);
	if (ra != rb)
		return ra - rb;
	/* names point into the text in file order */
	return a->name < b->name ? -1 : a->name > b->name;
}

/* ksym_hex_parse - parse a hex number, advancing *pp; false when none */
static bool ksym_hex_parse(char **pp, char *end, uint64_t *val)
{
	char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	for (; p < end; p++, digits++) {
		unsigned int c = (unsigned char)*p;

		if (c - '0' < 10)
			c -= '0';
		else if ((c | 0x20) - 'a' < 6)
			c = (c | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | c;
	}
	if (digits == 0 || digits > 16)
		return false;
	*pp = p;
	*val = v;
	return true;
}

/* ksym_line_parse - split one line "addr type name[\t[mod]]" in place */
static bool ksym_line_parse(char *p, char *eol, const char **last_mod,
			    struct ksym *sym)
{
	char *name, *mod;

	if (!ksym_hex_parse(&p, eol, &sym->addr))
		return false;
	if (eol - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	sym->type = p[1];
	if (sym->type != 't' && sym->type != 'T' && sym->type != 'w' &&
	    sym->type != 'W')
		return false;
	name = p + 3;
	for (p = name; p < eol && *p != '\t' && *p != ' '; p++)
		;
	if (p == name)
		return false;
	sym->name = name;
	sym->module = NULL;
	if (p < eol) {
		*p++ = '\0';
		while (p < eol && (*p == '\t' || *p == ' '))
			p++;
		if (p < eol && *p == '[') {
			mod = ++p;
			while (p < eol && *p != ']')
				p++;
			*p = '\0';
			/* module lines come grouped: share one string each */
			if (*last_mod && strcmp(*last_mod, mod) == 0)
				mod = (char *)*last_mod;
			*last_mod = mod;
			sym->module = mod;
		}
	}
	*eol = '\0';
	return true;
}

/* ksym_same_module - whether two symbols belong to the same module */
static bool ksym_same_module(const struct ksym *a, const struct ksym *b)
{
	if (a->module == b->module)
		return true;
	if (!a->module || !b->module)
		return false;
	return strcmp(a->module, b->module) == 0;
}

/* ksyms_index - parse ks->text (len bytes plus a NUL) into ks->syms */
static int ksyms_index(struct ksyms *ks, size_t len)
{
	const char *last_mod = NULL;
	char *p = ks->text, *end = ks->text + len, *eol;
	size_t lines = 1, i, nr;

	for (eol = p; (eol = memchr(eol, '\n', end - eol)); eol++)
		lines++;
	ks->syms = malloc(lines * sizeof(*ks->syms));
	if (!ks->syms)
		return -ENOMEM;

	for (nr = 0; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;	/* the NUL after the text */
		if (!ksym_line_parse(p, eol, &last_mod, &ks->syms[nr].sym))
			continue;
		if (ks->syms[nr].sym.addr == 0)
			continue;	/* hidden by kptr_restrict */
		nr++;
	}

	if (nr)
		qsort(ks->syms, nr, sizeof(*ks->syms), ksym_entry_cmp);

	/* keep the preferred name of each address: it sorts first */
	ks->nr = 0;
	for (i = 0; i < nr; i++) {
		if (ks->nr && ks->syms[ks->nr - 1].sym.addr == ks->syms[i].sym.addr)
			continue;
		ks->syms[ks->nr++] = ks->syms[i];
	}

	for (i = 0; i < ks->nr; i++) {
		struct ksym_entry *e = &ks->syms[i];

		if (i + 1 < ks->nr && ksym_same_module(&e->sym, &ks->syms[i + 1].sym))
			e->end = ks->syms[i + 1].sym.addr;
		else if (e->sym.addr > UINT64_MAX - KSYMS_TAIL_SIZE)
			e->end = UINT64_MAX;
		else
			e->end = e->sym.addr + KSYMS_TAIL_SIZE;
	}
	return 0;
}

/* ksyms_from_text - take ownership of text (len bytes + room for a NUL) */
static struct ksyms *ksyms_from_text(char *text, size_t len)
{
	struct ksyms *ks;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	ks->refs = 1;
	ks->text = text;
	ks->text[len] = '\0';
	err = ksyms_index(ks, len);
	if (err) {
		ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

/* ksyms_parse - build a table from kallsyms text */
struct ksyms *ksyms_parse(const char *buf, size_t len)
{
	char *text;

	if (!buf && len) {
		errno = EINVAL;
		return NULL;
	}
	text = malloc(len + 1);
	if (!text) {
		errno = ENOMEM;
		return NULL;
	}
	if (len)
		memcpy(text, buf, len);
	return ksyms_from_text(text, len);
}

/* ksyms_load - read and parse a kallsyms file */
struct ksyms *ksyms_load(const char *path)
{
	size_t cap = 8 << 20, len = 0;
	char *text, *bigger;
	ssize_t n;
	int fd, err;

	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	text = malloc(cap);
	if (!text) {
		err = ENOMEM;
		goto close_fd;
	}
	for (;;) {
		/* keep one byte for the NUL ksyms_from_text() adds */
		if (cap - len < 2) {
			bigger = realloc(text, cap * 2);
			if (!bigger) {
				err = ENOMEM;
				goto free_text;
			}
			text = bigger;
			cap *= 2;
		}
		n = read(fd, text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			goto free_text;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	return ksyms_from_text(text, len);

free_text:
	free(text);
close_fd:
	close(fd);
	errno = err;
	return NULL;
}

/* ksyms_lookup - find the symbol containing an address */
const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
				uint64_t *offset)
{
	size_t lo = 0, hi, mid;
	const struct ksym_entry *e;

	if (!ks || !ks->nr)
		return NULL;
	/* find the first symbol above addr; the one before it is the answer */
	hi = ks->nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].sym.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	e = &ks->syms[lo - 1];
	if (addr >= e->end)
		return NULL;
	if (offset)
		*offset = addr - e->sym.addr;
	return &e->sym;
}

/* ksyms_count - number of distinct symbol addresses in the table */
size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

/* ksyms_get - another reference to the table (ksyms.h) */
struct ksyms *ksyms_get(struct ksyms *ks)
{
	if (ks)
		ks->refs++;
	return ks;
}

/* ksyms_free - drop a reference; the last one frees the table; NULL is accepted */
void ksyms_free(struct ksyms *ks)
{
	if (!ks || --ks->refs)
		return;
	free(ks->syms);
	free(ks->text);
	free(ks);
}
