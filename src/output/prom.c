// SPDX-License-Identifier: GPL-2.0-or-later
/* prom.c - Prometheus textfile-collector output, cumulative since start */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "outfile.h"
#include "prom.h"

enum prom_kind { PROM_COUNTER, PROM_HIST, PROM_GAUGE };

/* A bucket's bound as %.9g prints it: "-1.23456789e+308" at the longest. */
#define PROM_LE_LEN 24

/* One series: a metric with one set of labels. */
struct prom_series {
	char *metric, *help, *labels;
	enum prom_kind kind;
	unsigned int top;
	double unit;
	double value;			/* counters and gauges; histograms: the sum */
	uint64_t count;
	uint64_t slot[HIST_LOG2_SLOTS];	/* hist.le: bucket i counts (2^(i-1), 2^i] units */
	char (*le)[PROM_LE_LEN];	/* histograms: le="..." of bucket i, made at the first print */
};

struct prom {
	char *path;
	struct prom_series *s;
	size_t nr, cap;
	/*
	 * The series by metric and labels: s[i] is found by hash, not by a look
	 * through every one (an exporter with --cgroups adds thousands a page)
	 */
	struct hashtab index;
};

/* prom_alloc - see prom.h */
struct prom *prom_alloc(const char *path)
{
	struct prom *p;
	int ret;

	if (path && !*path) {
		errno = EINVAL;
		return NULL;
	}
	if (path && (ret = outfile_check(path))) {
		errno = -ret;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (hashtab_init(&p->index, 64) || (path && !(p->path = strdup(path)))) {
		hashtab_release(&p->index);
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

/* prom_free - see prom.h */
void prom_free(struct prom *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		free(p->s[i].metric);
		free(p->s[i].help);
		free(p->s[i].labels);
		free(p->s[i].le);
	}
	free(p->s);
	free(p->path);
	hashtab_release(&p->index);
	free(p);
}

/* prom_utf8_len - length of the valid UTF-8 sequence at s, 0 when invalid */
static size_t prom_utf8_len(const unsigned char *s)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong three-byte forms, surrogates, and code points above U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* prom_label - see prom.h */
int prom_label(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf), start = n;
	const unsigned char *v = (const unsigned char *)value;

#define PROM_PUT(c) do { if (n + 1 >= len) goto nospc; buf[n++] = (c); } while (0)
	if (n)
		PROM_PUT(',');
	for (const char *c = name; *c; c++)
		PROM_PUT(*c);
	PROM_PUT('=');
	PROM_PUT('"');
	while (*v) {
		size_t u = prom_utf8_len(v);

		if (*v == '\\' || *v == '"') {
			PROM_PUT('\\');
			PROM_PUT(*v);
		} else if (*v == '\n') {
			PROM_PUT('\\');
			PROM_PUT('n');
		} else if (!u) {
			PROM_PUT('?');
			u = 1;
		} else {
			for (size_t i = 0; i < u; i++)
				PROM_PUT(v[i]);
		}
		v += u;
	}
	PROM_PUT('"');
	buf[n] = 0;
	return 0;
#undef PROM_PUT
nospc:
	buf[start] = 0;
	return -ENOSPC;
}

/* prom_name_valid - [a-zA-Z_:][a-zA-Z0-9_:]* */
static bool prom_name_valid(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == ':'))
			return false;
	return true;
}

/* prom_hash - the index's hash of a series' metric and labels */
static uint32_t prom_hash(const char *metric, const char *labels)
{
	/* The NUL between them: "a" with "bc" is not "ab" with "c". */
	return hashtab_mix(hashtab_fnv_str(hashtab_fnv(hashtab_fnv_str(HASHTAB_FNV_BASIS, metric),
						       "", 1), labels));
}

/*
 * prom_reindex - the index again, once series moved (sorted, dropped): as many or fewer
 * than it held, so it has the room and cannot fail
 */
static void prom_reindex(struct prom *p)
{
	struct hashtab_pos pos;
	uint32_t *v;

	hashtab_clear(&p->index);
	for (size_t i = 0; i < p->nr; i++) {
		for (v = hashtab_find(&p->index, prom_hash(p->s[i].metric, p->s[i].labels), &pos); v;
		     v = hashtab_find_next(&p->index, &pos))
			;
		(void)hashtab_add(&p->index, &pos, (uint32_t)i);
	}
}

/* prom_series_get - the series metric{labels}, created empty the first time */
static struct prom_series *prom_series_get(struct prom *p, enum prom_kind kind, const char *metric,
					   const char *help, const char *labels)
{
	struct hashtab_pos pos;
	struct prom_series *s;
	uint32_t *v;

	labels = labels ? labels : "";
	for (v = hashtab_find(&p->index, prom_hash(metric, labels), &pos); v;
	     v = hashtab_find_next(&p->index, &pos))
		if (!strcmp(p->s[*v].metric, metric) && !strcmp(p->s[*v].labels, labels))
			return p->s[*v].kind == kind ? &p->s[*v] : NULL;
	if (p->nr >= UINT32_MAX || array_reserve(&p->s, &p->cap, p->nr + 1, sizeof(*p->s), 16))
		return NULL;
	s = &p->s[p->nr];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->metric = strdup(metric);
	s->help = strdup(help ? help : metric);
	s->labels = strdup(labels);
	if (!s->metric || !s->help || !s->labels || hashtab_add(&p->index, &pos, (uint32_t)p->nr)) {
		free(s->metric);
		free(s->help);
		free(s->labels);
		return NULL;
	}
	p->nr++;
	return s;
}

/* prom_slots_add - a histogram's slots, count and sum into metric{labels} (prom_hist_add) */
static int prom_slots_add(struct prom *p, const char *metric, const char *help,
			  const char *labels, const uint64_t *b, uint64_t count, uint64_t sum,
			  double unit, unsigned int top)
{
	struct prom_series *s;

	if (!prom_name_valid(metric) || !top || top >= HIST_LOG2_SLOTS)
		return -EINVAL;
	s = prom_series_get(p, PROM_HIST, metric, help, labels);
	if (!s)
		return -ENOMEM;
	if (!s->top) {
		s->top = top;
		s->unit = unit;
	}
	for (int i = 0; i < HIST_LOG2_SLOTS; i++)
		s->slot[i] += b[i];
	s->count += count;
	s->value += sum * unit;
	return 0;
}

/* prom_hist_add - see prom.h */
int prom_hist_add(struct prom *p, const char *metric, const char *help, const char *labels,
		  const struct hist *h, double unit, unsigned int top, bool exact)
{
	return prom_slots_add(p, metric, help, labels, exact ? h->le : h->slot, h->count, h->sum,
			      unit, top);
}

/* prom_buckets_add - see prom.h */
int prom_buckets_add(struct prom *p, const char *metric, const char *help, const char *labels,
		     const struct hist_buckets *b, double unit, unsigned int top)
{
	return prom_slots_add(p, metric, help, labels, b->slot, b->count, b->sum, unit, top);
}

/* prom_hist_set_add - see prom.h */
int prom_hist_set_add(struct prom *p, const char *metric, const char *help, const char *label,
		      const struct hist_set *hs, double unit, unsigned int top, bool exact)
{
	char labels[512];
	int ret = 0;

	for (size_t i = 0; i < hs->nr && !ret; i++) {
		labels[0] = 0;
		if (label && hs->keys[i][0] && prom_label(labels, sizeof(labels), label, hs->keys[i]))
			return -ENOSPC;
		ret = prom_hist_add(p, metric, help, labels, &hs->h[i], unit, top, exact);
	}
	return ret;
}

/* prom_counter_add - see prom.h */
int prom_counter_add(struct prom *p, const char *metric, const char *help, const char *labels,
		     double v)
{
	struct prom_series *s;

	if (!prom_name_valid(metric))
		return -EINVAL;
	s = prom_series_get(p, PROM_COUNTER, metric, help, labels);
	if (!s)
		return -ENOMEM;
	s->value += v;
	return 0;
}

/* prom_gauge_set - see prom.h */
int prom_gauge_set(struct prom *p, const char *metric, const char *help, const char *labels,
		   double v)
{
	struct prom_series *s;

	if (!prom_name_valid(metric))
		return -EINVAL;
	s = prom_series_get(p, PROM_GAUGE, metric, help, labels);
	if (!s)
		return -ENOMEM;
	s->value = v;
	return 0;
}

/* prom_has_label - whether the label list has label (name="value", escaped) as one of its own */
static bool prom_has_label(const char *labels, const char *label)
{
	size_t len = strlen(label);

	for (const char *at = labels; (at = strstr(at, label)); at++)
		if ((at == labels || at[-1] == ',') && (at[len] == ',' || !at[len]))
			return true;
	return false;
}

/* prom_drop - see prom.h */
size_t prom_drop(struct prom *p, const char *name, const char *value)
{
	char label[256] = "";
	size_t kept = 0, dropped;

	if (prom_label(label, sizeof(label), name, value))
		return 0;
	for (size_t i = 0; i < p->nr; i++) {
		struct prom_series *s = &p->s[i];

		if (!prom_has_label(s->labels, label)) {
			p->s[kept++] = *s;
			continue;
		}
		free(s->metric);
		free(s->help);
		free(s->labels);
		free(s->le);
	}
	dropped = p->nr - kept;
	p->nr = kept;
	if (dropped)
		prom_reindex(p);
	return dropped;
}

/* prom_cmp - by metric, then labels: one family's series together */
static int prom_cmp(const void *a, const void *b)
{
	const struct prom_series *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);

	return c ? c : strcmp(x->labels, y->labels);
}

/* prom_help - the HELP text, escaped (\\ and \n) */
static void prom_help(FILE *f, const char *s)
{
	for (;;) {
		size_t n = strcspn(s, "\\\n");

		fwrite(s, 1, n, f);
		s += n;
		if (!*s)
			return;
		fputs(*s == '\\' ? "\\\\" : "\\n", f);
		s++;
	}
}

/* prom_put_u64 - v in decimal, then a newline */
static void prom_put_u64(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = '\n';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	fwrite(p, 1, buf + sizeof(buf) - p, f);
}

/* prom_put_value - v as %.15g prints it, then a newline; a whole number without printf's cost */
static void prom_put_value(FILE *f, double v)
{
	/* Below 1e15, %.15g prints a whole number's digits as they are. */
	if (v >= 0 && v < 1e15 && v == (double)(uint64_t)v)
		prom_put_u64(f, (uint64_t)v);
	else
		fprintf(f, "%.15g\n", v);
}

/* prom_put_name - metric and suffix, then {labels} when there are any, then a space */
static void prom_put_name(FILE *f, const struct prom_series *s, const char *suffix)
{
	fputs(s->metric, f);
	fputs(suffix, f);
	if (*s->labels) {
		fputc('{', f);
		fputs(s->labels, f);
		fputc('}', f);
	}
	fputc(' ', f);
}

/* prom_put_bucket - metric_bucket{labels,le="le"} cum */
static void prom_put_bucket(FILE *f, const struct prom_series *s, const char *le, uint64_t cum)
{
	fputs(s->metric, f);
	fputs("_bucket{", f);
	fputs(s->labels, f);
	fputs(*s->labels ? ",le=\"" : "le=\"", f);
	fputs(le, f);
	fputs("\"} ", f);
	prom_put_u64(f, cum);
}

/*
 * prom_series_write - one series: a counter line, or buckets, sum and count.
 * -ENOMEM: no room for a histogram's bounds, which it keeps from its first page on.
 */
static int prom_series_write(FILE *f, struct prom_series *s)
{
	uint64_t cum = 0;

	if (s->kind != PROM_HIST) {
		prom_put_name(f, s, "");
		prom_put_value(f, s->value);
		return 0;
	}
	if (!s->le) {
		s->le = malloc((s->top + 1) * sizeof(*s->le));
		if (!s->le)
			return -ENOMEM;
		for (unsigned int i = 1; i <= s->top; i++)
			snprintf(s->le[i], sizeof(s->le[i]), "%.9g", (double)(1ull << i) * s->unit);
	}
	for (unsigned int i = 0; i <= s->top; i++) {
		cum += s->slot[i];
		if (i)
			prom_put_bucket(f, s, s->le[i], cum);
	}
	prom_put_bucket(f, s, "+Inf", s->count);
	prom_put_name(f, s, "_sum");
	prom_put_value(f, s->value);
	prom_put_name(f, s, "_count");
	prom_put_u64(f, s->count);
	return 0;
}

/* prom_kind_name - the TYPE line's word for a kind */
static const char *prom_kind_name(enum prom_kind kind)
{
	return kind == PROM_HIST ? "histogram" : kind == PROM_GAUGE ? "gauge" : "counter";
}

/* prom_print - see prom.h */
int prom_print(struct prom *p, FILE *f)
{
	if (p->nr) {
		qsort(p->s, p->nr, sizeof(*p->s), prom_cmp);
		prom_reindex(p);
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct prom_series *s = &p->s[i];

		if (!i || strcmp(s->metric, p->s[i - 1].metric)) {
			fprintf(f, "# HELP %s ", s->metric);
			prom_help(f, s->help);
			fprintf(f, "\n# TYPE %s %s\n", s->metric, prom_kind_name(s->kind));
		}
		if (prom_series_write(f, s))
			return -ENOMEM;
	}
	return ferror(f) ? -EIO : 0;
}

/* prom_write - see prom.h */
int prom_write(struct prom *p)
{
	struct outfile of;
	int ret;

	if (!p->path)
		return -EINVAL;
	/* 0644: node_exporter reads the file as its own user. */
	ret = outfile_open(&of, p->path, 0644);
	if (ret)
		return ret;
	ret = prom_print(p, of.f);
	if (ret) {
		outfile_abort(&of);
		return ret;
	}
	return outfile_commit(&of);
}
