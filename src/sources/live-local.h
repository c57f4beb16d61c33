/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live-local.h - what the files of the live source share: its state, and the calls
 * between them. Not for use outside src/sources/source-live.c, live-permit.c and
 * live-twins.c; live.h is the interface, for the backends too.
 *
 * source-live.c is the source: it opens, attaches, starts, runs and delivers, owns struct
 * live_src (s->src_priv) and everything it points to, and frees it all at close. It is
 * the only caller of the others: live-permit.c asks whether the kernel lets this process
 * trace, saying why not in one line; live-twins.c reads a stack event from the ftrace ring
 * too and joins the two streams, into lv's twins and join. Calls returning int give 0 or
 * -errno.
 */
#ifndef IOTAP_LIVE_LOCAL_H
#define IOTAP_LIVE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live-probe.h"
#include "live.h"

struct dynevent_set;
struct stackjoin;

/* Backends one session can use at once. */
#define LIVE_BACKENDS_MAX 4

struct live_be {
	const struct live_backend_ops *ops;
	void *priv;
};

/* An event read from perf for its callchains and from ftrace for its count. */
struct live_twin {
	struct iotap_event *ev;
	uint64_t ftrace_id;		/* the sample id of its ftrace copies */
	int join;			/* its index in the stackjoin */
	uint64_t perf_id;		/* its perf id on the first CPU, for its records */
	uint64_t stackless_pushed;	/* stackless events already in the stream */
};

struct live_src {
	struct live_be be[LIVE_BACKENDS_MAX];
	int nr_be;
	struct merge *merge;
	struct live_twin *twins;
	size_t nr_twins, cap_twins;
	struct stackjoin *join;		/* with twins: their two streams made one */
	struct pollfd *pfd;
	int nr_pfd;
	int nr_pfd_events;		/* pfd: the backends' first, then the consumers' wake fds */
	struct dynevent_set *dyn;
	bool enabled;
	struct live_probes probes;	/* where this run's probes went */
	struct tgidmap *tgids;		/* each thread's process, for ftrace's events */
	void *rec;			/* a trace entry laid out as a perf sample */
};

/*
 * live_tracefs_permitted - lockdown, then tracefs mounted and readable; said in one line:
 * -EPERM lockdown or no mount allowed, -EACCES tracefs closed to this process
 */
int live_tracefs_permitted(void);
/* live_perf_permitted - whether perf events are open to this process; said in one line */
int live_perf_permitted(void);

/* live_twin_wanted - whether ev is read from the ftrace ring too, beside its stacks' backend */
bool live_twin_wanted(const struct session *s, const struct iotap_event *ev);
/* live_twin_add - ev twinned in ftrace, the ftrace backend of lv; -ENOMEM, or the backend's */
int live_twin_add(struct live_src *lv, struct live_be *ftrace, struct iotap_event *ev);
/* live_join_open - the join of the twinned events, once perf has handed out their ids */
int live_join_open(struct session *s);
/* live_twins_account - a stackless count record per twinned event whose count grew; merge_push's error */
int live_twins_account(struct live_src *lv, uint64_t time);

#endif
