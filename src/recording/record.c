// SPDX-License-Identifier: GPL-2.0-or-later
/* record.c - iotap record: the events tools use, and all a later report needs, to a file */
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
#include <unistd.h>

#include "cgroup.h"
#include "fdtab.h"
#include "log.h"
#include "recformat.h"
#include "record.h"
#include "recording.h"
#include "stackmap.h"
#include "symbolizer.h"
#include "usyms.h"

#define NSEC_PER_SEC 1000000000ull
/* Processes per COMM chunk: 1.3 MB, well under the container's chunk limit. */
#define COMM_PER_CHUNK 65536
/* Bytes read from /proc/kallsyms per call; whatever the kernel gives is streamed as is. */
#define KSYM_READ (64u << 10)

/* The traced command: stopped before exec until tracing runs. */
struct record_child {
	pid_t pid;
	int go;				/* a byte here lets it exec */
	int err;			/* errno of a failed exec comes back here */
};

/*
 * What a recording is being written with: the params of the recorder, a
 * consumer of the session's run loop like any tool (record_consumer).
 */
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
};

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
	secbuf_meta(&b, "t_start", "%llu", (unsigned long long)s->t_start);
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

/* maps_encode - the MAPS section of every running process (recformat.h) */
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

/* record_on_record - every record the session delivers, in time order, goes to the file */
static int record_on_record(struct iotap_ctx *ctx, const struct perf_event_header *rec)
{
	struct recorder *rc = ctx->params;
	struct session *s = ctx->sess;
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE) {
		rec = record_rewrite(s, rc, rec, &ret);
		if (!rec) {
			s->dropped += !ret;
			s->malformed += !ret;
			return ret;
		}
	} else if (s->sym && s->opts.call_graph == STACK_CG_DWARF) {
		/* The mappings DWARF unwinding needs, kept as a live tool keeps them. */
		symbolizer_record(s->sym, rec);
	}
	ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, rec, rec->size));
	if (ret)
		return ret;
	rc->records++;
	if (rec->type == PERF_RECORD_SAMPLE)
		rc->samples++;
	return 0;
}

/* record_on_child - the command exited: stop as a signal would */
static void record_on_child(int sig)
{
	session_stop = 1;
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
		.samples = rc->samples,
		.bytes = rec_writer_bytes(rc->w),
		.lost = session_lost_total(s),
		.undelivered = session_undelivered_total(s),
		.final = final,
		.cmd_status = cmd_status,
	};

	if (rc->progress)
		rc->progress(rc->progress_arg, &pr);
}

/* record_init - the events, and what needs no tracing yet: it goes first, so rings do not wait */
static int record_init(struct iotap_ctx *ctx)
{
	struct recorder *rc = ctx->params;
	struct session *s = ctx->sess;
	int ret = record_select(s, rc->p, &rc->tools, &rc->fds);

	if (!ret && rc->p->callchains) {
		rc->rewrite = malloc(PERF_RECORD_MAX);
		rc->stacks = stackmap_alloc();
		if (!rc->rewrite || !rc->stacks)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = record_put_fmth(rc, s);
	if (!ret)
		ret = record_put_disks(rc, s);
	if (!ret && rc->p->callchains)
		ret = record_put_kallsyms(rc);
	if (!ret && rc->command)
		ret = record_spawn(rc->command, &rc->child);
	return ret;
}

/* record_start - events flow: what names them, then the command may run */
static int record_start(struct iotap_ctx *ctx)
{
	static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };
	struct recorder *rc = ctx->params;
	struct session *s = ctx->sess;
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
	if (!ret && rc->command) {
		ret = record_release(&rc->child);
		if (ret)
			log_msg(LOG_ERR, "cannot run '%s': %s", rc->command[0], strerror(-ret));
	}
	rc->started = !ret;
	return ret;
}

/* record_report - a chunk a second: the file grows as events come, a crash loses a second at most */
static int record_report(struct iotap_ctx *ctx)
{
	struct recorder *rc = ctx->params;
	int ret;

	if (ctx->final)
		return 0;
	ret = rc_fail(rc, rec_writer_flush(rc->w));
	if (!ret)
		record_progress(ctx->sess, rc, false, 0);
	return ret;
}

/* The recorder as a consumer of the session's run loop. */
static const struct tool record_consumer = {
	.name = "record",
	.init = record_init,
	.start = record_start,
	.report = record_report,
	.on_record = record_on_record,
};

/* record_unlink - remove a recording that never started, if it is a file we made */
static void record_unlink(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
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
	struct sigaction sa, old_sa;
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
	rc.w = rec_writer_create(p->output, p->force);
	if (!rc.w) {
		ret = -errno;
		if (ret == -EEXIST)
			log_msg(LOG_ERR, "'%s' exists; use -f to overwrite it", p->output);
		else
			log_msg(LOG_ERR, "cannot create '%s': %s", p->output, strerror(errno));
		return ret;
	}
	/* The command's exit stops recording; a stop (SIGSTOP) does not. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);

	ret = session_init(&s, &record_consumer, &rc, &so);
	if (!ret)
		ret = session_run(&s, NSEC_PER_SEC, 0, p->duration * NSEC_PER_SEC);
	if (rc.started) {
		if (ret && !rc.werr)
			log_msg(LOG_ERR, "recording stopped: %s", strerror(-ret));
		status = record_reap(&rc.child);
		/* What was written stays readable even after an error: a reader sees it as cut short. */
		if (!rc.werr && !record_put_stat(&rc, mono_now()))
			rc_fail(&rc, rec_writer_close(rc.w));
		if (!ret)
			ret = rc.werr;
		record_progress(&s, &rc, true, status);
	}
	record_reap(&rc.child);
	if (rc.werr)
		log_msg(LOG_ERR, "cannot write '%s': %s", p->output, rec_strerror(rc.werr));
	session_release(&s);
	sigaction(SIGCHLD, &old_sa, NULL);
	rec_writer_free(rc.w);
	free(rc.rewrite);
	stackmap_free(rc.stacks);
	if (!rc.started)
		record_unlink(p->output);
	free(rc.tools.p);
	return ret;
}
