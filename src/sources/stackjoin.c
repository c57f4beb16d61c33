// SPDX-License-Identifier: GPL-2.0-or-later
/* stackjoin.c - an event's lossless ftrace copies joined with its perf samples' callchains */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "array.h"
#include "sample.h"
#include "stackjoin.h"

/* How far perf's and ftrace's clocks may stand apart for one event (measured: 14 us). */
#define STACKJOIN_SKEW_NS 1000000ull
/* Records that went out alone, remembered per CPU and side to drop a late twin. */
#define STACKJOIN_ORPHANS 64

struct sj_event {
	uint64_t perf_type, regs_mask, perf_id;
	struct stackjoin_range *key;
	size_t nr_key;
	struct stackjoin_stats st;
};

/* One held record: a copy, and what identifies its event. */
struct sj_ent {
	struct perf_event_header *rec;
	uint64_t time;
	uint32_t tid;
	uint32_t event;
	uint32_t raw_off, raw_size;
	bool done;
};

struct sj_queue {
	struct sj_ent *v;
	size_t nr, cap;
};

/* A record that went out without its twin: enough of it to know the twin. */
struct sj_orphan {
	uint64_t hash;
	uint32_t tid, event;
	bool used;
};

struct sj_cpu {
	struct sj_queue q[2];			/* by enum stackjoin_side */
	struct sj_orphan orphan[2][STACKJOIN_ORPHANS];
	unsigned int orphan_next[2];
};

struct stackjoin {
	uint64_t grace;
	struct sj_event *ev;
	size_t nr_ev, cap_ev;
	struct sj_cpu *cpu;
	size_t nr_cpu;
	uint8_t rec[PERF_RECORD_MAX];		/* a substitute being laid out */
};

/* stackjoin_alloc - see stackjoin.h */
struct stackjoin *stackjoin_alloc(uint64_t grace_ns)
{
	struct stackjoin *sj = calloc(1, sizeof(*sj));

	if (sj)
		sj->grace = grace_ns;
	return sj;
}

/* stackjoin_free - see stackjoin.h */
void stackjoin_free(struct stackjoin *sj)
{
	if (!sj)
		return;
	for (size_t c = 0; c < sj->nr_cpu; c++) {
		for (int side = 0; side < 2; side++) {
			struct sj_queue *q = &sj->cpu[c].q[side];

			for (size_t i = 0; i < q->nr; i++)
				free(q->v[i].rec);
			free(q->v);
		}
	}
	free(sj->cpu);
	for (size_t i = 0; i < sj->nr_ev; i++)
		free(sj->ev[i].key);
	free(sj->ev);
	free(sj);
}

/* sj_range_cmp - qsort order of byte ranges */
static int sj_range_cmp(const void *a, const void *b)
{
	const struct stackjoin_range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* stackjoin_event_add - see stackjoin.h */
int stackjoin_event_add(struct stackjoin *sj, uint64_t perf_type, uint64_t regs_mask,
			uint64_t perf_id, const struct stackjoin_range *key, size_t nr_key)
{
	struct stackjoin_range *k = NULL;
	size_t n = 0;

	if (array_reserve(&sj->ev, &sj->cap_ev, sj->nr_ev + 1, sizeof(*sj->ev), 4))
		return -ENOMEM;
	if (nr_key) {
		k = malloc(nr_key * sizeof(*k));
		if (!k)
			return -ENOMEM;
		memcpy(k, key, nr_key * sizeof(*k));
		qsort(k, nr_key, sizeof(*k), sj_range_cmp);
		/* Adjacent fields make one range: fewer, longer compares. */
		for (size_t i = 0; i < nr_key; i++) {
			if (n && !k[n - 1].string && !k[i].string &&
			    k[n - 1].off + k[n - 1].len >= k[i].off) {
				uint32_t end = k[i].off + k[i].len;

				if (end > k[n - 1].off + k[n - 1].len)
					k[n - 1].len = end - k[n - 1].off;
			} else {
				k[n++] = k[i];
			}
		}
	}
	sj->ev[sj->nr_ev] = (struct sj_event){
		.perf_type = perf_type,
		.regs_mask = regs_mask,
		.perf_id = perf_id,
		.key = k,
		.nr_key = n,
	};
	return (int)sj->nr_ev++;
}

/* sj_cpu_get - the queues of cpu, made on first use */
static struct sj_cpu *sj_cpu_get(struct stackjoin *sj, uint32_t cpu)
{
	if (cpu >= sj->nr_cpu) {
		struct sj_cpu *v;

		/* CPU numbers come from the kernel's records: no more than it can have. */
		if (cpu >= 8192)
			return NULL;
		v = realloc(sj->cpu, (cpu + 1) * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + sj->nr_cpu, 0, (cpu + 1 - sj->nr_cpu) * sizeof(*v));
		sj->cpu = v;
		sj->nr_cpu = cpu + 1;
	}
	return &sj->cpu[cpu];
}

/* sj_key - key range i of a record, cut to its raw data; its length in *len */
static const uint8_t *sj_key(const struct stackjoin *sj, const struct sj_ent *e, size_t i,
			     uint32_t *len)
{
	const struct stackjoin_range *k = &sj->ev[e->event].key[i];

	const uint8_t *p = (const uint8_t *)e->rec + e->raw_off + k->off;
	const uint8_t *nul;

	if (k->off >= e->raw_size)
		*len = 0;
	else
		*len = k->len < e->raw_size - k->off ? k->len : e->raw_size - k->off;
	if (k->string && (nul = memchr(p, 0, *len)))
		*len = (uint32_t)(nul - p);
	return p;
}

/* sj_hash - FNV-1a of an event's key */
static uint64_t sj_hash(const struct stackjoin *sj, const struct sj_ent *e)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t r = 0; r < sj->ev[e->event].nr_key; r++) {
		uint32_t len;
		const uint8_t *k = sj_key(sj, e, r, &len);

		for (uint32_t i = 0; i < len; i++)
			h = (h ^ k[i]) * 0x100000001b3ull;
	}
	return h;
}

/* sj_match - whether two records, one of each side, are copies of one event */
static bool sj_match(const struct stackjoin *sj, const struct sj_ent *a, const struct sj_ent *b)
{
	if (a->event != b->event || a->tid != b->tid)
		return false;
	for (size_t r = 0; r < sj->ev[a->event].nr_key; r++) {
		uint32_t la, lb;
		const uint8_t *ka = sj_key(sj, a, r, &la), *kb = sj_key(sj, b, r, &lb);

		if (la != lb || memcmp(ka, kb, la))
			return false;
	}
	return true;
}

/* sj_orphan_take - whether e is the late twin of a record that went out alone from other */
static bool sj_orphan_take(const struct stackjoin *sj, struct sj_cpu *c, int other,
			   const struct sj_ent *e)
{
	uint64_t h = 0;
	bool hashed = false;

	for (int i = 0; i < STACKJOIN_ORPHANS; i++) {
		struct sj_orphan *o = &c->orphan[other][i];

		if (!o->used || o->event != e->event || o->tid != e->tid)
			continue;
		if (!hashed) {
			h = sj_hash(sj, e);
			hashed = true;
		}
		if (o->hash == h) {
			o->used = false;
			return true;
		}
	}
	return false;
}

/* sj_orphan_add - remember a record that went out alone; the oldest memory makes room */
static void sj_orphan_add(const struct stackjoin *sj, struct sj_cpu *c, int side,
			  const struct sj_ent *e)
{
	struct sj_orphan *o = &c->orphan[side][c->orphan_next[side]++ % STACKJOIN_ORPHANS];

	*o = (struct sj_orphan){ .hash = sj_hash(sj, e), .tid = e->tid, .event = e->event,
				 .used = true };
}

/* stackjoin_push - see stackjoin.h */
int stackjoin_push(struct stackjoin *sj, int event, enum stackjoin_side side,
		   const struct perf_event_header *rec)
{
	const struct sj_event *ev;
	struct perf_sample smp;
	struct sj_queue *q;
	struct sj_cpu *c;
	struct sj_ent e;

	if (event < 0 || (size_t)event >= sj->nr_ev || rec->type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	ev = &sj->ev[event];
	if (perf_sample_parse(rec, side == STACKJOIN_PERF ? ev->perf_type : IOTAP_SAMPLE_BASE,
			      side == STACKJOIN_PERF ? ev->regs_mask : 0, &smp) || !smp.raw)
		return -EINVAL;
	c = sj_cpu_get(sj, smp.cpu);
	if (!c)
		return -ENOMEM;
	e = (struct sj_ent){
		.time = smp.time,
		.tid = smp.tid,
		.event = (uint32_t)event,
		.raw_off = (uint32_t)((const uint8_t *)smp.raw - (const uint8_t *)rec),
		.raw_size = smp.raw_size,
		.rec = (struct perf_event_header *)rec,
	};
	if (sj_orphan_take(sj, c, !side, &e)) {
		sj->ev[event].st.late++;
		return 0;
	}
	q = &c->q[side];
	if (array_reserve(&q->v, &q->cap, q->nr + 1, sizeof(*q->v), 64))
		return -ENOMEM;
	e.rec = malloc(rec->size);
	if (!e.rec)
		return -ENOMEM;
	memcpy(e.rec, rec, rec->size);
	q->v[q->nr++] = e;
	return 0;
}

/* sj_stamp - set a sample's time (every layout iotap reads has it third: id, tid, time) */
static void sj_stamp(struct perf_event_header *rec, uint64_t time)
{
	memcpy((uint8_t *)(rec + 1) + 16, &time, sizeof(time));
}

/* sj_substitute - an ftrace copy laid out as its event's perf sample, with no callchain */
static int sj_substitute(struct stackjoin *sj, const struct sj_ent *f, stackjoin_emit_fn emit,
			 void *arg)
{
	const struct sj_event *ev = &sj->ev[f->event];
	struct perf_sample smp;
	int n;

	if (perf_sample_parse(f->rec, IOTAP_SAMPLE_BASE, 0, &smp))
		return -EINVAL;
	smp.id = ev->perf_id;
	n = perf_sample_write(&smp, ev->perf_type, f->rec->misc, sj->rec, sizeof(sj->rec));
	if (n < 0)
		return n;
	return emit(arg, f->time, (const struct perf_event_header *)sj->rec);
}

/* sj_pair - an ftrace copy out with its perf sample: the sample, at the copy's time */
static int sj_pair(struct stackjoin *sj, struct sj_ent *f, struct sj_ent *p, bool loose,
		   stackjoin_emit_fn emit, void *arg)
{
	f->done = p->done = true;
	sj->ev[f->event].st.joined++;
	sj->ev[f->event].st.loose += loose;
	sj_stamp(p->rec, f->time);
	return emit(arg, f->time, p->rec);
}

/* sj_find - the first record in q not yet out that matches f, searched from *at round; or -1 */
static ssize_t sj_find(const struct stackjoin *sj, const struct sj_queue *q, size_t at,
		       const struct sj_ent *f)
{
	for (size_t k = 0; k < q->nr; k++) {
		size_t j = (at + k) % q->nr;

		if (!q->v[j].done && sj_match(sj, f, &q->v[j]))
			return (ssize_t)j;
	}
	return -1;
}

/* sj_loose - a held record of the other side, of e's thread, close to it in time; or NULL */
static struct sj_ent *sj_loose(struct sj_queue *q, const struct sj_ent *e)
{
	for (size_t j = 0; j < q->nr; j++) {
		struct sj_ent *o = &q->v[j];
		uint64_t d = o->time > e->time ? o->time - e->time : e->time - o->time;

		if (!o->done && o->event == e->event && o->tid == e->tid && d <= STACKJOIN_SKEW_NS)
			return o;
	}
	return NULL;
}

/* sj_overdue - whether a held record's twin can no longer be on its way */
static bool sj_overdue(const struct stackjoin *sj, const struct sj_ent *e, uint64_t now,
		       bool final)
{
	return final || (now > sj->grace && e->time <= now - sj->grace);
}

/* sj_compact - drop the records that went out, keeping the others' order */
static void sj_compact(struct sj_queue *q)
{
	size_t n = 0;

	for (size_t i = 0; i < q->nr; i++) {
		if (q->v[i].done)
			free(q->v[i].rec);
		else
			q->v[n++] = q->v[i];
	}
	q->nr = n;
}

/* sj_cpu_resolve - one CPU's pairs, then its overdue records */
static int sj_cpu_resolve(struct stackjoin *sj, struct sj_cpu *c, uint64_t now, bool final,
			  stackjoin_emit_fn emit, void *arg)
{
	struct sj_queue *fq = &c->q[STACKJOIN_FTRACE], *pq = &c->q[STACKJOIN_PERF];
	size_t at = 0;
	int ret = 0;

	/* In order, each copy takes the first unpaired sample like it: the search starts after the last pair. */
	for (size_t i = 0; i < fq->nr && pq->nr && !ret; i++) {
		struct sj_ent *f = &fq->v[i];
		ssize_t j = sj_find(sj, pq, at, f);

		if (j < 0)
			continue;
		ret = sj_pair(sj, f, &pq->v[j], false, emit, arg);
		at = (size_t)j + 1;
	}
	for (size_t i = 0; i < fq->nr && !ret; i++) {
		struct sj_ent *f = &fq->v[i], *p;

		if (f->done || !sj_overdue(sj, f, now, final))
			continue;
		/* Written by one call, so they are one event even if a field differs. */
		p = sj_loose(pq, f);
		if (p) {
			ret = sj_pair(sj, f, p, true, emit, arg);
			continue;
		}
		ret = sj_substitute(sj, f, emit, arg);
		f->done = true;
		sj->ev[f->event].st.stackless++;
		sj_orphan_add(sj, c, STACKJOIN_FTRACE, f);
	}
	for (size_t j = 0; j < pq->nr && !ret; j++) {
		struct sj_ent *p = &pq->v[j], *f;

		if (p->done || !sj_overdue(sj, p, now, final))
			continue;
		f = sj_loose(fq, p);
		if (f) {
			ret = sj_pair(sj, f, p, true, emit, arg);
			continue;
		}
		ret = emit(arg, p->time, p->rec);
		p->done = true;
		sj->ev[p->event].st.perf_only++;
		sj_orphan_add(sj, c, STACKJOIN_PERF, p);
	}
	sj_compact(fq);
	sj_compact(pq);
	return ret;
}

/* stackjoin_resolve - see stackjoin.h */
int stackjoin_resolve(struct stackjoin *sj, uint64_t now, bool final, stackjoin_emit_fn emit,
		      void *arg)
{
	for (size_t c = 0; c < sj->nr_cpu; c++) {
		int ret = sj_cpu_resolve(sj, &sj->cpu[c], now, final, emit, arg);

		if (ret)
			return ret;
	}
	return 0;
}

/* stackjoin_horizon - see stackjoin.h */
uint64_t stackjoin_horizon(const struct stackjoin *sj)
{
	uint64_t oldest = UINT64_MAX;

	for (size_t c = 0; c < sj->nr_cpu; c++)
		for (int side = 0; side < 2; side++)
			for (size_t i = 0; i < sj->cpu[c].q[side].nr; i++)
				if (sj->cpu[c].q[side].v[i].time < oldest)
					oldest = sj->cpu[c].q[side].v[i].time;
	if (oldest == UINT64_MAX)
		return oldest;
	/* A pair goes out with the ftrace time, a lone perf sample with its own. */
	return oldest > STACKJOIN_SKEW_NS ? oldest - STACKJOIN_SKEW_NS : 0;
}

/* stackjoin_stats - see stackjoin.h */
const struct stackjoin_stats *stackjoin_stats(const struct stackjoin *sj, int event)
{
	return event >= 0 && (size_t)event < sj->nr_ev ? &sj->ev[event].st : NULL;
}
