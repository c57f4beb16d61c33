// SPDX-License-Identifier: GPL-2.0-or-later
/* session.c - a session: open, its consumers, dispatch, the run loop and its reports, teardown */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "log.h"
#include "session.h"
#include "session-local.h"
#include "subbuf.h"

const char *const session_source_names[] = { "auto", "ftrace", "perf", NULL };

/* session_stacks_set's hook: how the sessions opened from then on name stacks. */
static session_stacks_fn session_stacks;

/* A source that knows nothing of its host: every fact answers "unknown" (host.h). */
const struct host_ops host_none = { 0 };

/* mono_now - CLOCK_MONOTONIC in ns, the clock every event is stamped with */
uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* session_consumer_add - one more consumer of the run loop (consumer.h) */
int session_consumer_add(struct session *s, const struct consumer_ops *ops, void *priv)
{
	if (array_reserve(&s->cons, &s->cap_cons, s->nr_cons + 1, sizeof(*s->cons), 4))
		return -ENOMEM;
	s->cons[s->nr_cons].ops = ops;
	s->cons[s->nr_cons].no_ftrace = false;
	s->cons[s->nr_cons].wake_fd = -1;
	s->cons[s->nr_cons++].priv = priv;
	s->rec_stale = true;
	if (ops->observer)
		return 0;
	if (ops->on_record)
		s->nr_raw++;
	else
		s->nr_decoders++;
	return 0;
}

/* session_consumer_skip_ftrace - see consumer.h */
int session_consumer_skip_ftrace(struct session *s, void *priv)
{
	for (size_t i = 0; i < s->nr_cons; i++) {
		if (s->cons[i].priv != priv)
			continue;
		s->cons[i].no_ftrace = true;
		s->rec_stale = true;
		return 0;
	}
	return -ENOENT;
}

/* session_consumer_wake_fd - see consumer.h */
int session_consumer_wake_fd(struct session *s, void *priv, int fd)
{
	if (!s->src->wakes)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < s->nr_cons; i++) {
		if (s->cons[i].priv != priv)
			continue;
		s->cons[i].wake_fd = fd;
		return 0;
	}
	return -ENOENT;
}

/* session_fini - the fini of the consumers, or of the observers, last added first */
static void session_fini(struct session *s, bool observers)
{
	for (size_t i = s->nr_cons; i-- > 0;)
		if (s->cons[i].ops->observer == observers && s->cons[i].ops->fini)
			s->cons[i].ops->fini(s, s->cons[i].priv);
}

/* session_start - the start of the observers, or of the consumers, in order */
static int session_start(struct session *s, bool observers)
{
	int ret;

	for (size_t i = 0; i < s->nr_cons; i++) {
		if (s->cons[i].ops->observer != observers || !s->cons[i].ops->start)
			continue;
		ret = s->cons[i].ops->start(s, s->cons[i].priv);
		if (ret)
			return ret;
	}
	return 0;
}

/* session_rec_list - the consumers with on_record, observers first; 0 or -ENOMEM */
static int session_rec_list(struct session *s)
{
	struct session_consumer *r = realloc(s->rec, (2 * s->nr_cons + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	s->rec = r;
	s->nr_rec = s->nr_rec_ftrace = 0;
	s->rec_skip = false;
	for (int obs = 1; obs >= 0; obs--)
		for (size_t i = 0; i < s->nr_cons; i++) {
			if (s->cons[i].ops->observer != obs || !s->cons[i].ops->on_record)
				continue;
			s->rec[s->nr_rec++] = s->cons[i];
			s->rec_skip |= s->cons[i].no_ftrace;
		}
	for (size_t i = 0; s->rec_skip && i < s->nr_rec; i++)
		if (!s->rec[i].no_ftrace)
			s->rec[s->nr_rec + s->nr_rec_ftrace++] = s->rec[i];
	s->rec_stale = false;
	return 0;
}

/* session_on_record - rec to the observers, then to the consumers that take records raw */
static int session_on_record(struct session *s, const struct perf_event_header *rec)
{
	const struct session_consumer *c;
	size_t n;
	int ret;

	if (s->rec_stale && (ret = session_rec_list(s)))
		return ret;
	c = s->rec;
	n = s->nr_rec;
	if (s->rec_skip && ftrace_sample_is(rec)) {
		c += s->nr_rec;
		n = s->nr_rec_ftrace;
	}
	for (size_t i = 0; i < n; i++) {
		ret = c[i].ops->on_record(s, c[i].priv, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/* session_stacks_set - how every session opened from now on names stacks (session.h) */
void session_stacks_set(session_stacks_fn fn)
{
	session_stacks = fn;
}

/* session_open - prepare a session reading src */
int session_open(struct session *s, const struct source_ops *src, const struct session_opts *opts)
{
	int ret;

	memset(s, 0, sizeof(*s));
	session_signals_begin(s);
	s->opts = *opts;
	s->ctx.out = stdout;
	s->ctx.sess = s;
	s->stacks_want = session_stacks;
	s->src = src;
	s->host = src->host ? src->host : &host_none;
	ret = s->src->open(s);
	if (ret || !s->src->rewind)
		return ret;
	/* A session that can run again keeps what a run may add to (session_reset). */
	ret = session_comms_keep(s);
	if (ret)
		return ret;
	s->nr_disks_open = s->disks.nr;
	return 0;
}

/* session_observers_fini - the observers' fini (they outlive the source), then no consumer */
static void session_observers_fini(struct session *s)
{
	session_fini(s, true);
	free(s->cons);
	s->cons = NULL;
	s->nr_cons = s->cap_cons = s->nr_raw = s->nr_decoders = 0;
	free(s->rec);
	s->rec = NULL;
	s->nr_rec = s->nr_rec_ftrace = 0;
}

/* session_reset - s as session_open left it, its source's stream from the start (session.h) */
int session_reset(struct session *s, const struct session_opts *opts)
{
	int ret;

	if (!s->src->rewind)
		return -ENOTSUP;
	session_fini(s, false);
	if (opts)
		s->opts = *opts;
	ret = s->src->rewind(s);
	session_events_free(s);
	session_observers_fini(s);
	session_comms_reset(s);
	s->disks.nr = s->nr_disks_open;
	memset(&s->ctx, 0, sizeof(s->ctx));
	s->ctx.out = stdout;
	s->ctx.sess = s;
	s->interval_ns = s->duration_ns = 0;
	s->lost_reported = s->dropped = s->malformed = 0;
	s->probe_sys = NULL;
	s->pid_filtered = false;
	s->stop = 0;
	session_signals_begin(s);
	return ret;
}

/* session_release - undo everything the session did, kernel state first */
void session_release(struct session *s)
{
	session_fini(s, false);
	if (s->src)
		s->src->close(s);
	session_events_release(s);
	session_comms_release(s);
	/* The observers (the symbolizer, the cgroup tracker) outlive the source. */
	session_observers_fini(s);
	disk_table_release(&s->disks);
	fmt_set_release(&s->fs);
}

static int session_sample_handle(struct session *s, struct iotap_event *ev,
				 const struct perf_sample *smp);

/* session_dispatch - hand one record to the consumers: raw, then to the event's handlers */
int session_dispatch(struct session *s, const struct perf_event_header *rec)
{
	struct iotap_event *ev;
	struct perf_sample smp;
	int ret;

	/* Recorders too keep the count: they say it when they stop. */
	if (rec->type == IOTAP_RECORD_UNDELIVERED || rec->type == IOTAP_RECORD_STACKLESS) {
		ev = s->src->find(s, perf_record_id(rec));
		if (ev && rec->size >= IOTAP_UNDELIVERED_SIZE)
			memcpy(rec->type == IOTAP_RECORD_STACKLESS ? &ev->stackless : &ev->undelivered,
			       rec + 1, 8);
	}
	ret = session_on_record(s, rec);
	if (ret || (s->nr_raw && !s->nr_decoders))
		return ret;
	if (rec->type == PERF_RECORD_COMM) {
		const struct perf_record_comm { uint32_t pid, tid; char comm[16]; } *c =
			(const void *)(rec + 1);

		/* A thread naming itself (io_uring's iou-wrk-N workers) does not rename its process. */
		if (rec->size >= sizeof(*rec) + sizeof(*c) && c->pid == c->tid)
			session_comm_cache(s, c->pid, c->comm);
		return 0;
	}
	if (rec->type == PERF_RECORD_EXIT) {
		const struct perf_record_exit { uint32_t pid, ppid, tid, ptid; uint64_t time; } *e =
			(const void *)(rec + 1);

		/* The process, not one of its threads. */
		if (rec->size >= sizeof(*rec) + sizeof(*e) && e->pid == e->tid)
			session_comm_exit(s, e->pid, e->time);
		return 0;
	}
	if (rec->type == PERF_RECORD_FORK) {
		/* A child has its parent's name until it execs; it may be gone before /proc is read. */
		const struct perf_record_fork { uint32_t pid, ppid, tid, ptid; uint64_t time; } *f =
			(const void *)(rec + 1);

		const char *parent;
		char comm[16];

		if (rec->size >= sizeof(*rec) + sizeof(*f) && f->pid != f->ppid &&
		    (parent = session_comm_cached(s, f->ppid))) {
			/* A copy: caching the child's may move the table parent points into. */
			memcpy(comm, parent, sizeof(comm));
			session_comm_cache(s, f->pid, comm);
		}
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	ev = session_event_find(s, perf_record_id(rec));
	if (!ev) {
		s->dropped++;
		return 0;
	}
	if (perf_sample_parse(rec, ev->sample_type, ev->regs_mask, &smp) ||
	    (ev->chain_ids && s->src->chain(s, &smp))) {
		s->dropped++;
		s->malformed++;
		return 0;
	}
	return session_sample_handle(s, ev, &smp);
}

/* session_sample_handle - a decoded sample of ev to the event's handlers */
static int session_sample_handle(struct session *s, struct iotap_event *ev,
				 const struct perf_sample *smp)
{
	ev->count++;
	for (size_t i = 0; i < ev->nr_h; i++) {
		int ret = ev->h[i].fn(ev->h[i].ctx, smp, ev->h[i].arg);

		if (ret)
			return ret;
	}
	return 0;
}

/* session_dispatch_sample - a sample no consumer takes as a record, to its event's handlers */
int session_dispatch_sample(struct session *s, const struct perf_sample *smp)
{
	struct iotap_event *ev;

	if (s->nr_raw && !s->nr_decoders)
		return 0;
	ev = session_event_find(s, smp->id);
	if (!ev) {
		s->dropped++;
		return 0;
	}
	return session_sample_handle(s, ev, smp);
}

/* session_takes_ftrace_records - whether a consumer takes ftrace samples as records */
bool session_takes_ftrace_records(struct session *s)
{
	if (s->rec_stale && session_rec_list(s))
		return true;
	return s->rec_skip ? s->nr_rec_ftrace > 0 : s->nr_rec > 0;
}

/* session_event_find - the event a sample id belongs to, NULL when none is in use */
struct iotap_event *session_event_find(struct session *s, uint64_t id)
{
	return s->src->find(s, id);
}

/* session_lost_total - events the kernel dropped so far, all CPUs */
uint64_t session_lost_total(const struct session *s)
{
	uint64_t lost = 0, l;
	int cpu;

	for (int i = 0; s->src->lost(s, i, &cpu, &l) == 0; i++)
		lost += l;
	return lost;
}

/* session_warn_malformed - say how many samples did not decode, if any */
void session_warn_malformed(const struct session *s)
{
	if (s->malformed)
		log_msg(LOG_WARN, "%llu samples did not decode and were left out",
			(unsigned long long)s->malformed);
}

/* session_report_lost - say how many events were lost since the last report */
static void session_report_lost(struct session *s)
{
	uint64_t lost = session_lost_total(s);
	char detail[512] = "";
	size_t n = 0;

	if (lost == s->lost_reported)
		return;
	for (int i = 0, cpu; n < sizeof(detail) - 32; i++) {
		uint64_t l;

		if (s->src->lost(s, i, &cpu, &l))
			break;
		if (l)
			n += snprintf(detail + n, sizeof(detail) - n, "%sCPU %d: %llu",
				      n ? ", " : "", cpu, (unsigned long long)l);
	}
	log_msg(LOG_WARN, "lost %llu events (%llu in all; %s): the ring buffers overflowed, raise --mmap-pages",
		(unsigned long long)(lost - s->lost_reported), (unsigned long long)lost, detail);
	s->lost_reported = lost;
}

/* session_undelivered_total - events the kernel counted but never delivered, all events */
uint64_t session_undelivered_total(const struct session *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nr_ev; i++)
		n += s->ev[i]->undelivered;
	return n;
}


/* session_report_undelivered - per event, samples the kernel counted but never delivered */
static void session_report_undelivered(struct session *s)
{
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct iotap_event *ev = s->ev[i];

		if (ev->undelivered <= ev->undelivered_reported)
			continue;
		log_msg(LOG_WARN, "%s:%s: %llu events counted by the kernel but not delivered (%llu in all)%s",
			ev->sys, ev->name,
			(unsigned long long)(ev->undelivered - ev->undelivered_reported),
			(unsigned long long)ev->undelivered,
			session_lost_total(s) ? "; the lost events are among them" :
			": perf sampling dropped them without a lost record; --source ftrace does not");
		ev->undelivered_reported = ev->undelivered;
	}
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct iotap_event *ev = s->ev[i];

		if (ev->stackless <= ev->stackless_reported)
			continue;
		log_msg(LOG_WARN, "%s:%s: %llu events without a stack (%llu in all): perf sampling dropped their samples; the events are counted, from the ftrace ring",
			ev->sys, ev->name, (unsigned long long)(ev->stackless - ev->stackless_reported),
			(unsigned long long)ev->stackless);
		ev->stackless_reported = ev->stackless;
	}
}

/* session_report - one interval's (or the final) output of every consumer */
static int session_report(struct session *s, bool final)
{
	int ret = 0, r;

	for (size_t i = 0; i < s->nr_cons; i++) {
		if (!s->cons[i].ops->report)
			continue;
		r = s->cons[i].ops->report(s, s->cons[i].priv, final);
		if (r && !ret)
			ret = r;
	}
	session_report_lost(s);
	session_report_undelivered(s);
	if (final) {
		session_warn_malformed(s);
		if (s->opts.verbose && s->src->report_stats)
			s->src->report_stats(s);
	}
	return ret;
}

/* How often consumers tick (consumer.h): what is asked for at once comes through a wake fd. */
#define SESSION_TICK_NS 1000000000ull

/* session_tick_due - the first tick after t_start, or never when no consumer ticks */
static uint64_t session_tick_due(const struct session *s)
{
	for (size_t i = 0; i < s->nr_cons; i++)
		if (s->cons[i].ops->tick)
			return s->t_start + SESSION_TICK_NS;
	return UINT64_MAX;
}

/* session_tick - every consumer's tick; the first error, after all had theirs */
static int session_tick(struct session *s)
{
	int ret = 0, r;

	for (size_t i = 0; i < s->nr_cons; i++) {
		if (!s->cons[i].ops->tick)
			continue;
		r = s->cons[i].ops->tick(s, s->cons[i].priv);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* session_wake - the wake of every consumer with a wake fd; the first error, after all had theirs */
static int session_wake(struct session *s)
{
	int ret = 0, r;

	for (size_t i = 0; i < s->nr_cons; i++) {
		if (s->cons[i].wake_fd < 0 || !s->cons[i].ops->wake)
			continue;
		r = s->cons[i].ops->wake(s, s->cons[i].priv);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* session_run - init the consumers, trace, report per interval or once at the end */
int session_run(struct session *s, uint64_t interval_ns, uint64_t count, uint64_t duration_ns)
{
	uint64_t end = UINT64_MAX, next, tick;
	int ret;

	s->interval_ns = interval_ns;
	s->duration_ns = duration_ns;
	for (size_t i = 0; i < s->nr_cons; i++) {
		if (!s->cons[i].ops->init)
			continue;
		ret = s->cons[i].ops->init(s, s->cons[i].priv);
		if (ret)
			return ret;
	}
	duration_ns = s->duration_ns;
	if (!s->nr_ev) {
		log_msg(LOG_ERR, "no event to trace");
		return -EINVAL;
	}
	ret = s->src->start(s);
	if (ret < 0)
		return ret;
	ret = session_start(s, true);
	if (!ret)
		ret = session_start(s, false);
	if (ret)
		return ret;
	if (duration_ns)
		end = s->t_start + duration_ns;
	next = interval_ns ? s->t_start + interval_ns : end;
	tick = s->opts.input || s->opts.input_buf ? UINT64_MAX : session_tick_due(s);
	for (;;) {
		uint64_t deadline = next < end ? next : end;
		bool ticking = tick < deadline;

		if (ticking)
			deadline = tick;
		ret = s->src->run(s, deadline);
		if (ret < 0)
			return ret;
		if (session_aborted(s))
			return 0;
		/* Woken: the same deadline after. */
		if (ret == 2) {
			ret = session_wake(s);
			if (ret)
				return ret;
			continue;
		}
		/* A tick is no report: the stream time of reports stays the interval's. */
		if (ret == 1 && ticking) {
			ret = session_tick(s);
			if (ret)
				return ret;
			tick += SESSION_TICK_NS;
			continue;
		}
		if (ret == 1)
			s->now = deadline;
		if (ret == 0 || deadline == end) {
			/* Stopped, end of recording, or duration reached: the last report. */
			return session_report(s, true);
		}
		if (count && --count == 0)
			return session_report(s, true);
		ret = session_report(s, false);
		if (ret)
			return ret;
		next += interval_ns;
	}
}
