// SPDX-License-Identifier: GPL-2.0-or-later
/* stagehist.c - btt's request stages per disk and operation (stagehist.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blkmetrics.h"
#include "stagehist.h"

/* Log2 buckets up to 2^27 us (134 s), as the exporter's other latency histograms. */
#define STAGE_TOP 27

static const char *const stage_names[STAGE_NR] = { "Q2G", "G2I", "I2D", "D2C", "Q2C" };
static const char *const stage_op_names[] = { "read", "write", "flush", "discard", "other" };

/* stage_name - see stagehist.h */
const char *stage_name(enum stage st)
{
	return stage_names[st];
}

/* stagehist_op_name - see stagehist.h */
const char *stagehist_op_name(unsigned int op)
{
	return op < sizeof(stage_op_names) / sizeof(stage_op_names[0]) ? stage_op_names[op] : "other";
}

/* stagehist_get - disk's series of op, made empty on first use; NULL with errno ENOMEM */
static struct stage_series *stagehist_get(struct stagehist *sh, const char *disk, uint32_t dev,
					  uint8_t block_op)
{
	unsigned int op = blkmetrics_op(block_op);
	struct stage_series *s;

	for (size_t i = 0; i < sh->nr; i++)
		if (sh->s[i].op == op && !strcmp(sh->s[i].disk, disk))
			return &sh->s[i];
	if (array_reserve(&sh->s, &sh->cap, sh->nr + 1, sizeof(*sh->s), 8))
		return NULL;
	s = &sh->s[sh->nr++];
	memset(s, 0, sizeof(*s));
	s->dev = dev;
	s->op = op;
	snprintf(s->disk, sizeof(s->disk), "%s", disk);
	return s;
}

/* stagehist_add - one stage of from..to (both seen) into the series */
static int stagehist_add(struct stage_series *s, enum stage st, uint64_t from, uint64_t to)
{
	uint64_t d;

	if (!from || !to)
		return 0;
	d = to > from ? to - from : 0;
	if (hist_add(&s->ns[st], d) || hist_add(&s->us[st], d / 1000))
		return -ENOMEM;
	return 0;
}

/* stagehist_request - see stagehist.h */
int stagehist_request(struct stagehist *sh, const char *disk, const struct blk_io *io)
{
	struct stage_series *s = stagehist_get(sh, disk, io->dev, io->op);
	int ret;

	if (!s)
		return -ENOMEM;
	s->requests++;
	if (io->bios) {
		s->bios += io->bios;
		if (io->bios > s->max_bios)
			s->max_bios = io->bios;
	} else {
		s->unknown_bios++;
	}
	ret = stagehist_add(s, STAGE_Q2G, io->t_queue, io->t_getrq);
	if (!ret)
		ret = stagehist_add(s, STAGE_G2I, io->t_getrq, io->t_insert);
	if (!ret)
		ret = stagehist_add(s, STAGE_I2D, io->t_insert, io->t_issue);
	if (!ret)
		ret = stagehist_add(s, STAGE_D2C, io->t_issue, io->t_done);
	if (!ret)
		ret = stagehist_add(s, STAGE_Q2C, io->t_queue, io->t_done);
	return ret;
}

/* stagehist_bio - see stagehist.h */
int stagehist_bio(struct stagehist *sh, const char *disk, uint32_t dev, enum blk_bio_fate fate,
		  uint8_t op)
{
	struct stage_series *s = stagehist_get(sh, disk, dev, op);

	if (!s)
		return -ENOMEM;
	s->fate[fate]++;
	return 0;
}

/* stagehist_cmp - by disk name, then op */
static int stagehist_cmp(const void *a, const void *b)
{
	const struct stage_series *x = a, *y = b;
	int c = strcmp(x->disk, y->disk);

	return c ? c : (int)x->op - (int)y->op;
}

/* stagehist_sort - see stagehist.h */
void stagehist_sort(struct stagehist *sh)
{
	if (sh->nr)
		qsort(sh->s, sh->nr, sizeof(*sh->s), stagehist_cmp);
}

/* stagehist_prom - see stagehist.h */
int stagehist_prom(struct stagehist *sh, struct prom *p)
{
	char labels[256];
	int ret = 0;

	for (size_t i = 0; i < sh->nr && !ret; i++) {
		struct stage_series *s = &sh->s[i];

		for (int st = 0; st < STAGE_NR && !ret; st++) {
			if (!s->us[st].count)
				continue;
			labels[0] = 0;
			if (prom_label(labels, sizeof(labels), "disk", s->disk) ||
			    prom_label(labels, sizeof(labels), "op", stagehist_op_name(s->op)) ||
			    prom_label(labels, sizeof(labels), "stage", stage_names[st]))
				return -ENOSPC;
			ret = prom_hist_add(p, "iotap_block_request_stage_seconds",
					    "Block I/O request time per btt stage: Q2G bio queued to "
					    "request allocated, G2I to scheduler insert, I2D to issue, "
					    "D2C issue to completion, Q2C first bio queued to completion",
					    labels, &s->us[st], 1e-6, STAGE_TOP, false);
			hist_reset(&s->us[st]);
		}
	}
	return ret;
}

/* stagehist_series_release - free one series' histograms */
static void stagehist_series_release(struct stage_series *s)
{
	for (int st = 0; st < STAGE_NR; st++) {
		hist_release(&s->ns[st]);
		hist_release(&s->us[st]);
	}
}

/* stagehist_forget_disk - see stagehist.h */
void stagehist_forget_disk(struct stagehist *sh, const char *disk)
{
	for (size_t i = 0; i < sh->nr;) {
		if (strcmp(sh->s[i].disk, disk)) {
			i++;
			continue;
		}
		stagehist_series_release(&sh->s[i]);
		sh->s[i] = sh->s[--sh->nr];
	}
}

/* stagehist_reset - see stagehist.h */
void stagehist_reset(struct stagehist *sh)
{
	for (size_t i = 0; i < sh->nr; i++) {
		struct stage_series *s = &sh->s[i];

		for (int st = 0; st < STAGE_NR; st++)
			hist_reset(&s->ns[st]);
		s->requests = s->bios = s->unknown_bios = s->max_bios = 0;
		memset(s->fate, 0, sizeof(s->fate));
	}
}

/* stagehist_release - see stagehist.h */
void stagehist_release(struct stagehist *sh)
{
	for (size_t i = 0; i < sh->nr; i++)
		stagehist_series_release(&sh->s[i]);
	free(sh->s);
	sh->s = NULL;
	sh->nr = sh->cap = 0;
}
