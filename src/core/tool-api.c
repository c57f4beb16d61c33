// SPDX-License-Identifier: GPL-2.0-or-later
/* tool-api.c - what a tool asks of its session: the iotap_* calls (iotap.h) */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "block.h"
#include "log.h"
#include "probespec.h"
#include "session.h"

/* iotap_event_available - whether the source can deliver sys:name */
bool iotap_event_available(struct iotap_ctx *ctx, const char *sys, const char *name)
{
	struct session *s = ctx->sess;

	return s->src->event_available(s, sys, name);
}

/* iotap_procs_unused - see iotap.h */
void iotap_procs_unused(struct iotap_ctx *ctx)
{
	if (!ctx->sess->opts.cgroup && !ctx->sess->opts.input)
		ctx->sess->opts.no_procs = true;
}

/* iotap_pids_unread - see iotap.h */
void iotap_pids_unread(struct iotap_ctx *ctx)
{
	if (!ctx->sess->opts.cgroup)
		ctx->sess->opts.pids_unread = true;
}

/* iotap_input_is_file - see iotap.h */
bool iotap_input_is_file(const struct iotap_ctx *ctx)
{
	return ctx->sess->opts.input != NULL;
}

/* iotap_wake_fd - see iotap.h */
int iotap_wake_fd(struct iotap_ctx *ctx, int fd)
{
	return session_consumer_wake_fd(ctx->sess, ctx, fd);
}

/* iotap_event_stacks - whether sys:name is there and can come with its callchain */
bool iotap_event_stacks(struct iotap_ctx *ctx, const char *sys, const char *name)
{
	struct session *s = ctx->sess;

	if (!s->src->event_available(s, sys, name))
		return false;
	return !s->src->event_stacks || s->src->event_stacks(s, sys, name);
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

/* session_spec_names - whether the tool's specification (TOOL_ARGS_SPEC) names tracepoint sys:name */
static bool session_spec_names(const struct iotap_ctx *ctx, const char *sys, const char *name)
{
	struct probespec ps;
	const char *why;
	bool names;

	if (ctx->tool->args != TOOL_ARGS_SPEC || !ctx->spec)
		return false;
	names = !probespec_parse(ctx->spec, &ps, &why) && probespec_names(&ps, sys, name);
	probespec_release(&ps);
	return names;
}

/*
 * session_undeclared - whether the tool uses sys:name (with flags) without declaring
 * it in its events table, which is what `iotap record` records and the man page lists.
 * Probes are not in the table: the ones it made (mdflush's, or those its specification
 * describes) are declared by making them, the tracepoints its specification names by it.
 */
static bool session_undeclared(struct iotap_ctx *ctx, const char *sys, const char *name,
			       unsigned int flags)
{
	const struct tool *t = ctx->tool;
	struct session *s = ctx->sess;
	size_t nr = 0, start;

	if (!t || !t->events || (s->probe_sys && !strcmp(sys, s->probe_sys)) ||
	    session_spec_names(ctx, sys, name))
		return false;
	/*
	 * Tools use their events mostly in the order their table lists them: the
	 * look starts after the last one found, and wraps. Names first: most of a
	 * table's events share a system.
	 */
	while (t->events[nr].sys)
		nr++;
	start = ctx->declared_next < nr ? ctx->declared_next : 0;
	for (size_t k = 0; k < nr; k++) {
		size_t i = (start + k) % nr;
		const struct tool_event *e = &t->events[i];

		if (strcmp(e->name, name) || strcmp(e->sys, sys))
			continue;
		ctx->declared_next = i + 1;
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

	return s->host->fds_initial ? s->host->fds_initial(s, fn, arg) : -ENOTSUP;
}

/* iotap_fd_path - what a descriptor names now, as far as the source can tell */
int iotap_fd_path(struct iotap_ctx *ctx, uint32_t pid, int fd, char *buf, size_t len)
{
	struct session *s = ctx->sess;

	return s->host->fd_path ? s->host->fd_path(s, pid, fd, buf, len) : -ENOTSUP;
}

/* iotap_fd_names - how the source knows descriptors' names; "" when it does not */
const char *iotap_fd_names(struct iotap_ctx *ctx)
{
	const char *how = ctx->sess->host->fd_names;

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

	if (!comm && s->host->comm)
		comm = s->host->comm(s, pid);
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
	/* A disk that appeared after the start (a new loop device), where the host knows it. */
	if (s->host->disk_add && !s->host->disk_add(s, dev))
		return s->disks.d[s->disks.nr - 1].name;
	/* Remember the fallback so the returned pointer stays valid. */
	snprintf(name, sizeof(name), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
	if (disk_table_add(&s->disks, dev, name, ""))
		return "?";
	return s->disks.d[s->disks.nr - 1].name;
}

/* iotap_device_gone - see iotap.h */
int iotap_device_gone(struct iotap_ctx *ctx, enum iotap_device kind, const char *name)
{
	struct session *s = ctx->sess;

	return s->host->device_gone ? s->host->device_gone(s, kind, name) : -ENODATA;
}

/* iotap_disk_sched - the I/O scheduler of a disk, "" when unknown */
const char *iotap_disk_sched(struct iotap_ctx *ctx, uint32_t dev)
{
	const struct disk *d = disk_table_by_dev(&ctx->sess->disks, dev);

	return d ? d->sched : "";
}

/*
 * iotap_pid_check - a PID option must name a process the source can see
 * running; the live source then traces the births of threads too, so that
 * every thread's process is exact from the first event on
 */
int iotap_pid_check(struct iotap_ctx *ctx, int pid)
{
	struct session *s = ctx->sess;

	if (pid <= 0)
		return -EINVAL;
	s->pid_filtered = true;
	return s->host->pid_check ? s->host->pid_check(s, pid) : 0;
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

	return s->host->loadavg ? s->host->loadavg(s, buf, len) : -ENODATA;
}

/* iotap_machine - uname's names of the machine events come from; -ENODATA when unknown */
int iotap_machine(struct iotap_ctx *ctx, struct iotap_machine *m)
{
	struct session *s = ctx->sess;

	memset(m, 0, sizeof(*m));
	return s->host->machine ? s->host->machine(s, m) : -ENODATA;
}

/* iotap_member_offset - a kernel structure's member offset where events come from */
int iotap_member_offset(struct iotap_ctx *ctx, const char *strct, const char *member,
			uint32_t *offset)
{
	struct session *s = ctx->sess;

	return s->host->member_offset ? s->host->member_offset(s, strct, member, offset) : -ENODATA;
}

/* iotap_strftime - format a stream time as local wall-clock time; -ERANGE when out of range */
int iotap_strftime(struct iotap_ctx *ctx, uint64_t mono_ns, const char *fmt, char *buf,
		   size_t len)
{
	int64_t wall_ns;
	time_t t;
	struct tm tm;

	/* A recording's clock offset is untrusted: a sum out of range is no time at all. */
	if (mono_ns > INT64_MAX ||
	    __builtin_add_overflow((int64_t)mono_ns, ctx->sess->wall_offset, &wall_ns))
		return -ERANGE;
	t = (time_t)(wall_ns / 1000000000ll);
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
	/* Modulo 2^64: a recording's offset is untrusted, and a wrapped time is only misprinted. */
	return mono_ns + (uint64_t)ctx->sess->wall_offset;
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

/*
 * iotap_unpaired_say - see iotap.h. IOTAP_UNPAIRED_SURE leaves no doubt: the starts in
 * flight when tracing began are at most a queue depth, so that many completions with none
 * paired mean events that do not name a request or command alike at both ends.
 */
void iotap_unpaired_say(struct iotap_ctx *ctx, bool *said, uint64_t paired, uint64_t unmatched,
			const char *what, const char *start, uint64_t n_start)
{
	if (*said || paired || !unmatched || (!ctx->final && unmatched < IOTAP_UNPAIRED_SURE))
		return;
	*said = true;
	if (n_start)
		iotap_warn(ctx, "%llu %s completions, none paired with any of the %llu %s seen: this kernel's events do not name one alike at both ends, so their latency cannot be had here",
			   (unsigned long long)unmatched, what, (unsigned long long)n_start, start);
	else
		iotap_warn(ctx, "%llu %s completions, none paired: no %s was seen (each was in flight when tracing began)",
			   (unsigned long long)unmatched, what, start);
}

/* iotap_stream_stats - events delivered, lost and counted but undelivered, so far */
void iotap_stream_stats(struct iotap_ctx *ctx, uint64_t *events, uint64_t *lost,
			uint64_t *undelivered)
{
	struct session *s = ctx->sess;

	*events = 0;
	for (size_t i = 0; i < s->nr_ev; i++)
		*events += s->ev[i]->count;
	*lost = session_lost_total(s);
	*undelivered = session_undelivered_total(s);
}
