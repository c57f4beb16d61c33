// SPDX-License-Identifier: GPL-2.0-or-later
/* pprof.c - a pprof profile built from stacks: strings, functions, locations, samples kept once */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "pprof-local.h"

#define PPROF_MIN_SLOTS 256

/* pprof_set_init - an empty set: 0 or -ENOMEM */
static int pprof_set_init(struct pprof_set *s)
{
	memset(s, 0, sizeof(*s));
	return hashtab_init(&s->index, PPROF_MIN_SLOTS);
}

/* pprof_set_release - free a set's memory; safe on a zeroed one */
static void pprof_set_release(struct pprof_set *s)
{
	free(s->words);
	free(s->recs);
	hashtab_release(&s->index);
}

/* pprof_words_hash - the table hash of nr words */
static uint32_t pprof_words_hash(const uint64_t *w, uint32_t nr)
{
	return hashtab_mix(hashtab_fnv(HASHTAB_FNV_BASIS, w, nr * sizeof(*w)));
}

/* pprof_set_intern - the id of the record w[0..nr), added if new: 0 or -ENOMEM (s unchanged) */
static int pprof_set_intern(struct pprof_set *s, const uint64_t *w, uint32_t nr, uint64_t *id)
{
	struct hashtab_pos pos;
	uint32_t *i;

	for (i = hashtab_find(&s->index, pprof_words_hash(w, nr), &pos); i;
	     i = hashtab_find_next(&s->index, &pos)) {
		const struct pprof_rec *r = &s->recs[*i];

		if (r->nr == nr && !memcmp(s->words + r->off, w, nr * sizeof(*w))) {
			*id = (uint64_t)*i + 1;
			return 0;
		}
	}
	if (s->nr >= UINT32_MAX - 1 ||
	    array_reserve(&s->words, &s->cap, s->len + nr + 1, sizeof(*s->words), 256) ||
	    array_reserve(&s->recs, &s->cap_recs, s->nr + 1, sizeof(*s->recs), 64) ||
	    hashtab_add(&s->index, &pos, (uint32_t)s->nr))
		return -ENOMEM;
	if (nr)
		memcpy(s->words + s->len, w, nr * sizeof(*w));
	s->recs[s->nr] = (struct pprof_rec){ .off = s->len, .nr = nr };
	s->len += nr;
	*id = ++s->nr;
	return 0;
}

/* pprof_str - the string table index of s (NULL: ""), added if new: 0 or -ENOMEM */
static int pprof_str(struct pprof *p, const char *s, uint64_t *idx)
{
	struct pprof_strings *t = &p->strings;
	struct hashtab_pos pos;
	size_t len;
	uint32_t *i;

	if (!s)
		s = "";
	for (i = hashtab_find(&t->index, hashtab_mix(hashtab_fnv_str(HASHTAB_FNV_BASIS, s)), &pos);
	     i; i = hashtab_find_next(&t->index, &pos)) {
		if (!strcmp(t->buf + t->offs[*i], s)) {
			*idx = *i;
			return 0;
		}
	}
	len = strlen(s) + 1;
	if (t->nr >= UINT32_MAX - 1 ||
	    array_reserve(&t->buf, &t->cap, t->len + len, 1, 4096) ||
	    array_reserve(&t->offs, &t->cap_offs, t->nr + 1, sizeof(*t->offs), 256) ||
	    hashtab_add(&t->index, &pos, (uint32_t)t->nr))
		return -ENOMEM;
	memcpy(t->buf + t->len, s, len);
	t->offs[t->nr] = t->len;
	t->len += len;
	*idx = t->nr++;
	return 0;
}

/* pprof_alloc - an empty profile of these sample types */
struct pprof *pprof_alloc(const struct pprof_type *types, size_t nr_types)
{
	struct pprof *p;
	uint64_t empty;

	if (!types || !nr_types || nr_types > PPROF_TYPES_MAX) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	if (hashtab_init(&p->strings.index, PPROF_MIN_SLOTS) || pprof_set_init(&p->functions) ||
	    pprof_set_init(&p->mappings) || pprof_set_init(&p->locations) ||
	    pprof_set_init(&p->samples) || pprof_str(p, "", &empty))
		goto free_p;
	for (size_t i = 0; i < nr_types; i++)
		if (pprof_str(p, types[i].type, &p->types[i][0]) ||
		    pprof_str(p, types[i].unit, &p->types[i][1]))
			goto free_p;
	p->nr_types = nr_types;
	return p;

free_p:
	pprof_free(p);
	errno = ENOMEM;
	return NULL;
}

/* pprof_free - release the profile; NULL is accepted */
void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	free(p->strings.buf);
	free(p->strings.offs);
	hashtab_release(&p->strings.index);
	pprof_set_release(&p->functions);
	pprof_set_release(&p->mappings);
	pprof_set_release(&p->locations);
	pprof_set_release(&p->samples);
	free(p->values);
	free(p->comments);
	free(p);
}

/* pprof_function - the id of a frame's function (its name and file): 0 or -ENOMEM */
static int pprof_function(struct pprof *p, const struct pprof_frame *f, uint64_t *id)
{
	uint64_t w[2];
	int ret = pprof_str(p, f->function, &w[0]);

	if (!ret)
		ret = pprof_str(p, f->file, &w[1]);
	return ret ? ret : pprof_set_intern(&p->functions, w, 2, id);
}

/*
 * pprof_location - the id of the location of frames[0..n): the frames inlined into the last,
 * and the last, all at one address; words is room for 2 + 2n words. 0 or -ENOMEM
 */
static int pprof_location(struct pprof *p, const struct pprof_frame *frames, size_t n,
			  uint64_t *words, uint64_t *id)
{
	const struct pprof_frame *last = &frames[n - 1];
	uint32_t nr = PPROF_LOC_LINES;
	uint64_t file;
	int ret;

	words[PPROF_LOC_MAPPING] = 0;
	if (last->mapping) {
		ret = pprof_str(p, last->mapping, &file);
		if (!ret)
			ret = pprof_set_intern(&p->mappings, &file, 1, &words[PPROF_LOC_MAPPING]);
		if (ret)
			return ret;
	}
	words[PPROF_LOC_ADDRESS] = last->address;
	for (size_t i = 0; i < n; i++) {
		if (!frames[i].function || !frames[i].function[0])
			continue;
		ret = pprof_function(p, &frames[i], &words[nr]);
		if (ret)
			return ret;
		words[nr + 1] = (uint64_t)(frames[i].line > 0 ? frames[i].line : 0);
		nr += 2;
	}
	return pprof_set_intern(&p->locations, words, nr, id);
}

/*
 * pprof_stack_words - into w (room for 1 + nr + 2 * nr_labels), the sample's record: its
 * locations and labels; their number in *len. 0, -EINVAL or -ENOMEM
 */
static int pprof_stack_words(struct pprof *p, const struct pprof_frame *frames, size_t nr,
			     const struct pprof_label *labels, size_t nr_labels, uint64_t *w,
			     uint64_t *scratch, uint32_t *len)
{
	uint32_t n = 1;
	size_t first = 0;
	int ret;

	for (size_t i = 0; i < nr; i++) {
		if (frames[i].inlined)
			continue;
		ret = pprof_location(p, frames + first, i + 1 - first, scratch, &w[n++]);
		if (ret)
			return ret;
		first = i + 1;
	}
	if (first != nr)
		return -EINVAL;
	w[0] = n - 1;
	for (size_t i = 0; i < nr_labels; i++) {
		if (!labels[i].value || !labels[i].value[0])
			continue;
		ret = pprof_str(p, labels[i].key, &w[n]);
		if (!ret)
			ret = pprof_str(p, labels[i].value, &w[n + 1]);
		if (ret)
			return ret;
		n += 2;
	}
	*len = n;
	return 0;
}

/* pprof_sample_add - add values to a stack with its labels */
int pprof_sample_add(struct pprof *p, const struct pprof_frame *frames, size_t nr,
		     const uint64_t *values, const struct pprof_label *labels, size_t nr_labels)
{
	size_t before = p->samples.nr;
	uint64_t *w, id;
	int64_t *v;
	uint32_t len;
	int ret;

	if ((!frames && nr) || nr > UINT32_MAX / 4 || nr_labels > UINT32_MAX / 4)
		return -EINVAL;
	for (size_t t = 0; t < p->nr_types; t++)
		if (values[t] > INT64_MAX)
			return -EOVERFLOW;
	if (array_reserve(&p->values, &p->cap_values, (p->samples.nr + 1) * p->nr_types,
			  sizeof(*p->values), 256))
		return -ENOMEM;
	/* The record, then room for the words of the largest location (every frame at once). */
	w = malloc((1 + nr + 2 * nr_labels + PPROF_LOC_LINES + 2 * nr) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = pprof_stack_words(p, frames, nr, labels, nr_labels, w, w + 1 + nr + 2 * nr_labels,
				&len);
	if (!ret)
		ret = pprof_set_intern(&p->samples, w, len, &id);
	free(w);
	if (ret)
		return ret;
	v = p->values + (id - 1) * p->nr_types;
	if (p->samples.nr != before) {
		/* New: its values start at 0 (the reserve above made their room). */
		for (size_t t = 0; t < p->nr_types; t++)
			v[t] = 0;
	}
	for (size_t t = 0; t < p->nr_types; t++)
		if (values[t] > (uint64_t)(INT64_MAX - v[t]))
			return -EOVERFLOW;
	for (size_t t = 0; t < p->nr_types; t++)
		v[t] += (int64_t)values[t];
	return 0;
}

/* pprof_comment_add - a line of text shown with the profile */
int pprof_comment_add(struct pprof *p, const char *text)
{
	uint64_t idx;

	if (array_reserve(&p->comments, &p->cap_comments, p->nr_comments + 1,
			  sizeof(*p->comments), 4) || pprof_str(p, text, &idx))
		return -ENOMEM;
	p->comments[p->nr_comments++] = idx;
	return 0;
}

/* pprof_time_set - when what the profile measures began, and for how long */
void pprof_time_set(struct pprof *p, int64_t time_ns, int64_t duration_ns)
{
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

/* pprof_default_type_set - the sample type a viewer shows first */
int pprof_default_type_set(struct pprof *p, size_t type)
{
	if (type >= p->nr_types)
		return -EINVAL;
	p->default_type = type;
	return 0;
}

/* pprof_nr_samples - the distinct samples so far */
size_t pprof_nr_samples(const struct pprof *p)
{
	return p->samples.nr;
}
