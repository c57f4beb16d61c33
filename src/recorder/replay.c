// SPDX-License-Identifier: GPL-2.0-or-later
/* replay.c - a dump's records made again from the ring: records and sub-buffers, in time order */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sample.h"
#include "sections.h"
#include "subbufs.h"

/* One CPU's sub-buffers: the records of the one being read, the way to its next. */
struct rp_cpu {
	int cpu;
	size_t chunk, pos;		/* where its next entry is looked for */
	uint8_t *buf;			/* the records of its current sub-buffer */
	size_t len, cap, off;		/* off: the next record's */
	uint64_t t;			/* and its time */
	bool done;
};

/* The records the flight recorder wrote, chunk after chunk. */
struct rp_recs {
	size_t chunk, pos, len;		/* a chunk's records, inflated into raw, len bytes */
	bool loaded, done;
	const struct perf_event_header *h;	/* the next one */
	uint64_t t;			/* its time; 0: none (it goes first) */
};

/* rp_collect - a decoded sub-buffer's record, appended to its CPU's */
static int rp_collect(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	struct rp_cpu *c = arg;

	if (c->len + rec->size > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16384;
		uint8_t *b;

		while (cap < c->len + rec->size)
			cap *= 2;
		b = realloc(c->buf, cap);
		if (!b)
			return -ENOMEM;
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, rec, rec->size);
	c->len += rec->size;
	return 0;
}

/* rp_cpu_time - the time of the record at c->off (a sample's: ftrace's are) */
static void rp_cpu_time(struct rp_cpu *c)
{
	if (perf_record_time((const void *)(c->buf + c->off), &c->t))
		c->t = 0;
}

/* rp_cpu_next - c's next record: decode its next sub-buffer when the last is read */
static int rp_cpu_next(struct replay *rp, struct rp_cpu *c, const struct ring_held *held,
		       size_t nr)
{
	struct ftrace_stats st = { 0 };

	if (c->off < c->len) {
		rp_cpu_time(c);
		return 0;
	}
	c->len = c->off = 0;
	while (!c->len && c->chunk < nr) {
		const struct ring_held *h = &held[c->chunk];
		const void *sub;
		size_t sublen;
		int cpu, ret = 0;

		if (subbufs_chunk(h->data, h->len))
			ret = subbufs_next(h->data, h->len, &c->pos, &cpu, &sub, &sublen);
		if (ret < 0)
			return ret;
		if (!ret) {
			c->chunk++;
			c->pos = 0;
			continue;
		}
		if (cpu != c->cpu)
			continue;
		ret = subbuf_decode(rp->dec, cpu, (void *)sub, &st, NULL, rp_collect, c);
		if (ret)
			return ret;
	}
	if (!c->len) {
		c->done = true;
		return 0;
	}
	rp_cpu_time(c);
	return 0;
}

/* rp_recs_next - the next record the flight recorder wrote, inflating its chunk when due */
static int rp_recs_next(struct replay *rp, struct rp_recs *r, const struct ring_held *held,
			size_t nr)
{
	char why[64];

	for (;;) {
		struct rec_packed pk;
		int ret;

		if (r->loaded) {
			ret = rec_sec_evts_record(rp->raw, r->len, r->pos, &r->h, why, sizeof(why));
			if (ret < 0)
				return ret;
			if (ret) {
				r->pos += r->h->size;
				if (perf_record_time(r->h, &r->t))
					r->t = 0;
				return 0;
			}
			r->loaded = false;
			r->chunk++;
		}
		while (r->chunk < nr && subbufs_chunk(held[r->chunk].data, held[r->chunk].len))
			r->chunk++;
		if (r->chunk >= nr) {
			r->done = true;
			return 0;
		}
		ret = rec_chunk_unpack(held[r->chunk].data, held[r->chunk].len, &pk);
		if (!ret)
			ret = rec_inflate(rp->z, &pk, rp->raw);
		if (ret)
			return ret;
		r->len = pk.raw_len;
		r->pos = 0;
		r->loaded = true;
	}
}

/* rp_cpus - a cursor for each CPU whose sub-buffers the chunks hold */
static int rp_cpus(const struct ring_held *held, size_t nr, struct rp_cpu **out, size_t *nr_out)
{
	struct rp_cpu *c = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < nr; i++) {
		const void *sub;
		size_t pos = 0, sublen;
		int cpu, ret;

		if (!subbufs_chunk(held[i].data, held[i].len))
			continue;
		while ((ret = subbufs_next(held[i].data, held[i].len, &pos, &cpu, &sub, &sublen)) > 0) {
			size_t j = 0;

			while (j < n && c[j].cpu != cpu)
				j++;
			if (j < n)
				continue;
			if (n == cap) {
				struct rp_cpu *g = realloc(c, (cap = cap ? 2 * cap : 8) * sizeof(*g));

				if (!g) {
					free(c);
					return -ENOMEM;
				}
				c = g;
			}
			c[n++] = (struct rp_cpu){ .cpu = cpu, .chunk = i };
		}
		if (ret < 0) {
			free(c);
			return ret;
		}
	}
	*out = c;
	*nr_out = n;
	return 0;
}

/* rp_emit - one record in order: the map learns from it and fills it; within the window, out */
static int rp_emit(struct replay *rp, struct perf_event_header *h, uint64_t t, uint64_t from,
		   uint64_t to, replay_emit_fn emit, void *arg)
{
	if (rp->tgids && tgidmap_record(rp->tgids, h))
		return 0;
	if (t && (t < from || t > to))
		return 0;
	return emit(arg, h);
}

/* replay_window - the window's records, sub-buffers decoded, all in time order */
int replay_window(struct replay *rp, const struct ring_held *held, size_t nr, uint64_t from,
		  uint64_t to, replay_emit_fn emit, void *arg)
{
	struct rp_recs r = { 0 };
	struct rp_cpu *c = NULL;
	size_t nc = 0;
	int ret = rp_cpus(held, nr, &c, &nc);

	for (size_t i = 0; !ret && i < nc; i++)
		ret = rp_cpu_next(rp, &c[i], held, nr);
	if (!ret)
		ret = rp_recs_next(rp, &r, held, nr);
	while (!ret) {
		struct rp_cpu *best = NULL;

		for (size_t i = 0; i < nc; i++)
			if (!c[i].done && (!best || c[i].t < best->t))
				best = &c[i];
		/* The recorder's records first at equal times: a FORK before the child's events. */
		if (!r.done && (!best || r.t <= best->t)) {
			/* The map fills a sample's pid in place: a copy, not the ring's chunk. */
			struct perf_event_header *h = (void *)r.h;

			if (h->type == PERF_RECORD_SAMPLE) {
				memcpy(rp->rec, r.h, r.h->size);
				h = (void *)rp->rec;
			}
			ret = rp_emit(rp, h, r.t, from, to, emit, arg);
			if (!ret)
				ret = rp_recs_next(rp, &r, held, nr);
			continue;
		}
		if (!best)
			break;
		ret = rp_emit(rp, (void *)(best->buf + best->off), best->t, from, to, emit, arg);
		best->off += ((struct perf_event_header *)(best->buf + best->off))->size;
		if (!ret)
			ret = rp_cpu_next(rp, best, held, nr);
	}
	for (size_t i = 0; i < nc; i++)
		free(c[i].buf);
	free(c);
	return ret;
}
