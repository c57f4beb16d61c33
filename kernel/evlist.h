/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_EVLIST_H
#define IOTAP_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* One tracepoint, opened on every online CPU; samples go to that CPU's ring. */
struct evsel {
	char *sys, *name;
	int tp_id;
	uint64_t sample_type;
	uint64_t regs_mask;	/* with PERF_SAMPLE_REGS_USER */
	uint32_t stack_size;	/* with PERF_SAMPLE_STACK_USER */
	bool user_callchain;	/* false: kernel frames only */
	char *filter;
	int *fds;
	uint64_t *ids;
	size_t idx;
	void *priv;		/* the owner's per-event state */
	uint64_t delivered;	/* samples read from the rings */
	uint64_t counted;	/* the fds' counts at the last evlist_account() */
	uint64_t undelivered;	/* counted but never delivered, as last accounted */
	bool unaccounted;	/* another ring delivers its events: evlist_account() skips it */
};

struct evlist_opts {
	size_t mmap_pages;	/* data pages per CPU ring, power of two */
	int max_stack;		/* callchain depth; 0: kernel default */
	bool track_comm;	/* COMM/FORK/EXIT side-band */
	bool track_mmap;	/* MMAP2 side-band, for user symbols */
	bool build_id;		/* MMAP2 carries the file's build-id (kernel 5.12+) */
};

/* Per-CPU ring statistics, for the lost-event report. */
struct ring_stats {
	uint64_t records;
	uint64_t lost;		/* PERF_RECORD_LOST + LOST_SAMPLES */
};

struct evlist;

/* evlist_alloc - an empty event list, or NULL with errno (ENOMEM) */
struct evlist *evlist_alloc(void);
void evlist_free(struct evlist *el);
/*
 * evlist_add - declare a tracepoint to open (sample_type: extras beyond the base set); NULL
 * with errno: EBUSY once the list is open, ENOMEM
 */
struct evsel *evlist_add(struct evlist *el, const char *sys, const char *name, int tp_id,
			 uint64_t sample_type);
/* evsel_filter_add - AND a tracepoint filter clause onto the event's filter: 0 or -ENOMEM */
int evsel_filter_add(struct evsel *sel, const char *clause);
/*
 * A sample on its way from its ring to the merge queue: the record to queue
 * instead (valid until the next call), or rec itself. Lets big samples
 * (user stack copies) be made small before they are copied and sorted.
 */
typedef const struct perf_event_header *(*evlist_compact_fn)(void *arg,
							    const struct perf_event_header *rec);

void evlist_set_compact(struct evlist *el, evlist_compact_fn fn, void *arg);
/* 0 or -errno; what was refused goes to the log hook (log.h) as one LOG_ERR line. */
int evlist_open(struct evlist *el, const struct evlist_opts *opts);
/*
 * evlist_track_enable - start the COMM/FORK/EXIT side-band alone, before the
 * events (evlist_enable starts both): 0, or -errno from the ioctl
 */
int evlist_track_enable(struct evlist *el);
/* evlist_enable - start sampling: 0, or -errno from the ioctl */
int evlist_enable(struct evlist *el);
/* evlist_disable - stop sampling (the rings can still be read): 0, or -errno from the ioctl */
int evlist_disable(struct evlist *el);
/*
 * For a reader that merges several kinds of ring: every complete record goes
 * to push (which must copy it: its ring space is released after the read),
 * each ring's records in the order they were written.
 */
typedef int (*evlist_push_fn)(void *arg, uint64_t time, const struct perf_event_header *rec);
struct merge;
struct pollfd;
/* evlist_read - every ring's complete records to push: 0, -errno, or push's non-zero return */
int evlist_read(struct evlist *el, evlist_push_fn push, void *arg);
/* evlist_pollfds - the rings' descriptors, up to max into pfd: how many (cannot fail) */
int evlist_pollfds(const struct evlist *el, struct pollfd *pfd, int max);
/*
 * evlist_account - an IOTAP_RECORD_UNDELIVERED into m for each event whose kernel count outran
 * its samples (evlist.c says when it is exact): 0, -errno reading a count, or -ENOMEM
 */
int evlist_account(struct evlist *el, struct merge *m, uint64_t time);
/*
 * evsel_count_read - the event's count in the kernel, summed over its CPUs' fds: 0, or -errno
 * (-EIO for a short read)
 */
int evsel_count_read(const struct evsel *sel, int nr_cpus, uint64_t *count);
/* evlist_find_id - the event a sample id belongs to, or NULL for an id of none (no error) */
struct evsel *evlist_find_id(const struct evlist *el, uint64_t id);
size_t evlist_nr(const struct evlist *el);
int evlist_nr_cpus(const struct evlist *el);
const int *evlist_cpus(const struct evlist *el);
const struct ring_stats *evlist_ring_stats(const struct evlist *el, int i);
bool evlist_counted_elsewhere(const struct evlist *el);
/*
 * cpus_online - the online CPU numbers from sysfs into *cpus (freed by the caller): how many,
 * or -errno (-ENOENT: none listed)
 */
int cpus_online(int **cpus);

#endif
