// SPDX-License-Identifier: GPL-2.0-or-later
/* source-live.c - the session source that traces the running kernel, through its backends */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diskwatch.h"
#include "ftrace.h"
#include "live-local.h"
#include "live-probe.h"
#include "live.h"
#include "log.h"
#include "merge.h"
#include "restrict.h"
#include "sample.h"
#include "session.h"
#include "stackjoin.h"
#include "tgidmap.h"

#define DRAIN_MS 100
/* Poll descriptors over all backends: a ring per CPU each. */
#define LIVE_POLLFDS_MAX 4096

/* ftrace first: it takes every event without callchains (--source decides otherwise). */
const struct live_backend_ops *const live_backends[] = { &live_ftrace, &live_perf, NULL };

/* live_wall_offset - realtime minus monotonic, for printing wall-clock times */
static int64_t live_wall_offset(void)
{
	struct timespec rt, mo;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mo);
	return (int64_t)(rt.tv_sec - mo.tv_sec) * 1000000000ll + (rt.tv_nsec - mo.tv_nsec);
}

/* live_open - find tracefs, clear dead runs' leftovers, read formats, list the disks */
static int live_open(struct session *s)
{
	struct live_src *lv = calloc(1, sizeof(*lv));
	enum lockdown_mode mode;
	const char *dir;
	int ret;

	if (!lv)
		return -ENOMEM;
	s->src_priv = lv;
	/* perf is asked at the start, when the tools have said whether they need it. */
	ret = live_tracefs_permitted();
	if (!ret)
		ret = tfs_dir_get(&dir);
	if (ret)
		return ret;
	/* The instances first: their enabled events would keep the dynamic events busy. */
	ret = ftrace_instance_remove_stale();
	if (ret > 0)
		log_msg(LOG_INFO, "removed %d tracefs instances left by a killed iotap", ret);
	ret = dynevent_remove_stale();
	if (ret > 0)
		log_msg(LOG_INFO, "removed %d dynamic events left by a killed iotap", ret);
	ret = fmt_set_init_live(&s->fs);
	/* Lockdown hides tracefs's files (boot) or refuses them (raised later). */
	if ((ret == -ENOENT || ret == -EPERM) && lockdown_read(&mode) == -ENOENT) {
		log_msg(LOG_ERR, "cannot read %s/events/header_page: %s; kernel lockdown 'confidentiality' does this to root too (securityfs is not mounted, so %s cannot tell)",
			dir, strerror(-ret), LOCKDOWN_FILE);
		return ret;
	}
	if (ret) {
		log_msg(LOG_ERR, "cannot read %s/events/header_page: %s", dir, strerror(-ret));
		return ret;
	}
	lv->merge = merge_alloc();
	lv->dyn = dynevent_set_alloc();
	lv->rec = malloc(PERF_RECORD_MAX);
	if (!lv->merge || !lv->dyn || !lv->rec)
		return -ENOMEM;
	ret = disk_table_scan(&s->disks, "/sys/class/block");
	if (ret)
		log_msg(LOG_WARN, "cannot list block devices: %s", strerror(-ret));
	s->wall_offset = live_wall_offset();
	/* A disk that goes away while tracing is said (diskwatch.h). */
	return diskwatch_add(s);
}

/* live_event_names - the kernel's events of system sys */
static int live_event_names(struct session *s, const char *sys, char ***names)
{
	return tfs_event_names(sys, names);
}

/* live_event_available - whether the kernel has sys:name */
static bool live_event_available(struct session *s, const char *sys, const char *name)
{
	return tfs_event_exists(sys, name);
}

/* live_backend_get - the session's instance of backend ops, allocated on first use */
static struct live_be *live_backend_get(struct session *s, const struct live_backend_ops *ops)
{
	struct live_src *lv = s->src_priv;
	struct live_be *be;
	void *priv;

	for (int i = 0; i < lv->nr_be; i++)
		if (lv->be[i].ops == ops)
			return &lv->be[i];
	if (lv->nr_be == LIVE_BACKENDS_MAX) {
		errno = ENOSPC;
		return NULL;
	}
	priv = ops->alloc(s);
	if (!priv)
		return NULL;
	be = &lv->be[lv->nr_be++];
	be->ops = ops;
	be->priv = priv;
	return be;
}

/* live_backend - the backend that takes ev, allocated on first use */
static struct live_be *live_backend(struct session *s, const struct iotap_event *ev)
{
	for (const struct live_backend_ops *const *o = live_backends; *o; o++) {
		struct live_be *be = live_backend_get(s, *o);

		if (!be)
			return NULL;
		if (be->ops->claims(be->priv, ev))
			return be;
	}
	errno = ENOENT;
	return NULL;
}

/* live_twin - ev read from the ftrace ring too, when it wants a twin (live-local.h) */
static int live_twin(struct session *s, struct iotap_event *ev)
{
	struct live_be *be;

	if (!live_twin_wanted(s, ev))
		return 0;
	be = live_backend_get(s, &live_ftrace);
	if (!be)
		return -errno;
	return live_twin_add(s->src_priv, be, ev);
}

/* live_event_attach - the kernel's format of ev, and a backend to read it */
static int live_event_attach(struct session *s, struct iotap_event *ev)
{
	struct live_be *be;
	int ret;

	ev->tep = fmt_set_add_live(&s->fs, ev->sys, ev->name);
	if (!ev->tep) {
		if (errno == ENOENT)
			log_msg(LOG_ERR, "this kernel has no %s:%s tracepoint", ev->sys, ev->name);
		else
			log_msg(LOG_ERR, "cannot load the format of %s:%s: %s", ev->sys, ev->name,
				strerror(errno));
		return -ENOENT;
	}
	be = live_backend(s, ev);
	if (!be)
		return -errno;
	ret = live_twin(s, ev);
	if (ret)
		return ret;
	ret = be->ops->attach(be->priv, ev);
	if (ret)
		return ret;
	ev->be = (unsigned int)(be - ((struct live_src *)s->src_priv)->be);
	/* The kernel side is opened with this layout: a later user cannot add stacks. */
	ev->layout_fixed = true;
	return 0;
}

/* live_event_filter - a kernel-side filter, through the event's backend and its twin's */
static int live_event_filter(struct session *s, struct iotap_event *ev, const char *clause)
{
	struct live_src *lv = s->src_priv;
	struct live_be *be = &lv->be[ev->be];
	int ret = be->ops->filter ? be->ops->filter(be->priv, ev, clause) : 0;

	/* The two copies of an event must be the same events. */
	if (!ret && ev->twin) {
		be = live_backend_get(s, &live_ftrace);
		ret = be ? be->ops->filter(be->priv, ev, clause) : -errno;
	}
	return ret;
}

/* live_probe_available - whether this kernel can take the probe (live-probe.h) */
static bool live_probe_available(struct session *s, const struct probe_spec *p)
{
	struct live_src *lv = s->src_priv;

	return live_probes_available(&lv->probes, p);
}

/* live_probe_create - a kprobe/uprobe in this run's group, removed at exit (live-probe.h) */
static int live_probe_create(struct session *s, const struct probe_spec *p, const char **sys)
{
	struct live_src *lv = s->src_priv;

	return live_probes_create(&lv->probes, lv->dyn, p, sys);
}

/* live_store_subbufs - the ftrace backend's sub-buffers into st's rooms (live.h) */
int live_store_subbufs(struct session *s, const struct ftrace_store *st, struct live_subbufs *out)
{
	struct live_src *lv = s->src == &source_live ? s->src_priv : NULL;

	if (!lv || lv->join || lv->nr_twins)
		return -EOPNOTSUPP;
	for (int i = 0; i < lv->nr_be; i++) {
		if (!lv->be[i].ops->store)
			continue;
		out->dec = lv->be[i].ops->store(lv->be[i].priv, st);
		out->tgids = lv->tgids;
		return out->dec ? 0 : -EOPNOTSUPP;
	}
	return -EOPNOTSUPP;
}

/*
 * live_deliver_record - a perf-shaped record, its process filled in where it is missing; a
 * thread's birth the map took goes on only to a consumer that uses the event too (the
 * cgroup tracker, for the children born into a cgroup of their own)
 */
static int live_deliver_record(struct session *s, struct perf_event_header *rec)
{
	struct live_src *lv = s->src_priv;

	if (lv->tgids && (s->opts.pids_unread ? tgidmap_track(lv->tgids, rec) :
			  tgidmap_record(lv->tgids, rec)) &&
	    !session_event_find(s, perf_record_id(rec)))
		return 0;
	return session_dispatch(s, rec);
}

/*
 * live_deliver_entry - a trace entry the ftrace ring queued where it lies
 * (ftrace_ring_read_into), of CPU cpu: decoded here, once, into the sample
 * the handlers take; laid out as a perf sample only for a consumer that takes
 * it as a record
 */
static int live_deliver_entry(struct session *s, uint64_t time, const void *entry, uint32_t size,
			      int cpu)
{
	struct live_src *lv = s->src_priv;
	struct perf_sample smp;
	uint16_t type;
	int32_t tid;

	if (session_takes_ftrace_records(s)) {
		struct perf_event_header *h = (void *)subbuf_sample_lay(lv->rec, cpu, time, entry, size);

		return h ? live_deliver_record(s, h) : 0;
	}
	/* struct trace_entry: u16 type, u8 flags, u8 preempt_count, s32 pid (the thread) */
	memcpy(&type, entry, 2);
	memcpy(&tid, (const char *)entry + 4, 4);
	perf_sample_of_entry(&smp, ftrace_sample_id(type), time, (uint32_t)tid, (uint32_t)cpu,
			     entry, size);
	if (lv->tgids && tgidmap_entry(lv->tgids, smp.id, smp.tid, entry, size,
				       s->opts.pids_unread ? NULL : &smp.pid) &&
	    !session_event_find(s, smp.id))
		return 0;
	return session_dispatch_sample(s, &smp);
}

/* live_deliver - records come out of the merge here, in time order, delivered once */
static int live_deliver(void *arg, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	if (tag & FTRACE_ENTRY_TAG)
		return live_deliver_entry(arg, time, rec, (uint32_t)size,
					  (int)(tag & ~FTRACE_ENTRY_TAG));
	/* The merge's own copy: filled in where it lies. */
	return live_deliver_record(arg, (struct perf_event_header *)rec);
}

/* live_queue - a record into the merge (a live_push_fn, and the join's way out) */
static int live_queue(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	struct live_src *lv = ((struct session *)arg)->src_priv;

	return merge_push(lv->merge, time, rec, rec->size);
}

/* live_push - a backend's record: a twinned event's copy to the join, the rest to the merge */
static int live_push(void *arg, uint64_t time, const struct perf_event_header *rec)
{
	struct session *s = arg;
	struct live_src *lv = s->src_priv;
	struct iotap_event *ev;
	uint64_t id;

	if (!lv->join || rec->type != PERF_RECORD_SAMPLE)
		return live_queue(s, time, rec);
	id = perf_record_id(rec);
	for (size_t i = 0; i < lv->nr_twins; i++)
		if (lv->twins[i].ftrace_id == id)
			return stackjoin_push(lv->join, lv->twins[i].join, STACKJOIN_FTRACE, rec);
	ev = s->src->find(s, id);
	if (ev && ev->twin)
		return stackjoin_push(lv->join, lv->twins[ev->twin - 1].join, STACKJOIN_PERF, rec);
	return live_queue(s, time, rec);
}

/* live_start - open every backend's events, then enable them all */
static int live_start(struct session *s)
{
	struct live_src *lv = s->src_priv;
	int ret;

	lv->pfd = calloc(LIVE_POLLFDS_MAX, sizeof(*lv->pfd));
	if (!lv->pfd)
		return -ENOMEM;
	/*
	 * Process names and mappings come from perf's side-band, whoever reads
	 * the events; unless no consumer names a process (session_opts.no_procs):
	 * then the host's COMM, FORK and EXIT records are not taken at all.
	 */
	if (!s->opts.no_procs) {
		if (!live_backend_get(s, &live_perf))
			return -errno;
		host_live_comms_warm(s);
	}
	/* A run without perf (no process named, no stack) needs tracefs alone. */
	for (int i = 0; i < lv->nr_be; i++) {
		if (lv->be[i].ops != &live_perf)
			continue;
		ret = live_perf_permitted();
		if (ret)
			return ret;
	}
	for (int i = 0; i < lv->nr_be; i++) {
		ret = lv->be[i].ops->open(lv->be[i].priv);
		if (ret)
			return ret;
		lv->nr_pfd += lv->be[i].ops->pollfds(lv->be[i].priv, lv->pfd + lv->nr_pfd,
						     LIVE_POLLFDS_MAX - lv->nr_pfd);
	}
	lv->nr_pfd_events = lv->nr_pfd;
	for (size_t i = 0; i < s->nr_cons && lv->nr_pfd < LIVE_POLLFDS_MAX; i++) {
		if (s->cons[i].wake_fd < 0)
			continue;
		lv->pfd[lv->nr_pfd].fd = s->cons[i].wake_fd;
		lv->pfd[lv->nr_pfd++].events = POLLIN;
	}
	ret = live_join_open(s);
	if (ret)
		return ret;
	/*
	 * Each thread's process, complete from the first event on: the births
	 * first (the ftrace ring's task_newtask, perf's FORK side-band), then the
	 * threads /proc lists, then the events. A thread made after the births
	 * are traced has its record; one made before is listed, since it lives
	 * on until its first event, which comes after the snapshot. Either other
	 * order leaves a window: a thread whose events are traced, that no
	 * record names, and that /proc no longer knows once it has exited.
	 */
	if (!s->opts.no_procs) {
		lv->tgids = tgidmap_alloc();
		if (!lv->tgids)
			return -ENOMEM;
	}
	for (int i = 0; i < lv->nr_be; i++) {
		struct tep_event *tp;
		uint64_t id;

		if (lv->tgids && lv->be[i].ops->births &&
		    !lv->be[i].ops->births(lv->be[i].priv, &id, &tp))
			tgidmap_births(lv->tgids, id, tp);
		ret = lv->be[i].ops->track ? lv->be[i].ops->track(lv->be[i].priv) : 0;
		if (ret) {
			log_msg(LOG_ERR, "cannot start tracing new threads: %s",
				strerror(-ret));
			return ret;
		}
	}
	if (lv->tgids) {
		ret = tgidmap_snapshot(lv->tgids);
		if (ret)
			return ret;
	}
	s->t_start = mono_now();
	s->now = s->t_start;
	lv->enabled = true;
	for (int i = 0; i < lv->nr_be; i++) {
		ret = lv->be[i].ops->enable(lv->be[i].priv);
		if (ret) {
			log_msg(LOG_ERR, "cannot enable the events: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * live_horizon - the newest time the merge may emit: none the join still
 * holds, nor any a backend left unread in its ring, is older
 */
static uint64_t live_horizon(const struct live_src *lv)
{
	uint64_t h = lv->join ? stackjoin_horizon(lv->join) : UINT64_MAX;

	for (int i = 0; i < lv->nr_be; i++) {
		uint64_t b = lv->be[i].ops->horizon ? lv->be[i].ops->horizon(lv->be[i].priv) : UINT64_MAX;

		if (b < h)
			h = b;
	}
	return h;
}

/*
 * live_read_round - every backend read, twins joined, then what ordering
 * allows emitted; final: the kernel writes no more, nothing waits for a twin
 */
static int live_read_round(struct session *s, bool final)
{
	struct live_src *lv = s->src_priv;
	/* Before the reads: a twin written before now - grace is in what they take. */
	uint64_t now = mono_now();
	int ret;

	for (int i = 0; i < lv->nr_be; i++) {
		/* The join takes perf-shaped records; without one, ftrace's go in where they lie. */
		ret = lv->be[i].ops->read(lv->be[i].priv, live_push, s, lv->join ? NULL : lv->merge);
		if (ret)
			return ret;
	}
	if (lv->join) {
		ret = stackjoin_resolve(lv->join, now, final, live_queue, s);
		if (ret)
			return ret;
	}
	return merge_round_end(lv->merge, live_horizon(lv), live_deliver, s);
}

/* live_account - every backend's accounting records into the merge, stamped time */
static int live_account(struct session *s, uint64_t time)
{
	struct live_src *lv = s->src_priv;
	int ret = live_twins_account(lv, time);

	if (ret)
		return ret;

	for (int i = 0; i < lv->nr_be; i++) {
		if (!lv->be[i].ops->account)
			continue;
		ret = lv->be[i].ops->account(lv->be[i].priv, lv->merge, time);
		if (ret)
			return ret;
	}
	return 0;
}

/* live_disable - stop the kernel writing into every backend's rings */
static void live_disable(struct live_src *lv)
{
	if (!lv->enabled)
		return;
	for (int i = 0; i < lv->nr_be; i++)
		lv->be[i].ops->disable(lv->be[i].priv);
	lv->enabled = false;
}

/* live_woken - whether the last poll found a consumer's wake fd readable */
static bool live_woken(const struct live_src *lv)
{
	for (int i = lv->nr_pfd_events; i < lv->nr_pfd; i++)
		if (lv->pfd[i].revents & POLLIN)
			return true;
	return false;
}

/* live_catch_up - read, account and deliver all the merge may emit up to until */
static int live_catch_up(struct session *s, uint64_t until)
{
	struct live_src *lv = s->src_priv;
	uint64_t limit;
	int ret = live_read_round(s, false);

	if (!ret)
		ret = live_account(s, until);
	/* What the join holds is older than until: a later round has it. */
	limit = live_horizon(lv) < until ? live_horizon(lv) : until;
	if (!ret)
		ret = merge_flush(lv->merge, limit, live_deliver, s);
	return ret;
}

/* live_run - poll and drain the rings until deadline, a consumer's wake or a stop signal */
static int live_run(struct session *s, uint64_t deadline)
{
	struct live_src *lv = s->src_priv;
	int ret;

	while (!session_stopped(s)) {
		uint64_t now = mono_now();
		int timeout;

		if (now >= deadline) {
			ret = live_catch_up(s, deadline);
			return ret ? ret : 1;
		}
		/* Drain on a timer too, so an idle CPU's ring does not hold events back. */
		timeout = (deadline - now) / 1000000 >= DRAIN_MS ? DRAIN_MS :
			(int)((deadline - now) / 1000000) + 1;
		ret = poll(lv->pfd, lv->nr_pfd, timeout);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0 && live_woken(lv)) {
			ret = live_catch_up(s, mono_now());
			return ret ? ret : 2;
		}
		ret = live_read_round(s, false);
		if (ret)
			return ret;
	}
	if (session_aborted(s))
		return 0;
	/* Stop the kernel writing, then take everything that is left. */
	live_disable(lv);
	ret = live_read_round(s, true);
	s->now = mono_now();
	if (!ret)
		ret = live_account(s, s->now);
	if (!ret)
		ret = merge_flush(lv->merge, UINT64_MAX, live_deliver, s);
	return ret;
}

/* live_find - the event a sample id belongs to, in whichever backend */
static struct iotap_event *live_find(struct session *s, uint64_t id)
{
	struct live_src *lv = s->src_priv;

	for (int i = 0; i < lv->nr_be; i++) {
		struct iotap_event *ev = lv->be[i].ops->find(lv->be[i].priv, id);

		if (ev)
			return ev;
	}
	return NULL;
}

/* live_lost - what ring i lost so far, the rings of all backends in turn */
static int live_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct live_src *lv = s->src_priv;

	for (int b = 0; lv && b < lv->nr_be; b++) {
		int n = lv->be[b].ops->nr_cpus(lv->be[b].priv);

		if (i < n)
			return lv->be[b].ops->lost(lv->be[b].priv, i, cpu, lost);
		i -= n;
	}
	return -ENOENT;
}

/* live_nr_cpus - the CPUs events are read on */
static int live_nr_cpus(const struct session *s)
{
	const struct live_src *lv = s->src_priv;
	int n = 0;

	for (int b = 0; b < lv->nr_be; b++) {
		int c = lv->be[b].ops->nr_cpus(lv->be[b].priv);

		if (c > n)
			n = c;
	}
	return n;
}

/* live_event_ids - the sample ids of ev, from its backend */
static int live_event_ids(const struct session *s, const struct iotap_event *ev,
			  const uint64_t **ids, size_t *nr)
{
	const struct live_be *be = &((const struct live_src *)s->src_priv)->be[ev->be];

	return be->ops->event_ids(be->priv, ev, ids, nr);
}

/* live_report_stats - with --verbose, what the rings delivered */
static void live_report_stats(struct session *s)
{
	struct live_src *lv = s->src_priv;
	uint64_t records = 0;

	if (!lv->pfd)
		return;
	for (int i = 0; i < lv->nr_be; i++)
		records += lv->be[i].ops->records(lv->be[i].priv);
	log_msg(LOG_INFO, "rings: %llu records, %llu lost, %llu sorted in late, %llu with an unknown id or malformed",
		(unsigned long long)records, (unsigned long long)session_lost_total(s),
		(unsigned long long)merge_late(lv->merge), (unsigned long long)s->dropped);
	for (size_t i = 0; i < s->nr_ev; i++)
		log_msg(LOG_INFO, "  %s:%s: %llu samples", s->ev[i]->sys, s->ev[i]->name,
			(unsigned long long)s->ev[i]->count);
	for (size_t i = 0; lv->join && i < lv->nr_twins; i++) {
		const struct stackjoin_stats *st = stackjoin_stats(lv->join, lv->twins[i].join);

		log_msg(LOG_INFO, "  %s:%s from both rings: %llu joined (%llu by thread and time), %llu without a stack, %llu from perf alone, %llu late twins dropped",
			lv->twins[i].ev->sys, lv->twins[i].ev->name, (unsigned long long)st->joined,
			(unsigned long long)st->loose, (unsigned long long)st->stackless,
			(unsigned long long)st->perf_only, (unsigned long long)st->late);
	}
}

/* live_close - stop and close the events, then remove the dynamic events they used */
static void live_close(struct session *s)
{
	struct live_src *lv = s->src_priv;

	if (!lv)
		return;
	live_disable(lv);
	for (int i = 0; i < lv->nr_be; i++)
		lv->be[i].ops->free(lv->be[i].priv);
	dynevent_set_free(lv->dyn);
	live_probes_release(&lv->probes);
	stackjoin_free(lv->join);
	free(lv->twins);
	merge_free(lv->merge);
	tgidmap_free(lv->tgids);
	free(lv->rec);
	free(lv->pfd);
	free(lv);
	s->src_priv = NULL;
}

const struct source_ops source_live = {
	.name = "live",
	.wakes = true,
	.open = live_open,
	.event_names = live_event_names,
	.event_available = live_event_available,
	.event_attach = live_event_attach,
	.event_filter = live_event_filter,
	.probe_available = live_probe_available,
	.probe_create = live_probe_create,
	.start = live_start,
	.run = live_run,
	.find = live_find,
	.lost = live_lost,
	.nr_cpus = live_nr_cpus,
	.event_ids = live_event_ids,
	.report_stats = live_report_stats,
	.close = live_close,
	.host = &host_live,
};
