// SPDX-License-Identifier: GPL-2.0-or-later
/* tool-api.c - what a tool asks of its session (iotap.h): events, probes, processes, disks, time */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup.h"
#include "log.h"
#include "session.h"
#include "../parsers/block.h"

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
static bool session_undeclared(struct iotap_ctx *ctx, const char *sys, const char *name,
			       unsigned int flags)
{
	const struct tool *t = ctx->tool;
	struct session *s = ctx->sess;

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

	if (session_undeclared(ctx, sys, name, flags)) {
		errno = EINVAL;
		return NULL;
	}
	return session_event_use(s, ctx, sys, name, flags, fn, arg);
}

/* iotap_probe_available - whether iotap_probe_create can make p, without saying why not */
bool iotap_probe_available(struct iotap_ctx *ctx, const struct probe_spec *p)
{
	struct session *s = ctx->sess;

	return s->src->probe_available && s->src->probe_available(s, p);
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
	session_stop(ctx->sess);
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
