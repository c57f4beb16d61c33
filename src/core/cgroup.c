// SPDX-License-Identifier: GPL-2.0-or-later
/* cgroup.c - every task's cgroup along the event stream, in one hierarchy (cgroup.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "field.h"
#include "log.h"
#include "proctasks.h"

#define CGROUP2_MAGIC 0x63677270
#define CGROUP_SUPER_MAGIC 0x27e0eb	/* a cgroup v1 hierarchy */
/* Where a report takes a --cgroup path apart from the hierarchy path it names. */
#define CGROUP_MOUNT "/sys/fs/cgroup"
#define CGTRACK_PATHS_MAX 65536
/* How deep cgroup_ids_here looks (systemd and Kubernetes nest 4 to 6). */
#define CGROUP_DEPTH_MAX 32
/* A cg_task's path: learned at the task's birth into a cgroup of its own, which the fork after keeps. */
#define CG_BORN (1u << 31)
/* A cg_task's path: not known (a child born into a cgroup no one could read). */
#define CG_NONE (CG_BORN - 1)

struct cg_task {
	uint32_t key;			/* tid + 1; 0: free */
	uint32_t path;			/* index into paths, or CG_NONE; CG_BORN: until its fork */
	uint64_t t;			/* stream time the entry was learned at */
	uint32_t wb;			/* writing back an inode of path wb - 1 now; 0: none */
};

/* A cgroup v2 directory's id (its kernfs node's: the inode number, cgroup_ino), and its path. */
struct cg_id {
	uint64_t id;			/* 0: free */
	uint32_t path;
};

struct cgtrack {
	struct cgtrack_ops ops;
	char *filter;			/* hierarchy path, "/a/b"; NULL: none */
	int root;			/* the hierarchy followed: 0 v2, else a v1 one's id */
	char **paths;
	int8_t *match;			/* per path: -1 unknown, 0, 1 */
	size_t nr_paths, cap_paths;
	struct cg_task *tab;
	size_t nr, cap;			/* cap: a power of two */
	struct field fork_parent, fork_child;
	struct field att_root, att_pid, att_path;
	struct field new_pid, new_flags;	/* task_newtask, when followed (v2 only) */
	struct field att_id;			/* cgroup_attach_task's dst_id, v2 */
	struct field mk_root, mk_id, mk_path;	/* cgroup_mkdir, v2 */
	struct field wb_cgroup;			/* writeback_single_inode_start's cgroup_ino */
	struct cg_id *ids;			/* v2: id -> path, open addressing */
	size_t nr_ids, cap_ids;			/* cap_ids: a power of two */
	bool wb_follow;				/* writeback is charged to the inode's cgroup */
	uint64_t wb_unknown;			/* inodes written back for a cgroup of no known id */
	uint64_t born_gone;		/* children born into a cgroup, reaped before it was read */
	uint64_t born_unknown;		/* and those whose cgroup the source does not know */
};

/* cg_path_id - the index of a path, interned on first use; -ENOSPC when full, -ENOMEM */
static int cg_path_id(struct cgtrack *ct, const char *path)
{
	for (size_t i = 0; i < ct->nr_paths; i++)
		if (!strcmp(ct->paths[i], path))
			return (int)i;
	if (ct->nr_paths == CGTRACK_PATHS_MAX)
		return -ENOSPC;
	if (ct->nr_paths == ct->cap_paths) {
		size_t cap = ct->cap_paths ? ct->cap_paths * 2 : 64;
		char **p = realloc(ct->paths, cap * sizeof(*p));
		int8_t *m;

		if (!p)
			return -ENOMEM;
		ct->paths = p;
		m = realloc(ct->match, cap);
		if (!m)
			return -ENOMEM;
		ct->match = m;
		ct->cap_paths = cap;
	}
	ct->paths[ct->nr_paths] = strdup(path);
	if (!ct->paths[ct->nr_paths])
		return -ENOMEM;
	ct->match[ct->nr_paths] = -1;
	return (int)ct->nr_paths++;
}

/* cg_slot - the table slot of tid: its entry, or the free slot it would take */
static struct cg_task *cg_slot(struct cgtrack *ct, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (ct->cap - 1);

	while (ct->tab[i].key && ct->tab[i].key != tid + 1)
		i = (i + 1) & (ct->cap - 1);
	return &ct->tab[i];
}

/* cg_grow - double the table */
static int cg_grow(struct cgtrack *ct)
{
	struct cg_task *old = ct->tab;
	size_t cap = ct->cap;

	ct->cap = cap ? cap * 2 : 1024;
	ct->tab = calloc(ct->cap, sizeof(*ct->tab));
	if (!ct->tab) {
		ct->tab = old;
		ct->cap = cap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		if (old[i].key)
			*cg_slot(ct, old[i].key - 1) = old[i];
	free(old);
	return 0;
}

/* cg_put - tid's entry is v (a path index, CG_NONE; CG_BORN) from time t on, unless it was
 * learned later already */
static void cg_put(struct cgtrack *ct, uint32_t tid, uint32_t v, uint64_t t)
{
	struct cg_task *e;

	if (tid == UINT32_MAX || ((ct->nr + 1) * 2 > ct->cap && cg_grow(ct)))
		return;
	e = cg_slot(ct, tid);
	if (e->key && e->t > t)
		return;
	if (!e->key)
		ct->nr++;
	e->key = tid + 1;
	e->path = v;
	e->t = t;
}

/* cg_set - tid is in path from time t on, unless it was learned later already; a path < 0
 * (cg_get's unknown, cg_path_id's error) teaches nothing */
static void cg_set(struct cgtrack *ct, uint32_t tid, int path, uint64_t t)
{
	if (path >= 0)
		cg_put(ct, tid, (uint32_t)path, t);
}

/* cg_find - tid's entry, or NULL */
static struct cg_task *cg_find(struct cgtrack *ct, uint32_t tid)
{
	struct cg_task *e;

	if (!ct->cap || tid == UINT32_MAX)
		return NULL;
	e = cg_slot(ct, tid);
	return e->key ? e : NULL;
}

/* cg_entry_path - the path index of an entry (NULL: none), or -1 when unknown */
static int cg_entry_path(const struct cg_task *e)
{
	uint32_t path = e ? e->path & ~CG_BORN : CG_NONE;

	return path == CG_NONE ? -1 : (int)path;
}

/* cg_get - the path index of tid, or -1 when unknown (not an error) */
static int cg_get(struct cgtrack *ct, uint32_t tid)
{
	return cg_entry_path(cg_find(ct, tid));
}

/* cg_id_slot - the slot of id in the id table: its entry, or the free slot it would take */
static struct cg_id *cg_id_slot(struct cgtrack *ct, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 40) & (ct->cap_ids - 1);

	while (ct->ids[i].id && ct->ids[i].id != id)
		i = (i + 1) & (ct->cap_ids - 1);
	return &ct->ids[i];
}

/* cg_id_put - cgroup v2 directory id is path now (ids are never reused: the newest wins) */
static void cg_id_put(struct cgtrack *ct, uint64_t id, const char *path)
{
	int idx = id ? cg_path_id(ct, path) : -1;
	struct cg_id *e;

	if (idx < 0)
		return;
	if ((ct->nr_ids + 1) * 2 > ct->cap_ids) {
		struct cg_id *old = ct->ids;
		size_t cap = ct->cap_ids;

		ct->cap_ids = cap ? cap * 2 : 256;
		ct->ids = calloc(ct->cap_ids, sizeof(*ct->ids));
		if (!ct->ids) {
			ct->ids = old;
			ct->cap_ids = cap;
			return;
		}
		for (size_t i = 0; i < cap; i++)
			if (old[i].id)
				*cg_id_slot(ct, old[i].id) = old[i];
		free(old);
	}
	e = cg_id_slot(ct, id);
	if (!e->id)
		ct->nr_ids++;
	e->id = id;
	e->path = (uint32_t)idx;
}

/* cg_id_path - the path index of cgroup v2 directory id, or -1 when not known */
static int cg_id_path(struct cgtrack *ct, uint64_t id)
{
	const struct cg_id *e = ct->cap_ids ? cg_id_slot(ct, id) : NULL;

	return e && e->id ? (int)e->path : -1;
}

/* cg_charged - the path index the kernel charges what tid submits now to: while it writes
 * back an inode, the inode's cgroup; else its own. -1: not known */
static int cg_charged(struct cgtrack *ct, uint32_t tid)
{
	struct cg_task *e = cg_find(ct, tid);

	/* One lookup: this is asked of every bio and request a tool attributes. */
	if (e && e->wb)
		return (int)e->wb - 1;
	return cg_entry_path(e);
}

/* cg_on_fork - a child starts in its parent's cgroup, unless it was born into one of its own */
static int cg_on_fork(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cgtrack *ct = arg;
	uint32_t child = (uint32_t)field_u64(&ct->fork_child, s->raw, s->raw_size);
	struct cg_task *e = cg_find(ct, child);
	int path;

	/* Its birth (task_newtask, just before) said where: the fork is that birth's. */
	if (e && (e->path & CG_BORN) && e->t <= s->time) {
		e->path &= ~CG_BORN;
		return 0;
	}
	path = cg_get(ct, (uint32_t)field_u64(&ct->fork_parent, s->raw, s->raw_size));
	if (path >= 0)
		cg_set(ct, child, path, s->time);
	return 0;
}

/*
 * cg_on_newtask - a task's birth: one born straight into a cgroup (CLONE_INTO_CGROUP) is
 * where the source says, or in none when it cannot say (counted), whatever its parent's
 */
static int cg_on_newtask(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cgtrack *ct = arg;
	char path[PATH_MAX];
	uint32_t tid;
	int ret, id;

	if (!(field_u64(&ct->new_flags, s->raw, s->raw_size) & CGROUP_CLONE_INTO))
		return 0;
	tid = (uint32_t)field_u64(&ct->new_pid, s->raw, s->raw_size);
	ret = ct->ops.born ? ct->ops.born(ct->ops.arg, tid, s->time, path, sizeof(path)) : -ENODATA;
	id = ret ? -1 : cg_path_id(ct, path);
	if (ret == -ESRCH)
		ct->born_gone++;
	else if (ret)
		ct->born_unknown++;
	cg_put(ct, tid, (id < 0 ? CG_NONE : (uint32_t)id) | CG_BORN, s->time);
	return 0;
}

/* cg_on_attach - a task moved to another cgroup of the hierarchy followed (dst_root: its id) */
static int cg_on_attach(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cgtrack *ct = arg;
	char path[PATH_MAX];

	if (field_s64(&ct->att_root, s->raw, s->raw_size) != ct->root ||
	    !field_str(&ct->att_path, s->raw, s->raw_size, path, sizeof(path)))
		return 0;
	cg_set(ct, (uint32_t)field_u64(&ct->att_pid, s->raw, s->raw_size), cg_path_id(ct, path),
	       s->time);
	if (ct->wb_follow)
		cg_id_put(ct, field_u64(&ct->att_id, s->raw, s->raw_size), path);
	return 0;
}

/* cg_on_mkdir - a cgroup v2 directory made while tracing: its id */
static int cg_on_mkdir(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cgtrack *ct = arg;
	char path[PATH_MAX];

	if (field_s64(&ct->mk_root, s->raw, s->raw_size) == 0 &&
	    field_str(&ct->mk_path, s->raw, s->raw_size, path, sizeof(path)))
		cg_id_put(ct, field_u64(&ct->mk_id, s->raw, s->raw_size), path);
	return 0;
}

/*
 * cg_on_wb_start - a thread begins writing back an inode (writeback_single_inode_start): its
 * bios are the inode's cgroup's (cgroup_ino; 1, the root, where cgroup writeback is off)
 */
static int cg_on_wb_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cgtrack *ct = arg;
	uint64_t ino = field_u64(&ct->wb_cgroup, s->raw, s->raw_size);
	int path = ino > 1 ? cg_id_path(ct, ino) : -1;
	struct cg_task *e;

	if (ino > 1 && path < 0)
		ct->wb_unknown++;
	if (path < 0) {
		e = cg_find(ct, s->tid);
		if (e)
			e->wb = 0;
		return 0;
	}
	if ((ct->nr + 1) * 2 > ct->cap && cg_grow(ct))
		return 0;
	e = cg_slot(ct, s->tid);
	if (!e->key) {
		ct->nr++;
		e->key = s->tid + 1;
		e->path = CG_NONE;
		e->t = 0;	/* what the task is in is still to learn, from any time */
	}
	e->wb = (uint32_t)path + 1;
	return 0;
}

/* cg_on_wb_end - the inode is written back (writeback_single_inode): the thread's own again */
static int cg_on_wb_end(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cg_task *e = cg_find(arg, s->tid);

	if (e)
		e->wb = 0;
	return 0;
}

/* cg_mount_relative - real (a cgroup2 directory) as a path of the hierarchy, in place */
static void cg_mount_relative(char *real, const struct stat *st)
{
	char up[PATH_MAX];
	struct stat pst;
	size_t root = strlen(real);

	/* The mount's root is the topmost directory on the same file system. */
	for (;;) {
		char *slash;

		snprintf(up, sizeof(up), "%.*s", (int)root, real);
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			break;
		*slash = 0;
		if (stat(up, &pst) || pst.st_dev != st->st_dev)
			break;
		root = slash - up;
	}
	if (real[root] == 0)
		snprintf(real, PATH_MAX, "/");
	else
		memmove(real, real + root, strlen(real + root) + 1);
}

/* cg_has_word - whether list, words split by commas, holds the n bytes of word */
static bool cg_has_word(const char *list, const char *word, size_t n)
{
	for (const char *p = list;;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, word, n))
			return true;
		if (!p[k])
			return false;
		p += k + 1;
	}
}

/*
 * cg_v1_mount_opts - the super options ("rw,blkio") of the cgroup v1 mount that real lies
 * on, the one with the longest mount point over it (/proc/self/mountinfo): 0, or -ENOENT
 */
static int cg_v1_mount_opts(const char *real, char *opts, size_t len)
{
	char line[PATH_MAX * 2], mnt[PATH_MAX];
	size_t best = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - cgroup "), sopts[PATH_MAX];
		size_t n;

		/* id parent major:minor root mount-point ... - cgroup source super-options */
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 10, "%*s %4095s", sopts) != 1)
			continue;
		n = strlen(mnt);
		if (n >= best && !strncmp(real, mnt, n) && (real[n] == '/' || !real[n])) {
			best = n;
			snprintf(opts, len, "%s", sopts);
		}
	}
	fclose(f);
	return best ? 0 : -ENOENT;
}

/*
 * cg_v1_root - the id of the v1 hierarchy real lies on: the /proc/self/cgroup line whose
 * controllers ("blkio", "cpu,cpuacct", "name=systemd") are all in its mount's options; >0,
 * or -ENOENT
 */
static int cg_v1_root(const char *real)
{
	char opts[PATH_MAX], line[PATH_MAX + 64];
	int root = -ENOENT;
	FILE *f;

	if (cg_v1_mount_opts(real, opts, sizeof(opts)) || !(f = fopen("/proc/self/cgroup", "re")))
		return -ENOENT;
	while (root < 0 && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *end = ctl ? strchr(ctl + 1, ':') : NULL;
		long id = strtol(line, NULL, 10);
		bool all = end && end > ctl + 1;

		for (char *c = ctl + 1; all && c < end; c += strcspn(c, ",:") + 1)
			all = cg_has_word(opts, c, strcspn(c, ",:"));
		if (all && id > 0)
			root = (int)id;
	}
	fclose(f);
	return root;
}

/* cg_has_all - whether every word of ctl (n bytes, words split by commas) is in opts */
static bool cg_has_all(const char *opts, const char *ctl, size_t n)
{
	for (size_t at = 0; at < n;) {
		size_t k = strcspn(ctl + at, ",");

		if (k > n - at)
			k = n - at;
		if (!cg_has_word(opts, ctl + at, k))
			return false;
		at += k + 1;
	}
	return n > 0;
}

/*
 * cg_v1_mount_of - where the v1 hierarchy of controllers ctl is mounted: the first of its
 * mounts that shows the hierarchy's root, else its first (/proc/self/mountinfo); 0 or -ENOENT
 */
static int cg_v1_mount_of(const char *ctl, char *mnt, size_t len)
{
	char line[PATH_MAX * 2], root[PATH_MAX], at[PATH_MAX], sopts[PATH_MAX];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - cgroup ");

		/* id parent major:minor root mount-point ... - cgroup source super-options */
		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, at) != 2 ||
		    sscanf(dash + 10, "%*s %4095s", sopts) != 1 || !cg_has_all(sopts, ctl, strlen(ctl)))
			continue;
		if (!found || !strcmp(root, "/"))
			snprintf(mnt, len, "%s", at);
		found = true;
		if (!strcmp(root, "/"))
			break;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* cgroup_v1_mounted - see cgroup.h */
size_t cgroup_v1_mounted(struct cgroup_v1 *v, size_t max)
{
	char line[PATH_MAX + 64];
	size_t n = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *end = ctl ? strchr(ctl + 1, ':') : NULL;
		long id = strtol(line, NULL, 10);

		if (!end || id <= 0 || end == ctl + 1 || (size_t)(end - ctl - 1) >= sizeof(v->controllers))
			continue;
		*end = 0;
		ctl++;
		if (!cg_has_word(ctl, "blkio", 5) && strncmp(ctl, "name=", 5))
			continue;
		v[n].id = (int)id;
		snprintf(v[n].controllers, sizeof(v[n].controllers), "%s", ctl);
		if (!cg_v1_mount_of(ctl, v[n].mount, sizeof(v[n].mount)))
			n++;
	}
	fclose(f);
	return n;
}

/*
 * cg_dir - whether arg is a cgroup directory here: its hierarchy path in real, and in
 * *root 0 for v2, or the id of its v1 hierarchy
 */
static bool cg_dir(const char *arg, char *real, int *root)
{
	struct statfs sfs;
	struct stat st;

	if (!realpath(arg, real) || statfs(real, &sfs) || stat(real, &st) || !S_ISDIR(st.st_mode))
		return false;
	if (sfs.f_type == CGROUP2_MAGIC)
		*root = 0;
	else if (sfs.f_type != CGROUP_SUPER_MAGIC || (*root = cg_v1_root(real)) < 0)
		return false;
	cg_mount_relative(real, &st);
	return true;
}

/* cgroup_path_here - see cgroup.h */
int cgroup_path_here(const char *arg, char *path, size_t len, int *root)
{
	char real[PATH_MAX];

	if (!cg_dir(arg, real, root)) {
		log_msg(LOG_ERR, "--cgroup '%s' is not a cgroup directory (v2: e.g. %s/system.slice; v1: a hierarchy's, e.g. %s/blkio/system.slice)",
			arg, CGROUP_MOUNT, CGROUP_MOUNT);
		return -ENOENT;
	}
	snprintf(path, len, "%s", real);
	return 0;
}

/* cg_v1_named - whether arg, a path under the cgroup mount, is in one of v1's usual hierarchies */
static bool cg_v1_named(const char *arg)
{
	static const char *const v1[] = {
		"blkio", "cpu", "cpuacct", "cpu,cpuacct", "cpuacct,cpu", "cpuset", "memory",
		"devices", "freezer", "net_cls", "net_prio", "net_cls,net_prio", "net_prio,net_cls",
		"perf_event", "hugetlb", "pids", "rdma", "misc", "systemd", "elogind",
	};
	size_t n = strlen(CGROUP_MOUNT);

	if (strncmp(arg, CGROUP_MOUNT "/", n + 1))
		return false;
	arg += n + 1;
	for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
		size_t k = strlen(v1[i]);

		if (!strncmp(arg, v1[i], k) && (!arg[k] || arg[k] == '/'))
			return true;
	}
	return false;
}

/* cg_v1_controllers - the controllers of this machine's v1 hierarchy id (/proc/self/cgroup) */
static bool cg_v1_controllers(int id, char *ctl, size_t len)
{
	char line[PATH_MAX + 64];
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *end = c ? strchr(c + 1, ':') : NULL;

		if (end && strtol(line, NULL, 10) == id) {
			snprintf(ctl, len, "%.*s", (int)(end - c - 1), c + 1);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * cg_v1_recorded - the recorded v1 hierarchy arg names, its path inside it into path: a
 * directory of a hierarchy here with the same controllers (real, of hierarchy hroot), or
 * one named by the recording machine's mount point; NULL when none
 */
static const struct cgroup_v1 *cg_v1_recorded(const char *arg, const char *real, int hroot,
					      const struct cgroup_v1 *v1, size_t nr_v1,
					      char *path, size_t len)
{
	char ctl[256];

	if (hroot > 0 && cg_v1_controllers(hroot, ctl, sizeof(ctl)))
		for (size_t i = 0; i < nr_v1; i++)
			if (!strcmp(v1[i].controllers, ctl)) {
				snprintf(path, len, "%s", real);
				return &v1[i];
			}
	for (size_t i = 0; i < nr_v1; i++) {
		size_t n = strlen(v1[i].mount);

		if (!strncmp(arg, v1[i].mount, n) && (arg[n] == '/' || !arg[n])) {
			snprintf(path, len, "%s", arg[n] ? arg + n : "/");
			return &v1[i];
		}
	}
	return NULL;
}

/* cg_v1_refuse - a v1 directory that the recording does not hold: one line saying which it does */
static int cg_v1_refuse(const char *arg, const struct cgroup_v1 *v1, size_t nr_v1)
{
	char held[1024] = "";
	size_t at = 0;

	if (!nr_v1) {
		log_msg(LOG_ERR, "--cgroup '%s': the recording holds no cgroup v1 hierarchy (record --cgroups keeps blkio's and the named ones where they are mounted); it holds cgroup v2 paths (e.g. %s/system.slice)",
			arg, CGROUP_MOUNT);
		return -EINVAL;
	}
	for (size_t i = 0; i < nr_v1 && at < sizeof(held); i++)
		at += snprintf(held + at, sizeof(held) - at, "%s%s (%s)", i ? ", " : "",
			       v1[i].mount, v1[i].controllers);
	log_msg(LOG_ERR, "--cgroup '%s': the recording holds the cgroup v1 hierarchies %s and cgroup v2, not this one",
		arg, held);
	return -EINVAL;
}

/* cgroup_path_named - see cgroup.h */
int cgroup_path_named(const char *arg, char *path, size_t len, int *root,
		      const struct cgroup_v1 *v1, size_t nr_v1)
{
	static const char *const mounts[] = { CGROUP_MOUNT "/unified", CGROUP_MOUNT };
	const struct cgroup_v1 *rec = NULL;
	char real[PATH_MAX];
	int hroot = 0;
	bool here;

	*root = 0;
	here = cg_dir(arg, real, &hroot);
	if (!here || hroot)
		rec = cg_v1_recorded(arg, real, hroot, v1, nr_v1, path, len);
	if (rec) {
		*root = rec->id;
		return 0;
	}
	/* A v1 directory here, or elsewhere one named by a v1 hierarchy's mount. */
	if (hroot || (!here && cg_v1_named(arg)))
		return cg_v1_refuse(arg, v1, nr_v1);
	if (here) {
		snprintf(path, len, "%s", real);
		return 0;
	}
	/* Not a cgroup here: a report may run anywhere, take it as the recording machine's. */
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		size_t n = strlen(mounts[i]);

		if (!strncmp(arg, mounts[i], n) && (!arg[n] || arg[n] == '/')) {
			arg += n;
			break;
		}
	}
	if (*arg && *arg != '/') {
		log_msg(LOG_ERR, "--cgroup '%s': give the cgroup's directory, e.g. %s/system.slice", arg,
			CGROUP_MOUNT);
		return -EINVAL;
	}
	snprintf(path, len, "%s", *arg ? arg : "/");
	return 0;
}

/* cg_v2_mount - where cgroup v2 is mounted, its first mount (/proc/self/mountinfo); "" none */
static void cg_v2_mount(char *mount, size_t len)
{
	char line[PATH_MAX * 2], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	mount[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point ... - cgroup2 source super-options */
		if (!strstr(line, " - cgroup2 ") ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		snprintf(mount, len, "%s", mnt);
		break;
	}
	fclose(f);
}

/* cg_ids_walk - the directories below dir (hierarchy path rel, length n in rel) to fn, depth-first */
static void cg_ids_walk(int dir, char *rel, size_t n, size_t len, int depth, cgroup_id_fn fn,
			void *arg)
{
	DIR *d = fdopendir(dir);
	struct dirent *de;

	if (!d) {
		close(dir);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int sub;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    n + 1 + strlen(de->d_name) >= len)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (fstat(sub, &st)) {
			close(sub);
			continue;
		}
		snprintf(rel + n, len - n, "/%s", de->d_name);
		fn(arg, (uint64_t)st.st_ino, rel);
		if (depth < CGROUP_DEPTH_MAX)
			cg_ids_walk(sub, rel, strlen(rel), len, depth + 1, fn, arg);
		else
			close(sub);
		rel[n] = 0;
	}
	closedir(d);
}

/* cgroup_ids_here - see cgroup.h */
int cgroup_ids_here(cgroup_id_fn fn, void *arg)
{
	char mount[PATH_MAX], rel[PATH_MAX] = "";
	struct stat st;
	int dir;

	cg_v2_mount(mount, sizeof(mount));
	if (!*mount)
		return -ENOENT;
	dir = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	if (fstat(dir, &st)) {
		close(dir);
		return -errno;
	}
	fn(arg, (uint64_t)st.st_ino, "/");
	cg_ids_walk(dir, rel, 0, sizeof(rel), 1, fn, arg);
	return 0;
}

/* cgroup_v1_io - see cgroup.h */
const struct cgroup_v1 *cgroup_v1_io(const struct cgroup_v1 *v1, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (cg_has_word(v1[i].controllers, "blkio", 5))
			return &v1[i];
	return NULL;
}

/* cgroup_io_root_here - see cgroup.h */
int cgroup_io_root_here(char *mount, size_t len)
{
	struct cgroup_v1 v1[CGROUP_V1_MAX];
	const struct cgroup_v1 *io = cgroup_v1_io(v1, cgroup_v1_mounted(v1, CGROUP_V1_MAX));

	if (!io) {
		cg_v2_mount(mount, len);
		return 0;
	}
	snprintf(mount, len, "%s", io->mount);
	return io->id;
}

/* cg_snapshot_one - a task of the source's snapshot */
static void cg_snapshot_one(void *arg, uint32_t tid, const char *path, uint64_t t)
{
	struct cgtrack *ct = arg;

	cg_set(ct, tid, cg_path_id(ct, path), t);
}

/*
 * cg_births_follow - cgroup v2: the births, whose clone flags say which child was born
 * straight into a cgroup; where they are not (a recording made before they were recorded)
 * such a child counts as its parent's. 0 or -errno
 */
static int cg_births_follow(struct cgtrack *ct)
{
	struct tep_event *ev;

	if (!ct->ops.event_available(ct->ops.arg, "task", "task_newtask"))
		return 0;
	ev = ct->ops.event_use(ct->ops.arg, "task", "task_newtask", cg_on_newtask, ct);
	if (!ev)
		return -errno;
	field_init(&ct->new_pid, ev, "pid");
	field_init(&ct->new_flags, ev, "clone_flags");
	/* A 32-bit kernel's unsigned long: the flag (bit 33) is not there to see. */
	if (!ct->new_pid.present || !ct->new_flags.present || ct->new_flags.size < 8) {
		log_msg(LOG_WARN, "task_newtask has no 64-bit clone_flags here: a child created straight into a cgroup (clone3 CLONE_INTO_CGROUP) counts as its parent's until it moves");
		ct->new_flags.present = false;
	}
	return 0;
}

/* cg_snapshot_id - a cgroup v2 directory of the source's snapshot */
static void cg_snapshot_id(void *arg, uint64_t id, const char *path)
{
	cg_id_put(arg, id, path);
}

/*
 * cg_writeback_follow - cgroup v2: writeback is charged to the cgroup that owns the inode
 * (io.stat's), which the flusher's writeback_single_inode_start names by id (cgroup_ino);
 * the ids are the source's snapshot's (ops.ids), then cgroup_mkdir's and
 * cgroup_attach_task's. Without them the flusher's own cgroup is charged, which is said.
 * 0 or -errno
 */
static int cg_writeback_follow(struct cgtrack *ct, struct tep_event *att)
{
	struct tep_event *start, *end, *mk = NULL;

	/* No ids: the block controller is v1's, which charges writeback to the flusher's root. */
	if (!ct->ops.ids)
		return 0;
	if (!ct->ops.event_available(ct->ops.arg, "writeback", "writeback_single_inode_start") ||
	    !ct->ops.event_available(ct->ops.arg, "writeback", "writeback_single_inode")) {
		log_msg(LOG_WARN, "writeback_single_inode events are not here (a recording made before iotap record --cgroups kept them): writeback is charged to the flusher's cgroup, not to the inode's owner's as io.stat charges it");
		return 0;
	}
	start = ct->ops.event_use(ct->ops.arg, "writeback", "writeback_single_inode_start",
				  cg_on_wb_start, ct);
	end = start ? ct->ops.event_use(ct->ops.arg, "writeback", "writeback_single_inode",
					cg_on_wb_end, ct) : NULL;
	if (end && ct->ops.event_available(ct->ops.arg, "cgroup", "cgroup_mkdir") &&
	    !(mk = ct->ops.event_use(ct->ops.arg, "cgroup", "cgroup_mkdir", cg_on_mkdir, ct)))
		end = NULL;
	if (!end)
		return -errno;
	if (field_init(&ct->wb_cgroup, start, "cgroup_ino"))
		return 0;	/* a kernel without cgroup writeback's field: nothing to follow */
	if (mk && (field_init(&ct->mk_root, mk, "root") || field_init(&ct->mk_id, mk, "id") ||
		   field_init(&ct->mk_path, mk, "path")))
		ct->mk_path.present = false;
	field_init(&ct->att_id, att, "dst_id");
	ct->wb_follow = true;
	return 0;
}

/* cgtrack_create - see cgroup.h */
int cgtrack_create(struct cgtrack **out, const struct cgtrack_ops *ops, const char *path,
		   int root)
{
	struct cgtrack *ct = calloc(1, sizeof(*ct));
	struct tep_event *fork, *att;
	char hpath[PATH_MAX];
	int ret = 0;

	if (!ct)
		return -ENOMEM;
	ct->ops = *ops;
	ct->root = root;
	if (path) {
		ret = ops->path ? ops->path(ops->arg, path, hpath, sizeof(hpath), &ct->root) :
			cgroup_path_named(path, hpath, sizeof(hpath), &ct->root, NULL, 0);
		/* "/a/b/" names /a/b. */
		for (size_t n = strlen(hpath); !ret && n > 1 && hpath[n - 1] == '/'; n--)
			hpath[n - 1] = 0;
		ct->filter = ret ? NULL : strdup(hpath);
		if (!ret && !ct->filter)
			ret = -ENOMEM;
		if (ret)
			goto out_free;
	}
	if (!ops->event_available(ops->arg, "sched", "sched_process_fork") ||
	    !ops->event_available(ops->arg, "cgroup", "cgroup_attach_task")) {
		log_msg(LOG_ERR, "cgroups are followed with sched:sched_process_fork and cgroup:cgroup_attach_task, which are not here (a recording needs iotap record --cgroups)");
		ret = -ENOENT;
		goto out_free;
	}
	fork = ops->event_use(ops->arg, "sched", "sched_process_fork", cg_on_fork, ct);
	att = fork ? ops->event_use(ops->arg, "cgroup", "cgroup_attach_task", cg_on_attach, ct) : NULL;
	if (!att) {
		ret = -errno;
		goto out_free;
	}
	if (field_init(&ct->fork_parent, fork, "parent_pid") ||
	    field_init(&ct->fork_child, fork, "child_pid") ||
	    field_init(&ct->att_root, att, "dst_root") ||
	    field_init(&ct->att_pid, att, "pid") ||
	    field_init(&ct->att_path, att, "dst_path")) {
		log_msg(LOG_ERR, "sched_process_fork or cgroup_attach_task lacks the fields cgroups are followed with");
		ret = -ENOENT;
		goto out_free;
	}
	ret = ct->root ? 0 : cg_births_follow(ct);
	if (!ret && !ct->root)
		ret = cg_writeback_follow(ct, att);
	if (!ret)
		ret = cg_grow(ct);
	if (ret)
		goto out_free;
	*out = ct;
	return 0;
out_free:
	cgtrack_free(ct);
	return ret;
}

/*
 * cg_read_task - the lines of hierarchies roots[0..n) of one /proc/PID/task/TID/cgroup
 * file ("0::/path" for v2, "7:blkio:/path" for a v1 hierarchy of id 7), each to fn with
 * its index among roots
 */
static void cg_read_task(const char *file, uint32_t tid, const int *roots, size_t n,
			 cgroup_root_task_fn fn, void *arg)
{
	char line[PATH_MAX + 8];
	struct timespec ts;
	FILE *f;
	uint64_t t;

	/* Stamped like the events (CLOCK_MONOTONIC): a move seen later wins. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	f = fopen(file, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *end, *path;
		long id = strtol(line, &end, 10);
		size_t i = 0;

		while (i < n && roots[i] != id)
			i++;
		if (i == n || *end != ':' || !(path = strchr(end + 1, ':')))
			continue;
		path[1 + strcspn(path + 1, "\n")] = 0;
		fn(arg, i, tid, path + 1, t);
	}
	fclose(f);
}

/* Where cgroup_born_proc's line goes. */
struct cg_born_read {
	char *path;
	size_t len;
	bool found;
};

/* cg_born_line - the task's v2 line: its path, less the " (deleted)" of a cgroup removed since */
static void cg_born_line(void *arg, size_t which, uint32_t tid, const char *path, uint64_t t)
{
	static const char deleted[] = " (deleted)";
	struct cg_born_read *r = arg;
	size_t n = strlen(path), k = sizeof(deleted) - 1;

	if (n > k && !strcmp(path + n - k, deleted))
		n -= k;
	snprintf(r->path, r->len, "%.*s", (int)n, path);
	r->found = true;
}

/* cgroup_born_proc - see cgroup.h */
int cgroup_born_proc(uint32_t tid, char *path, size_t len)
{
	struct cg_born_read r = { path, len, false };
	static const int v2 = 0;
	char file[64];

	snprintf(file, sizeof(file), "/proc/%u/cgroup", tid);
	cg_read_task(file, tid, &v2, 1, cg_born_line, &r);
	return r.found ? 0 : -ESRCH;
}

/* What cgroup_tasks_proc_roots hands each task's cgroups to. */
struct cg_tasks_walk {
	const int *roots;
	size_t n;
	cgroup_root_task_fn fn;
	void *arg;
};

/* cg_task_proc - one task /proc lists: its cgroup file */
static void cg_task_proc(void *arg, uint32_t pid, uint32_t tid)
{
	struct cg_tasks_walk *w = arg;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u/cgroup", pid, tid);
	cg_read_task(path, tid, w->roots, w->n, w->fn, w->arg);
}

/* cgroup_tasks_proc_roots - see cgroup.h */
int cgroup_tasks_proc_roots(const int *roots, size_t n, cgroup_root_task_fn fn, void *arg)
{
	struct cg_tasks_walk w = { roots, n, fn, arg };

	return proc_tasks_each(cg_task_proc, &w);
}

/* What cgroup_tasks_proc's one hierarchy goes to. */
struct cg_one_root {
	cgroup_task_fn fn;
	void *arg;
};

/* cg_one_line - a task's line of that hierarchy */
static void cg_one_line(void *arg, size_t which, uint32_t tid, const char *path, uint64_t t)
{
	const struct cg_one_root *o = arg;

	o->fn(o->arg, tid, path, t);
}

/* cgroup_tasks_proc - see cgroup.h */
int cgroup_tasks_proc(int root, cgroup_task_fn fn, void *arg)
{
	struct cg_one_root o = { fn, arg };

	return cgroup_tasks_proc_roots(&root, 1, cg_one_line, &o);
}

/* cgtrack_started - see cgroup.h */
void cgtrack_started(struct cgtrack *ct)
{
	if (ct && ct->ops.tasks)
		ct->ops.tasks(ct->ops.arg, ct->root, cg_snapshot_one, ct);
	if (ct && ct->wb_follow && ct->ops.ids(ct->ops.arg, cg_snapshot_id, ct) == -ENODATA)
		log_msg(LOG_WARN, "the input names no cgroup ids (recorded before iotap record --cgroups kept them): writeback is charged to the flusher's cgroup, not to the inode's owner's as io.stat charges it");
}

/* cgtrack_of - see cgroup.h */
const char *cgtrack_of(struct cgtrack *ct, const struct perf_sample *s)
{
	int path = cg_charged(ct, s->tid);

	return path >= 0 ? ct->paths[path] : NULL;
}

/* cgtrack_match - see cgroup.h */
bool cgtrack_match(struct cgtrack *ct, const struct perf_sample *s)
{
	int path;

	if (!ct || !ct->filter)
		return true;
	path = cg_charged(ct, s->tid);
	if (path < 0)
		return false;
	if (ct->match[path] < 0) {
		const char *p = ct->paths[path];
		size_t n = strlen(ct->filter);

		ct->match[path] = !strcmp(ct->filter, "/") ||
			(!strncmp(p, ct->filter, n) && (p[n] == 0 || p[n] == '/'));
	}
	return ct->match[path];
}

/* cgtrack_report - see cgroup.h */
void cgtrack_report(struct cgtrack *ct)
{
	if (!ct)
		return;
	if (ct->born_gone)
		log_msg(LOG_WARN, "%llu task%s created straight into a cgroup (clone3 CLONE_INTO_CGROUP) had exited before %s cgroup could be read: %s I/O is in no cgroup",
			(unsigned long long)ct->born_gone, ct->born_gone == 1 ? "" : "s",
			ct->born_gone == 1 ? "its" : "their", ct->born_gone == 1 ? "its" : "their");
	if (ct->born_unknown)
		log_msg(LOG_WARN, "%llu task%s created straight into a cgroup (clone3 CLONE_INTO_CGROUP) that the input does not name: %s I/O is in no cgroup",
			(unsigned long long)ct->born_unknown, ct->born_unknown == 1 ? "" : "s",
			ct->born_unknown == 1 ? "its" : "their");
	if (ct->wb_unknown)
		log_msg(LOG_WARN, "%llu inode writeback%s for a cgroup whose id the input does not name %s charged to the flusher's cgroup",
			(unsigned long long)ct->wb_unknown, ct->wb_unknown == 1 ? "" : "s",
			ct->wb_unknown == 1 ? "was" : "were");
	ct->born_gone = ct->born_unknown = ct->wb_unknown = 0;
}

/* cgtrack_root - see cgroup.h */
int cgtrack_root(const struct cgtrack *ct)
{
	return ct->root;
}

/* cgtrack_filtering - see cgroup.h */
bool cgtrack_filtering(const struct cgtrack *ct)
{
	return ct && ct->filter;
}

/* cgtrack_free - see cgroup.h */
void cgtrack_free(struct cgtrack *ct)
{
	if (!ct)
		return;
	for (size_t i = 0; i < ct->nr_paths; i++)
		free(ct->paths[i]);
	free(ct->paths);
	free(ct->match);
	free(ct->ids);
	free(ct->tab);
	free(ct->filter);
	free(ct);
}
