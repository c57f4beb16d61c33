// SPDX-License-Identifier: GPL-2.0-or-later
/* session.c - one tool run: events, the main loop, intervals, teardown */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "log.h"
#include "session.h"
#include "stacks.h"
#include "../parsers/block.h"

#define DRAIN_MS 100

volatile int session_stop;
static volatile int session_abort;

struct comm_ent {
	uint32_t pid;
	char comm[16];
};

/* session_on_signal - first signal stops cleanly, a second SIGINT aborts the final report */
static void session_on_signal(int sig)
{
	if (session_stop && sig == SIGINT)
		session_abort = 1;
	session_stop = 1;
}

/* session_signals_install - SIGINT/SIGTERM/SIGHUP end the run; no SA_RESTART so poll wakes */
void session_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = session_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* mono_now - CLOCK_MONOTONIC in ns, the clock every event is stamped with */
uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* session_wall_offset - realtime minus monotonic, for printing wall-clock times */
static int64_t session_wall_offset(void)
{
	struct timespec rt, mo;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mo);
	return (int64_t)(rt.tv_sec - mo.tv_sec) * 1000000000ll + (rt.tv_nsec - mo.tv_nsec);
}

/* session_init - prepare a session for tool; live unless opts->input names a recording */
int session_init(struct session *s, const struct tool *tool, void *params,
		 const struct session_opts *opts)
{
	memset(s, 0, sizeof(*s));
	s->opts = *opts;
	s->ctx.tool = tool;
	s->ctx.params = params;
	s->ctx.out = stdout;
	s->ctx.sess = s;
	s->live = !opts->input && !opts->input_buf;
	s->src = s->live ? &source_live : &source_file;
	if (tool && tool->state_size) {
		s->ctx.state = calloc(1, tool->state_size);
		if (!s->ctx.state)
			return -ENOMEM;
	}
	return s->src->open(s);
}

/* session_release - undo everything the session did, kernel state first */
void session_release(struct session *s)
{
	if (s->ctx.tool && s->ctx.tool->fini && s->ctx.state)
		s->ctx.tool->fini(&s->ctx);
	/* A thread may still be reading the source's kallsyms text. */
	stacks_session_join(s);
	if (s->src)
		s->src->close(s);
	evlist_free(s->el);
	s->el = NULL;
	dynevent_set_free(s->dyn);
	s->dyn = NULL;
	for (size_t i = 0; i < s->nr_ev; i++) {
		free(s->ev[i]->sys);
		free(s->ev[i]->name);
		free(s->ev[i]);
	}
	free(s->ev);
	s->ev = NULL;
	s->nr_ev = 0;
	free(s->comms);
	s->comms = NULL;
	stacks_session_free(s);
	disk_table_release(&s->disks);
	fmt_set_release(&s->fs);
	free(s->ctx.state);
	s->ctx.state = NULL;
}

/* session_find_event - an event already in use, or NULL */
static struct iotap_event *session_find_event(struct session *s, const char *sys,
					      const char *name)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (!strcmp(s->ev[i]->sys, sys) && !strcmp(s->ev[i]->name, name))
			return s->ev[i];
	return NULL;
}

/* iotap_event_available - whether sys:name can be traced (live) or was recorded */
bool iotap_event_available(struct iotap_ctx *ctx, const char *sys, const char *name)
{
	struct session *s = ctx->sess;

	if (s->live)
		return tfs_event_exists(sys, name);
	return fmt_set_find(&s->fs, sys, name) != NULL;
}

/* iotap_event_use - subscribe fn to sys:name; NULL with errno (ENOENT: no such event) */
struct iotap_event *iotap_event_use(struct iotap_ctx *ctx, const char *sys, const char *name,
				    unsigned int flags, iotap_handler_fn fn, void *arg)
{
	struct session *s = ctx->sess;
	struct iotap_event *ev = session_find_event(s, sys, name), **arr;

	if (ev) {
		if (ev->nr_h == 4 || (s->live && (flags & ~ev->flags))) {
			errno = EBUSY;
			return NULL;
		}
		ev->h[ev->nr_h].fn = fn;
		ev->h[ev->nr_h++].arg = arg;
		return ev;
	}
	arr = realloc(s->ev, (s->nr_ev + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	s->ev = arr;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->sys = strdup(sys);
	ev->name = strdup(name);
	ev->flags = flags;
	ev->sess = s;
	ev->h[0].fn = fn;
	ev->h[0].arg = arg;
	ev->nr_h = 1;
	if (!ev->sys || !ev->name) {
		errno = ENOMEM;
		goto out_free;
	}
	ev->tep = s->live ? fmt_set_add_live(&s->fs, sys, name) : fmt_set_find(&s->fs, sys, name);
	if (!ev->tep) {
		if (s->live && errno == ENOENT)
			iotap_err(ctx, "this kernel has no %s:%s tracepoint", sys, name);
		else if (!s->live)
			iotap_err(ctx, "the recording has no %s:%s events", sys, name);
		else
			iotap_err(ctx, "cannot load the format of %s:%s: %s", sys, name, strerror(errno));
		errno = ENOENT;
		goto out_free;
	}
	if (flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) {
		int ret = stacks_session_want(s, flags & IOTAP_EV_USTACK);

		if (ret) {
			errno = -ret;
			goto out_free;
		}
	}
	if (s->live) {
		/* User stacks are walked here, over a copy (stacks.h), by tools and recorders alike. */
		bool ucopy = flags & IOTAP_EV_USTACK;
		/* Frame pointers need nothing but the sample: walked before the merge (stacks.h). */
		bool walk_early = ucopy && s->opts.call_graph == STACK_CG_FP;
		uint64_t st = 0;

		if (flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK))
			st |= PERF_SAMPLE_CALLCHAIN;
		if (ucopy)
			st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		if (walk_early) {
			int ret = stacks_session_compact(s);

			if (ret) {
				errno = -ret;
				goto out_free;
			}
		}
		ev->sel = evlist_add(s->el, sys, name, ev->tep->id, st);
		if (!ev->sel)
			goto out_free;
		ev->sel->user_callchain = (flags & IOTAP_EV_USTACK) && !ucopy;
		if (ucopy) {
			ev->sel->regs_mask = stack_regs_mask(s->opts.call_graph);
			ev->sel->stack_size = stack_copy_size(s->opts.call_graph);
		}
		ev->sel->priv = ev;
		ev->sample_type = ev->sel->sample_type;
		ev->regs_mask = ev->sel->regs_mask;
		if (walk_early) {
			ev->sample_type = stacks_walked_type(ev->sel->sample_type);
			ev->regs_mask = 0;
		}
	}
	s->ev[s->nr_ev++] = ev;
	return ev;
out_free:
	free(ev->sys);
	free(ev->name);
	free(ev);
	return NULL;
}

/* iotap_probe_create - a kprobe/uprobe in this run's group, removed at exit; *sys gets the group */
int iotap_probe_create(struct iotap_ctx *ctx, bool uprobe, bool ret, const char *name,
		       const char *target, uint64_t offset, const char *args, const char **sys)
{
	struct session *s = ctx->sess;
	enum dynevent_kind kind = uprobe ? (ret ? DYNEVENT_URETPROBE : DYNEVENT_UPROBE) :
		(ret ? DYNEVENT_KRETPROBE : DYNEVENT_KPROBE);
	int err;

	if (!s->live) {
		/* A recording names the recorder's group: find the event by name in any of ours. */
		for (size_t i = 0; i < s->fs.nr; i++) {
			if (!strncmp(s->fs.ev[i].sys, "iotap_", 6) && !strcmp(s->fs.ev[i].name, name)) {
				*sys = s->fs.ev[i].sys;
				return 0;
			}
		}
		iotap_err(ctx, "the recording has no probe named %s", name);
		return -ENOENT;
	}
	err = dynevent_create(s->dyn, kind, name, target, offset, args);
	if (err) {
		iotap_err(ctx, "cannot create %s %s at %s: %s%s", uprobe ? "uprobe" : "kprobe", name,
			  target, strerror(-err),
			  !uprobe && !tfs_file_exists("kprobe_events") ?
			  " (this kernel has no kprobe_events)" : "");
		return err;
	}
	*sys = dynevent_group();
	return 0;
}

/* iotap_stop - end the run after the current record, as a signal would */
void iotap_stop(struct iotap_ctx *ctx)
{
	session_stop = 1;
}

/* iotap_event_format - the parsed kernel format of an event */
struct tep_event *iotap_event_format(struct iotap_event *ev)
{
	return ev->tep;
}

/* iotap_event_filter - AND a tracepoint filter (kernel side, live only) */
int iotap_event_filter(struct iotap_event *ev, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	/* Tools check every filtered field in user space too, so a recording needs none. */
	if (!ev->sel)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return evsel_filter_add(ev->sel, buf);
}

/* session_comm_cache - remember pid's name (comm need not be NUL-terminated) */
void session_comm_cache(struct session *s, uint32_t pid, const char *comm)
{
	for (size_t i = 0; i < s->nr_comms; i++) {
		if (s->comms[i].pid == pid) {
			snprintf(s->comms[i].comm, sizeof(s->comms[i].comm), "%.15s", comm);
			return;
		}
	}
	if (s->nr_comms == s->cap_comms) {
		size_t cap = s->cap_comms ? s->cap_comms * 2 : 64;
		struct comm_ent *c = realloc(s->comms, cap * sizeof(*c));

		if (!c)
			return;
		s->comms = c;
		s->cap_comms = cap;
	}
	s->comms[s->nr_comms].pid = pid;
	snprintf(s->comms[s->nr_comms++].comm, 16, "%.15s", comm);
}

/* iotap_comm - a process name: from COMM records, or /proc when live; "?" if unknown */
const char *iotap_comm(struct iotap_ctx *ctx, uint32_t pid)
{
	struct session *s = ctx->sess;
	char path[64], buf[32] = "";
	FILE *f;

	for (size_t i = 0; i < s->nr_comms; i++)
		if (s->comms[i].pid == pid)
			return s->comms[i].comm;
	if (!s->live)
		return "?";
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return "?";
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	session_comm_cache(s, pid, buf);
	return iotap_comm(ctx, pid);
}

/* iotap_disk_resolve - a disk name ("sda", "/dev/sda", "8:0") to its kernel dev_t */
int iotap_disk_resolve(struct iotap_ctx *ctx, const char *name, uint32_t *dev)
{
	const struct disk *d = disk_table_by_name(&ctx->sess->disks, name);

	if (!d)
		return -ENODEV;
	*dev = d->dev;
	return 0;
}

/*
 * iotap_disk_partition - where partition dev lies on its disk; -ENOENT: dev is a whole
 * disk; -ENODATA: a partition whose place is not known (a recording does not keep it)
 */
int iotap_disk_partition(struct iotap_ctx *ctx, uint32_t dev, uint32_t *disk, uint64_t *start,
			 uint64_t *nr_sectors)
{
	const struct disk *d = disk_table_by_dev(&ctx->sess->disks, dev);

	if (!d)
		return -ENOENT;
	if (!d->parent)
		return disk_table_parent_guess(&ctx->sess->disks, d) ? -ENODATA : -ENOENT;
	*disk = d->parent;
	*start = d->start;
	*nr_sectors = d->nr_sectors;
	return 0;
}

/* iotap_disk_name - the name of a dev_t, or "MAJ:MIN" when unknown */
const char *iotap_disk_name(struct iotap_ctx *ctx, uint32_t dev)
{
	struct session *s = ctx->sess;
	const struct disk *d = disk_table_by_dev(&s->disks, dev);
	char name[32];

	if (d)
		return d->name;
	/* Remember the fallback so the returned pointer stays valid. */
	snprintf(name, sizeof(name), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
	if (disk_table_add(&s->disks, dev, name, ""))
		return "?";
	return s->disks.d[s->disks.nr - 1].name;
}

/* iotap_disk_sched - the I/O scheduler of a disk, "" when unknown */
const char *iotap_disk_sched(struct iotap_ctx *ctx, uint32_t dev)
{
	const struct disk *d = disk_table_by_dev(&ctx->sess->disks, dev);

	return d ? d->sched : "";
}

/* iotap_pid_check - a PID option must name a running process when tracing live */
int iotap_pid_check(struct iotap_ctx *ctx, int pid)
{
	char path[64];

	if (pid <= 0)
		return -EINVAL;
	if (!ctx->sess->live)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) ? -ESRCH : 0;
}

/* iotap_now - stream time (CLOCK_MONOTONIC ns) of the report being printed */
uint64_t iotap_now(struct iotap_ctx *ctx)
{
	return ctx->sess->now;
}

/* iotap_start_time - stream time when tracing began */
uint64_t iotap_start_time(struct iotap_ctx *ctx)
{
	return ctx->sess->t_start;
}

/* iotap_is_live - whether events come from the running kernel */
bool iotap_is_live(struct iotap_ctx *ctx)
{
	return ctx->sess->live;
}

/* iotap_strftime - format a stream time as local wall-clock time */
int iotap_strftime(struct iotap_ctx *ctx, uint64_t mono_ns, const char *fmt, char *buf,
		   size_t len)
{
	time_t t = (time_t)(((int64_t)mono_ns + ctx->sess->wall_offset) / 1000000000ll);
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -EINVAL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* Callers pass literals; the attribute on the prototype checks them there. */
	if (!strftime(buf, len, fmt, &tm))
		return -EINVAL;
#pragma GCC diagnostic pop
	return 0;
}

/* iotap_interval_header - how BCC opens a report: a blank line, then HH:MM:SS with -T */
void iotap_interval_header(struct iotap_ctx *ctx, bool timestamp)
{
	char ts[32];

	fputc('\n', ctx->out);
	if (timestamp && !iotap_strftime(ctx, iotap_now(ctx), "%H:%M:%S", ts, sizeof(ts)))
		fprintf(ctx->out, "%-8s\n", ts);
}

/* iotap_wall_ns - a stream time as CLOCK_REALTIME ns, for sub-second wall-clock times */
uint64_t iotap_wall_ns(struct iotap_ctx *ctx, uint64_t mono_ns)
{
	return (uint64_t)((int64_t)mono_ns + ctx->sess->wall_offset);
}

/* iotap_err - an error line from a tool, through the log hook */
void iotap_err(struct iotap_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
}

/* iotap_info - an informational line (--verbose), through the log hook */
void iotap_info(struct iotap_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_INFO, fmt, ap);
	va_end(ap);
}

/* iotap_verbose - whether --verbose was given */
bool iotap_verbose(struct iotap_ctx *ctx)
{
	return ctx->sess->opts.verbose;
}

/* iotap_warn - a warning line from a tool, through the log hook */
void iotap_warn(struct iotap_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_WARN, fmt, ap);
	va_end(ap);
}

/* session_dispatch - hand one record to the event's handlers (or to the sink) */
int session_dispatch(struct session *s, const struct perf_event_header *rec)
{
	struct iotap_event *ev;
	struct perf_sample smp;
	int ret;

	if (s->sink)
		return s->sink(s, rec);
	if (s->sym && rec->type != PERF_RECORD_SAMPLE)
		stacks_session_record(s, rec);
	if (rec->type == PERF_RECORD_COMM) {
		const struct perf_record_comm { uint32_t pid, tid; char comm[16]; } *c =
			(const void *)(rec + 1);

		if (rec->size >= sizeof(*rec) + sizeof(*c))
			session_comm_cache(s, c->pid, c->comm);
		return 0;
	}
	if (rec->type == PERF_RECORD_FORK) {
		/* A child has its parent's name until it execs; it may be gone before /proc is read. */
		const struct perf_record_fork { uint32_t pid, ppid, tid, ptid; uint64_t time; } *f =
			(const void *)(rec + 1);

		if (rec->size >= sizeof(*rec) + sizeof(*f) && f->pid != f->ppid) {
			for (size_t i = 0; i < s->nr_comms; i++) {
				if (s->comms[i].pid == f->ppid) {
					char comm[16];

					memcpy(comm, s->comms[i].comm, sizeof(comm));
					session_comm_cache(s, f->pid, comm);
					break;
				}
			}
		}
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	ev = s->src->find(s, perf_record_id(rec));
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
	ev->count++;
	for (int i = 0; i < ev->nr_h; i++) {
		ret = ev->h[i].fn(&s->ctx, &smp, ev->h[i].arg);
		if (ret)
			return ret;
	}
	return 0;
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

/* session_report_engine - with --verbose, what the rings delivered */
static void session_report_engine(struct session *s)
{
	uint64_t records = 0;

	if (!s->opts.verbose || !s->el)
		return;
	for (int c = 0; c < evlist_nr_cpus(s->el); c++)
		records += evlist_ring_stats(s->el, c)->records;
	log_msg(LOG_INFO, "rings: %llu records, %llu lost, %llu sorted in late, %llu with an unknown id or malformed",
		(unsigned long long)records, (unsigned long long)session_lost_total(s),
		(unsigned long long)evlist_late(s->el), (unsigned long long)s->dropped);
	for (size_t i = 0; i < s->nr_ev; i++)
		log_msg(LOG_INFO, "  %s:%s: %llu samples", s->ev[i]->sys, s->ev[i]->name,
			(unsigned long long)s->ev[i]->count);
}

/* session_report - one interval's (or the final) output */
static int session_report(struct session *s, bool final)
{
	int ret = 0;

	s->ctx.final = final;
	if (s->ctx.tool->report)
		ret = s->ctx.tool->report(&s->ctx);
	if (fflush(s->ctx.out) && !ret)
		ret = -errno;
	session_report_lost(s);
	if (final) {
		session_warn_malformed(s);
		session_report_engine(s);
	}
	return ret;
}

/* session_run - init the tool, trace, report per interval or once at the end */
int session_run(struct session *s, uint64_t interval_ns, uint64_t count, uint64_t duration_ns)
{
	const struct tool *tool = s->ctx.tool;
	uint64_t end = UINT64_MAX, next;
	int ret;

	s->ctx.interval_ns = interval_ns;
	s->ctx.duration_ns = duration_ns;
	ret = tool->init(&s->ctx);
	if (ret)
		return ret;
	/* A tool may take its duration from its own option (iostack -D). */
	duration_ns = s->ctx.duration_ns;
	if (!s->nr_ev) {
		iotap_err(&s->ctx, "no event to trace");
		return -EINVAL;
	}
	ret = s->src->run(s, 0);
	if (ret < 0)
		return ret;
	if (s->live && tool->banner && s->ctx.data_out) {
		log_msg(LOG_INFO, "%s", tool->banner);
	} else if (s->live && tool->banner) {
		fprintf(s->ctx.out, "%s\n", tool->banner);
		fflush(s->ctx.out);
	}
	if (duration_ns)
		end = s->t_start + duration_ns;
	next = interval_ns ? s->t_start + interval_ns : end;
	for (;;) {
		uint64_t deadline = next < end ? next : end;

		ret = s->src->run(s, deadline);
		if (ret < 0)
			return ret;
		if (session_abort)
			return 0;
		s->now = ret == 1 ? deadline : (s->live ? mono_now() : s->now);
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

/* live_open - find tracefs, clear dead runs' leftovers, read formats, list the disks */
static int live_open(struct session *s)
{
	const char *dir;
	int ret;

	ret = tfs_dir_get(&dir);
	if (ret) {
		log_msg(LOG_ERR, "cannot find or mount tracefs at /sys/kernel/tracing: %s%s",
			strerror(-ret), ret == -EPERM ? " (run as root)" : "");
		return ret;
	}
	ret = dynevent_remove_stale();
	if (ret > 0)
		log_msg(LOG_INFO, "removed %d dynamic events left by a killed iotap", ret);
	ret = fmt_set_init_live(&s->fs);
	if (ret) {
		log_msg(LOG_ERR, "cannot read %s/events/header_page: %s", dir, strerror(-ret));
		return ret;
	}
	s->el = evlist_alloc();
	s->dyn = dynevent_set_alloc();
	if (!s->el || !s->dyn)
		return -ENOMEM;
	ret = disk_table_scan(&s->disks, "/sys/class/block");
	if (ret)
		log_msg(LOG_WARN, "cannot list block devices: %s", strerror(-ret));
	s->wall_offset = session_wall_offset();
	return 0;
}

/* live_deliver - records come out of the merge here, in time order */
static int live_deliver(void *arg, const struct perf_event_header *rec)
{
	return session_dispatch(arg, rec);
}

/* live_start - open the events and enable them (the run(0) call) */
static int live_start(struct session *s)
{
	struct evlist_opts eo = {
		.mmap_pages = s->opts.mmap_pages,
		.max_stack = s->opts.max_stack,
		.track_comm = true,
		.track_mmap = s->opts.track_mmap,
		.build_id = s->opts.track_mmap,
	};
	int ret = evlist_open(s->el, &eo, s->err, sizeof(s->err));

	if (ret) {
		log_msg(LOG_ERR, "%s", s->err);
		return ret;
	}
	s->t_start = mono_now();
	s->now = s->t_start;
	ret = evlist_enable(s->el);
	if (ret)
		log_msg(LOG_ERR, "cannot enable the events: %s", strerror(-ret));
	else
		stacks_session_started(s);
	return ret;
}

/* live_run - poll and drain the rings until deadline or a stop signal */
static int live_run(struct session *s, uint64_t deadline)
{
	int ret;

	if (deadline == 0)
		return live_start(s);
	while (!session_stop) {
		uint64_t now = mono_now();
		int timeout;

		if (now >= deadline) {
			ret = evlist_read_round(s->el, live_deliver, s);
			if (!ret)
				ret = evlist_flush(s->el, deadline, live_deliver, s);
			return ret ? ret : 1;
		}
		/* Drain on a timer too, so an idle CPU's ring does not hold events back. */
		timeout = (deadline - now) / 1000000 >= DRAIN_MS ? DRAIN_MS :
			(int)((deadline - now) / 1000000) + 1;
		ret = evlist_poll(s->el, timeout);
		if (ret < 0 && ret != -EINTR)
			return ret;
		ret = evlist_read_round(s->el, live_deliver, s);
		if (ret)
			return ret;
	}
	if (session_abort)
		return 0;
	/* Stop the kernel writing, then take everything that is left. */
	evlist_disable(s->el);
	ret = evlist_read_round(s->el, live_deliver, s);
	if (!ret)
		ret = evlist_flush(s->el, UINT64_MAX, live_deliver, s);
	return ret;
}

/* live_find - the event a sample id belongs to */
static struct iotap_event *live_find(struct session *s, uint64_t id)
{
	struct evsel *sel = evlist_find_id(s->el, id);

	return sel ? sel->priv : NULL;
}

/* live_lost - what ring i lost so far */
static int live_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	if (!s->el || i >= evlist_nr_cpus(s->el))
		return -ENOENT;
	*cpu = evlist_cpus(s->el)[i];
	*lost = evlist_ring_stats(s->el, i)->lost;
	return 0;
}

/* live_close - stop the events; session_release closes them before the dynamic events go */
static void live_close(struct session *s)
{
	if (s->el)
		evlist_disable(s->el);
}

const struct source_ops source_live = {
	.open = live_open,
	.run = live_run,
	.find = live_find,
	.lost = live_lost,
	.close = live_close,
};
