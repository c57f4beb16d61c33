// SPDX-License-Identifier: GPL-2.0-or-later
/* live-ftrace.c - the live backend of a private tracefs instance's ring buffer (no callchains) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "evlist.h"
#include "ftrace.h"
#include "live.h"
#include "log.h"
#include "merge.h"
#include "session.h"
#include "tfs.h"

/* How often the reader looks that the instance still traces (ftrace_ring_check). */
#define CHECK_NS 1000000000ull

/* One event read from the instance. */
struct ft_event {
	struct iotap_event *ev;
	char *filter;
	uint64_t *ids;		/* the same id on every CPU, for a recorder's EVNT */
	bool twin;		/* another backend delivers ev: its records go to the join */
	uint32_t id;		/* its tracepoint's id, looked up on every record */
};

/* ftrace_find's memory of the events it found: by tracepoint id modulo its size. */
#define FTRACE_FOUND_SLOTS 64

struct live_ftrace {
	struct session *s;
	struct ftrace_ring *fr;
	struct ft_event *ev;
	size_t nr;
	struct {
		uint32_t id;
		struct iotap_event *ev;	/* NULL: none yet */
	} found[FTRACE_FOUND_SLOTS];
	int *cpus;
	int nr_cpus;
	uint64_t *lost_pushed;	/* per CPU: losses already in the stream */
	/* CPUs that came online after the ring opened: what their buffers got, pushed as lost. */
	struct ftrace_late {
		int cpu;
		uint64_t pushed;
	} *late;
	size_t nr_late;
	struct tep_event *births;	/* task:task_newtask, traced from track on */
	uint64_t next_check;	/* when to look again that the instance still traces */
	int changed;		/* -errno once another process changed the instance */
	bool disabled;
	bool stored;		/* sub-buffers are read into a store's rooms */
};

/* ftrace_alloc - an empty backend: no instance until open */
static void *ftrace_alloc(struct session *s)
{
	struct live_ftrace *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->s = s;
	f->fr = ftrace_ring_alloc();
	if (!f->fr) {
		free(f);
		return NULL;
	}
	return f;
}

/* ftrace_claims - every event without callchains, unless --source perf */
static bool ftrace_claims(void *priv, const struct iotap_event *ev)
{
	struct live_ftrace *f = priv;

	return !(ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) &&
		f->s->opts.source != SOURCE_PERF;
}

/* ftrace_add - read ev from the instance */
static int ftrace_add(struct live_ftrace *f, struct iotap_event *ev, bool twin)
{
	struct ft_event *arr;

	arr = realloc(f->ev, (f->nr + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	f->ev = arr;
	f->ev[f->nr++] = (struct ft_event){ .ev = ev, .twin = twin, .id = (uint32_t)ev->tep->id };
	return 0;
}

/* ftrace_attach - the event's records are laid out as perf's IOTAP_SAMPLE_BASE samples */
static int ftrace_attach(void *priv, struct iotap_event *ev)
{
	int ret = ftrace_add(priv, ev, false);

	if (ret)
		return ret;
	ev->sample_type = IOTAP_SAMPLE_BASE;
	ev->regs_mask = 0;
	return 0;
}

/* ftrace_twin - the lossless copy of an event perf reads for its callchains */
static int ftrace_twin(void *priv, struct iotap_event *ev, uint64_t *id)
{
	struct live_ftrace *f = priv;

	if (f->s->opts.source != SOURCE_AUTO)
		return -ENOTSUP;
	*id = ftrace_sample_id(ev->tep->id);
	return ftrace_add(f, ev, true);
}

/* ftrace_of - the backend's record of an attached or twinned event */
static struct ft_event *ftrace_of(struct live_ftrace *f, const struct iotap_event *ev)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->ev[i].ev == ev)
			return &f->ev[i];
	return NULL;
}

/* ftrace_filter - AND a clause onto the filter written to the instance's event */
static int ftrace_filter(void *priv, struct iotap_event *ev, const char *clause)
{
	struct ft_event *fe = ftrace_of(priv, ev);
	char *filter;

	if (!fe)
		return -ENOENT;
	if (fe->filter ? asprintf(&filter, "(%s) && (%s)", fe->filter, clause) < 0 :
	    !(filter = strdup(clause)))
		return -ENOMEM;
	free(fe->filter);
	fe->filter = filter;
	return 0;
}

/* ftrace_open - create the instance, enable and filter the events in it, open the readers */
static int ftrace_open(void *priv)
{
	struct live_ftrace *f = priv;
	size_t kb = f->s->opts.mmap_pages * 4 * (size_t)getpagesize() / 1024;
	int ret;

	/* Offered events it did not take: no instance to make. */
	if (!f->nr)
		return 0;
	ret = cpus_online(&f->cpus);
	if (ret < 0) {
		log_msg(LOG_ERR, "cannot read the online CPUs: %s", strerror(-ret));
		return ret;
	}
	f->nr_cpus = ret;
	f->lost_pushed = calloc(f->nr_cpus, sizeof(*f->lost_pushed));
	if (!f->lost_pushed)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr; i++) {
		struct ft_event *fe = &f->ev[i];

		fe->ids = malloc(f->nr_cpus * sizeof(*fe->ids));
		if (!fe->ids)
			return -ENOMEM;
		for (int c = 0; c < f->nr_cpus; c++)
			fe->ids[c] = ftrace_sample_id(fe->ev->tep->id);
		ret = ftrace_ring_add(f->fr, fe->ev->sys, fe->ev->name, fe->ev->tep->id, fe->filter);
		if (ret)
			return ret;
	}
	/*
	 * With -p, each thread's birth, in the same buffers as its events and
	 * before them: the process of every thread is then known in stream
	 * order, even when a storm of threads overflows perf's side-band (FORK
	 * records). Only then: the births of every process on the machine share
	 * the buffers, and a buffer that overflows counts them among its losses.
	 */
	if (f->s->pid_filtered)
		f->births = fmt_set_add_live(&f->s->fs, "task", "task_newtask");
	if (f->births) {
		ret = ftrace_ring_add_early(f->fr, "task", "task_newtask", f->births->id);
		if (ret)
			return ret;
	}
	return ftrace_ring_open(f->fr, f->cpus, f->nr_cpus, kb);
}

/* ftrace_track - trace the births of threads alone, before the events */
static int ftrace_track(void *priv)
{
	struct live_ftrace *f = priv;

	return f->nr ? ftrace_ring_track(f->fr) : 0;
}

/* ftrace_births - the event of each thread's birth in this stream, when the kernel has one */
static int ftrace_births(void *priv, uint64_t *id, struct tep_event **tp)
{
	struct live_ftrace *f = priv;

	if (!f->nr || !f->births)
		return -ENOENT;
	*id = ftrace_sample_id(f->births->id);
	*tp = f->births;
	return 0;
}

/* ftrace_enable - start recording in the instance */
static int ftrace_enable(void *priv)
{
	struct live_ftrace *f = priv;

	return f->nr ? ftrace_ring_enable(f->fr) : 0;
}

/* ftrace_disable - stop recording; later reads flush every CPU's partial sub-buffer */
static int ftrace_disable(void *priv)
{
	struct live_ftrace *f = priv;

	/* The last look: tracing_on is about to be 0 on purpose. */
	if (!f->changed && !f->disabled)
		f->changed = ftrace_ring_check(f->fr);
	f->disabled = true;
	return ftrace_ring_disable(f->fr);
}

/* ftrace_pollfds - each CPU's trace_pipe_raw, readable at the instance's buffer_percent */
static int ftrace_pollfds(void *priv, struct pollfd *pfd, int max)
{
	struct live_ftrace *f = priv;
	int n = 0;

	for (int c = 0; c < f->nr_cpus && n < max; c++) {
		pfd[n].fd = ftrace_ring_fd(f->fr, c);
		pfd[n++].events = POLLIN;
	}
	return n;
}

/*
 * ftrace_read - every CPU's events, queued where they lie in into's room, or
 * as perf samples to push (with a store, or no into); to the last one
 * once disabled. Once a second, and at the end, it looks that no other process
 * turned the instance off: an error then, rather than counts that are short.
 */
static int ftrace_read(void *priv, live_push_fn push, void *arg, struct merge *into)
{
	struct live_ftrace *f = priv;
	uint64_t now;

	if (!f->changed && !f->disabled && (now = mono_now()) >= f->next_check) {
		f->next_check = now + CHECK_NS;
		f->changed = ftrace_ring_check(f->fr);
	}
	if (f->changed)
		return f->changed;
	/* A store reads the sub-buffers into its own rooms: their events are copied out. */
	if (into && !f->stored)
		return ftrace_ring_read_into(f->fr, f->disabled, into);
	return ftrace_ring_read(f->fr, f->disabled, push, arg);
}

/* ftrace_horizon - the oldest point a CPU's buffer was read to in part, or UINT64_MAX */
static uint64_t ftrace_horizon(void *priv)
{
	struct live_ftrace *f = priv;

	return f->fr ? ftrace_ring_horizon(f->fr) : UINT64_MAX;
}

/* ftrace_lost_push - a PERF_RECORD_LOST_SAMPLES of n events of cpu, stamped time, into m */
static int ftrace_lost_push(struct merge *m, uint64_t time, int cpu, uint64_t n)
{
	uint64_t rec[6];
	struct perf_event_header *h = (void *)rec;

	h->type = PERF_RECORD_LOST_SAMPLES;
	h->misc = 0;
	h->size = sizeof(rec);
	rec[1] = n;
	rec[2] = 0;		/* pid, tid */
	rec[3] = time;
	rec[4] = (uint32_t)cpu;
	rec[5] = 0;		/* the buffer is the events' together: no one id */
	return merge_push(m, time, rec, sizeof(rec));
}

/*
 * ftrace_account_late - a CPU online now that the ring does not read (it came
 * online after the ring opened, whose readers are the CPUs online then): what
 * its buffer got is lost, said once and counted as its losses
 */
static int ftrace_account_late(struct live_ftrace *f, struct merge *m, uint64_t time)
{
	int *online, nr = cpus_online(&online), ret = 0;

	if (nr < 0)
		return 0;
	for (int i = 0; i < nr && !ret; i++) {
		struct ftrace_late *l = NULL;
		uint64_t n;
		int c;

		for (c = 0; c < f->nr_cpus && f->cpus[c] != online[i]; c++)
			;
		if (c < f->nr_cpus || ftrace_ring_unread_cpu(f->fr, online[i], &n))
			continue;
		for (size_t k = 0; k < f->nr_late; k++)
			if (f->late[k].cpu == online[i])
				l = &f->late[k];
		if (!l) {
			struct ftrace_late *v = realloc(f->late, (f->nr_late + 1) * sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				break;
			}
			f->late = v;
			l = &f->late[f->nr_late++];
			*l = (struct ftrace_late){ .cpu = online[i] };
			log_msg(LOG_WARN, "CPU %d came online after tracing began: its events are "
				"not read, and are counted as lost (restart iotap to trace it)",
				online[i]);
		}
		if (n > l->pushed) {
			ret = ftrace_lost_push(m, time, l->cpu, n - l->pushed);
			l->pushed = n;
		}
	}
	free(online);
	return ret;
}

/*
 * ftrace_account - read the kernel's loss counters; a CPU that lost events
 * since the last call gets a PERF_RECORD_LOST_SAMPLES stamped time, as perf
 * writes one, so that recordings carry ftrace's losses too
 */
static int ftrace_account(void *priv, struct merge *m, uint64_t time)
{
	struct live_ftrace *f = priv;

	ftrace_ring_stats_update(f->fr);
	for (int c = 0; c < f->nr_cpus; c++) {
		uint64_t lost = ftrace_stats_lost(ftrace_ring_stats(f->fr, c));
		int ret;

		if (lost <= f->lost_pushed[c])
			continue;
		ret = ftrace_lost_push(m, time, f->cpus[c], lost - f->lost_pushed[c]);
		f->lost_pushed[c] = lost;
		if (ret)
			return ret;
	}
	return ftrace_account_late(f, m, time);
}

/* ftrace_find - the event of a sample id (ftrace_sample_id of its tracepoint) */
static struct iotap_event *ftrace_find(void *priv, uint64_t id)
{
	struct live_ftrace *f = priv;
	uint32_t tp = (uint32_t)id;
	size_t slot = tp % FTRACE_FOUND_SLOTS;

	if ((id & ~0xffffffffull) != FTRACE_ID_BASE)
		return NULL;
	/* Every record asks: a few events, each asked for over and over. */
	if (f->found[slot].ev && f->found[slot].id == tp)
		return f->found[slot].ev;
	for (size_t i = 0; i < f->nr; i++)
		if (f->ev[i].id == tp && !f->ev[i].twin) {
			f->found[slot].id = tp;
			f->found[slot].ev = f->ev[i].ev;
			return f->ev[i].ev;
		}
	return NULL;
}

/* ftrace_lost - what CPU i's buffer lost, as last read; after the read ones, the late ones' */
static int ftrace_lost(void *priv, int i, int *cpu, uint64_t *lost)
{
	struct live_ftrace *f = priv;

	if (i >= f->nr_cpus + (int)f->nr_late)
		return -ENOENT;
	if (i >= f->nr_cpus) {
		*cpu = f->late[i - f->nr_cpus].cpu;
		*lost = f->late[i - f->nr_cpus].pushed;
		return 0;
	}
	*cpu = f->cpus[i];
	*lost = f->lost_pushed[i];
	return 0;
}

/* ftrace_nr_cpus - the CPUs with a buffer: those read, then those that came online later */
static int ftrace_nr_cpus(void *priv)
{
	struct live_ftrace *f = priv;

	return f->nr_cpus + (int)f->nr_late;
}

/* ftrace_event_ids - the sample id of ev on each CPU (the same on all) */
static int ftrace_event_ids(void *priv, const struct iotap_event *ev, const uint64_t **ids,
			    size_t *nr)
{
	struct live_ftrace *f = priv;
	struct ft_event *fe = ftrace_of(f, ev);

	if (!fe || !fe->ids)
		return -ENOENT;
	*ids = fe->ids;
	*nr = f->nr_cpus;
	return 0;
}

/* ftrace_records - events decoded from every CPU's buffer */
static uint64_t ftrace_records(void *priv)
{
	struct live_ftrace *f = priv;
	uint64_t n = 0;

	for (int c = 0; c < f->nr_cpus; c++)
		n += ftrace_ring_stats(f->fr, c)->records;
	return n;
}

/* ftrace_free - remove the instance from the kernel and free; accepts NULL */
static void ftrace_free(void *priv)
{
	struct live_ftrace *f = priv;

	if (!f)
		return;
	ftrace_ring_free(f->fr);
	for (size_t i = 0; i < f->nr; i++) {
		free(f->ev[i].filter);
		free(f->ev[i].ids);
	}
	free(f->ev);
	free(f->cpus);
	free(f->late);
	free(f->lost_pushed);
	free(f);
}

/* ftrace_store - read sub-buffers into st's rooms from now on; the decoder to read them again */
static const struct subbuf_decoder *ftrace_store(void *priv, const struct ftrace_store *st)
{
	struct live_ftrace *f = priv;

	ftrace_ring_set_store(f->fr, st);
	f->stored = st != NULL;
	return ftrace_ring_decoder(f->fr);
}

const struct live_backend_ops live_ftrace = {
	.name = "ftrace",
	.alloc = ftrace_alloc,
	.claims = ftrace_claims,
	.attach = ftrace_attach,
	.twin = ftrace_twin,
	.filter = ftrace_filter,
	.open = ftrace_open,
	.track = ftrace_track,
	.births = ftrace_births,
	.enable = ftrace_enable,
	.disable = ftrace_disable,
	.pollfds = ftrace_pollfds,
	.read = ftrace_read,
	.horizon = ftrace_horizon,
	.account = ftrace_account,
	.find = ftrace_find,
	.lost = ftrace_lost,
	.nr_cpus = ftrace_nr_cpus,
	.event_ids = ftrace_event_ids,
	.records = ftrace_records,
	.store = ftrace_store,
	.free = ftrace_free,
};
