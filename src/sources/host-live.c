// SPDX-License-Identifier: GPL-2.0-or-later
/* host-live.c - facts about the running system, for the live source: /proc, kallsyms, cgroups */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf.h"
#include "cgroup.h"
#include "fdtab.h"
#include "ksyms.h"
#include "live.h"
#include "log.h"
#include "session.h"
#include "tgidmap.h"
#include "usyms.h"

/* host_live_comm - a process name from /proc, for a pid no COMM record named */
static const char *host_live_comm(struct session *s, uint32_t pid)
{
	char path[64], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	session_comm_cache(s, pid, buf);
	return session_comm_cached(s, pid);
}

/* host_live_comms_warm - every running process's name now, as a recording's COMM section has them */
void host_live_comms_warm(struct session *s)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	/* Events are read a moment after they happen: a short-lived process is gone by then. */
	while (d && (de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (!*end && end != de->d_name && pid <= UINT32_MAX && !session_comm_cached(s, pid))
			host_live_comm(s, (uint32_t)pid);
	}
	if (d)
		closedir(d);
}

/* host_live_fd_path - what a descriptor names now, from /proc */
static int host_live_fd_path(struct session *s, uint32_t pid, int fd, char *buf, size_t len)
{
	return fdtab_proc_path(pid, fd, buf, len);
}

/* host_live_pid_check - a PID option must name a running process; a thread's id is refused, logged */
static int host_live_pid_check(struct session *s, int pid)
{
	struct tgidmap *m;
	uint32_t tgid;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (access(path, F_OK))
		return -ESRCH;
	/* /proc/TID opens for any thread too: the filters match processes, all their threads. */
	m = tgidmap_alloc();
	if (!m)
		return -ENOMEM;
	tgid = tgidmap_of(m, (uint32_t)pid);
	tgidmap_free(m);
	if (tgid != (uint32_t)pid) {
		log_msg(LOG_ERR, "%d is a thread of process %u: give the process ID, which covers all its threads",
			pid, tgid);
		return -EINVAL;
	}
	return 0;
}

/* host_live_ksyms_load - /proc/kallsyms */
static struct ksyms *host_live_ksyms_load(struct session *s)
{
	struct ksyms *ks = ksyms_load(NULL);

	if (!ks || !ksyms_count(ks))
		log_msg(LOG_WARN, "no kernel symbols in /proc/kallsyms (%s): kernel frames print as addresses",
			ks ? "addresses hidden by kernel.kptr_restrict" : strerror(errno));
	return ks;
}

/* host_live_maps_load - the mappings of every process running now (called once tracing runs) */
static int host_live_maps_load(struct session *s, struct usyms *us)
{
	struct dirent *de;
	DIR *d;

	/* After enabling, so a process that maps or execs meanwhile is in the side-band too. */
	d = opendir("/proc");
	if (!d) {
		log_msg(LOG_WARN, "cannot list /proc: %s: user frames of running processes stay unknown",
			strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid || pid > UINT32_MAX)
			continue;
		usyms_maps_read(us, (uint32_t)pid);
	}
	closedir(d);
	return 0;
}

/* host_live_device_gone - the device's sysfs directory is gone, or its size attribute says 0 */
static int host_live_device_gone(struct session *s, enum iotap_device kind, const char *name)
{
	static const char *const dirs[] = {
		[IOTAP_DEV_BLOCK] = "/sys/dev/block", [IOTAP_DEV_DISK] = "/sys/class/block",
		[IOTAP_DEV_NVME] = "/sys/class/nvme", [IOTAP_DEV_SCSI] = "/sys/bus/scsi/devices",
	};
	char sysfs[192], path[256];
	unsigned long long size;
	FILE *f;
	int n;

	if ((unsigned int)kind >= sizeof(dirs) / sizeof(dirs[0]) ||
	    snprintf(sysfs, sizeof(sysfs), "%s/%s", dirs[kind], name) >= (int)sizeof(sysfs) ||
	    snprintf(path, sizeof(path), "%s/size", sysfs) >= (int)sizeof(path))
		return -ENODATA;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT && access(sysfs, F_OK) && errno == ENOENT;
	n = fscanf(f, "%llu", &size);
	fclose(f);
	return n == 1 && !size;
}

/* host_live_loadavg - /proc/loadavg */
static int host_live_loadavg(struct session *s, char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "re");
	int ret = 0;

	if (!f)
		return -ENODATA;
	if (!fgets(buf, (int)len, f))
		ret = -ENODATA;
	fclose(f);
	if (!ret)
		buf[strcspn(buf, "\n")] = 0;
	return ret;
}

/* host_live_announce - the banner, BCC style: on stdout, or the log when stdout carries data */
static void host_live_announce(struct session *s, struct iotap_ctx *ctx, const char *banner)
{
	if (ctx->data_out) {
		log_msg(LOG_INFO, "%s", banner);
	} else {
		fprintf(ctx->out, "%s\n", banner);
		fflush(ctx->out);
	}
}

/* host_live_disk_add - a disk that appeared after the start is in sysfs now */
static int host_live_disk_add(struct session *s, uint32_t dev)
{
	return disk_table_add_sysfs(&s->disks, dev, "/sys/dev/block");
}

/* host_live_member_offset - the running kernel's layout, from its BTF */
static int host_live_member_offset(struct session *s, const char *strct, const char *member,
				   uint32_t *offset)
{
	return btf_vmlinux_member_offset(strct, member, offset);
}

/* host_live_cgroup_path - --cgroup names a cgroup directory of this machine, v2 or v1 */
static int host_live_cgroup_path(struct session *s, const char *arg, char *path, size_t len,
				 int *root)
{
	return cgroup_path_here(arg, path, len, root);
}

/* host_live_machine - this machine, uname(2) */
static int host_live_machine(struct session *s, struct iotap_machine *m)
{
	struct utsname u;

	if (uname(&u))
		return -ENODATA;
	snprintf(m->host, sizeof(m->host), "%s", u.nodename);
	snprintf(m->sysname, sizeof(m->sysname), "%s", u.sysname);
	snprintf(m->release, sizeof(m->release), "%s", u.release);
	snprintf(m->version, sizeof(m->version), "%s", u.version);
	snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	return 0;
}

/* host_live_cgroup_tasks - every task's cgroup in hierarchy root now, from /proc */
static int host_live_cgroup_tasks(struct session *s, int root, cgroup_task_fn fn, void *arg)
{
	return cgroup_tasks_proc(root, fn, arg);
}

/* host_live_cgroup_ids - every cgroup v2 directory's id now */
static int host_live_cgroup_ids(struct session *s, cgroup_id_fn fn, void *arg)
{
	return cgroup_ids_here(fn, arg);
}

/* host_live_cgroup_born - a child born into a cgroup of its own: its /proc/TID/cgroup now */
static int host_live_cgroup_born(struct session *s, uint32_t tid, uint64_t t, char *path,
				 size_t len)
{
	return cgroup_born_proc(tid, path, len);
}

/* host_live_cgroup_io_root - the hierarchy blkio is on here (v1), else cgroup v2 */
static int host_live_cgroup_io_root(struct session *s, char *mount, size_t len)
{
	return cgroup_io_root_here(mount, len);
}

const struct host_ops host_live = {
	.comm = host_live_comm,
	.pid_check = host_live_pid_check,
	.fd_path = host_live_fd_path,
	.fd_names = "/proc/PID/fd at first sight",
	.ksyms_load = host_live_ksyms_load,
	.maps_load = host_live_maps_load,
	.disk_add = host_live_disk_add,
	.member_offset = host_live_member_offset,
	.device_gone = host_live_device_gone,
	.loadavg = host_live_loadavg,
	.machine = host_live_machine,
	.cgroup_path = host_live_cgroup_path,
	.cgroup_tasks = host_live_cgroup_tasks,
	.cgroup_born = host_live_cgroup_born,
	.cgroup_ids = host_live_cgroup_ids,
	.cgroup_io_root = host_live_cgroup_io_root,
	.announce = host_live_announce,
};
