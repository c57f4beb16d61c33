/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FDTAB_H
#define IOTAP_FDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Which file each descriptor of each process names, followed from the
 * syscalls that change descriptor tables (open, dup, close, fcntl) and the
 * process events (fork copies the table, exec closes the close-on-exec
 * descriptors, exit frees it). Processes are keyed by their thread-group id:
 * threads share one table. Names are interned: a returned name stays valid
 * until fdtab_free.
 */
struct fdtab;

/* fdtab_alloc - an empty table, or NULL with errno (ENOMEM) */
struct fdtab *fdtab_alloc(void);
void fdtab_free(struct fdtab *t);

/* fd of pid now names path (NULL: known to be open, name unknown). 0 or -errno. */
int fdtab_set(struct fdtab *t, uint32_t pid, int fd, const char *path, bool cloexec);
/* The name of pid's fd; NULL if unknown. *known (may be NULL): the fd was seen opened. */
const char *fdtab_get(const struct fdtab *t, uint32_t pid, int fd, bool *known);
void fdtab_close(struct fdtab *t, uint32_t pid, int fd);
/* newfd becomes a copy of oldfd (dup, dup2, dup3, F_DUPFD); unknown oldfd clears newfd. 0 or -ENOMEM. */
int fdtab_dup(struct fdtab *t, uint32_t pid, int oldfd, int newfd, bool cloexec);
void fdtab_set_cloexec(struct fdtab *t, uint32_t pid, int fd, bool cloexec);
/* The child starts with a copy of the parent's table. 0 or -ENOMEM. */
int fdtab_fork(struct fdtab *t, uint32_t ppid, uint32_t cpid);
/* Close-on-exec descriptors go. */
void fdtab_exec(struct fdtab *t, uint32_t pid);
void fdtab_exit(struct fdtab *t, uint32_t pid);
/* An interned copy of name, valid until fdtab_free; NULL on ENOMEM. */
const char *fdtab_intern(struct fdtab *t, const char *name);

/*
 * The machine's descriptors now, from /proc (a live source, the recorder):
 * fdtab_proc_path - what /proc/PID/fd/FD names: 0, or -errno (-ENOENT: gone, -EINVAL: a
 * negative fd, or no room in buf).
 * fdtab_proc_foreach - fn for every descriptor of every process; fn's error
 * ends the walk; processes that go meanwhile are skipped. 0, -errno when /proc
 * cannot be read, or fn's non-zero return.
 */
typedef int (*fdtab_each_fn)(void *arg, uint32_t pid, int fd, const char *path);
int fdtab_proc_path(uint32_t pid, int fd, char *buf, size_t len);
int fdtab_proc_foreach(fdtab_each_fn fn, void *arg);

#endif
