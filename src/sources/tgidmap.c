// SPDX-License-Identifier: GPL-2.0-or-later
/* tgidmap.c - each thread's process in stream order, for events that carry the thread only */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ftrace.h"
#include "proctasks.h"
#include "tgidmap.h"

struct tgid_ent {
	uint32_t key;			/* tid + 1; 0: free */
	uint32_t tgid;
};

/* Where a birth's fields are in its raw data. */
struct tgid_births {
	uint64_t id;			/* 0: no births in the stream */
	unsigned int pid_off, pid_size, flags_off, flags_size, min_size;
};

/* A thread that exited, still known for a while (tgidmap_linger). */
struct tgid_gone {
	uint32_t tid, tgid;
	uint64_t t_exit;
};

struct tgidmap {
	struct tgid_ent *tab;
	size_t nr, cap;			/* cap: a power of two */
	struct tgid_births births;
	uint64_t linger_ns;		/* 0: exited threads are forgotten at once */
	struct tgid_gone *gone;		/* oldest exit first */
	size_t nr_gone, cap_gone;
};

/* tgidmap_alloc - see tgidmap.h */
struct tgidmap *tgidmap_alloc(void)
{
	struct tgidmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 1024;
	m->tab = calloc(m->cap, sizeof(*m->tab));
	if (!m->tab) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

/* tgid_home - where tid's probe starts */
static size_t tgid_home(size_t cap, uint32_t tid)
{
	return (uint32_t)(tid * 2654435761u) & (cap - 1);
}

/* tgid_slot - the slot of tid: its entry, or the free slot it would take */
static struct tgid_ent *tgid_slot(struct tgid_ent *tab, size_t cap, uint32_t tid)
{
	size_t i = tgid_home(cap, tid);

	while (tab[i].key && tab[i].key != tid + 1)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* tgid_set - tid belongs to tgid from now on; a full table that cannot grow keeps the old */
static void tgid_set(struct tgidmap *m, uint32_t tid, uint32_t tgid)
{
	struct tgid_ent *e;

	if (!tid || tid == UINT32_MAX)
		return;
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap * 2;
		struct tgid_ent *tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return;
		for (size_t i = 0; i < m->cap; i++)
			if (m->tab[i].key)
				*tgid_slot(tab, cap, m->tab[i].key - 1) = m->tab[i];
		free(m->tab);
		m->tab = tab;
		m->cap = cap;
	}
	e = tgid_slot(m->tab, m->cap, tid);
	if (!e->key)
		m->nr++;
	e->key = tid + 1;
	e->tgid = tgid;
}

/*
 * tgid_forget - a thread that exited: its entry goes, and the entries probed
 * past it move back (linear probing's deletion), so the table holds the
 * host's living threads, not every thread it ever ran
 */
static void tgid_forget(struct tgidmap *m, uint32_t tid)
{
	size_t mask = m->cap - 1, i, j;
	struct tgid_ent *e = tgid_slot(m->tab, m->cap, tid);

	if (!tid || !e->key)
		return;
	m->nr--;
	i = (size_t)(e - m->tab);
	for (j = (i + 1) & mask; m->tab[j].key; j = (j + 1) & mask) {
		size_t h = tgid_home(m->cap, m->tab[j].key - 1);

		/* Entry j may fill the hole at i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		m->tab[i] = m->tab[j];
		i = j;
	}
	m->tab[i].key = 0;
}

/* tgid_proc - a thread's process from /proc/TID/status, or 0 when it is gone */
static uint32_t tgid_proc(uint32_t tid)
{
	char path[64], line[128];
	uint32_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* tgidmap_snapshot_one - a thread /proc lists, with its process */
static void tgidmap_snapshot_one(void *arg, uint32_t pid, uint32_t tid)
{
	tgid_set(arg, tid, pid);
}

/* tgidmap_snapshot - see tgidmap.h */
int tgidmap_snapshot(struct tgidmap *m)
{
	return proc_tasks_each(tgidmap_snapshot_one, m);
}

/* tgidmap_of - see tgidmap.h */
uint32_t tgidmap_of(struct tgidmap *m, uint32_t tid)
{
	struct tgid_ent *e;
	uint32_t tgid;

	if (!tid)
		return 0;
	e = tgid_slot(m->tab, m->cap, tid);
	if (e->key)
		return e->tgid;
	/* Not in the snapshot and no FORK seen: the side-band lost it. Ask once. */
	tgid = tgid_proc(tid);
	if (!tgid)
		tgid = tid;
	tgid_set(m, tid, tgid);
	return tgid;
}

/* tgidmap_births - see tgidmap.h */
int tgidmap_births(struct tgidmap *m, uint64_t id, struct tep_event *tp)
{
	const struct tep_format_field *pid = tep_find_field(tp, "pid");
	const struct tep_format_field *flags = tep_find_field(tp, "clone_flags");

	if (!pid || !flags || (pid->size != 4) || (flags->size != 4 && flags->size != 8))
		return -ENOENT;
	m->births = (struct tgid_births){
		.id = id,
		.pid_off = (unsigned int)pid->offset,
		.pid_size = (unsigned int)pid->size,
		.flags_off = (unsigned int)flags->offset,
		.flags_size = (unsigned int)flags->size,
	};
	m->births.min_size = pid->offset + pid->size > flags->offset + flags->size ?
			     pid->offset + pid->size : flags->offset + flags->size;
	return 0;
}

/*
 * tgid_birth - a thread born to the thread tid: with CLONE_THREAD of tid's
 * process, otherwise a process of its own (raw: the trace entry, size bytes)
 */
static void tgid_birth(struct tgidmap *m, uint32_t tid, const char *raw, uint32_t size)
{
	const struct tgid_births *b = &m->births;
	uint64_t flags = 0;
	uint32_t child;

	if (size < b->min_size)
		return;
	memcpy(&child, raw + b->pid_off, 4);
	if (b->flags_size == 8) {
		memcpy(&flags, raw + b->flags_off, 8);
	} else {
		uint32_t f32;

		memcpy(&f32, raw + b->flags_off, 4);
		flags = f32;
	}
	tgid_set(m, child, flags & CLONE_THREAD ? tgidmap_of(m, tid) : child);
}

/*
 * tgid_gone_add - with lingering, an exiting thread is kept with its exit
 * time; those that exited linger_ns before it are let go
 */
static void tgid_gone_add(struct tgidmap *m, uint32_t tid, uint64_t t_exit)
{
	struct tgid_ent *e = tgid_slot(m->tab, m->cap, tid);
	size_t old = 0;

	if (!m->linger_ns || !tid || !e->key)
		return;
	while (old < m->nr_gone && m->gone[old].t_exit + m->linger_ns < t_exit)
		old++;
	if (old) {
		m->nr_gone -= old;
		memmove(m->gone, m->gone + old, m->nr_gone * sizeof(*m->gone));
	}
	if (m->nr_gone == m->cap_gone) {
		size_t cap = m->cap_gone ? m->cap_gone * 2 : 64;
		struct tgid_gone *g = realloc(m->gone, cap * sizeof(*g));

		if (!g)
			return;
		m->gone = g;
		m->cap_gone = cap;
	}
	m->gone[m->nr_gone++] = (struct tgid_gone){ tid, e->tgid, t_exit };
}

/* tgidmap_linger - see tgidmap.h */
void tgidmap_linger(struct tgidmap *m, uint64_t ns)
{
	m->linger_ns = ns;
}

/* tgidmap_copy_at - see tgidmap.h */
struct tgidmap *tgidmap_copy_at(const struct tgidmap *m, uint64_t t)
{
	struct tgidmap *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cap = m->cap;
	c->nr = m->nr;
	c->births = m->births;
	c->tab = malloc(c->cap * sizeof(*c->tab));
	if (!c->tab) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(c->tab, m->tab, c->cap * sizeof(*c->tab));
	/* A thread that exited after t was its tid's owner at t, whoever owns it now. */
	for (size_t i = 0; i < m->nr_gone; i++)
		if (m->gone[i].t_exit >= t)
			tgid_set(c, m->gone[i].tid, m->gone[i].tgid);
	return c;
}

/* tgidmap_sideband - learn from a FORK, forget at an EXIT; any other record is left alone */
static bool tgidmap_sideband(struct tgidmap *m, const struct perf_event_header *rec)
{
	if (rec->type == PERF_RECORD_FORK) {
		const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(rec + 1);

		if (rec->size >= sizeof(*rec) + sizeof(*f))
			tgid_set(m, f->tid, f->pid);
		return false;
	}
	if (rec->type == PERF_RECORD_EXIT) {
		/* The thread's last record: none of its events comes after it in the stream. */
		const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(rec + 1);

		if (rec->size >= sizeof(*rec) + sizeof(*f) + 8) {
			uint64_t t;

			memcpy(&t, f + 1, 8);
			tgid_gone_add(m, f->tid, t);
		}
		if (rec->size >= sizeof(*rec) + sizeof(*f))
			tgid_forget(m, f->tid);
	}
	return false;
}

/*
 * tgidmap_birth - a sample of at least IDENTIFIER and TID (u32 pid, u32 tid): when it is a
 * birth (its id the births'), the new thread learnt from its trace entry, and true
 */
static bool tgidmap_birth(struct tgidmap *m, const struct perf_event_header *rec)
{
	const uint64_t *v = (const uint64_t *)(rec + 1);
	uint32_t raw_size = 0;

	/* Then TIME, CPU, and RAW: a u32 size and the trace entry. */
	if (rec->size >= sizeof(*rec) + 36) {
		memcpy(&raw_size, v + 4, 4);
		if (raw_size > rec->size - sizeof(*rec) - 36)
			raw_size = 0;
	}
	return tgidmap_entry(m, v[0], (uint32_t)(v[1] >> 32), (const char *)(v + 4) + 4,
			     raw_size, NULL);
}

/* tgidmap_entry - see tgidmap.h */
bool tgidmap_entry(struct tgidmap *m, uint64_t id, uint32_t tid, const void *raw, uint32_t size,
		   uint32_t *pid)
{
	if (pid)
		*pid = tgidmap_of(m, tid);
	if (!m->births.id || id != m->births.id)
		return false;
	tgid_birth(m, tid, raw, size);
	return true;
}

/* tgidmap_record - see tgidmap.h */
bool tgidmap_record(struct tgidmap *m, struct perf_event_header *rec)
{
	uint64_t *v = (uint64_t *)(rec + 1);
	uint32_t tid;

	if (rec->type != PERF_RECORD_SAMPLE)
		return tgidmap_sideband(m, rec);
	/* IDENTIFIER first (ftrace's: the base and a tracepoint id), then TID: u32 pid, u32 tid. */
	if (!ftrace_sample_is(rec) || rec->size < sizeof(*rec) + 16)
		return false;
	tid = (uint32_t)(v[1] >> 32);
	v[1] = (uint64_t)tid << 32 | tgidmap_of(m, tid);
	return tgidmap_birth(m, rec);
}

/* tgidmap_track - see tgidmap.h */
bool tgidmap_track(struct tgidmap *m, const struct perf_event_header *rec)
{
	if (rec->type != PERF_RECORD_SAMPLE)
		return tgidmap_sideband(m, rec);
	return rec->size >= sizeof(*rec) + 16 && tgidmap_birth(m, rec);
}

/* tgidmap_count - see tgidmap.h */
size_t tgidmap_count(const struct tgidmap *m)
{
	return m->nr;
}

/* tgidmap_free - see tgidmap.h */
void tgidmap_free(struct tgidmap *m)
{
	if (!m)
		return;
	free(m->tab);
	free(m->gone);
	free(m);
}
