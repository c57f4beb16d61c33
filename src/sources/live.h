/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_LIVE_H
#define IOTAP_LIVE_H

/*
 * The live source's backends: kinds of kernel ring the running kernel's
 * events are read from (perf_event_open rings today). One session may use
 * several at once: each event is claimed at attach time by the first backend
 * in live_backends[] that takes it, and every backend pushes its records,
 * perf-shaped, into the one time-ordered merge the live source owns; the
 * source ends a merge round only after every backend has been read, so the
 * streams of all backends interleave in time order.
 *
 * Sample ids must be unique across backends: perf's come from the kernel;
 * a backend that makes its own ids keeps them in a range perf never hands
 * out (the top bit set).
 */
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct iotap_event;
struct merge;
struct tep_event;
struct perf_event_header;
struct source_ops;
struct host_ops;
struct ftrace_store;
struct subbuf_decoder;
struct tgidmap;

/* Where a backend's reader hands each record, perf-shaped; it is copied. */
typedef int (*live_push_fn)(void *arg, uint64_t time, const struct perf_event_header *rec);

struct live_backend_ops {
	const char *name;
	void *(*alloc)(struct session *s);
	/* Whether this backend reads ev (ev->flags: its stacks); the last one takes all. */
	bool (*claims)(void *priv, const struct iotap_event *ev);
	/* Add ev (its format is ev->tep): set ev->sample_type and regs_mask; 0 or -errno. */
	int (*attach)(void *priv, struct iotap_event *ev);
	/*
	 * Optional: read ev too, which another backend attached for its
	 * callchains, and return the sample id its records carry here; the
	 * live source joins the two streams (stackjoin.h). ev stays the other's.
	 */
	int (*twin)(void *priv, struct iotap_event *ev, uint64_t *id);
	/* Filter clauses, for ev attached or twinned here. */
	int (*filter)(void *priv, struct iotap_event *ev, const char *clause);
	/* Open the kernel side of every attached event; log why not. */
	int (*open)(void *priv);
	/*
	 * Optional: start the side-band that tells of new threads (FORK), before
	 * any backend's events; 0 or -errno. The source takes its snapshot of
	 * /proc between the two, so no thread falls between them.
	 */
	int (*track)(void *priv);
	/*
	 * Optional, after open: the event of this backend's stream that tells of
	 * each new thread from track on (its sample id and format), for the
	 * source to learn each thread's process in stream order; -ENOENT: none.
	 */
	int (*births)(void *priv, uint64_t *id, struct tep_event **tp);
	int (*enable)(void *priv);
	int (*disable)(void *priv);
	/* The descriptors that wake the reader; up to max into pfd, returns how many. */
	int (*pollfds)(void *priv, struct pollfd *pfd, int max);
	/*
	 * Every complete record to push, each ring's in its order; the source
	 * ends the round. into (NULL: none) is the merge a backend may read its
	 * records into and queue where they lie, tagged its own way
	 * (ftrace_ring_read_into), rather than push them perf-shaped.
	 */
	int (*read)(void *priv, live_push_fn push, void *arg, struct merge *into);
	/*
	 * Optional: after a read, every record not newer than this was pushed
	 * (a ring read only in part holds newer ones back); UINT64_MAX: all.
	 */
	uint64_t (*horizon)(void *priv);
	/*
	 * Optional: before each report, push the backend's own accounting into m,
	 * stamped time: records of events lost or counted but not delivered since
	 * the last call. After disable and a last read, the figures are final.
	 */
	int (*account)(void *priv, struct merge *m, uint64_t time);
	struct iotap_event *(*find)(void *priv, uint64_t id);
	int (*lost)(void *priv, int i, int *cpu, uint64_t *lost);
	int (*nr_cpus)(void *priv);
	int (*event_ids)(void *priv, const struct iotap_event *ev, const uint64_t **ids,
			 size_t *nr);
	/* Records read so far, for --verbose. */
	uint64_t (*records)(void *priv);
	/*
	 * Optional (ftrace): read the ring's sub-buffers into st's rooms from
	 * now on (ftrace.h), and the decoder that reads them again (the
	 * backend's: clone it for another thread); NULL: none.
	 */
	const struct subbuf_decoder *(*store)(void *priv, const struct ftrace_store *st);
	void (*free)(void *priv);
};

/* The backends in the order they are offered each event; NULL-terminated. */
extern const struct live_backend_ops *const live_backends[];

extern const struct live_backend_ops live_perf;
extern const struct live_backend_ops live_ftrace;

/* The source that reads the running kernel, over the backends. */
extern const struct source_ops source_live;

/*
 * live_permitted - 0 when the kernel lets this process trace: no
 * confidentiality lockdown, tracefs mounted (mounted here if it can be) and
 * readable, perf open to it; else -errno, said in one line through the log
 * hook. The live source asks first; so does anything that would otherwise
 * make something (a recording's file) before the source opens.
 */
int live_permitted(void);

/*
 * What a store of the ftrace sub-buffers needs to make records of them again
 * as the live source makes them: the decoder (the backend's; clone it for
 * another thread) and the map that fills in each thread's process (the
 * source's, NULL when no consumer names one; copy it, tgidmap_copy_at).
 */
struct live_subbufs {
	const struct subbuf_decoder *dec;
	struct tgidmap *tgids;
};

/*
 * live_store_subbufs - a live session's ftrace sub-buffers read into st's
 * rooms from now on (before the first read: every ftrace event it delivers
 * is in them), *out what makes records of them again. -EOPNOTSUPP when the
 * session is not live, reads no ftrace ring, or joins ftrace events with
 * perf's callchains (their records are not the sub-buffers' alone).
 */
int live_store_subbufs(struct session *s, const struct ftrace_store *st, struct live_subbufs *out);

/* Its host facts, from the running system (host-live.c). */
extern const struct host_ops host_live;

/*
 * host_live_comms_warm - cache every running process's name now (as a
 * recording's COMM section has them): events are read a moment after they
 * happen, when a short-lived process may be gone
 */
void host_live_comms_warm(struct session *s);

#endif
