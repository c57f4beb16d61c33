/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SOURCE_H
#define IOTAP_SOURCE_H

/*
 * Where a session's events come from: the stream. Everything that differs
 * between the running kernel and a file in how events are found, attached,
 * read and counted is an operation here, implemented once per source
 * (source-live.c, source-recording.c, source-perfdata.c, source-tracedat.c;
 * sources/select.c picks one for a session); nothing above the sources asks
 * which one it has. A source hands every record to session_dispatch() in
 * time order, shaped as perf records (PERF_RECORD_SAMPLE layout for
 * samples, whatever ring it was read from).
 *
 * Facts about the host the events come from (process names, symbols,
 * mappings, cgroups, load) are a separate table, host.h, that each source
 * provides beside its stream (host): the session owns neither table, both
 * are static; the source's state is s->src_priv, made by open and freed by
 * close.
 *
 * The call order: open (before the tool's init); event_available,
 * event_attach, event_filter and probe_create while the tool sets up;
 * start; run until it returns 0 or the session stops; rewind, and the
 * same from event_available on again (session_reset); close (safe after a
 * partial open). Optional operations may be NULL.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"
#include "host.h"

struct session;
struct iotap_event;

struct source_ops {
	const char *name;
	/* A file source: whether it reads a file that starts with these bytes. */
	bool (*claims)(const void *head, size_t len);
	/* Formats, disks, process names, clocks: what tools need before they set up. */
	int (*open)(struct session *s);
	/* The events of system sys it can deliver: a NULL-terminated array, each name and it freed by the caller. */
	int (*event_names)(struct session *s, const char *sys, char ***names);
	/* Whether sys:name can be delivered (the kernel has it, or it was recorded). */
	bool (*event_available)(struct session *s, const char *sys, const char *name);
	/*
	 * Optional: whether samples of sys:name can carry callchains (a file: were recorded
	 * with them). NULL: whenever a consumer asks (live).
	 */
	bool (*event_stacks)(struct session *s, const char *sys, const char *name);
	/*
	 * Set ev up for delivery: its format (ev->tep), its sample layout
	 * (ev->sample_type, regs_mask, chain_ids) and whatever reads it; ev->flags
	 * says which stacks it wants. Logs why not; returns 0 or -errno
	 * (-ENOENT: no such event).
	 */
	int (*event_attach)(struct session *s, struct iotap_event *ev);
	/* AND a tracepoint filter clause; tools check in user space too, so may be NULL. */
	int (*event_filter)(struct session *s, struct iotap_event *ev, const char *clause);
	/* Whether probe_create can make p: the kernel has the probe kind, or a recording has it. */
	bool (*probe_available)(struct session *s, const struct probe_spec *p);
	/* A kprobe/uprobe for this run; *sys gets its group. Logs why not. */
	int (*probe_create)(struct session *s, const struct probe_spec *p, const char **sys);
	/* Begin delivering (after every event is attached); sets t_start and now. */
	int (*start)(struct session *s);
	/*
	 * Deliver records up to deadline: 1 when it was reached, 0 at the end
	 * (now set), 2 when a consumer's wake fd became readable first (the
	 * stream delivered up to that moment, as at a deadline), or -errno.
	 */
	int (*run)(struct session *s, uint64_t deadline);
	/* Whether run waits on the consumers' wake fds (session_consumer_wake_fd). */
	bool wakes;
	/* The event a sample id belongs to, NULL when no tool uses it. */
	struct iotap_event *(*find)(struct session *s, uint64_t id);
	/* The callchain a sample of a chain_ids event names; -EINVAL: none. */
	int (*chain)(struct session *s, struct perf_sample *smp);
	/* Events lost on the i-th CPU so far; -ENOENT past the last. */
	int (*lost)(const struct session *s, int i, int *cpu, uint64_t *lost);
	/* CPUs events are read from (a recording: the recorder's). */
	int (*nr_cpus)(const struct session *s);
	/* The per-CPU sample ids of an attached event, for a recorder; -ENOENT: none. */
	int (*event_ids)(const struct session *s, const struct iotap_event *ev,
			 const uint64_t **ids, size_t *nr);
	/*
	 * Optional (session_reset): deliver the stream again from its first
	 * record, read from the input s->opts names now, which must begin as the
	 * one open read (-EINVAL otherwise), or, when they name none, an empty
	 * stream holding nothing of the last input; what the records delivered
	 * so far left is forgotten (stacks, lost counts, time: s->now back to
	 * t_start), and no event is bound. Returns 0 or -errno.
	 */
	int (*rewind)(struct session *s);
	/* With --verbose, at the end: what the source delivered. */
	void (*report_stats)(struct session *s);
	void (*close)(struct session *s);
	/* The facts about the host the events come from (host.h); NULL: none known (host_none). */
	const struct host_ops *host;
};

#endif
