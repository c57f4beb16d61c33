// SPDX-License-Identifier: GPL-2.0-or-later
/* session.c - one tool run: events, the main loop, intervals, teardown */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <event-parse.h>

#include "array.h"
#include "cgroup.h"
#include "log.h"
#include "session.h"
#include "symbolizer.h"
#include "../parsers/block.h"

/* Ring pages per CPU at least, when samples carry user stack copies. */
#define SESSION_DWARF_PAGES 1024
#define SESSION_FP_PAGES 512

const char *const session_source_names[] = { "auto", "ftrace", "perf", NULL };

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

/* session_aborted - whether a second SIGINT asked to skip the final report */
bool session_aborted(void)
{
	return session_abort;
}

/* session_input_source - what reads the input: perf.data by its magic, else an iotap recording */
static const struct source_ops *session_input_source(const struct session_opts *opts)
{
	char magic[10];
	ssize_t n = 0;
	int fd;

	if (!opts->input && source_tracedat.claims(opts->input_buf, opts->input_len))
		return &source_tracedat;
	if (!opts->input)
		return source_perf.claims(opts->input_buf, opts->input_len) ? &source_perf : &source_file;
	/* The recording source says why a file cannot be read; a pipe is not read twice. */
	fd = open(opts->input, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			n = read(fd, magic, sizeof(magic));
		close(fd);
	}
	if (n == sizeof(magic) && source_tracedat.claims(magic, sizeof(magic)))
		return &source_tracedat;
	return n == sizeof(magic) && source_perf.claims(magic, sizeof(magic)) ? &source_perf : &source_file;
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
	s->src = opts->input || opts->input_buf ? session_input_source(opts) : &source_live;
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
	if (s->src)
		s->src->close(s);
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
	symbolizer_free(s->sym);
	s->sym = NULL;
	cgtrack_free(s->cg);
	s->cg = NULL;
	disk_table_release(&s->disks);
	fmt_set_release(&s->fs);
	free(s->ctx.state);
	s->ctx.state = NULL;
}

/* session_ksyms_load - the symbolizer's kernel symbols come from the source */
static struct ksyms *session_ksyms_load(void *arg)
{
	struct session *s = arg;

	return s->src->ksyms_load ? s->src->ksyms_load(s) : NULL;
}

/* session_stacks_want - a tool takes stacks: make the symbolizer (user: also for user frames) */
static int session_stacks_want(struct session *s, bool user)
{
	struct symbolizer_opts so = {
		.call_graph = s->opts.call_graph,
		.max_stack = s->opts.max_stack,
		.symfs = s->opts.symfs,
		.ksyms_load = session_ksyms_load,
		.ksyms_arg = s,
	};
	uint64_t pages;
	int ret;

	if (!s->sym) {
		s->sym = symbolizer_alloc(&so);
		if (!s->sym)
			return -ENOMEM;
		if (s->src->ksyms_prefetch)
			s->src->ksyms_prefetch(s);
	}
	if (!user || symbolizer_usyms(s->sym))
		return 0;
	ret = symbolizer_want_user(s->sym);
	if (ret)
		return ret;
	/* Live: MMAP2 side-band with build-ids for processes that start or exec while tracing. */
	s->opts.track_mmap = true;
	/* Samples carry a copy of the user stack, and a process's first unwind is slow: room for bursts. */
	pages = s->opts.call_graph == STACK_CG_DWARF ? SESSION_DWARF_PAGES : SESSION_FP_PAGES;
	if (s->opts.mmap_pages < pages)
		s->opts.mmap_pages = pages;
	return 0;
}

/* session_stacks_started - events flow: the mappings of the processes already running */
static void session_stacks_started(struct session *s)
{
	struct usyms *us = symbolizer_usyms(s->sym);

	/* A recorder stores the mappings itself, and needs them only to unwind DWARF as it records. */
	if (!us || !s->src->maps_load ||
	    (s->opts.walk_only && s->opts.call_graph != STACK_CG_DWARF))
		return;
	s->src->maps_load(s, us);
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

/* iotap_event_available - whether the source can deliver sys:name */
bool iotap_event_available(struct iotap_ctx *ctx, const char *sys, const char *name)
{
	struct session *s = ctx->sess;

	return s->src->event_available(s, sys, name);
}

/*
 * iotap_event_each - fn for every event sys:NAME whose NAME matches the glob
 * pattern, among those the source can deliver. Return: how many matched (0:
 * none), -errno (ENOENT: no such system), or fn's non-zero return.
 */
int iotap_event_each(struct iotap_ctx *ctx, const char *sys, const char *pattern,
		     iotap_event_each_fn fn, void *arg)
{
	struct session *s = ctx->sess;
	char **names;
	int n = 0, ret;

	if (!s->src->event_names)
		return -ENOTSUP;
	ret = s->src->event_names(s, sys, &names);
	if (ret)
		return ret;
	for (size_t i = 0; names[i]; i++) {
		if (!ret && !fnmatch(pattern, names[i], 0)) {
			ret = fn(ctx, sys, names[i], arg);
			n++;
		}
		free(names[i]);
	}
	free(names);
	return ret ? ret : n;
}

/*
 * session_undeclared - whether the tool uses sys:name (with flags) without declaring
 * it in its events table, which is what `iotap record` records and the man page lists.
 * Its own probes are not in the table: they are made from the command line.
 */
static bool session_undeclared(struct session *s, const char *sys, const char *name,
			       unsigned int flags)
{
	const struct tool *t = s->ctx.tool;

	/* A tool that takes its events from a specification (probe) declares none. */
	if (!t || !t->events || t->args == TOOL_ARGS_SPEC ||
	    (s->probe_sys && !strcmp(sys, s->probe_sys)))
		return false;
	for (const struct tool_event *e = t->events; e->sys; e++) {
		if (strcmp(e->sys, sys) || strcmp(e->name, name))
			continue;
		if ((flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) && !(e->flags & TOOL_EV_STACK)) {
			log_msg(LOG_ERR, "%s takes stacks on %s:%s, which its events table does not declare",
				t->name, sys, name);
			return true;
		}
		return false;
	}
	log_msg(LOG_ERR, "%s uses %s:%s, which its events table does not declare", t->name, sys,
		name);
	return true;
}

/* iotap_event_use - subscribe fn to sys:name; NULL with errno (ENOENT: no such event) */
struct iotap_event *iotap_event_use(struct iotap_ctx *ctx, const char *sys, const char *name,
				    unsigned int flags, iotap_handler_fn fn, void *arg)
{
	struct session *s = ctx->sess;

	if (session_undeclared(s, sys, name, flags)) {
		errno = EINVAL;
		return NULL;
	}
	return session_event_use(s, sys, name, flags, fn, arg);
}

/*
 * session_event_use - subscribe fn to sys:name for the session itself (the
 * cgroup tracker), outside any tool's events table; NULL with errno
 */
struct iotap_event *session_event_use(struct session *s, const char *sys, const char *name,
				      unsigned int flags, iotap_handler_fn fn, void *arg)
{
	struct iotap_event *ev = session_find_event(s, sys, name), **arr;
	int ret;

	if (ev) {
		if (ev->nr_h == 4 || (ev->layout_fixed && (flags & ~ev->flags))) {
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
	if (flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) {
		ret = session_stacks_want(s, flags & IOTAP_EV_USTACK);
		if (ret) {
			errno = -ret;
			goto out_free;
		}
	}
	ret = s->src->event_attach(s, ev);
	if (ret) {
		errno = -ret;
		goto out_free;
	}
	s->ev[s->nr_ev++] = ev;
	return ev;
out_free:
	free(ev->sys);
	free(ev->name);
	free(ev);
	return NULL;
}

/* iotap_probe_available - whether iotap_probe_create can make p, without saying why not */
bool iotap_probe_available(struct iotap_ctx *ctx, const struct probe_spec *p)
{
	struct session *s = ctx->sess;

	return s->src->probe_available && s->src->probe_available(s, p);
}

/* session_cg_event_use - the cgroup tracker subscribes to its events */
static struct iotap_event *session_cg_event_use(void *arg, const char *sys, const char *name,
						iotap_handler_fn fn, void *fn_arg)
{
	return session_event_use(arg, sys, name, 0, fn, fn_arg);
}

/* session_cg_available - whether the source can deliver one of the tracker's events */
static bool session_cg_available(void *arg, const char *sys, const char *name)
{
	struct session *s = arg;

	return s->src->event_available(s, sys, name);
}

/* session_cg_path - the source turns a --cgroup argument into a hierarchy path */
static int session_cg_path(void *arg, const char *in, char *out, size_t len)
{
	struct session *s = arg;

	return s->src->cgroup_path(s, in, out, len);
}

/* session_cg_tasks - the source knows every task's cgroup when events began to flow */
static int session_cg_tasks(void *arg, cgroup_task_fn fn, void *fn_arg)
{
	struct session *s = arg;

	return s->src->cgroup_tasks(s, fn, fn_arg);
}

/* session_cgroups - follow every task's cgroup; path: the --cgroup filter, or NULL */
static int session_cgroups(struct session *s, const char *path)
{
	struct cgtrack_ops ops = {
		.arg = s,
		.event_available = session_cg_available,
		.event_use = session_cg_event_use,
		.path = s->src->cgroup_path ? session_cg_path : NULL,
		.tasks = s->src->cgroup_tasks ? session_cg_tasks : NULL,
	};

	return s->cg ? 0 : cgtrack_create(&s->cg, &ops, path);
}

/* iotap_cgroup_track - a tool shows cgroups: track every task's, with or without --cgroup */
int iotap_cgroup_track(struct iotap_ctx *ctx)
{
	return session_cgroups(ctx->sess, NULL);
}

/* iotap_cgroup_of - the cgroup the task of a sample is in at its time, NULL when unknown */
const char *iotap_cgroup_of(struct iotap_ctx *ctx, const struct perf_sample *smp)
{
	return ctx->sess->cg ? cgtrack_of(ctx->sess->cg, smp) : NULL;
}

/* iotap_cgroup_match - whether a sample's task is in the --cgroup one or below (true without) */
bool iotap_cgroup_match(struct iotap_ctx *ctx, const struct perf_sample *smp)
{
	return cgtrack_match(ctx->sess->cg, smp);
}

/* iotap_cgroup_filtering - whether --cgroup was given */
bool iotap_cgroup_filtering(struct iotap_ctx *ctx)
{
	return cgtrack_filtering(ctx->sess->cg);
}

/* iotap_probe_create - a kprobe/uprobe for this run, removed at exit; *sys gets its group */
int iotap_probe_create(struct iotap_ctx *ctx, const struct probe_spec *p, const char **sys)
{
	struct session *s = ctx->sess;
	int ret;

	if (!s->src->probe_create) {
		iotap_err(ctx, "this source cannot make probes");
		return -ENOTSUP;
	}
	ret = s->src->probe_create(s, p, sys);
	if (!ret)
		s->probe_sys = *sys;
	return ret;
}

/* iotap_fds_initial - the descriptors open when tracing began, as far as the source knows */
int iotap_fds_initial(struct iotap_ctx *ctx, iotap_fd_fn fn, void *arg)
{
	struct session *s = ctx->sess;

	return s->src->fds_initial ? s->src->fds_initial(s, fn, arg) : -ENOTSUP;
}

/* iotap_fd_path - what a descriptor names now, as far as the source can tell */
int iotap_fd_path(struct iotap_ctx *ctx, uint32_t pid, int fd, char *buf, size_t len)
{
	struct session *s = ctx->sess;

	return s->src->fd_path ? s->src->fd_path(s, pid, fd, buf, len) : -ENOTSUP;
}

/* iotap_fd_names - how the source knows descriptors' names; "" when it does not */
const char *iotap_fd_names(struct iotap_ctx *ctx)
{
	const char *how = ctx->sess->src->fd_names;

	return how ? how : "";
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

/* iotap_event_filter - AND a tracepoint filter (kernel side, where the source has one) */
int iotap_event_filter(struct iotap_event *ev, const char *fmt, ...)
{
	struct session *s = ev->sess;
	char buf[256];
	va_list ap;

	/* Tools check every filtered field in user space too, so a source may have none. */
	if (!s->src->event_filter)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return s->src->event_filter(s, ev, buf);
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
	if (array_reserve(&s->comms, &s->cap_comms, s->nr_comms + 1,
			  sizeof(*s->comms), 64))
		return;
	s->comms[s->nr_comms].pid = pid;
	snprintf(s->comms[s->nr_comms++].comm, 16, "%.15s", comm);
}

/* session_comm_cached - a name COMM records (or an earlier lookup) gave pid, or NULL */
const char *session_comm_cached(const struct session *s, uint32_t pid)
{
	for (size_t i = 0; i < s->nr_comms; i++)
		if (s->comms[i].pid == pid)
			return s->comms[i].comm;
	return NULL;
}

/* iotap_comm - a process name: from COMM records, else the source's; "?" if unknown */
const char *iotap_comm(struct iotap_ctx *ctx, uint32_t pid)
{
	struct session *s = ctx->sess;
	const char *comm = session_comm_cached(s, pid);

	if (!comm && s->src->comm)
		comm = s->src->comm(s, pid);
	return comm ? comm : "?";
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

/* iotap_pid_check - a PID option must name a process the source can see running */
int iotap_pid_check(struct iotap_ctx *ctx, int pid)
{
	struct session *s = ctx->sess;

	if (pid <= 0)
		return -EINVAL;
	return s->src->pid_check ? s->src->pid_check(s, pid) : 0;
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

/* iotap_loadavg - the load averages text where events come from; -ENODATA when unknown */
int iotap_loadavg(struct iotap_ctx *ctx, char *buf, size_t len)
{
	struct session *s = ctx->sess;

	return s->src->loadavg ? s->src->loadavg(s, buf, len) : -ENODATA;
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

	/* Recorders too keep the count: they say it when they stop. */
	if (rec->type == IOTAP_RECORD_UNDELIVERED || rec->type == IOTAP_RECORD_STACKLESS) {
		ev = s->src->find(s, perf_record_id(rec));
		if (ev && rec->size >= IOTAP_UNDELIVERED_SIZE)
			memcpy(rec->type == IOTAP_RECORD_STACKLESS ? &ev->stackless : &ev->undelivered,
			       rec + 1, 8);
	}
	if (s->ctx.tool && s->ctx.tool->on_record)
		return s->ctx.tool->on_record(&s->ctx, rec);
	if (s->sym && rec->type != PERF_RECORD_SAMPLE)
		symbolizer_record(s->sym, rec);
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
	ev->count++;
	for (int i = 0; i < ev->nr_h; i++) {
		ret = ev->h[i].fn(&s->ctx, &smp, ev->h[i].arg);
		if (ret)
			return ret;
	}
	return 0;
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
	session_report_undelivered(s);
	if (final) {
		session_warn_malformed(s);
		if (s->opts.verbose && s->src->report_stats)
			s->src->report_stats(s);
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
	if (s->opts.cgroup) {
		ret = session_cgroups(s, s->opts.cgroup);
		if (ret)
			return ret;
	}
	ret = tool->init(&s->ctx);
	if (ret)
		return ret;
	/* A tool may take its duration from its own option (iostack -D). */
	duration_ns = s->ctx.duration_ns;
	if (!s->nr_ev) {
		iotap_err(&s->ctx, "no event to trace");
		return -EINVAL;
	}
	ret = s->src->start(s);
	if (ret < 0)
		return ret;
	session_stacks_started(s);
	cgtrack_started(s->cg);
	if (tool->banner && s->src->announce)
		s->src->announce(s, tool->banner);
	if (tool->start) {
		ret = tool->start(&s->ctx);
		if (ret)
			return ret;
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
