// SPDX-License-Identifier: GPL-2.0-or-later
/* recorder.c - iotap record: the events tools use, and all a later report needs, to a file */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "fdtab.h"
#include "log.h"
#include "sections.h"
#include "recorder.h"
#include "reqwatch.h"
#include "ring.h"
#include "rotate.h"
#include "trigger.h"
#include "stackmap.h"
#include "symbolizer.h"
#include "usyms.h"

#define NSEC_PER_SEC 1000000000ull
/* Processes per COMM chunk: 1.3 MB, well under the container's chunk limit. */
#define COMM_PER_CHUNK 65536
/* --ring: the default memory cap, and the raw bytes of a chunk (a second's worth at most). */
#define RING_SIZE_DEFAULT (256ull << 20)
#define RING_CHUNK (REC_STREAM_CHUNK - 3 * PERF_RECORD_MAX)
/* Bytes read from /proc/kallsyms per call; whatever the kernel gives is streamed as is. */
#define KSYM_READ (64u << 10)

/* The traced command: stopped before exec until tracing runs. */
struct record_child {
	pid_t pid;
	int go;				/* a byte here lets it exec */
	int err;			/* errno of a failed exec comes back here */
};

/* A part of a recording in parts (--switch-output): its file, stack ids and counts. */
struct rec_part {
	struct rec_writer *w;
	struct stackmap *stacks;
	uint64_t records, samples;
	char *path;
};

/* What a recording is being written with: a consumer of the session's run loop (record_consumer). */
struct recorder {
	const struct record_params *p;
	char **command;
	record_progress_fn progress;
	void *progress_arg;
	struct record_child child;
	struct secbuf tools;		/* the names of the tools recorded for */
	struct rec_writer *w;
	uint64_t records, samples;
	uint8_t *rewrite;		/* PERF_RECORD_MAX: a sample with its callchain id */
	struct stackmap *stacks;	/* distinct callchains written so far: their id + 1 */
	int werr;			/* the first write error */
	bool started;			/* the records began: the file stays */
	bool fds;			/* a recorded tool names files: FDTB */
	/* --switch-output: w, stacks, records and samples are the part being written. */
	struct rotate_spec rotate;
	struct rotate_files kept;	/* --max-files */
	char *path;			/* of the part being written */
	uint64_t t_part;		/* event time the part began at */
	uint64_t part_base;		/* bytes of the part before its records */
	uint64_t part_ms;		/* wall-clock ms its name says: each part's is later */
	struct rec_part prev;		/* the part before, open while its requests finish */
	bool parts_full;		/* a part could not be written: none until retry_t */
	uint64_t retry_t;		/* event time to try a new part at */
	uint64_t unwritten;		/* samples of the parts removed, and dropped meanwhile */
	uint64_t closed_samples, closed_bytes;	/* of the parts closed */
	struct reqwatch *watch;
	/* --ring: w writes chunks to the ring; a dump writes them to a file. */
	struct ring *ring;
	struct trigger trig;
	bool trig_dev;			/* -d: triggers look at dev only */
	uint32_t dev;
	uint64_t chunk_t0, chunk_t1;	/* event times in the chunk being filled */
	uint64_t last_t;		/* of the newest event */
	uint64_t dumps;
	uint64_t holdoff;		/* request triggers before this time are the last incident's */
	bool cap_said;
	struct record_incident {
		bool pending;
		uint64_t t;		/* the trigger: the dump covers [t - ring, t + after] */
		uint64_t more;		/* triggers since, in the same window */
		struct secbuf why;	/* TRIG */
		char what[512];
	} inc;
	struct session *sess;
};

/* SIGUSR2 in ring mode: dump now. */
static volatile sig_atomic_t record_usr2;

/* rc_fail - remember the first write error */
static int rc_fail(struct recorder *rc, int err)
{
	if (err && !rc->werr)
		rc->werr = err;
	return err;
}

/* sb_flush - write the buffer as one whole section and empty it */
static int sb_flush(struct recorder *rc, struct secbuf *b, uint32_t type)
{
	int ret = b->err ? b->err : rec_writer_put(rc->w, type, b->p, b->len);

	secbuf_reset(b);
	return rc_fail(rc, ret);
}

/* record_ignore - the handler of recorded events: on_record takes every record instead */
static int record_ignore(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return 0;
}

/* record_listed - whether name is an item of the comma-separated list */
static bool record_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* record_check_list - every item of --tools names a tool */
static int record_check_list(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!tool_find(tok)) {
			log_msg(LOG_ERR, "unknown tool '%s' in --tools; see 'iotap list'", tok);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

/* record_is_block_tool - a tool whose events are all block:* tracepoints */
static bool record_is_block_tool(const struct tool *t)
{
	if (!t->events || !t->events[0].sys)
		return false;
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (strcmp(e->sys, "block"))
			return false;
	return true;
}

/* record_tool_missing - an event a tool cannot do without that this kernel lacks, or NULL */
static const struct tool_event *record_tool_missing(struct session *s, const struct tool *t)
{
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (!(e->flags & TOOL_EV_OPTIONAL) && !iotap_event_available(&s->ctx, e->sys, e->name))
			return e;
	return NULL;
}

/* record_want - add a tool's events that this kernel has; stacks if any tool takes them */
static int record_want(struct session *s, const struct tool *t, bool stacks,
		       struct tool_event **want, size_t *nr)
{
	for (const struct tool_event *e = t->events; e->sys; e++) {
		unsigned int flags = stacks && (e->flags & TOOL_EV_STACK) ?
			IOTAP_EV_KSTACK | IOTAP_EV_USTACK : 0;
		struct tool_event *w;
		size_t i;

		if (!iotap_event_available(&s->ctx, e->sys, e->name))
			continue;
		for (i = 0; i < *nr; i++)
			if (!strcmp((*want)[i].sys, e->sys) && !strcmp((*want)[i].name, e->name))
				break;
		if (i == *nr) {
			w = realloc(*want, (*nr + 1) * sizeof(*w));
			if (!w)
				return -ENOMEM;
			*want = w;
			w[(*nr)++] = (struct tool_event){ e->sys, e->name, 0 };
		}
		(*want)[i].flags |= flags;
	}
	return 0;
}

/* record_probe_made - whether a probe called name was made for this recording already */
static bool record_probe_made(const struct session *s, const char *name)
{
	for (size_t i = 0; s->probe_sys && i < s->nr_ev; i++)
		if (!strcmp(s->ev[i]->sys, s->probe_sys) && !strcmp(s->ev[i]->name, name))
			return true;
	return false;
}

/* record_probes - the probes a tool makes for itself that this kernel can make, recorded too */
static int record_probes(struct session *s, const struct tool *t)
{
	bool made = false;

	for (const struct probe_spec *p = t->probes; p && p->name; p++) {
		struct probe_spec made_spec = *p;
		char args[256];
		const char *sys;
		int ret;

		/* As the tool does: a fallback only where the probe before it could not be made. */
		if (p->fallback && made)
			continue;
		made = false;
		if (!iotap_probe_available(&s->ctx, p) ||
		    (p->args_fn && p->args_fn(args, sizeof(args))))
			continue;
		if (p->args_fn)
			made_spec.args = args;
		made = true;
		/* Two tools may make the same probe; one place may be probed once (-EEXIST). */
		if (record_probe_made(s, p->name))
			continue;
		ret = iotap_probe_create(&s->ctx, &made_spec, &sys);
		if (ret == -EEXIST)
			continue;
		if (ret)
			return ret;
		if (!iotap_event_use(&s->ctx, sys, p->name, 0, record_ignore, NULL))
			return -errno;
	}
	return 0;
}

/* record_select - subscribe to the events of the tools asked for (default: the block tools) */
static int record_select(struct session *s, const struct record_params *p, struct secbuf *names,
			 bool *fds)
{
	struct tool_event *want = NULL;
	unsigned int stacks = 0;
	size_t nr = 0;
	int ret = 0;

	if (p->tools && p->all) {
		log_msg(LOG_ERR, "--tools and --all cannot be used together");
		return -EINVAL;
	}
	if (p->tools) {
		ret = record_check_list(p->tools);
		if (ret)
			return ret;
	}
	for (const struct tool *const *tp = iotap_tools; *tp && !ret; tp++) {
		const struct tool *t = *tp;
		const struct tool_event *miss;

		if (p->tools ? !record_listed(p->tools, t->name) &&
		    !(t->alias && record_listed(p->tools, t->alias)) :
		    !p->all && !record_is_block_tool(t))
			continue;
		if (!t->events || !t->events[0].sys) {
			if (p->tools) {
				log_msg(LOG_ERR, "%s declares no events that can be recorded", t->name);
				ret = -EINVAL;
			}
			continue;
		}
		miss = record_tool_missing(s, t);
		if (miss && p->tools) {
			log_msg(LOG_ERR, "%s needs %s:%s, which this kernel does not have",
				t->name, miss->sys, miss->name);
			ret = -ENOENT;
		} else if (miss) {
			log_msg(LOG_WARN, "not recording for %s: this kernel has no %s:%s",
				t->name, miss->sys, miss->name);
		} else {
			ret = record_want(s, t, p->callchains, &want, &nr);
			if (!ret)
				ret = record_probes(s, t);
			*fds |= t->fds_initial;
			secbuf_put(names, ",", names->len ? 1 : 0);
			secbuf_put(names, t->name, strlen(t->name));
		}
	}
	for (size_t i = 0; i < nr && !ret; i++) {
		struct iotap_event *ev;

		stacks |= want[i].flags;
		ev = iotap_event_use(&s->ctx, want[i].sys, want[i].name, want[i].flags,
				     record_ignore, NULL);
		if (!ev)
			ret = -errno;
		/* The recorder's own writes of the file would feed the syscall events they record. */
		else if (!strcmp(want[i].sys, "syscalls"))
			ret = iotap_event_filter(ev, "common_pid != %d", (int)getpid());
	}
	/* Which task is in which cgroup: a snapshot (record_put_cgroups), then these in stream order. */
	if (!ret && p->cgroups &&
	    (!iotap_event_use(&s->ctx, "sched", "sched_process_fork", 0, record_ignore, NULL) ||
	     !iotap_event_use(&s->ctx, "cgroup", "cgroup_attach_task", 0, record_ignore, NULL)))
		ret = -errno;
	if (!ret && p->callchains && !stacks)
		log_msg(LOG_WARN, "-g: none of these tools takes stacks; only the symbols are recorded");
	free(want);
	secbuf_put(names, "", 1);
	if (!ret && names->err)
		ret = names->err;
	if (!ret && !s->nr_ev) {
		log_msg(LOG_ERR, "no event to record");
		ret = -EINVAL;
	}
	return ret;
}

/* record_put_fmth - the header_page text the formats were parsed with */
static int record_put_fmth(struct recorder *rc, const struct session *s)
{
	struct secbuf b = { 0 };
	int ret;

	secbuf_u32(&b, REC_SEC_VERSION);
	secbuf_put(&b, s->fs.header_page, s->fs.header_page_len);
	ret = sb_flush(rc, &b, REC_SEC_FMTH);
	free(b.p);
	return ret;
}

/* record_put_disks - the block devices and their schedulers */
static int record_put_disks(struct recorder *rc, const struct session *s)
{
	struct secbuf b = { 0 };
	int ret;

	recfmt_disk_encode(&b, &s->disks);
	ret = sb_flush(rc, &b, REC_SEC_DISK);
	free(b.p);
	return ret;
}

/* record_put_kallsyms - /proc/kallsyms as it is now, streamed */
static int record_put_kallsyms(struct recorder *rc)
{
	static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };
	char *buf = malloc(KSYM_READ);
	int fd, ret;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_msg(LOG_ERR, "cannot read /proc/kallsyms: %s", strerror(errno));
		goto out_free;
	}
	ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_KSYM, prefix, sizeof(prefix)));
	while (!ret && (n = read(fd, buf, KSYM_READ)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			log_msg(LOG_ERR, "cannot read /proc/kallsyms: %s", strerror(errno));
			break;
		}
		ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_KSYM, buf, n));
	}
	if (!ret)
		ret = rc_fail(rc, rec_writer_flush(rc->w));
	close(fd);
out_free:
	free(buf);
	return ret;
}

/* record_fmt_text - the format text an event was opened with */
static const struct fmt_event *record_fmt_text(const struct session *s, const char *sys,
					       const char *name)
{
	for (size_t i = 0; i < s->fs.nr; i++)
		if (!strcmp(s->fs.ev[i].sys, sys) && !strcmp(s->fs.ev[i].name, name))
			return &s->fs.ev[i];
	return NULL;
}

/* record_put_events - one EVNT per event: sample layout, perf ids per CPU, format text */
static int record_put_events(struct recorder *rc, const struct session *s)
{
	struct secbuf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < s->nr_ev && !ret; i++) {
		const struct iotap_event *ev = s->ev[i];
		const struct fmt_event *fe = record_fmt_text(s, ev->sys, ev->name);
		struct recfmt_evnt e = {
			/* Stacks are walked as recorded: no user registers or copies are stored. */
			.sample_type = symbolizer_walked_type(ev->sample_type),
			/* Callchains go by id (record_rewrite()). */
			.chain_ids = ev->sample_type & PERF_SAMPLE_CALLCHAIN,
		};

		if (!fe || s->src->event_ids(s, ev, &e.ids, &e.nr_ids))
			return -ENOENT;
		e.sys = ev->sys;
		e.name = ev->name;
		e.fmt = fe->text;
		e.fmt_len = fe->len;
		recfmt_evnt_encode(&b, &e);
		ret = sb_flush(rc, &b, REC_SEC_EVNT);
	}
	free(b.p);
	return ret;
}

/* record_put_meta - the recording machine, the clock and what was recorded */
static int record_put_meta(struct recorder *rc, const struct session *s,
			   const struct record_params *p, const char *tools, char **command,
			   pid_t pid)
{
	struct secbuf b = { 0 };
	struct utsname u;
	int ret;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	secbuf_u32(&b, REC_SEC_VERSION);
	secbuf_meta(&b, "iotap", "%s", PACKAGE_VERSION);
	secbuf_meta(&b, "host", "%s", u.nodename);
	secbuf_meta(&b, "sysname", "%s", u.sysname);
	secbuf_meta(&b, "release", "%s", u.release);
	secbuf_meta(&b, "kversion", "%s", u.version);
	secbuf_meta(&b, "machine", "%s", u.machine);
	secbuf_meta(&b, "cpus", "%d", s->src->nr_cpus(s));
	secbuf_meta(&b, "page_size", "%d", s->fs.page_size);
	secbuf_meta(&b, "long_size", "%d", s->fs.long_size);
	secbuf_meta(&b, "byte_order", "%s", __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	secbuf_meta(&b, "clock", "monotonic");
	secbuf_meta(&b, "t_start", "%llu", (unsigned long long)(rc->t_part ? rc->t_part : s->t_start));
	secbuf_meta(&b, "wall_offset", "%lld", (long long)s->wall_offset);
	secbuf_meta(&b, "callchains", "%d", p->callchains);
	secbuf_meta(&b, "tools", "%s", tools);
	if (command) {
		struct secbuf cmd = { 0 };

		for (char **a = command; *a; a++) {
			secbuf_put(&cmd, a == command ? "" : " ", a != command);
			secbuf_put(&cmd, *a, strlen(*a));
		}
		secbuf_put(&cmd, "", 1);
		if (!cmd.err)
			secbuf_meta(&b, "command", "%s", (char *)cmd.p);
		free(cmd.p);
		secbuf_meta(&b, "command_pid", "%d", (int)pid);
	}
	ret = sb_flush(rc, &b, REC_SEC_META);
	free(b.p);
	return ret;
}

/* record_put_comms - the name of every process now; COMM and FORK records follow changes */
static int record_put_comms(struct recorder *rc)
{
	struct secbuf b = { 0 };
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint32_t n = 0;
	int ret = 0;

	if (!d) {
		log_msg(LOG_WARN, "cannot list /proc: %s; process names come from COMM records only",
			strerror(errno));
		return 0;
	}
	recfmt_comm_begin(&b);
	while ((de = readdir(d)) && !ret) {
		char path[300], comm[32] = "", *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		ssize_t len;
		int fd;

		if (*end || end == de->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* gone since readdir */
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = 0;
		comm[strcspn(comm, "\n")] = 0;
		recfmt_comm_add(&b, (uint32_t)pid, comm);
		if (++n == COMM_PER_CHUNK) {
			recfmt_comm_end(&b, n);
			ret = sb_flush(rc, &b, REC_SEC_COMM);
			recfmt_comm_begin(&b);
			n = 0;
		}
	}
	closedir(d);
	if (!ret && n) {
		recfmt_comm_end(&b, n);
		ret = sb_flush(rc, &b, REC_SEC_COMM);
	}
	free(b.p);
	return ret;
}

struct maps_snap {
	struct secbuf b;
	uint32_t count, pid;
};

/* maps_put - one mapping of the process being listed into the MAPS section */
static int maps_put(void *arg, const struct usyms_map *map)
{
	struct maps_snap *sn = arg;
	int ret = recfmt_maps_add(&sn->b, sn->pid, map->start, map->len, map->pgoff, map->path,
				  map->build_id, map->build_id_len);

	sn->count += !ret;
	return ret;
}

/* maps_encode - the MAPS section of every running process (sections.h) */
static int maps_encode(struct secbuf *out)
{
	struct maps_snap sn = { { 0 } };
	struct dirent *de;
	int ret = 0;
	DIR *d;

	recfmt_maps_begin(&sn.b);
	d = opendir("/proc");
	if (!d) {
		ret = -errno;
		goto out_free;
	}
	while (!ret && (de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid || pid > UINT32_MAX)
			continue;
		sn.pid = (uint32_t)pid;
		ret = usyms_maps_foreach(sn.pid, maps_put, &sn);
		if (ret == -E2BIG)
			break;
		if (ret != -ENOMEM)
			ret = 0;	/* the process is gone, or a file is unreadable */
	}
	if (ret == -E2BIG)
		ret = 0;
	closedir(d);
	if (!ret)
		ret = sn.b.err;
	if (ret)
		goto out_free;
	recfmt_maps_end(&sn.b, sn.count);
	*out = sn.b;
	return 0;
out_free:
	secbuf_release(&sn.b);
	return ret;
}

/* The CGRP section being filled, and how many tasks it holds. */
struct record_cgrp {
	struct secbuf b;
	uint32_t n;
};

/* record_cgroup_add - one task of the CGRP section */
static void record_cgroup_add(void *arg, uint32_t tid, const char *path, uint64_t t)
{
	struct record_cgrp *cg = arg;

	recfmt_cgrp_add(&cg->b, tid, path, t);
	cg->n++;
}

/* record_put_cgroups - --cgroups: every task's cgroup now; the recorded events follow moves */
static int record_put_cgroups(struct recorder *rc)
{
	struct record_cgrp cg = { 0 };
	int ret;

	recfmt_cgrp_begin(&cg.b);
	ret = cgroup_tasks_proc(record_cgroup_add, &cg);
	if (ret)
		log_msg(LOG_WARN, "cannot list /proc: %s; only tasks that fork or move have a cgroup",
			strerror(-ret));
	recfmt_cgrp_end(&cg.b, cg.n);
	ret = sb_flush(rc, &cg.b, REC_SEC_CGRP);
	secbuf_release(&cg.b);
	return ret;
}

/* record_put_maps - -g: every process's executable mappings now; MMAP2 records follow changes */
static int record_put_maps(struct recorder *rc)
{
	struct secbuf b = { 0 };
	int ret = maps_encode(&b);

	if (ret) {
		log_msg(LOG_WARN, "cannot read the processes' mappings: %s; their user frames may stay unknown",
			strerror(-ret));
		return 0;
	}
	ret = rc_fail(rc, rec_writer_put(rc->w, REC_SEC_MAPS, b.p, b.len));
	secbuf_release(&b);
	return ret;
}

/* Building FDTB sections: the entries so far. */
struct fdtb_build {
	struct recorder *rc;
	struct secbuf b;
	uint32_t n;
};

/* record_fd_add - one descriptor into the FDTB section; a full section goes out first */
static int record_fd_add(void *arg, uint32_t pid, int fd, const char *path)
{
	struct fdtb_build *fb = arg;
	int ret = 0;

	/* One section is one chunk: past a chunk's worth, another section follows. */
	if (fb->b.len + REC_FDTB_ENTRY + REC_FDTB_PATH_MAX + 3 > REC_CHUNK_MAX) {
		recfmt_fdtb_end(&fb->b, fb->n);
		ret = sb_flush(fb->rc, &fb->b, REC_SEC_FDTB);
		recfmt_fdtb_begin(&fb->b);
		fb->n = 0;
	}
	recfmt_fdtb_add(&fb->b, pid, fd, path);
	fb->n++;
	return ret ? ret : fb->b.err;
}

/* record_put_fds - every process's open descriptors now; the recorded syscalls follow changes */
static int record_put_fds(struct recorder *rc)
{
	struct fdtb_build fb = { .rc = rc };
	int ret;

	recfmt_fdtb_begin(&fb.b);
	ret = fdtab_proc_foreach(record_fd_add, &fb);
	if (ret && !rc->werr && ret != -ENOMEM)
		log_msg(LOG_WARN, "cannot read the processes' descriptors: %s; files opened before recording may stay unnamed",
			strerror(-ret));
	if (!rc->werr) {
		recfmt_fdtb_end(&fb.b, fb.n);
		ret = sb_flush(rc, &fb.b, REC_SEC_FDTB);
	}
	secbuf_release(&fb.b);
	return rc->werr ? rc->werr : ret;
}

/* record_put_stat - after the records: when recording stopped, and how much it wrote */
static int record_put_stat(struct recorder *rc, uint64_t t_end)
{
	struct secbuf b = { 0 };
	int ret;

	recfmt_stat_encode(&b, t_end, rc->records, rc->samples);
	ret = sb_flush(rc, &b, REC_SEC_STAT);
	free(b.p);
	return ret;
}

/* record_put_stack - a callchain's id in the file; its REC_RECORD_STACK goes first if new */
static int record_put_stack(struct recorder *rc, const uint64_t *chain, uint32_t nr,
			    uint64_t *id)
{
	struct perf_event_header *h = (void *)rc->rewrite;
	uint64_t *v, *body = (uint64_t *)(h + 1);

	if (nr > (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8)
		nr = (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8;
	if (stackmap_count(rc->stacks) >= REC_STACKS_MAX)
		stackmap_clear(rc->stacks);
	v = stackmap_get(rc->stacks, 0, 0, chain, nr);
	if (!v)
		return -ENOMEM;
	if (!v[0]) {
		v[0] = stackmap_count(rc->stacks);
		h->type = REC_RECORD_STACK;
		h->misc = 0;
		h->size = REC_STACK_FIXED + nr * 8;
		body[0] = v[0] - 1;
		body[1] = nr;
		memcpy(body + 2, chain, nr * 8ull);
		if (rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, h, h->size)))
			return rc->werr;
	}
	*id = v[0] - 1;
	return 0;
}

/*
 * record_rewrite - a sample as the file keeps it: its callchain (a copied
 * user stack walked into it first, symbolizer_walk_record(): DWARF copies come
 * here, frame-pointer ones were walked as they left the ring) named by the
 * id of a REC_RECORD_STACK; any other record as it is. NULL with *err 0: a
 * sample that does not parse, dropped.
 */
static const struct perf_event_header *record_rewrite(struct session *s, struct recorder *rc,
						       const struct perf_event_header *rec, int *err)
{
	const struct iotap_event *ev;
	struct perf_sample smp;
	uint64_t type, regs_mask, id;
	int n;

	*err = 0;
	if (rec->type != PERF_RECORD_SAMPLE || !rc->stacks)
		return rec;
	ev = session_event_find(s, perf_record_id(rec));
	if (!ev || !(ev->sample_type & PERF_SAMPLE_CALLCHAIN))
		return rec;
	type = ev->sample_type;
	regs_mask = ev->regs_mask;
	if (type & PERF_SAMPLE_STACK_USER) {
		rec = symbolizer_walk_record(s->sym, rec, type, regs_mask);
		type = symbolizer_walked_type(type);
		regs_mask = 0;
	}
	if (!rec || perf_sample_parse(rec, type, regs_mask, &smp))
		return NULL;
	*err = record_put_stack(rc, smp.ips, (uint32_t)smp.nr_ips, &id);
	if (*err)
		return NULL;
	smp.ips = &id;
	smp.nr_ips = 1;
	n = perf_sample_write(&smp, type, rec->misc, rc->rewrite, PERF_RECORD_MAX);
	return n < 0 ? NULL : (const void *)rc->rewrite;
}

/* record_put_static - what needs no tracing: the formats' header, the disks, kallsyms (-g) */
static int record_put_static(struct recorder *rc, const struct session *s)
{
	int ret = record_put_fmth(rc, s);

	if (!ret)
		ret = record_put_disks(rc, s);
	if (!ret && rc->p->callchains)
		ret = record_put_kallsyms(rc);
	return ret;
}

/* record_put_state - what names the events as of now, then the start of the records */
static int record_put_state(struct recorder *rc, const struct session *s)
{
	static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };
	int ret = record_put_events(rc, s);

	if (!ret)
		ret = record_put_meta(rc, s, rc->p, (char *)rc->tools.p, rc->command, rc->child.pid);
	if (!ret)
		ret = record_put_comms(rc);
	if (!ret && rc->p->callchains)
		ret = record_put_maps(rc);
	if (!ret && rc->p->cgroups)
		ret = record_put_cgroups(rc);
	if (!ret && rc->fds)
		ret = record_put_fds(rc);
	if (!ret)
		ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, prefix, sizeof(prefix)));
	return ret;
}

/* record_part_swap - write to pt from now on; the part written to so far goes to pt */
static void record_part_swap(struct recorder *rc, struct rec_part *pt)
{
	struct rec_part cur = { rc->w, rc->stacks, rc->records, rc->samples, rc->path };

	rc->w = pt->w;
	rc->stacks = pt->stacks;
	rc->records = pt->records;
	rc->samples = pt->samples;
	rc->path = pt->path;
	*pt = cur;
}

/* record_disk_full - in parts, the part written to failed for want of space */
static bool record_disk_full(const struct recorder *rc)
{
	return (rc->rotate.bytes || rc->rotate.ns) && (rc->werr == -ENOSPC || rc->werr == -EDQUOT);
}

/*
 * record_part_drop - the part written to could not be written for want of
 * space: said (once until a part is whole again), removed, its samples
 * counted as unwritten. Events are dropped, and counted, until event time t
 * plus a second, when a new part is tried: a full disk does not end the run.
 */
static int record_part_drop(struct recorder *rc, uint64_t t)
{
	if (!rc->parts_full)
		log_msg(LOG_ERR, "cannot write '%s': %s; the part is removed, and the recording goes on in a new part once there is room",
			rc->path, rec_strerror(rc->werr));
	rc->parts_full = true;
	rc->retry_t = t + NSEC_PER_SEC;
	rc->unwritten += rc->samples;
	if (rc->path)
		unlink(rc->path);
	rec_writer_free(rc->w);
	stackmap_free(rc->stacks);
	free(rc->path);
	rc->w = NULL;
	rc->stacks = NULL;
	rc->path = NULL;
	rc->records = rc->samples = 0;
	rc->werr = 0;
	return 0;
}

/* record_part_close - finish the part written to at event time t_end; --max-files keeps the newest */
static int record_part_close(struct recorder *rc, uint64_t t_end)
{
	int ret = rc->werr ? rc->werr : record_put_stat(rc, t_end), kept;

	if (!ret)
		ret = rc_fail(rc, rec_writer_close(rc->w));
	if (ret && record_disk_full(rc))
		return record_part_drop(rc, t_end);
	if (ret)
		log_msg(LOG_ERR, "cannot write '%s': %s", rc->path, rec_strerror(ret));
	else if ((kept = rotate_files_add(&rc->kept, rc->path)))
		log_msg(LOG_WARN, "cannot remove the oldest part: %s", strerror(-kept));
	if (!ret && rc->parts_full) {
		log_msg(LOG_WARN, "'%s' is written whole: the recording is back; %llu events were not written",
			rc->path, (unsigned long long)rc->unwritten);
		rc->parts_full = false;
	}
	rc->closed_samples += rc->samples;
	rc->closed_bytes += rec_writer_bytes(rc->w);
	rec_writer_free(rc->w);
	stackmap_free(rc->stacks);
	free(rc->path);
	rc->w = NULL;
	rc->stacks = NULL;
	rc->path = NULL;
	rc->records = rc->samples = 0;
	return ret;
}

/* record_part_create - a new part file named for wall-clock time wall_ns; 0 or -errno, said */
static int record_part_create(struct recorder *rc, uint64_t wall_ns)
{
	size_t len = strlen(rc->p->output) + 32;
	uint64_t ms = wall_ns / 1000000;

	/* Two parts within a millisecond must not share a name. */
	if (ms <= rc->part_ms)
		ms = rc->part_ms + 1;
	rc->part_ms = ms;
	rc->path = malloc(len);
	if (!rc->path)
		return -ENOMEM;
	if (rotate_part_name(rc->p->output, ms * 1000000, rc->path, len))
		return -ENAMETOOLONG;
	rc->w = rec_writer_create(rc->path, rc->p->force);
	if (!rc->w) {
		int ret = -errno;

		log_msg(LOG_ERR, "cannot create '%s': %s", rc->path, strerror(errno));
		return ret;
	}
	if (rc->p->callchains && !(rc->stacks = stackmap_alloc()))
		return -ENOMEM;
	return 0;
}

/* record_prev_close - close the part before the boundary */
static int record_prev_close(struct recorder *rc, uint64_t t_end)
{
	int ret;

	record_part_swap(rc, &rc->prev);
	ret = record_part_close(rc, t_end);
	record_part_swap(rc, &rc->prev);
	return ret;
}

/*
 * record_rotate - the part is due at event time t: the next begins, whole
 * (formats, disks, names, kallsyms and mappings as of now); the one before
 * stays open while requests first seen in it are in flight (rotate.h).
 */
static int record_rotate(struct recorder *rc, struct session *s, uint64_t t)
{
	struct handover *ho = reqwatch_handover(rc->watch);
	int ret = 0;

	if (rc->prev.w)
		ret = record_prev_close(rc, t);
	if (ret)
		return ret;
	record_part_swap(rc, &rc->prev);
	rc->t_part = t;
	ret = record_part_create(rc, t + s->wall_offset);
	if (!ret)
		ret = record_put_static(rc, s);
	if (!ret)
		ret = record_put_state(rc, s);
	if (ret)
		return rc_fail(rc, ret);
	rc->part_base = rec_writer_bytes(rc->w);
	if (ho)
		handover_boundary(ho, t);
	/* No part before when the last could not be written (record_part_drop). */
	return !rc->prev.w || (ho && ho->before) ? 0 : record_prev_close(rc, t);
}

/* record_unlink - remove a recording that never started, if it is a file we made */
static void record_unlink(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* record_on_usr2 - SIGUSR2: a dump is asked for */
static void record_on_usr2(int sig)
{
	record_usr2 = 1;
}

/* record_ring_chunk - the sink of the ring's writer: a chunk made, kept with its events' times */
static int record_ring_chunk(void *arg, const void *chunk, size_t len)
{
	struct recorder *rc = arg;
	uint64_t t0 = rc->chunk_t0 ? rc->chunk_t0 : rc->last_t;
	uint64_t t1 = rc->chunk_t1 ? rc->chunk_t1 : rc->last_t;
	int ret = ring_add(rc->ring, chunk, len, t0, t1);

	rc->chunk_t0 = rc->chunk_t1 = 0;
	/* Each chunk names its own callchains: it may outlive those before it. */
	if (rc->stacks)
		stackmap_clear(rc->stacks);
	if (ret == -E2BIG)
		ret = 0;	/* a chunk larger than the cap: dropped, the cap binds */
	if (!ret && ring_cap_bound(rc->ring) && !rc->cap_said) {
		rc->cap_said = true;
		log_msg(LOG_WARN, "--ring-size %s binds: the ring holds the last %.1f s of events, not %llu s",
			rc->p->ring_size ? rc->p->ring_size : "256M", ring_held_ns(rc->ring) / 1e9,
			(unsigned long long)rc->p->ring);
	}
	return ret;
}

/* record_incident_begin - a trigger at event time t; later ones within the window join it */
static void record_incident_begin(struct recorder *rc, uint64_t t, const char *reason,
				  const char *what)
{
	struct recfmt_trig tr = {
		.what = what, .reason = reason, .t_trigger = t,
		.t_from = t > rc->p->ring * NSEC_PER_SEC ? t - rc->p->ring * NSEC_PER_SEC : 0,
		.t_to = t + rc->p->after * NSEC_PER_SEC,
	};

	if (rc->inc.pending) {
		rc->inc.more++;
		return;
	}
	rc->inc.pending = true;
	rc->inc.t = t;
	rc->inc.more = 0;
	snprintf(rc->inc.what, sizeof(rc->inc.what), "%s", what);
	secbuf_reset(&rc->inc.why);
	recfmt_trig_encode(&rc->inc.why, &tr);
}

/* record_on_done - each completed request: does it fire the trigger? */
static int record_on_done(void *arg, const struct blk_io *io)
{
	struct recorder *rc = arg;
	const char *disk;
	char what[512], rwbs[16];
	uint64_t lat;

	if ((rc->trig_dev && io->dev != rc->dev) || io->t_done < rc->holdoff ||
	    !trigger_match(&rc->trig, io, rc->p->queued, &lat))
		return 0;
	if (rc->inc.pending) {
		rc->inc.more++;
		return 0;
	}
	disk = iotap_disk_name(&rc->sess->ctx, io->dev);
	snprintf(rwbs, sizeof(rwbs), "%s", io->rwbs);
	if (io->error)
		snprintf(what, sizeof(what), "error %d (%s): %s %s sector %llu, %u bytes, %.3f ms, pid %u (%.16s)",
			 io->error, block_status_name(io->error), disk, rwbs,
			 (unsigned long long)io->sector, io->bytes, lat / 1e6, io->pid, io->comm);
	else
		snprintf(what, sizeof(what), "latency %.3f ms > %.3f ms%s: %s %s sector %llu, %u bytes, pid %u (%.16s)",
			 lat / 1e6, rc->trig.latency_ns / 1e6, rc->p->queued ? " (queued + device)" : "",
			 disk, rwbs, (unsigned long long)io->sector, io->bytes, io->pid, io->comm);
	record_incident_begin(rc, io->t_done, io->error ? "error" : "latency", what);
	secbuf_meta(&rc->inc.why, "disk", "%s", disk);
	secbuf_meta(&rc->inc.why, "dev", "%u", io->dev);
	secbuf_meta(&rc->inc.why, "sector", "%llu", (unsigned long long)io->sector);
	secbuf_meta(&rc->inc.why, "bytes", "%u", io->bytes);
	secbuf_meta(&rc->inc.why, "rwbs", "%s", rwbs);
	secbuf_meta(&rc->inc.why, "latency_ns", "%llu", (unsigned long long)lat);
	secbuf_meta(&rc->inc.why, "error", "%d", io->error);
	secbuf_meta(&rc->inc.why, "pid", "%u", io->pid);
	secbuf_meta(&rc->inc.why, "comm", "%.16s", io->comm);
	return 0;
}

/* A dump being written: where, and the window. */
struct record_dump {
	struct rec_writer *w;
	uint64_t from, to;
	struct rec_inflater *z;
	uint8_t *raw;
	uint64_t records, samples;
};

/*
 * record_dump_trim - a chunk that reaches out of the window: only its
 * records within it (and those without a time: callchains, side-band)
 */
static int record_dump_trim(struct record_dump *d, const uint8_t *chunk, size_t len)
{
	struct rec_packed pk = {
		.type = REC_SEC_EVTS,
		.raw_len = (uint32_t)chunk[8] | (uint32_t)chunk[9] << 8 | (uint32_t)chunk[10] << 16 |
			   (uint32_t)chunk[11] << 24,
		.payload = chunk + REC_CHUNK_HDR,
		.len = len - REC_CHUNK_HDR,
	};
	size_t pos = 0;
	int ret;

	if (!d->z && !(d->z = rec_inflater_new()))
		return -ENOMEM;
	if (!d->raw && !(d->raw = malloc(REC_CHUNK_MAX + 1)))
		return -ENOMEM;
	if (pk.raw_len > REC_CHUNK_MAX)
		return -EINVAL;
	ret = rec_inflate(d->z, &pk, d->raw);
	while (!ret && pos + sizeof(struct perf_event_header) <= pk.raw_len) {
		const struct perf_event_header *h = (const void *)(d->raw + pos);
		uint64_t t;

		if (h->size < sizeof(*h) || h->size > pk.raw_len - pos)
			return -EINVAL;
		pos += h->size;
		if (h->type != REC_RECORD_STACK && !perf_record_time(h, &t) &&
		    (t < d->from || t > d->to))
			continue;
		ret = rec_writer_stream(d->w, REC_SEC_EVTS, h, h->size);
		d->records++;
		d->samples += h->type == PERF_RECORD_SAMPLE;
	}
	return ret ? ret : rec_writer_flush(d->w);
}

/* record_dump_chunk - one ring chunk of the window into the dump */
static int record_dump_chunk(void *arg, const void *chunk, size_t len, uint64_t t_first,
			     uint64_t t_last)
{
	struct record_dump *d = arg;

	if (t_first < d->from || t_last > d->to)
		return record_dump_trim(d, chunk, len);
	return rec_writer_put_chunk(d->w, chunk, len);
}

/*
 * record_dump_write - the incident's file: what names the events as of now,
 * what fired, then the ring's chunks of the window; 0 or -errno
 */
static int record_dump_write(struct recorder *rc, struct session *s, const char *path,
			     uint64_t from, uint64_t to)
{
	struct record_dump d = { .from = from, .to = to };
	struct rec_writer *ring_w = rc->w;
	int ret;

	d.w = rec_writer_create(path, rc->p->force);
	if (!d.w)
		return -errno;
	rc->w = d.w;
	rc->t_part = from;
	ret = record_put_static(rc, s);
	if (!ret)
		ret = rec_writer_put(d.w, REC_SEC_TRIG, rc->inc.why.p, rc->inc.why.len);
	if (!ret)
		ret = record_put_state(rc, s);
	if (!ret)
		ret = rec_writer_flush(d.w);
	if (!ret)
		ret = ring_foreach(rc->ring, from, to, record_dump_chunk, &d);
	if (!ret) {
		struct secbuf b = { 0 };

		recfmt_stat_encode(&b, to < rc->last_t ? to : rc->last_t, 0, 0);
		ret = b.err ? b.err : rec_writer_put(d.w, REC_SEC_STAT, b.p, b.len);
		secbuf_release(&b);
	}
	if (!ret)
		ret = rec_writer_close(d.w);
	if (!ret)
		rc->closed_bytes += rec_writer_bytes(d.w);
	rc->w = ring_w;
	rec_writer_free(d.w);
	rec_inflater_free(d.z);
	free(d.raw);
	return ret;
}

/* record_dump - the incident's window is over: write it; a failure is said and the ring goes on */
static int record_dump(struct recorder *rc, struct session *s)
{
	uint64_t from, to = rc->inc.t + rc->p->after * NSEC_PER_SEC;
	size_t len = strlen(rc->p->output) + 32;
	int werr = rc->werr, ret;
	char *path;

	from = rc->inc.t > rc->p->ring * NSEC_PER_SEC ? rc->inc.t - rc->p->ring * NSEC_PER_SEC : 0;
	rc->inc.pending = false;
	/* The next dump a request triggers does not overlap this one. */
	rc->holdoff = to + rc->p->ring * NSEC_PER_SEC;
	/* The chunk being filled holds the window's last events. */
	ret = rc_fail(rc, rec_writer_flush(rc->w));
	if (ret)
		return ret;
	path = malloc(len);
	if (!path)
		return -ENOMEM;
	ret = rotate_part_name(rc->p->output, rc->inc.t + s->wall_offset, path, len);
	if (!ret) {
		ret = record_dump_write(rc, s, path, from, to);
		/* The dump's errors are its own: the ring's writer never failed. */
		rc->werr = werr;
	}
	if (ret) {
		log_msg(LOG_ERR, "cannot write the dump '%s': %s; the ring goes on", path,
			rec_strerror(ret));
		record_unlink(path);
	} else {
		rc->dumps++;
		log_msg(LOG_INFO, "dump %llu: %s: %s; %.3f s before, %.3f s after%s", (unsigned long long)rc->dumps,
			path, rc->inc.what, (rc->inc.t - from) / 1e9, (to - rc->inc.t) / 1e9,
			rc->inc.more ? " (and later triggers in the window)" : "");
	}
	free(path);
	if (rc->p->max_dumps && rc->dumps >= rc->p->max_dumps)
		session_stop(s);
	return 0;
}

/* record_part_due - whether the part written to is full (size) or old enough (time) at t */
static bool record_part_due(const struct recorder *rc, uint64_t t)
{
	return (rc->rotate.ns && t >= rc->t_part + rc->rotate.ns) ||
	       (rc->rotate.bytes && rec_writer_bytes(rc->w) - rc->part_base >= rc->rotate.bytes);
}

/* record_write - one record into the part written to */
static int record_write(struct recorder *rc, struct session *s, const struct perf_event_header *rec)
{
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE) {
		rec = record_rewrite(s, rc, rec, &ret);
		if (!rec) {
			s->dropped += !ret;
			s->malformed += !ret;
			return ret;
		}
	}
	/* The session has given the symbolizer the mappings DWARF unwinding needs. */
	ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, rec, rec->size));
	if (ret)
		return ret;
	rc->records++;
	if (rec->type == PERF_RECORD_SAMPLE)
		rc->samples++;
	return 0;
}

/* record_ring_check - a dump asked for (SIGUSR2) or due (its --after is over at now) */
static int record_ring_check(struct recorder *rc, struct session *s, uint64_t now)
{
	if (record_usr2) {
		record_usr2 = 0;
		record_incident_begin(rc, mono_now(), "signal", "SIGUSR2");
	}
	if (rc->inc.pending && now >= rc->inc.t + rc->p->after * NSEC_PER_SEC)
		return record_dump(rc, s);
	return 0;
}

/* record_ring_record - into the ring: a chunk ends before a record could overflow it */
static int record_ring_record(struct recorder *rc, struct session *s,
			      const struct perf_event_header *rec, struct reqwatch_rec *r, uint64_t t)
{
	uint64_t first;
	int ret;

	if (t > rc->last_t)
		rc->last_t = t;
	ret = reqwatch_feed(rc->watch, s, r, &first);
	if (!ret && rec_writer_pending(rc->w) + rec->size > RING_CHUNK)
		ret = rc_fail(rc, rec_writer_flush(rc->w));
	if (!ret)
		ret = record_write(rc, s, rec);
	if (ret)
		return ret;
	if (t && !rc->chunk_t0)
		rc->chunk_t0 = t;
	if (t)
		rc->chunk_t1 = t;
	return record_ring_check(rc, s, rc->last_t);
}

/*
 * record_on_record - every record the session delivers, in time order, goes
 * to the file; in parts, to the part its request belongs to (rotate.h)
 */
static int record_on_record(struct session *s, void *priv, const struct perf_event_header *rec)
{
	struct recorder *rc = priv;
	struct reqwatch_rec r;
	struct handover *ho;
	uint64_t t, first;
	bool before;
	int ret = 0;

	if (!rc->rotate.bytes && !rc->rotate.ns && !rc->ring)
		return record_write(rc, s, rec);
	t = reqwatch_time(s, rec, &r);
	if (rc->ring)
		return record_ring_record(rc, s, rec, &r, t);
	/* No part since one could not be written: none until a second has passed. */
	if (!rc->w && (!t || t < rc->retry_t)) {
		rc->unwritten += rec->type == PERF_RECORD_SAMPLE;
		return 0;
	}
	/* The boundary first: a request this record starts is the next part's. */
	if (t && (!rc->w || record_part_due(rc, t)))
		ret = record_rotate(rc, s, t);
	if (ret && record_disk_full(rc))
		return record_part_drop(rc, t);
	if (!ret)
		ret = reqwatch_feed(rc->watch, s, &r, &first);
	if (ret)
		return ret;
	before = rc->prev.w && first && first < rc->t_part;
	if (before)
		record_part_swap(rc, &rc->prev);
	ret = record_write(rc, s, rec);
	/* Whichever part it went to, the one that failed is removed. */
	if (ret && record_disk_full(rc))
		ret = record_part_drop(rc, t);
	if (before)
		record_part_swap(rc, &rc->prev);
	ho = reqwatch_handover(rc->watch);
	if (!ret && rc->prev.w && t &&
	    (!ho || !ho->before || t >= rc->t_part + ROTATE_HANDOVER_NS))
		ret = record_prev_close(rc, t);
	return ret;
}

/* The session recording while a command runs, for the SIGCHLD handler. */
static struct session *volatile record_child_sess;

/* record_on_child - the command exited: stop the recording session as a signal would */
static void record_on_child(int sig)
{
	if (record_child_sess)
		session_stop(record_child_sess);
}

/* record_spawn - fork the command, held before exec until tracing runs */
static int record_spawn(char **argv, struct record_child *c)
{
	int go[2], ep[2], e;
	char b;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		e = -errno;
		goto close_go;
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		close(ep[0]);
		close(ep[1]);
		goto close_go;
	}
	if (c->pid == 0) {
		/* Ignored signals stay ignored across exec; the command gets the defaults. */
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go = go[1];
	c->err = ep[0];
	return 0;
close_go:
	close(go[0]);
	close(go[1]);
	return e;
}

/* record_release - let the command exec; -errno when it could not */
static int record_release(struct record_child *c)
{
	int e = 0;
	ssize_t n;

	n = write(c->go, "g", 1);
	close(c->go);
	c->go = -1;
	if (n != 1)
		return -EPIPE;
	/* EOF: exec closed the pipe; an int: exec failed with it. */
	do
		n = read(c->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err);
	c->err = -1;
	return n == sizeof(e) ? -e : 0;
}

/* record_reap - end the command if tracing stopped first; the wait status of one that ended */
static int record_reap(struct record_child *c)
{
	int st = 0;

	if (c->go >= 0)
		close(c->go);
	if (c->err >= 0)
		close(c->err);
	c->go = c->err = -1;
	if (c->pid <= 0)
		return 0;
	if (waitpid(c->pid, &st, WNOHANG) == 0) {
		/* Tracing stopped first (-D, a signal): the command's end is ours, not news. */
		kill(c->pid, SIGTERM);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		st = 0;
	}
	c->pid = -1;
	return st;
}

/* record_progress - tell the caller how far recording got */
static void record_progress(struct session *s, struct recorder *rc, bool final, int cmd_status)
{
	struct record_progress pr = {
		.elapsed_ns = mono_now() - s->t_start,
		.samples = rc->closed_samples + rc->samples + rc->prev.samples,
		/* A ring's writer fills memory, not a file: only its dumps are written. */
		.bytes = rc->closed_bytes + (rc->ring ? 0 : rec_writer_bytes(rc->w)) +
			 rec_writer_bytes(rc->prev.w),
		.lost = session_lost_total(s),
		.undelivered = session_undelivered_total(s),
		.final = final,
		.cmd_status = cmd_status,
	};

	if (rc->progress)
		rc->progress(rc->progress_arg, &pr);
}

/* record_init - the events, and what needs no tracing yet: it goes first, so rings do not wait */
static int record_init(struct session *s, void *priv)
{
	struct recorder *rc = priv;
	int ret = record_select(s, rc->p, &rc->tools, &rc->fds);

	if (!ret && rc->p->callchains) {
		rc->rewrite = malloc(PERF_RECORD_MAX);
		rc->stacks = stackmap_alloc();
		if (!rc->rewrite || !rc->stacks)
			ret = -ENOMEM;
	}
	if (!ret && !rc->ring)
		ret = record_put_static(rc, s);
	if (!ret && rc->command)
		ret = record_spawn(rc->command, &rc->child);
	return ret;
}

/* record_ring_start - the triggers watch the requests; -d resolved now that disks are known */
static int record_ring_start(struct recorder *rc, struct session *s)
{
	int ret;

	if (rc->p->disk) {
		ret = iotap_disk_resolve(&s->ctx, rc->p->disk, &rc->dev);
		if (ret) {
			log_msg(LOG_ERR, "unknown disk '%s'", rc->p->disk);
			return -EINVAL;
		}
		rc->trig_dev = true;
	}
	/* SIGUSR2 alone needs no pairing. */
	if (!rc->p->trigger)
		return 0;
	ret = reqwatch_create(&rc->watch, s, record_on_done, rc);
	if (!ret && !rc->watch) {
		log_msg(LOG_ERR, "--trigger needs block_rq_issue and block_rq_complete recorded (see --tools)");
		ret = -EINVAL;
	}
	return ret;
}

/* record_start - events flow: what names them, then the command may run */
static int record_start(struct session *s, void *priv)
{
	struct recorder *rc = priv;
	int ret = 0;

	rc->sess = s;
	if (rc->rotate.bytes || rc->rotate.ns) {
		rc->t_part = s->t_start;
		ret = reqwatch_create(&rc->watch, s, NULL, NULL);
	} else if (rc->ring) {
		ret = record_ring_start(rc, s);
	}
	if (!ret && !rc->ring)
		ret = record_put_state(rc, s);
	rc->part_base = rec_writer_bytes(rc->w);
	if (!ret && rc->command) {
		ret = record_release(&rc->child);
		if (ret)
			log_msg(LOG_ERR, "cannot run '%s': %s", rc->command[0], strerror(-ret));
	}
	rc->started = !ret;
	return ret;
}

/* record_report - a chunk a second: the file grows as events come, a crash loses a second at most */
static int record_report(struct session *s, void *priv, bool final)
{
	struct recorder *rc = priv;
	int ret;

	if (final)
		return 0;
	ret = rc->w ? rc_fail(rc, rec_writer_flush(rc->w)) : 0;
	if (ret && record_disk_full(rc))
		ret = record_part_drop(rc, mono_now());
	/* Idle: the window is over when the clock says so (a second for events still merging). */
	if (!ret && rc->ring)
		ret = record_ring_check(rc, s, mono_now() - NSEC_PER_SEC);
	if (!ret)
		record_progress(s, rc, false, 0);
	return ret;
}

/* The recorder as a consumer of the session's run loop: it takes every record raw. */
static const struct consumer_ops record_consumer = {
	.name = "record",
	.init = record_init,
	.start = record_start,
	.report = record_report,
	.on_record = record_on_record,
};

/* record_parts_setup - --switch-output and --max-files, checked: one error line each */
static int record_parts_setup(struct recorder *rc, const struct record_params *p)
{
	if (p->max_files && !p->switch_output) {
		log_msg(LOG_ERR, "--max-files needs --switch-output");
		return -EINVAL;
	}
	if (p->switch_output && rotate_parse(p->switch_output, &rc->rotate)) {
		log_msg(LOG_ERR, "bad --switch-output '%s': a size (100M, 1G; B, K, M, G) or a time (30s, 10m, 1h, 1d)",
			p->switch_output);
		return -EINVAL;
	}
	rc->kept.max = (unsigned int)p->max_files;
	return 0;
}

/* record_ring_setup - --ring and what goes with it, checked: one error line each */
static int record_ring_setup(struct recorder *rc, const struct record_params *p)
{
	uint64_t cap = RING_SIZE_DEFAULT;
	char why[256];

	if (!p->ring) {
		if (p->ring_size || p->trigger || p->after || p->max_dumps || p->disk || p->queued) {
			log_msg(LOG_ERR, "--ring-size, --trigger, --after, --max-dumps, -d and -Q need --ring");
			return -EINVAL;
		}
		return 0;
	}
	if (p->switch_output) {
		log_msg(LOG_ERR, "--ring and --switch-output cannot be used together");
		return -EINVAL;
	}
	if (p->ring_size && (rotate_parse_size(p->ring_size, &cap) || cap < (1u << 20))) {
		log_msg(LOG_ERR, "bad --ring-size '%s': a size of at least 1M (K, M, G)", p->ring_size);
		return -EINVAL;
	}
	if (p->trigger && trigger_parse(p->trigger, &rc->trig, why, sizeof(why))) {
		log_msg(LOG_ERR, "bad --trigger: %s", why);
		return -EINVAL;
	}
	if (p->queued && !rc->trig.latency_ns) {
		log_msg(LOG_ERR, "-Q needs --trigger latency>MS");
		return -EINVAL;
	}
	rc->ring = ring_alloc((p->ring + p->after) * NSEC_PER_SEC, cap);
	rc->w = rc->ring ? rec_writer_create_sink(record_ring_chunk, rc) : NULL;
	return rc->w ? 0 : -ENOMEM;
}

/* record_run - record until stopped; progress gets the status about once a second */
int record_run(const struct record_params *p, const struct session_opts *so_in, char **command,
	       record_progress_fn progress, void *arg)
{
	struct recorder rc = {
		.p = p, .command = command, .progress = progress, .progress_arg = arg,
		.child = { .pid = -1, .go = -1, .err = -1 },
	};
	struct session_opts so = *so_in;
	struct sigaction sa, old_sa, old_usr2;
	struct session s;
	int ret, status = 0;

	if (!p->output) {
		log_msg(LOG_ERR, "no output file: use -o FILE");
		return -EINVAL;
	}
	so.input = NULL;
	so.input_buf = NULL;
	so.track_mmap = p->callchains;
	so.walk_only = true;
	ret = record_parts_setup(&rc, p);
	if (!ret)
		ret = record_ring_setup(&rc, p);
	if (ret) {
		ring_free(rc.ring);
		return ret;
	}
	if (rc.ring) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = record_on_usr2;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR2, &sa, &old_usr2);
	} else if (rc.rotate.bytes || rc.rotate.ns) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		ret = record_part_create(&rc, now.tv_sec * NSEC_PER_SEC + now.tv_nsec);
		if (ret) {
			free(rc.path);
			rec_writer_free(rc.w);
			return ret;
		}
	} else {
		rc.w = rec_writer_create(p->output, p->force);
	}
	if (!rc.w) {
		ret = -errno;
		if (ret == -EEXIST)
			log_msg(LOG_ERR, "'%s' exists; use -f to overwrite it", p->output);
		else if (ret == -ENOTSUP)
			log_msg(LOG_ERR, "'%s' is not a regular file: not replaced", p->output);
		else
			log_msg(LOG_ERR, "cannot create '%s': %s", p->output, strerror(errno));
		return ret;
	}
	/* The command's exit stops recording; a stop (SIGSTOP) does not. */
	record_child_sess = &s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);

	ret = session_init(&s, NULL, NULL, &so);
	if (!ret)
		ret = session_consumer_add(&s, &record_consumer, &rc);
	if (!ret)
		ret = session_run(&s, NSEC_PER_SEC, 0, p->duration * NSEC_PER_SEC);
	if (rc.started) {
		if (ret && !rc.werr)
			log_msg(LOG_ERR, "recording stopped: %s", strerror(-ret));
		status = record_reap(&rc.child);
		if (rc.prev.w)
			record_prev_close(&rc, mono_now());
		/* What was written stays readable even after an error: a reader sees it as cut short. */
		if (rc.ring) {
			/* An incident whose window is still open is written as far as it got. */
			if (rc.inc.pending && !rc.werr)
				record_dump(&rc, &s);
		} else if (rc.path) {
			record_part_close(&rc, mono_now());
		} else if (rc.w && !rc.werr && !record_put_stat(&rc, mono_now())) {
			rc_fail(&rc, rec_writer_close(rc.w));
		}
		if (!ret)
			ret = rc.werr;
		if (rc.parts_full)
			log_msg(LOG_WARN, "%llu events were not written: no part could be written since the disk filled",
				(unsigned long long)rc.unwritten);
		record_progress(&s, &rc, true, status);
	}
	record_reap(&rc.child);
	if (rc.werr && !rc.path)
		log_msg(LOG_ERR, "cannot write '%s': %s", p->output, rec_strerror(rc.werr));
	session_release(&s);
	sigaction(SIGCHLD, &old_sa, NULL);
	record_child_sess = NULL;
	if (rc.ring)
		sigaction(SIGUSR2, &old_usr2, NULL);
	rec_writer_free(rc.w);
	ring_free(rc.ring);
	secbuf_release(&rc.inc.why);
	free(rc.rewrite);
	stackmap_free(rc.stacks);
	if (!rc.started && !rc.ring)
		record_unlink(rc.path ? rc.path : p->output);
	free(rc.path);
	reqwatch_free(rc.watch);
	rotate_files_release(&rc.kept);
	free(rc.tools.p);
	return ret;
}
