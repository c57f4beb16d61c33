// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source-tracedat.c - the session source that reads a trace.dat file written
 * by 'trace-cmd record', through libtracecmd.
 *
 * libtracecmd reads the file (every version it writes, compressed or not):
 * the event formats, the saved cmdlines and each CPU's records, of the
 * top-level buffer and of every buffer instance (-B). This source merges
 * the CPUs' records by time and hands each to the session as a perf sample
 * of iotap's layout (IOTAP_SAMPLE_BASE), as perfdata.c does for perf.data,
 * so that everything above the sources sees what a live run delivers.
 *
 * What the file does not hold: disk names (block events name disks by
 * number; they are named "MAJ:MIN", as over perf.data), process ids
 * (ftrace events carry the thread: pid is the thread id; libtracecmd 3.1
 * keeps no saved tgids), callchains (stack tools are refused). Events the
 * ring buffer dropped are counted per CPU from the lost-event marks on
 * its pages (a page that says it lost an unknown number counts as one).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "block.h"
#include "field.h"
#include "log.h"
#include "session.h"
#include "source-recording.h"
#include "source-tracedat.h"
#include "tracedat-check.h"

/* Disks named by number only, at most (more only happens in a damaged file). */
#define TD_DISKS_MAX 1024
/* Buffers (the top level and -B instances) and CPUs per buffer read, at most. */
#define TD_BUFFERS_MAX 64
#define TD_CPUS_MAX 4096

/* One event format of the file, and what iotap makes of it. */
struct td_event {
	struct tep_event *tev;
	struct field dev;		/* a block event's disk */
	struct iotap_event *ev;		/* the session's, when a tool uses it */
	uint64_t count;			/* records in the file */
};

/* The next record of one CPU of one buffer. */
struct td_cpu {
	struct tracecmd_input *in;
	int cpu;
	struct tep_record *next;
};

struct tracedat_src {
	const char *path;
	struct tracecmd_input *top;
	struct tracecmd_input **bufs;	/* buffer instances, each closed apart */
	int nr_bufs;
	struct tep_handle *tep;		/* the file's, shared with the session's fmt_set */
	struct td_event *ev;		/* sorted by tev->id */
	size_t nr_ev;
	struct td_cpu *cpus;
	size_t nr_cpus;
	int nr_cpu_ids;			/* CPUs of the recording machine */
	uint64_t *lost;			/* per CPU id, as far as delivered */
	uint64_t *lost_all;		/* per CPU id, in the whole file (--info) */
	uint64_t records;
	uint64_t t_first, t_last, last_time;
	uint8_t *rec;			/* one rewritten record */
	struct recording_event *info_ev;
	char writer[64];
};

/* tracedat_claims - whether the first bytes of a file are trace-cmd's magic */
static bool tracedat_claims(const void *head, size_t len)
{
	return len >= sizeof(TRACEDAT_MAGIC) - 1 && !memcmp(head, TRACEDAT_MAGIC, sizeof(TRACEDAT_MAGIC) - 1);
}

/* td_event_cmp - order the events by id for bsearch */
static int td_event_cmp(const void *a, const void *b)
{
	const struct td_event *x = a, *y = b;

	return (x->tev->id > y->tev->id) - (x->tev->id < y->tev->id);
}

/* td_event_of - the file's event with this id, or NULL */
static struct td_event *td_event_of(struct tracedat_src *f, int id)
{
	struct tep_event key_ev = { .id = id };
	struct td_event key = { .tev = &key_ev };

	return bsearch(&key, f->ev, f->nr_ev, sizeof(key), td_event_cmp);
}

/* td_events - every event format of the file, sorted by id */
static int td_events(struct tracedat_src *f)
{
	struct tep_event **all = tep_list_events(f->tep, TEP_EVENT_SORT_ID);
	int nr = tep_get_events_count(f->tep);

	if (!all && nr)
		return -ENOMEM;
	f->ev = calloc(nr ? nr : 1, sizeof(*f->ev));
	if (!f->ev)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		f->ev[i].tev = all[i];
		if (all[i]->system && !strcmp(all[i]->system, "block"))
			field_init(&f->ev[i].dev, all[i], "dev");
	}
	f->nr_ev = nr;
	qsort(f->ev, f->nr_ev, sizeof(*f->ev), td_event_cmp);
	return 0;
}

/* td_cpus_add - the CPUs of one buffer as sources of records */
static int td_cpus_add(struct tracedat_src *f, struct tracecmd_input *in)
{
	int nr = tep_get_cpus(tracecmd_get_tep(in));
	struct td_cpu *p;

	if (nr <= 0)
		return 0;
	if (nr > TD_CPUS_MAX) {
		log_msg(LOG_ERR, "cannot read '%s': it says it has %d CPUs", f->path, nr);
		return -EINVAL;
	}
	p = realloc(f->cpus, (f->nr_cpus + nr) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->cpus = p;
	for (int c = 0; c < nr; c++)
		f->cpus[f->nr_cpus++] = (struct td_cpu){ .in = in, .cpu = c };
	if (nr > f->nr_cpu_ids)
		f->nr_cpu_ids = nr;
	return 0;
}

/* td_rewind - every CPU back to its first record */
static void td_rewind(struct tracedat_src *f)
{
	for (size_t i = 0; i < f->nr_cpus; i++) {
		tracecmd_free_record(f->cpus[i].next);
		f->cpus[i].next = tracecmd_read_cpu_first(f->cpus[i].in, f->cpus[i].cpu);
	}
}

/* td_next - the CPU whose next record is the oldest, or NULL at the end */
static struct td_cpu *td_next(struct tracedat_src *f)
{
	struct td_cpu *best = NULL;

	for (size_t i = 0; i < f->nr_cpus; i++)
		if (f->cpus[i].next && (!best || f->cpus[i].next->ts < best->next->ts))
			best = &f->cpus[i];
	return best;
}

/* td_advance - a lost-event mark of c's record counted into lost; then c's next record */
static void td_advance(struct tracedat_src *f, struct td_cpu *c, uint64_t *lost)
{
	struct tep_record *r = c->next;

	if (r->missed_events && c->cpu < f->nr_cpu_ids)
		lost[c->cpu] += r->missed_events > 0 ? (uint64_t)r->missed_events : 1;
	tracecmd_free_record(r);
	c->next = tracecmd_read_data(c->in, c->cpu);
}

/* td_disk_seen - a block event's disk, named by its numbers */
static int td_disk_seen(struct session *s, const struct td_event *e, const struct tep_record *r,
			size_t *added)
{
	char name[32];
	uint32_t dev;

	if (!e->dev.present || r->size < 0)
		return 0;
	dev = (uint32_t)field_u64(&e->dev, r->data, (uint32_t)r->size);
	if (disk_table_by_dev(&s->disks, dev) || *added == TD_DISKS_MAX)
		return 0;
	(*added)++;
	snprintf(name, sizeof(name), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
	return disk_table_add(&s->disks, dev, name, "");
}

/* td_scan - every record once: the span of times, the disks, counts per event and losses */
static int td_scan(struct session *s, struct tracedat_src *f)
{
	struct td_cpu *c;
	size_t added = 0;
	int ret;

	td_rewind(f);
	while ((c = td_next(f))) {
		struct tep_record *r = c->next;
		struct td_event *e = td_event_of(f, tep_data_type(f->tep, r));

		if (!f->records || r->ts < f->t_first)
			f->t_first = r->ts;
		if (r->ts > f->t_last)
			f->t_last = r->ts;
		f->records++;
		if (e) {
			e->count++;
			ret = td_disk_seen(s, e, r, &added);
			if (ret)
				return ret;
		}
		td_advance(f, c, f->lost_all);
	}
	return 0;
}

/*
 * td_open_survives - whether libtracecmd opens path without crashing. It parses the
 * file's event formats with libtraceevent before anything here can check them, and a
 * damaged format can crash it there (found by fuzzing): a child opens the file first,
 * so that such a file is refused with one line instead of taking the process down.
 */
static bool td_open_survives(const char *path)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction dfl;
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return true;		/* cannot tell: the open here says what it says */
	if (!pid) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			sigaction(sigs[i], &dfl, NULL);
		_exit(tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS) ? 0 : 3);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return true;
	return WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
}

/*
 * td_sizes_fit - whether the trace.dat at fd holds the sizes it gives (tracedat-check.h),
 * said in one line when not: 0 or -errno
 */
static int td_sizes_fit(int fd, const struct tracedat_src *f)
{
	struct stat st;
	char why[96];
	int ret;

	if (fstat(fd, &st)) {
		ret = -errno;
		log_msg(LOG_ERR, "cannot read '%s': %s", f->path, strerror(-ret));
		return ret;
	}
	ret = tracedat_check(fd, (unsigned long long)st.st_size, why, sizeof(why));
	if (ret == -EINVAL)
		log_msg(LOG_ERR, "cannot read '%s': a damaged trace.dat (%s does not fit in its %lld bytes)",
			f->path, why, (long long)st.st_size);
	else if (ret)
		log_msg(LOG_ERR, "cannot read '%s': %s", f->path, strerror(-ret));
	return ret;
}

/* td_input_open - the trace.dat of the path, or of the caller's buffer (through a memfd) */
static struct tracecmd_input *td_input_open(struct session *s, struct tracedat_src *f)
{
	struct tracecmd_input *in;
	char path[64];
	int fd, ret;

	if (s->opts.input) {
		fd = open(s->opts.input, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			log_msg(LOG_ERR, "cannot read '%s': %s", f->path, strerror(errno));
			return NULL;
		}
		ret = td_sizes_fit(fd, f);
		close(fd);
		if (ret)
			return NULL;
		in = td_open_survives(s->opts.input) ?
			tracecmd_open(s->opts.input, TRACECMD_FL_LOAD_NO_PLUGINS) : NULL;
	} else {
		fd = memfd_create("trace.dat", MFD_CLOEXEC);
		if (fd < 0 || write(fd, s->opts.input_buf, s->opts.input_len) != (ssize_t)s->opts.input_len) {
			log_msg(LOG_ERR, "cannot read '%s': %s", f->path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		if (td_sizes_fit(fd, f)) {
			close(fd);
			return NULL;
		}
		/* Opened by name, so that the handle owns a descriptor of its own. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		in = td_open_survives(path) ? tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS) : NULL;
		close(fd);
	}
	if (!in)
		log_msg(LOG_ERR, "cannot read '%s': not a trace.dat libtracecmd can read, or damaged",
			f->path);
	return in;
}

/* td_open - the file's formats, buffers and CPUs; one pass for disks, times and counts */
static int td_open(struct session *s)
{
	struct tracedat_src *f = calloc(1, sizeof(*f));
	struct stat st;
	int ret;

	if (!f)
		return -ENOMEM;
	s->src_priv = f;
	f->path = s->opts.input ? s->opts.input : "(memory)";
	/* libtracecmd and libtraceevent print their own complaints; iotap says one line. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	f->top = td_input_open(s, f);
	if (!f->top)
		return -EINVAL;
	f->tep = tracecmd_get_tep(f->top);
	if (!f->tep)
		return -EINVAL;
	/* The session decodes with the file's formats: its fmt_set holds a reference. */
	tep_ref(f->tep);
	s->fs.tep = f->tep;
	s->fs.long_size = tep_get_long_size(f->tep);
	s->fs.page_size = tep_get_page_size(f->tep);
	ret = td_events(f);
	if (!ret)
		ret = td_cpus_add(f, f->top);
	f->nr_bufs = tracecmd_buffer_instances(f->top);
	if (f->nr_bufs < 0 || f->nr_bufs > TD_BUFFERS_MAX)
		f->nr_bufs = 0;
	if (!ret && f->nr_bufs) {
		f->bufs = calloc(f->nr_bufs, sizeof(*f->bufs));
		if (!f->bufs)
			return -ENOMEM;
	}
	for (int i = 0; !ret && i < f->nr_bufs; i++) {
		f->bufs[i] = tracecmd_buffer_instance_handle(f->top, i);
		if (f->bufs[i])
			ret = td_cpus_add(f, f->bufs[i]);
	}
	if (ret)
		return ret;
	f->lost = calloc(f->nr_cpu_ids + 1, sizeof(*f->lost));
	f->lost_all = calloc(f->nr_cpu_ids + 1, sizeof(*f->lost_all));
	f->rec = malloc(PERF_RECORD_MAX);
	if (!f->lost || !f->lost_all || !f->rec)
		return -ENOMEM;
	ret = td_scan(s, f);
	if (ret)
		return ret;
	/* The file was last written about when the last event happened. */
	if (s->opts.input && !stat(s->opts.input, &st))
		s->wall_offset = (int64_t)((uint64_t)st.st_mtim.tv_sec * 1000000000ull +
					   (uint64_t)st.st_mtim.tv_nsec - f->t_last);
	s->t_start = f->t_first;
	s->now = s->t_start;
	return 0;
}

/* td_event_available - whether the file holds the format of sys:name */
static bool td_event_available(struct session *s, const char *sys, const char *name)
{
	return fmt_set_find(&s->fs, sys, name) != NULL;
}

/* td_event_stacks - a trace.dat holds no callchains iotap reads */
static bool td_event_stacks(struct session *s, const char *sys, const char *name)
{
	return false;
}

/* td_event_attach - the format of ev, from the file; samples of iotap's base layout */
static int td_event_attach(struct session *s, struct iotap_event *ev)
{
	struct tracedat_src *f = s->src_priv;
	struct td_event *e;

	ev->tep = fmt_set_find(&s->fs, ev->sys, ev->name);
	if (!ev->tep) {
		log_msg(LOG_ERR, "'%s' has no %s:%s events (trace-cmd record -e %s:%s)", f->path,
			ev->sys, ev->name, ev->sys, ev->name);
		return -ENOENT;
	}
	if (ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) {
		log_msg(LOG_ERR, "'%s': iotap reads no stacks from a trace.dat (record with iotap record or perf record -g)",
			f->path);
		return -ENOTSUP;
	}
	e = td_event_of(f, ev->tep->id);
	if (e)
		e->ev = ev;
	ev->sample_type = IOTAP_SAMPLE_BASE;
	ev->regs_mask = 0;
	ev->chain_ids = false;
	return 0;
}

/* td_start - every CPU from its first record; the clock starts at the first event */
static int td_start(struct session *s)
{
	struct tracedat_src *f = s->src_priv;

	td_rewind(f);
	s->t_start = f->t_first;
	s->now = s->t_start;
	f->last_time = f->t_first;
	return 0;
}

/* td_deliver - one record of the file as a sample of iotap's layout, to the session */
static int td_deliver(struct session *s, struct tracedat_src *f, const struct td_cpu *c)
{
	struct tep_record *r = c->next;
	struct td_event *e = td_event_of(f, tep_data_type(f->tep, r));
	struct perf_sample smp = { 0 };
	uint8_t *raw = f->rec + PERF_RECORD_MAX / 2;
	uint32_t size;
	int n;

	if (!e || !e->ev)
		return 0;
	if (r->size <= 0 || r->size > PERF_RECORD_MAX / 2 - 64) {
		s->dropped++;
		s->malformed++;
		return 0;
	}
	/* RAW is padded so that its u32 size and it end on 8 bytes, as the kernel pads it. */
	size = ((uint32_t)r->size + 4 + 7) / 8 * 8 - 4;
	memcpy(raw, r->data, r->size);
	memset(raw + r->size, 0, size - r->size);
	smp.id = (uint64_t)(e - f->ev) + 1;
	smp.time = r->ts;
	smp.cpu = (uint32_t)c->cpu;
	smp.tid = (uint32_t)tep_data_pid(f->tep, r);
	smp.pid = smp.tid;
	smp.raw = raw;
	smp.raw_size = size;
	n = perf_sample_write(&smp, IOTAP_SAMPLE_BASE, PERF_RECORD_MISC_KERNEL, f->rec, PERF_RECORD_MAX / 2);
	if (n < 0) {
		s->dropped++;
		s->malformed++;
		return 0;
	}
	return session_dispatch(s, (const struct perf_event_header *)f->rec);
}

/* td_run - deliver the records in time order up to deadline; 1 at the deadline, 0 at the end */
static int td_run(struct session *s, uint64_t deadline)
{
	struct tracedat_src *f = s->src_priv;
	struct td_cpu *c;
	int ret;

	while (!session_stopped(s)) {
		c = td_next(f);
		if (!c) {
			/* Empty intervals up to the last event, as trace-cmd saw them. */
			if (f->t_last > deadline)
				return 1;
			s->now = f->last_time;
			return 0;
		}
		if (c->next->ts > deadline)
			return 1;
		if (c->next->ts > f->last_time)
			f->last_time = c->next->ts;
		ret = td_deliver(s, f, c);
		td_advance(f, c, f->lost);
		if (ret)
			return ret;
	}
	s->now = f->last_time;
	return 0;
}

/* td_find - the session event of a rewritten id (the file event's index + 1) */
static struct iotap_event *td_find(struct session *s, uint64_t id)
{
	struct tracedat_src *f = s->src_priv;

	return id && id <= f->nr_ev ? f->ev[id - 1].ev : NULL;
}

/* td_lost - events the i-th CPU's ring buffer dropped, as far as delivered */
static int td_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct tracedat_src *f = s->src_priv;

	if (!f || !f->lost || i < 0 || i >= f->nr_cpu_ids)
		return -ENOENT;
	*cpu = i;
	*lost = f->lost[i];
	return 0;
}

/* td_nr_cpus - the CPUs of the recording machine */
static int td_nr_cpus(const struct session *s)
{
	const struct tracedat_src *f = s->src_priv;

	return f->nr_cpu_ids ? f->nr_cpu_ids : 1;
}

/* td_comm - a process's name from the file's saved cmdlines, or NULL */
static const char *td_comm(struct session *s, uint32_t pid)
{
	struct tracedat_src *f = s->src_priv;

	if (!tep_is_pid_registered(f->tep, (int)pid))
		return NULL;
	return tep_data_comm_from_pid(f->tep, (int)pid);
}

/* td_info - describe the file: events with their counts (the scan's), losses per CPU */
static int td_info(struct session *s, struct recording_info *info)
{
	struct tracedat_src *f = s->src_priv;
	size_t nr = 0;

	f->info_ev = calloc(f->nr_ev ? f->nr_ev : 1, sizeof(*f->info_ev));
	if (!f->info_ev)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_ev; i++) {
		if (!f->ev[i].count)
			continue;
		f->info_ev[nr].sys = f->ev[i].tev->system;
		f->info_ev[nr].name = f->ev[i].tev->name;
		f->info_ev[nr].sample_type = IOTAP_SAMPLE_BASE;
		f->info_ev[nr++].count = f->ev[i].count;
	}
	/* --info reports the whole file's losses. */
	memcpy(f->lost, f->lost_all, f->nr_cpu_ids * sizeof(*f->lost));
	snprintf(f->writer, sizeof(f->writer), "trace.dat, trace-cmd");
	memset(info, 0, sizeof(*info));
	info->path = f->path;
	info->writer = f->writer;
	info->sysname = "Linux";
	info->nr_cpus = td_nr_cpus(s);
	info->t_start = f->t_first;
	info->t_end = f->t_last;
	info->wall_offset = s->wall_offset;
	info->records = f->records;
	info->ev = f->info_ev;
	info->nr_ev = nr;
	return 0;
}

/* td_close - free the records, close the buffers and the file */
static void td_close(struct session *s)
{
	struct tracedat_src *f = s->src_priv;

	if (!f)
		return;
	for (size_t i = 0; i < f->nr_cpus; i++)
		tracecmd_free_record(f->cpus[i].next);
	for (int i = 0; f->bufs && i < f->nr_bufs; i++)
		tracecmd_close(f->bufs[i]);
	tracecmd_close(f->top);
	free(f->bufs);
	free(f->cpus);
	free(f->ev);
	free(f->lost);
	free(f->lost_all);
	free(f->rec);
	free(f->info_ev);
	free(f);
	s->src_priv = NULL;
}

/* What the file says about the host trace-cmd ran on. */
static const struct host_ops td_host = {
	.comm = td_comm,
	.info = td_info,
};

const struct source_ops source_tracedat = {
	.name = "trace.dat",
	.claims = tracedat_claims,
	.open = td_open,
	.event_available = td_event_available,
	.event_stacks = td_event_stacks,
	.event_attach = td_event_attach,
	.start = td_start,
	.run = td_run,
	.find = td_find,
	.lost = td_lost,
	.nr_cpus = td_nr_cpus,
	.close = td_close,
	.host = &td_host,
};
