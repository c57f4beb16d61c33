// SPDX-License-Identifier: GPL-2.0-or-later
/* fdtab.c - descriptor to file name, per process, followed through the syscalls */
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "fdtab.h"

/* Descriptors above this are not followed: a table is an array indexed by fd. */
#define FDTAB_MAX_FD (1 << 20)

struct fd_ent {
	const char *name;		/* interned; NULL: name unknown */
	bool open, cloexec;
};

struct fd_proc {
	uint32_t pid;
	struct fd_ent *fd;		/* indexed by descriptor */
	size_t cap;
};

struct fdtab {
	void *procs;			/* struct fd_proc by pid */
	void *names;			/* interned strings */
};

/* fdtab_proc_cmp - tree order of processes */
static int fdtab_proc_cmp(const void *a, const void *b)
{
	const struct fd_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* fdtab_alloc - an empty table */
struct fdtab *fdtab_alloc(void)
{
	return calloc(1, sizeof(struct fdtab));
}

/* fdtab_proc_free - one process's array */
static void fdtab_proc_free(void *p)
{
	struct fd_proc *pr = p;

	free(pr->fd);
	free(pr);
}

/* fdtab_free - everything, names included; accepts NULL */
void fdtab_free(struct fdtab *t)
{
	if (!t)
		return;
	tdestroy(t->procs, fdtab_proc_free);
	tdestroy(t->names, free);
	free(t);
}

/* fdtab_intern - one copy of each name */
const char *fdtab_intern(struct fdtab *t, const char *name)
{
	char *copy;
	void *node = tfind(name, &t->names, (int (*)(const void *, const void *))strcmp);

	if (node)
		return *(const char **)node;
	copy = strdup(name);
	if (!copy)
		return NULL;
	node = tsearch(copy, &t->names, (int (*)(const void *, const void *))strcmp);
	if (!node) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* fdtab_find - the process's table, or NULL */
static struct fd_proc *fdtab_find(const struct fdtab *t, uint32_t pid)
{
	struct fd_proc key = { .pid = pid };
	void *node = tfind(&key, &t->procs, fdtab_proc_cmp);

	return node ? *(struct fd_proc **)node : NULL;
}

/* fdtab_get_proc - the process's table, made empty if new */
static struct fd_proc *fdtab_get_proc(struct fdtab *t, uint32_t pid)
{
	struct fd_proc *pr = fdtab_find(t, pid);

	if (pr)
		return pr;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->pid = pid;
	if (!tsearch(pr, &t->procs, fdtab_proc_cmp)) {
		free(pr);
		return NULL;
	}
	return pr;
}

/* fdtab_slot - room for fd in pr, zeroed when new */
static struct fd_ent *fdtab_slot(struct fd_proc *pr, int fd)
{
	size_t old = pr->cap;

	if (fd < 0 || fd >= FDTAB_MAX_FD)
		return NULL;
	if (array_reserve(&pr->fd, &pr->cap, (size_t)fd + 1, sizeof(*pr->fd), 16))
		return NULL;
	memset(pr->fd + old, 0, (pr->cap - old) * sizeof(*pr->fd));
	return &pr->fd[fd];
}

/* fdtab_set - fd of pid now names path */
int fdtab_set(struct fdtab *t, uint32_t pid, int fd, const char *path, bool cloexec)
{
	struct fd_proc *pr = fdtab_get_proc(t, pid);
	struct fd_ent *e;
	const char *name = NULL;

	if (!pr)
		return -ENOMEM;
	if (path) {
		name = fdtab_intern(t, path);
		if (!name)
			return -ENOMEM;
	}
	e = fdtab_slot(pr, fd);
	if (!e)
		return fd < 0 || fd >= FDTAB_MAX_FD ? -EINVAL : -ENOMEM;
	e->name = name;
	e->open = true;
	e->cloexec = cloexec;
	return 0;
}

/* fdtab_get - the name of pid's fd, NULL when unknown */
const char *fdtab_get(const struct fdtab *t, uint32_t pid, int fd, bool *known)
{
	struct fd_proc *pr = fdtab_find(t, pid);
	const struct fd_ent *e = pr && fd >= 0 && (size_t)fd < pr->cap ? &pr->fd[fd] : NULL;

	if (known)
		*known = e && e->open;
	return e && e->open ? e->name : NULL;
}

/* fdtab_close - fd is no longer open */
void fdtab_close(struct fdtab *t, uint32_t pid, int fd)
{
	struct fd_proc *pr = fdtab_find(t, pid);

	if (pr && fd >= 0 && (size_t)fd < pr->cap)
		memset(&pr->fd[fd], 0, sizeof(pr->fd[fd]));
}

/* fdtab_dup - newfd becomes a copy of oldfd; close-on-exec is the new descriptor's own */
int fdtab_dup(struct fdtab *t, uint32_t pid, int oldfd, int newfd, bool cloexec)
{
	bool known;
	const char *name = fdtab_get(t, pid, oldfd, &known);

	if (!known) {
		fdtab_close(t, pid, newfd);
		return 0;
	}
	return fdtab_set(t, pid, newfd, name, cloexec);
}

/* fdtab_set_cloexec - F_SETFD */
void fdtab_set_cloexec(struct fdtab *t, uint32_t pid, int fd, bool cloexec)
{
	struct fd_proc *pr = fdtab_find(t, pid);

	if (pr && fd >= 0 && (size_t)fd < pr->cap)
		pr->fd[fd].cloexec = cloexec;
}

/* fdtab_fork - the child's table is a copy of the parent's */
int fdtab_fork(struct fdtab *t, uint32_t ppid, uint32_t cpid)
{
	struct fd_proc *parent = fdtab_find(t, ppid), *child;

	if (!parent || ppid == cpid)
		return 0;
	fdtab_exit(t, cpid);
	child = fdtab_get_proc(t, cpid);
	if (!child)
		return -ENOMEM;
	if (!parent->cap)
		return 0;
	child->fd = malloc(parent->cap * sizeof(*child->fd));
	if (!child->fd)
		return -ENOMEM;
	memcpy(child->fd, parent->fd, parent->cap * sizeof(*child->fd));
	child->cap = parent->cap;
	return 0;
}

/* fdtab_exec - close-on-exec descriptors are closed */
void fdtab_exec(struct fdtab *t, uint32_t pid)
{
	struct fd_proc *pr = fdtab_find(t, pid);

	for (size_t i = 0; pr && i < pr->cap; i++)
		if (pr->fd[i].cloexec)
			memset(&pr->fd[i], 0, sizeof(pr->fd[i]));
}

/* fdtab_exit - the process is gone */
void fdtab_exit(struct fdtab *t, uint32_t pid)
{
	struct fd_proc *pr = fdtab_find(t, pid);

	if (!pr)
		return;
	tdelete(pr, &t->procs, fdtab_proc_cmp);
	fdtab_proc_free(pr);
}

/* fdtab_proc_path - what /proc says pid's fd is now */
int fdtab_proc_path(uint32_t pid, int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	if (fd < 0 || len < 2)
		return -EINVAL;
	snprintf(link, sizeof(link), "/proc/%u/fd/%d", pid, fd);
	n = readlink(link, buf, len - 1);
	if (n <= 0)
		return n ? -errno : -ENOENT;
	buf[n] = 0;
	return 0;
}

/* fdtab_proc_foreach - every process's descriptors and what they name, from /proc */
int fdtab_proc_foreach(fdtab_each_fn fn, void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char dir[64], path[4096], *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		struct dirent *fe;
		DIR *fd_dir;

		if (*end || !pid || pid > INT32_MAX)
			continue;
		snprintf(dir, sizeof(dir), "/proc/%lu/fd", pid);
		fd_dir = opendir(dir);
		while (fd_dir && !ret && (fe = readdir(fd_dir))) {
			long fd = strtol(fe->d_name, &end, 10);

			if (*end || end == fe->d_name || fd < 0 || fd > INT32_MAX)
				continue;
			if (!fdtab_proc_path((uint32_t)pid, (int)fd, path, sizeof(path)))
				ret = fn(arg, (uint32_t)pid, (int)fd, path);
		}
		if (fd_dir)
			closedir(fd_dir);
	}
	closedir(d);
	return ret;
}
