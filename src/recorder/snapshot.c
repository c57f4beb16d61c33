// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot.c - the sections that name a recording's events as of now */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgroup.h"
#include "fdtab.h"
#include "log.h"
#include "sections.h"
#include "session.h"
#include "snapshot.h"
#include "symbolizer.h"
#include "usyms.h"

/* Processes per COMM chunk: 1.3 MB, well under the container's chunk limit. */
#define COMM_PER_CHUNK 65536
/* Bytes read from /proc/kallsyms per call; whatever the kernel gives is streamed as is. */
#define KSYM_READ (64u << 10)

/* snap_flush - write the buffer as one whole section and empty it */
static int snap_flush(struct rec_writer *w, struct rec_buf *b, uint32_t type)
{
	int ret = rec_sec_put(w, type, b);

	rec_buf_reset(b);
	return ret;
}

/* snap_put_head - the header_page text the formats were parsed with, the block devices */
int snap_put_head(struct rec_writer *w, const struct session *s)
{
	struct rec_buf b = { 0 };
	int ret;

	rec_sec_fmth_encode(&b, s->fs.header_page, s->fs.header_page_len);
	ret = snap_flush(w, &b, REC_SEC_FMTH);
	if (!ret) {
		rec_sec_disk_encode(&b, &s->disks);
		ret = snap_flush(w, &b, REC_SEC_DISK);
	}
	free(b.p);
	return ret;
}

/* snap_put_kallsyms - /proc/kallsyms as it is now, streamed */
int snap_put_kallsyms(struct rec_writer *w)
{
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
	ret = rec_sec_stream_begin(w, REC_SEC_KSYM);
	while (!ret && (n = read(fd, buf, KSYM_READ)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			log_msg(LOG_ERR, "cannot read /proc/kallsyms: %s", strerror(errno));
			break;
		}
		ret = rec_writer_stream(w, REC_SEC_KSYM, buf, n);
	}
	if (!ret)
		ret = rec_writer_flush(w);
	close(fd);
out_free:
	free(buf);
	return ret;
}

/* snap_fmt_text - the format text an event was opened with */
static const struct fmt_event *snap_fmt_text(const struct session *s, const char *sys,
					       const char *name)
{
	for (size_t i = 0; i < s->fs.nr; i++)
		if (!strcmp(s->fs.ev[i].sys, sys) && !strcmp(s->fs.ev[i].name, name))
			return &s->fs.ev[i];
	return NULL;
}

/* snap_put_events - one EVNT per event: sample layout, perf ids per CPU, format text */
static int snap_put_events(struct rec_writer *w, const struct session *s)
{
	struct rec_buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < s->nr_ev && !ret; i++) {
		const struct iotap_event *ev = s->ev[i];
		const struct fmt_event *fe = snap_fmt_text(s, ev->sys, ev->name);
		struct rec_sec_evnt e = {
			/* Stacks are walked as recorded: no user registers or copies are stored. */
			.sample_type = symbolizer_walked_type(ev->sample_type),
			/* Callchains go by id (evstream.h). */
			.chain_ids = ev->sample_type & PERF_SAMPLE_CALLCHAIN,
		};

		if (!fe || s->src->event_ids(s, ev, &e.ids, &e.nr_ids))
			return -ENOENT;
		e.sys = ev->sys;
		e.name = ev->name;
		e.fmt = fe->text;
		e.fmt_len = fe->len;
		rec_sec_evnt_encode(&b, &e);
		ret = snap_flush(w, &b, REC_SEC_EVNT);
	}
	free(b.p);
	return ret;
}

/* snap_put_meta - the recording machine, the clock and what was recorded */
static int snap_put_meta(struct rec_writer *w, const struct session *s, const struct snap_info *in)
{
	struct rec_buf b = { 0 }, cmd = { 0 };
	struct utsname u;
	struct rec_sec_meta m = {
		.iotap = PACKAGE_VERSION,
		.host = u.nodename, .sysname = u.sysname, .release = u.release,
		.kversion = u.version, .machine = u.machine,
		.nr_cpus = s->src->nr_cpus(s),
		.page_size = s->fs.page_size,
		.long_size = s->fs.long_size,
		.t_start = in->t_start,
		.wall_offset = s->wall_offset,
		.callchains = in->p->callchains,
		.tools = in->tools,
	};
	int ret;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (in->command) {
		/* The command line as one line, its words apart by one space. */
		for (char **a = in->command; *a; a++) {
			rec_buf_put(&cmd, a == in->command ? "" : " ", a != in->command);
			rec_buf_put(&cmd, *a, strlen(*a));
		}
		rec_buf_put(&cmd, "", 1);
		ret = cmd.err;
		if (ret)
			goto out_free;
		m.command = (const char *)cmd.p;
		m.command_pid = (int)in->pid;
	}
	rec_sec_meta_encode(&b, &m);
	ret = snap_flush(w, &b, REC_SEC_META);
out_free:
	rec_buf_release(&cmd);
	rec_buf_release(&b);
	return ret;
}

/* snap_put_names - what each event is, then the machine and the command line */
int snap_put_names(struct rec_writer *w, const struct session *s, const struct snap_info *in)
{
	int ret = snap_put_events(w, s);

	return ret ? ret : snap_put_meta(w, s, in);
}

/* snap_put_comms - the name of every process now; COMM and FORK records follow changes */
static int snap_put_comms(struct rec_writer *w)
{
	struct rec_buf b = { 0 };
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint32_t n = 0;
	int ret = 0;

	if (!d) {
		log_msg(LOG_WARN, "cannot list /proc: %s; process names come from COMM records only",
			strerror(errno));
		return 0;
	}
	rec_sec_comm_begin(&b);
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
		rec_sec_comm_add(&b, (uint32_t)pid, comm);
		if (++n == COMM_PER_CHUNK) {
			rec_sec_comm_end(&b, n);
			ret = snap_flush(w, &b, REC_SEC_COMM);
			rec_sec_comm_begin(&b);
			n = 0;
		}
	}
	closedir(d);
	if (!ret && n) {
		rec_sec_comm_end(&b, n);
		ret = snap_flush(w, &b, REC_SEC_COMM);
	}
	free(b.p);
	return ret;
}

/* The MAPS section being filled: its mappings so far, and the process being listed. */
struct maps_snap {
	struct rec_buf b;
	uint32_t count, pid;
};

/* snap_maps_put - one mapping of the process being listed into the MAPS section */
static int snap_maps_put(void *arg, const struct usyms_map *map)
{
	struct maps_snap *sn = arg;
	int ret = rec_sec_maps_add(&sn->b, sn->pid, map->start, map->len, map->pgoff, map->path,
				  map->build_id, map->build_id_len);

	sn->count += !ret;
	return ret;
}

/* snap_maps_encode - the MAPS section of every running process (sections.h) */
static int snap_maps_encode(struct rec_buf *out)
{
	struct maps_snap sn = { { 0 } };
	struct dirent *de;
	int ret = 0;
	DIR *d;

	rec_sec_maps_begin(&sn.b);
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
		ret = usyms_maps_foreach(sn.pid, snap_maps_put, &sn);
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
	rec_sec_maps_end(&sn.b, sn.count);
	*out = sn.b;
	return 0;
out_free:
	rec_buf_release(&sn.b);
	return ret;
}

/* The v1 hierarchies a recording keeps, at most: blkio's and the named ones (cgroup.h). */
#define SNAP_CGV1_MAX 8

/* A CGRP or CGV1 section being filled, and how many tasks it holds. */
struct snap_cgrp {
	struct rec_buf b;
	uint32_t n;
};

/* snap_cgroup_add - one task of a hierarchy's section (which: 0 CGRP, then each CGV1) */
static void snap_cgroup_add(void *arg, size_t which, uint32_t tid, const char *path, uint64_t t)
{
	struct snap_cgrp *cg = (struct snap_cgrp *)arg + which;

	rec_sec_cgrp_add(&cg->b, tid, path, t);
	cg->n++;
}

/* snap_cgroup_id - one directory of the CGID section */
static void snap_cgroup_id(void *arg, uint64_t id, const char *path)
{
	struct snap_cgrp *cg = arg;

	rec_sec_cgid_add(&cg->b, id, path);
	cg->n++;
}

/*
 * snap_put_cgroup_ids - where the block controller is cgroup v2's: every directory's id now
 * (CGID), which names the cgroup that owns what the flusher writes back
 */
static int snap_put_cgroup_ids(struct rec_writer *w)
{
	struct snap_cgrp cg = { 0 };
	char mount[PATH_MAX];
	int ret;

	if (cgroup_io_root_here(mount, sizeof(mount)))
		return 0;
	rec_sec_cgid_begin(&cg.b);
	ret = cgroup_ids_here(snap_cgroup_id, &cg);
	if (ret)
		log_msg(LOG_WARN, "cannot list the cgroup v2 directories: %s; writeback is reported as the flusher's cgroup's",
			strerror(-ret));
	rec_sec_cgid_end(&cg.b, cg.n);
	ret = snap_flush(w, &cg.b, REC_SEC_CGID);
	rec_buf_release(&cg.b);
	return ret;
}

/*
 * snap_put_cgroups - --cgroups: every task's cgroup now, in cgroup v2 (CGRP) and in each v1
 * hierarchy kept (CGV1), each task's file read once; the recorded events follow moves
 */
static int snap_put_cgroups(struct rec_writer *w)
{
	struct cgroup_v1 v1[SNAP_CGV1_MAX];
	struct snap_cgrp cg[1 + SNAP_CGV1_MAX] = { 0 };
	int roots[1 + SNAP_CGV1_MAX] = { 0 };
	size_t nr = 1 + cgroup_v1_mounted(v1, SNAP_CGV1_MAX);
	int ret;

	rec_sec_cgrp_begin(&cg[0].b);
	for (size_t i = 1; i < nr; i++) {
		struct rec_sec_cgv1 h = { .id = (uint32_t)v1[i - 1].id };

		snprintf(h.controllers, sizeof(h.controllers), "%s", v1[i - 1].controllers);
		snprintf(h.mount, sizeof(h.mount), "%s", v1[i - 1].mount);
		rec_sec_cgv1_begin(&cg[i].b, &h);
		roots[i] = v1[i - 1].id;
	}
	ret = cgroup_tasks_proc_roots(roots, nr, snap_cgroup_add, cg);
	if (ret)
		log_msg(LOG_WARN, "cannot list /proc: %s; only tasks that fork or move have a cgroup",
			strerror(-ret));
	rec_sec_cgrp_end(&cg[0].b, cg[0].n);
	ret = snap_flush(w, &cg[0].b, REC_SEC_CGRP);
	for (size_t i = 1; i < nr; i++) {
		rec_sec_cgv1_end(&cg[i].b, cg[i].n);
		if (!ret)
			ret = snap_flush(w, &cg[i].b, REC_SEC_CGV1);
	}
	for (size_t i = 0; i < nr; i++)
		rec_buf_release(&cg[i].b);
	return ret ? ret : snap_put_cgroup_ids(w);
}

/* snap_put_maps - -g: every process's executable mappings now; MMAP2 records follow changes */
static int snap_put_maps(struct rec_writer *w)
{
	struct rec_buf b = { 0 };
	int ret = snap_maps_encode(&b);

	if (ret) {
		log_msg(LOG_WARN, "cannot read the processes' mappings: %s; their user frames may stay unknown",
			strerror(-ret));
		return 0;
	}
	ret = rec_sec_put(w, REC_SEC_MAPS, &b);
	rec_buf_release(&b);
	return ret;
}

/* Building FDTB sections: the entries so far, and the writer's first error. */
struct fdtb_build {
	struct rec_writer *w;
	struct rec_buf b;
	uint32_t n;
	int werr;
};

/* snap_fd_add - one descriptor into the FDTB section; a full section goes out first */
static int snap_fd_add(void *arg, uint32_t pid, int fd, const char *path)
{
	struct fdtb_build *fb = arg;
	int ret = 0;

	/* One section is one chunk: past a chunk's worth, another section follows. */
	if (fb->b.len + REC_FDTB_ENTRY + REC_FDTB_PATH_MAX + 3 > REC_CHUNK_MAX) {
		rec_sec_fdtb_end(&fb->b, fb->n);
		ret = snap_flush(fb->w, &fb->b, REC_SEC_FDTB);
		rec_sec_fdtb_begin(&fb->b);
		fb->n = 0;
		if (ret && !fb->werr)
			fb->werr = ret;
	}
	rec_sec_fdtb_add(&fb->b, pid, fd, path);
	fb->n++;
	return ret ? ret : fb->b.err;
}

/* snap_put_fds - every process's open descriptors now; the recorded syscalls follow changes */
static int snap_put_fds(struct rec_writer *w)
{
	struct fdtb_build fb = { .w = w };
	int ret;

	rec_sec_fdtb_begin(&fb.b);
	ret = fdtab_proc_foreach(snap_fd_add, &fb);
	if (ret && !fb.werr && ret != -ENOMEM)
		log_msg(LOG_WARN, "cannot read the processes' descriptors: %s; files opened before recording may stay unnamed",
			strerror(-ret));
	if (!fb.werr) {
		rec_sec_fdtb_end(&fb.b, fb.n);
		ret = snap_flush(w, &fb.b, REC_SEC_FDTB);
	}
	rec_buf_release(&fb.b);
	return fb.werr ? fb.werr : ret;
}

/* snap_put_procs - what /proc says of the processes now, then the start of the records */
int snap_put_procs(struct rec_writer *w, const struct snap_info *in)
{
	int ret = snap_put_comms(w);

	if (!ret && in->p->callchains)
		ret = snap_put_maps(w);
	if (!ret && in->p->cgroups)
		ret = snap_put_cgroups(w);
	if (!ret && in->fds)
		ret = snap_put_fds(w);
	if (!ret)
		ret = rec_sec_stream_begin(w, REC_SEC_EVTS);
	return ret;
}

/* snap_put_stat - after the records: when recording stopped, and how much it wrote */
int snap_put_stat(struct rec_writer *w, uint64_t t_end, uint64_t records, uint64_t samples)
{
	struct rec_buf b = { 0 };
	int ret;

	rec_sec_stat_encode(&b, t_end, records, samples);
	ret = snap_flush(w, &b, REC_SEC_STAT);
	free(b.p);
	return ret;
}

