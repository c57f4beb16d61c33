// SPDX-License-Identifier: GPL-2.0-or-later
/* live-perf.c - the live backend of perf_event_open rings: one per CPU, callchains, side-band */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "evlist.h"
#include "live.h"
#include "log.h"
#include "session.h"
#include "symbolizer.h"

struct live_perf {
	struct session *s;
	struct evlist *el;
};

/* perf_alloc - an empty event list */
static void *perf_alloc(struct session *s)
{
	struct live_perf *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->s = s;
	p->el = evlist_alloc();
	if (!p->el) {
		free(p);
		return NULL;
	}
	return p;
}

/* perf_claims - perf rings can deliver any event, with or without callchains */
static bool perf_claims(void *priv, const struct iotap_event *ev)
{
	return true;
}

/*
 * perf_compact - --call-graph fp: a sample with a copy of the user stack is
 * walked on its way out of the ring and rewritten with the frames in its
 * callchain, so that the merge copies and sorts some 200 bytes instead of
 * 4 KiB (an evlist_compact_fn). The walk needs nothing but the sample, so
 * its order does not matter. A sample that does not parse goes on as it
 * is, and the dispatch counts it malformed.
 */
static const struct perf_event_header *perf_compact(void *arg, const struct perf_event_header *rec)
{
	struct live_perf *p = arg;
	const struct evsel *sel = evlist_find_id(p->el, perf_record_id(rec));
	const struct perf_event_header *walked;

	if (!sel || !(sel->sample_type & PERF_SAMPLE_STACK_USER))
		return rec;
	walked = symbolizer_walk_record(p->s->sym, rec, sel->sample_type, sel->regs_mask);
	return walked ? walked : rec;
}

/* perf_attach - an evsel for ev, with what its stacks need in each sample */
static int perf_attach(void *priv, struct iotap_event *ev)
{
	struct live_perf *p = priv;
	struct session *s = p->s;
	/* User stacks are walked here, over a copy (symbolizer.h), by tools and recorders alike. */
	bool ucopy = ev->flags & IOTAP_EV_USTACK;
	/* Frame pointers need nothing but the sample: walked before the merge (perf_compact()). */
	bool walk_early = ucopy && s->opts.call_graph == STACK_CG_FP;
	uint64_t st = 0;
	struct evsel *sel;

	if (s->opts.source == SOURCE_FTRACE) {
		log_msg(LOG_ERR, "--source ftrace cannot take the callchains %s:%s needs; use auto or perf",
			ev->sys, ev->name);
		return -EINVAL;
	}
	if (ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK))
		st |= PERF_SAMPLE_CALLCHAIN;
	if (ucopy)
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (walk_early) {
		if (!symbolizer_can_walk(s->sym))
			return -EINVAL;
		evlist_set_compact(p->el, perf_compact, p);
	}
	sel = evlist_add(p->el, ev->sys, ev->name, ev->tep->id, st);
	if (!sel)
		return -errno;
	sel->user_callchain = (ev->flags & IOTAP_EV_USTACK) && !ucopy;
	/* The ftrace twin counts it: a sample perf drops is an event without a stack, not a loss. */
	sel->unaccounted = ev->twin;
	if (ucopy) {
		sel->regs_mask = stack_regs_mask(s->opts.call_graph);
		sel->stack_size = stack_copy_size(s->opts.call_graph);
	}
	sel->priv = ev;
	ev->backend = sel;
	ev->sample_type = sel->sample_type;
	ev->regs_mask = sel->regs_mask;
	if (walk_early) {
		ev->sample_type = symbolizer_walked_type(sel->sample_type);
		ev->regs_mask = 0;
	}
	return 0;
}

/* perf_filter - a tracepoint filter clause on the event's perf fds */
static int perf_filter(void *priv, struct iotap_event *ev, const char *clause)
{
	return evsel_filter_add(ev->backend, clause);
}

/* perf_open - open every event on every CPU and map the rings */
static int perf_open(void *priv)
{
	struct live_perf *p = priv;
	struct evlist_opts eo = {
		.mmap_pages = p->s->opts.mmap_pages,
		.max_stack = p->s->opts.max_stack,
		.track_comm = true,
		.track_mmap = p->s->opts.track_mmap,
		.build_id = p->s->opts.track_mmap,
	};

	return evlist_open(p->el, &eo);
}

/* perf_track - start the side-band (COMM/FORK/EXIT) before any event */
static int perf_track(void *priv)
{
	return evlist_track_enable(((struct live_perf *)priv)->el);
}

/* perf_enable - start sampling */
static int perf_enable(void *priv)
{
	return evlist_enable(((struct live_perf *)priv)->el);
}

/* perf_disable - stop sampling; what is in the rings can still be read */
static int perf_disable(void *priv)
{
	return evlist_disable(((struct live_perf *)priv)->el);
}

/* perf_pollfds - one descriptor per CPU ring */
static int perf_pollfds(void *priv, struct pollfd *pfd, int max)
{
	return evlist_pollfds(((struct live_perf *)priv)->el, pfd, max);
}

/* perf_read - every ring's complete records to the live source */
static int perf_read(void *priv, live_push_fn push, void *arg, struct merge *into)
{
	return evlist_read(((struct live_perf *)priv)->el, push, arg);
}

/* perf_account - undelivered samples: each event's kernel count against what its rings gave */
static int perf_account(void *priv, struct merge *m, uint64_t time)
{
	return evlist_account(((struct live_perf *)priv)->el, m, time);
}

/* perf_find - the event a sample id belongs to */
static struct iotap_event *perf_find(void *priv, uint64_t id)
{
	struct evsel *sel = evlist_find_id(((struct live_perf *)priv)->el, id);

	return sel ? sel->priv : NULL;
}

/* perf_lost - what ring i lost so far */
static int perf_lost(void *priv, int i, int *cpu, uint64_t *lost)
{
	struct live_perf *p = priv;

	if (i >= evlist_nr_cpus(p->el))
		return -ENOENT;
	*cpu = evlist_cpus(p->el)[i];
	/* Rings of side-band and of twinned events' stacks lose no events (perf_free() tells). */
	*lost = evlist_counted_elsewhere(p->el) ? 0 : evlist_ring_stats(p->el, i)->lost;
	return 0;
}

/* perf_nr_cpus - the CPUs with a ring */
static int perf_nr_cpus(void *priv)
{
	return evlist_nr_cpus(((struct live_perf *)priv)->el);
}

/* perf_event_ids - the sample id of ev on each CPU */
static int perf_event_ids(void *priv, const struct iotap_event *ev, const uint64_t **ids,
			  size_t *nr)
{
	const struct evsel *sel = ev->backend;

	if (!sel)
		return -ENOENT;
	*ids = sel->ids;
	*nr = evlist_nr_cpus(((struct live_perf *)priv)->el);
	return 0;
}

/* perf_records - records read from every ring */
static uint64_t perf_records(void *priv)
{
	struct live_perf *p = priv;
	uint64_t records = 0;

	for (int c = 0; c < evlist_nr_cpus(p->el); c++)
		records += evlist_ring_stats(p->el, c)->records;
	return records;
}

/* perf_free - close the events and unmap the rings */
static void perf_free(void *priv)
{
	struct live_perf *p = priv;

	if (!p)
		return;
	if (evlist_counted_elsewhere(p->el)) {
		uint64_t lost = 0;

		for (int c = 0; c < evlist_nr_cpus(p->el); c++)
			lost += evlist_ring_stats(p->el, c)->lost;
		if (lost)
			log_msg(LOG_WARN, "lost %llu perf records (%sprocess names, mappings): some stacks or names may be missing; raise --mmap-pages",
				(unsigned long long)lost, evlist_nr(p->el) ? "stacks, " : "");
	}
	evlist_free(p->el);
	free(p);
}

const struct live_backend_ops live_perf = {
	.name = "perf",
	.alloc = perf_alloc,
	.claims = perf_claims,
	.attach = perf_attach,
	.filter = perf_filter,
	.open = perf_open,
	.track = perf_track,
	.enable = perf_enable,
	.disable = perf_disable,
	.pollfds = perf_pollfds,
	.read = perf_read,
	.account = perf_account,
	.find = perf_find,
	.lost = perf_lost,
	.nr_cpus = perf_nr_cpus,
	.event_ids = perf_event_ids,
	.records = perf_records,
	.free = perf_free,
};
