// SPDX-License-Identifier: GPL-2.0-or-later
/* systrack.c - file I/O syscalls per thread, with the names of their files */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "elfsym.h"
#include "fdtab.h"
#include "recording.h"
#include "tfs.h"
#include "systrack.h"
#include "../parsers/syscall.h"

#define SYSTRACK_PATH_MAX 4096

/* The syscalls followed, and what each one is to the tools. */
static const struct systrack_def {
	const char *name;
	enum sys_kind kind;
} systrack_defs[] = {
	{ "read", SYS_READ }, { "write", SYS_WRITE },
	{ "pread64", SYS_READ }, { "pwrite64", SYS_WRITE },
	{ "readv", SYS_READ }, { "writev", SYS_WRITE },
	{ "preadv", SYS_READ }, { "pwritev", SYS_WRITE },
	{ "preadv2", SYS_READ }, { "pwritev2", SYS_WRITE },
	{ "fsync", SYS_SYNC }, { "fdatasync", SYS_SYNC }, { "sync_file_range", SYS_SYNC },
	{ "openat", SYS_OPEN }, { "open", SYS_OPEN }, { "creat", SYS_OPEN }, { "openat2", SYS_OPEN },
	{ "io_uring_enter", SYS_URING },
	{ "close", SYS_CLOSE }, { "dup", SYS_DUP }, { "dup2", SYS_DUP }, { "dup3", SYS_DUP },
	{ "fcntl", SYS_FCNTL },
};
#define SYSTRACK_NR_DEFS (sizeof(systrack_defs) / sizeof(systrack_defs[0]))

/* C library functions that take the path a following open syscall gets, and its register. */
static const struct systrack_uprobe {
	const char *sym, *probe, *reg;
} systrack_uprobes[] = {
	{ "open64", "libc_open64", "di" },
	{ "__open64_2", "libc_open64_2", "di" },
	{ "__open_nocancel", "libc_open_nocancel", "di" },
	{ "creat64", "libc_creat64", "di" },
	{ "openat64", "libc_openat64", "si" },
	{ "__openat64_2", "libc_openat64_2", "si" },
};
#define SYSTRACK_NR_UPROBES (sizeof(systrack_uprobes) / sizeof(systrack_uprobes[0]))

struct systrack;

/* One subscribed event and how to read it. */
struct systrack_ev {
	struct systrack *st;
	int def;			/* systrack_defs index; -1: not a syscall */
	bool exit;
	struct syscall_fmt fmt;
	struct field f_path, f_ptr;	/* uprobes */
	struct field f_child, f_pid, f_group_dead;	/* sched */
};

/* A thread: its syscall in progress, and the path its last libc open call passed. */
struct systrack_thread {
	uint32_t tid;
	bool active, report;
	int def;
	struct syscall_args args;
	struct sys_call c;
	uint64_t pend_ptr;
	const char *pend_path;
	uint64_t nr_enter;		/* syscalls entered: which one a getname hit belongs to */
	uint64_t kpath_enter;
	const char *kpath;		/* the last getname result in this thread */
};

struct systrack {
	struct systrack_cfg cfg;
	struct iotap_ctx *ctx;
	struct fdtab *fds;
	void *threads;			/* struct systrack_thread by tid */
	struct systrack_ev *ev;
	size_t nr_ev;
	uint64_t seq;
	int nr_uprobes;
	bool live;
	char names_src[256];
};

/* systrack_thread_cmp - tree order of threads */
static int systrack_thread_cmp(const void *a, const void *b)
{
	const struct systrack_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* systrack_thread - the state of tid, made if new; NULL on ENOMEM */
static struct systrack_thread *systrack_thread(struct systrack *st, uint32_t tid, bool make)
{
	struct systrack_thread key = { .tid = tid }, *th;
	void *node = tfind(&key, &st->threads, systrack_thread_cmp);

	if (node || !make)
		return node ? *(struct systrack_thread **)node : NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	if (!tsearch(th, &st->threads, systrack_thread_cmp)) {
		free(th);
		return NULL;
	}
	return th;
}

/* systrack_current - the call tid is in */
struct sys_call *systrack_current(struct systrack *st, uint32_t tid)
{
	struct systrack_thread *th = systrack_thread(st, tid, false);

	return th && th->active && th->report ? &th->c : NULL;
}

/* systrack_proc_name - what /proc says pid's fd is now (live only); NULL if gone */
static const char *systrack_proc_name(struct systrack *st, uint32_t pid, int fd)
{
	char link[64], path[SYSTRACK_PATH_MAX];
	ssize_t n;

	if (!st->live || fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/%u/fd/%d", pid, fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = 0;
	return fdtab_intern(st->fds, path);
}

/* systrack_fd_name - the name of pid's fd: followed, else /proc at first sight */
static const char *systrack_fd_name(struct systrack *st, uint32_t pid, int fd)
{
	bool known;
	const char *name = fdtab_get(st->fds, pid, fd, &known);

	if (name || !st->cfg.names)
		return name;
	name = systrack_proc_name(st, pid, fd);
	if (name)
		fdtab_set(st->fds, pid, fd, name, false);
	return name;
}

/* systrack_wanted - whether a call of pid is reported */
static bool systrack_wanted(struct systrack *st, uint32_t pid)
{
	if (st->cfg.pid && (int)pid != st->cfg.pid)
		return false;
	return !st->cfg.comm || !strcmp(iotap_comm(st->ctx, pid), st->cfg.comm);
}

/* systrack_on_enter - a followed syscall starts in a thread */
static int systrack_on_enter(struct systrack *st, struct systrack_ev *e,
			     const struct perf_sample *s, const struct syscall_args *a)
{
	const struct systrack_def *d = &systrack_defs[e->def];
	struct systrack_thread *th = systrack_thread(st, s->tid, true);

	if (!th)
		return -ENOMEM;
	th->active = true;
	th->nr_enter++;
	th->def = e->def;
	th->args = *a;
	th->report = (st->cfg.kinds & SYS_KIND(d->kind)) && systrack_wanted(st, s->pid);
	if (!th->report)
		return 0;
	memset(&th->c, 0, sizeof(th->c));
	th->c.name = d->name;
	th->c.kind = d->kind;
	th->c.pid = s->pid;
	th->c.tid = s->tid;
	th->c.fd = d->kind == SYS_OPEN || !e->fmt.fd.present ? -1 : (int)a->fd;
	th->c.count = a->count;
	th->c.t_enter = s->time;
	th->c.seq = ++st->seq;
	if (th->c.fd >= 0 && d->kind != SYS_URING)
		th->c.path = systrack_fd_name(st, s->pid, th->c.fd);
	return st->cfg.on_enter ? st->cfg.on_enter(st->cfg.arg, &th->c) : 0;
}

/* systrack_open_name - the path an open got: the libc probe's string if it is this call's */
static const char *systrack_open_name(struct systrack *st, struct systrack_thread *th,
				      uint32_t pid, int fd)
{
	const char *name = NULL;
	char buf[SYSTRACK_PATH_MAX];

	/* The kernel's own copy of the path, from getname inside this very call, comes first. */
	if (th->kpath && th->kpath_enter == th->nr_enter)
		name = th->kpath;
	else if (th->pend_path && th->pend_ptr == th->args.filename)
		name = th->pend_path;
	th->pend_path = NULL;
	th->kpath = NULL;
	if (!name)
		return systrack_proc_name(st, pid, fd);
	if (name[0] != '/' && th->args.dfd >= 0 && systrack_defs[th->def].kind == SYS_OPEN &&
	    strcmp(systrack_defs[th->def].name, "open") && strcmp(systrack_defs[th->def].name, "creat")) {
		/* Relative to a directory descriptor: name it from that directory's name. */
		const char *dir = fdtab_get(st->fds, pid, (int)th->args.dfd, NULL);

		if (dir) {
			snprintf(buf, sizeof(buf), "%s/%s", dir, name);
			return fdtab_intern(st->fds, buf);
		}
	}
	return name;
}

/* systrack_fdops - what an ended syscall did to the descriptor table */
static int systrack_fdops(struct systrack *st, struct systrack_thread *th, uint32_t pid,
			  int64_t ret)
{
	const struct systrack_def *d = &systrack_defs[th->def];
	const struct syscall_args *a = &th->args;

	switch (d->kind) {
	case SYS_OPEN:
		if (ret < 0)
			return 0;
		return fdtab_set(st->fds, pid, (int)ret, systrack_open_name(st, th, pid, (int)ret),
				 strcmp(d->name, "creat") && strcmp(d->name, "openat2") &&
				 (a->flags & O_CLOEXEC));
	case SYS_CLOSE:
		if (ret != -EBADF)
			fdtab_close(st->fds, pid, (int)a->fd);
		return 0;
	case SYS_DUP:
		if (ret < 0)
			return 0;
		return fdtab_dup(st->fds, pid, (int)a->fd, (int)ret,
				 !strcmp(d->name, "dup3") && (a->flags & O_CLOEXEC));
	case SYS_FCNTL:
		if (ret < 0)
			return 0;
		if (a->cmd == F_DUPFD || a->cmd == F_DUPFD_CLOEXEC)
			return fdtab_dup(st->fds, pid, (int)a->fd, (int)ret, a->cmd == F_DUPFD_CLOEXEC);
		if (a->cmd == F_SETFD)
			fdtab_set_cloexec(st->fds, pid, (int)a->fd, a->arg & FD_CLOEXEC);
		return 0;
	default:
		return 0;
	}
}

/* systrack_on_exit - a thread's syscall ends */
static int systrack_on_exit(struct systrack *st, struct systrack_ev *e,
			    const struct perf_sample *s, const struct syscall_args *a)
{
	struct systrack_thread *th = systrack_thread(st, s->tid, false);
	int ret = 0;

	/* Entered before tracing began, or an exit of another syscall: nothing to pair. */
	if (!th || !th->active || th->def != e->def)
		return 0;
	th->active = false;
	if (st->cfg.names) {
		ret = systrack_fdops(st, th, s->pid, a->ret);
		if (ret)
			return ret;
	}
	if (!th->report)
		return 0;
	th->c.t_exit = s->time;
	th->c.ret = a->ret;
	if (th->c.kind == SYS_OPEN && a->ret >= 0) {
		th->c.fd = (int)a->ret;
		th->c.path = fdtab_get(st->fds, s->pid, (int)a->ret, NULL);
	}
	return st->cfg.on_exit ? st->cfg.on_exit(st->cfg.arg, &th->c) : 0;
}

/* systrack_on_sys - a sys_enter_* or sys_exit_* record */
static int systrack_on_sys(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;
	struct syscall_args a;

	syscall_decode(&e->fmt, s->raw, s->raw_size, &a);
	return e->exit ? systrack_on_exit(e->st, e, s, &a) : systrack_on_enter(e->st, e, s, &a);
}

/* systrack_on_uprobe - a libc open function was called: remember its path for the syscall */
static int systrack_on_uprobe(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;
	struct systrack_thread *th = systrack_thread(e->st, s->tid, true);
	char path[SYSTRACK_PATH_MAX];

	if (!th)
		return -ENOMEM;
	field_str(&e->f_path, s->raw, s->raw_size, path, sizeof(path));
	th->pend_ptr = field_u64(&e->f_ptr, s->raw, s->raw_size);
	th->pend_path = path[0] ? fdtab_intern(e->st->fds, path) : NULL;
	return 0;
}

/* systrack_on_getname - the kernel copied a path from user space: keep it for this syscall */
static int systrack_on_getname(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;
	struct systrack_thread *th = systrack_thread(e->st, s->tid, false);
	char path[SYSTRACK_PATH_MAX];

	if (!th || !th->active)
		return 0;
	field_str(&e->f_path, s->raw, s->raw_size, path, sizeof(path));
	th->kpath = path[0] ? fdtab_intern(e->st->fds, path) : NULL;
	th->kpath_enter = th->nr_enter;
	return 0;
}

/* systrack_on_fork - the child's descriptors are copies of the parent's */
static int systrack_on_fork(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;
	uint32_t child = (uint32_t)field_u64(&e->f_child, s->raw, s->raw_size);

	/* A new thread shares its process's table: a copy under its id is never looked up. */
	return fdtab_fork(e->st->fds, s->pid, child);
}

/* systrack_on_exec - close-on-exec descriptors close */
static int systrack_on_exec(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;

	fdtab_exec(e->st->fds, s->pid);
	return 0;
}

/* systrack_on_exit_task - a thread ends; the last one takes its process's table */
static int systrack_on_exit_task(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct systrack_ev *e = arg;
	struct systrack_thread *th = systrack_thread(e->st, s->tid, false);

	if (th) {
		tdelete(th, &e->st->threads, systrack_thread_cmp);
		free(th);
	}
	if (s->tid != s->pid)
		fdtab_exit(e->st->fds, s->tid);
	if (field_u64(&e->f_group_dead, s->raw, s->raw_size))
		fdtab_exit(e->st->fds, s->pid);
	return 0;
}

/* systrack_ev_add - a slot for one more subscribed event */
static struct systrack_ev *systrack_ev_add(struct systrack *st)
{
	struct systrack_ev *e = &st->ev[st->nr_ev++];

	memset(e, 0, sizeof(*e));
	e->st = st;
	e->def = -1;
	return e;
}

/* systrack_use - subscribe e to sys:name with fn; -ENOENT if the event is missing */
static int systrack_use(struct systrack *st, struct systrack_ev *e, const char *sys,
			const char *name, iotap_handler_fn fn)
{
	struct iotap_event *ev;

	if (!iotap_event_available(st->ctx, sys, name)) {
		st->nr_ev--;
		return -ENOENT;
	}
	ev = iotap_event_use(st->ctx, sys, name, 0, fn, e);
	if (!ev)
		return -errno;
	if (e->def >= 0)
		return syscall_fmt_init(&e->fmt, iotap_event_format(ev));
	field_init(&e->f_child, iotap_event_format(ev), "child_pid");
	field_init(&e->f_group_dead, iotap_event_format(ev), "group_dead");
	field_init(&e->f_path, iotap_event_format(ev), "path");
	field_init(&e->f_ptr, iotap_event_format(ev), "ptr");
	/* Our own writes (the report) must not feed the trace. */
	if (!strcmp(sys, "syscalls") && iotap_is_live(st->ctx))
		return iotap_event_filter(ev, "common_pid != %d", (int)getpid());
	return 0;
}

/* systrack_traceable - which of fns ftrace can hook here (available_filter_functions) */
void systrack_traceable(const char *const *fns, size_t n, bool *ok)
{
	char path[512], line[512];
	const char *dir;
	FILE *f;

	memset(ok, 0, n * sizeof(*ok));
	if (tfs_dir_get(&dir))
		return;
	snprintf(path, sizeof(path), "%s/available_filter_functions", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = 0;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(line, fns[i]))
				ok[i] = true;
	}
	if (f)
		fclose(f);
}

/* systrack_kprobe_use - where kprobes exist: a kretprobe on the kernel's getname path */
static int systrack_kprobe_use(struct systrack *st, iotap_handler_fn fn, char *src, size_t len)
{
	/* getname first: the openat path calls it across files, while the compiler may clone
	 * getname_flags for its constant arguments and call the clone instead. */
	static const char *const fns[] = { "getname", "getname_flags" };
	const char *kfn = NULL, *sys;
	struct systrack_ev *e;
	bool ok[2];
	int ret;

	if (iotap_is_live(st->ctx)) {
		if (!tfs_file_exists("kprobe_events"))
			return -ENOENT;
		systrack_traceable(fns, 2, ok);
		kfn = ok[0] ? fns[0] : ok[1] ? fns[1] : NULL;
		if (!kfn)
			return -ENOENT;
	} else if (!iotap_probe_recorded(st->ctx, "kr_getname")) {
		return -ENOENT;
	}
	/* It returns a struct filename whose first member points at the copied path. */
	ret = iotap_probe_create(st->ctx, false, true, "kr_getname", kfn ? kfn : "getname", 0,
				 "path=+0(+0($retval)):string", &sys);
	if (ret)
		return ret;
	e = systrack_ev_add(st);
	ret = systrack_use(st, e, sys, "kr_getname", fn);
	if (ret)
		return ret;
	snprintf(src, len, "a kretprobe on %s", kfn ? kfn : "the kernel's getname path");
	return 0;
}

/* systrack_libc - the C library this program runs with, from its own mappings */
static int systrack_libc(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (strstr(p, "/libc.so.6") || strstr(p, "/libc-")) {
			snprintf(path, len, "%s", p);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* systrack_uprobes_use - the libc open probes: created live, found by name in a recording */
static int systrack_uprobes_use(struct systrack *st, iotap_handler_fn fn, char *src, size_t len)
{
	char libc[1024] = "";
	uint64_t offs[SYSTRACK_NR_UPROBES];
	int nr = 0;

	if (iotap_is_live(st->ctx) && systrack_libc(libc, sizeof(libc)))
		return -ENOENT;
	for (size_t i = 0; i < SYSTRACK_NR_UPROBES; i++) {
		const struct systrack_uprobe *u = &systrack_uprobes[i];
		struct systrack_ev *e;
		const char *sys;
		char args[128];
		uint64_t off = 0;
		size_t j;
		int ret;

		if (iotap_is_live(st->ctx)) {
			/* Aliases (open and open64) share an address: one probe each. */
			if (elf_symbol_file_offset(libc, u->sym, &off))
				continue;
			for (j = 0; j < (size_t)nr && offs[j] != off; j++)
				;
			if (j < (size_t)nr)
				continue;
		} else if (!iotap_probe_recorded(st->ctx, u->probe)) {
			continue;
		}
		snprintf(args, sizeof(args), "path=+0(%%%s):string ptr=%%%s:x64", u->reg, u->reg);
		ret = iotap_probe_create(st->ctx, true, false, u->probe, libc, off, args, &sys);
		if (ret)
			return ret;
		e = systrack_ev_add(st);
		ret = systrack_use(st, e, sys, u->probe, fn);
		if (ret)
			return ret;
		offs[nr++] = off;
	}
	if (!nr)
		return -ENOENT;
	st->nr_uprobes = nr;
	snprintf(src, len, "uprobes on %d open functions of %s", nr,
		 iotap_is_live(st->ctx) ? libc : "the C library");
	return 0;
}

/* systrack_comms_warm - learn every running process's name now, while /proc has it */
static void systrack_comms_warm(struct iotap_ctx *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	/* Events are read a moment after they happen: a short-lived process is gone by then. */
	while (d && (de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (!*end && end != de->d_name)
			iotap_comm(ctx, (uint32_t)pid);
	}
	if (d)
		closedir(d);
}

/* fds_put - append to a growing buffer; a failure sticks */
static void fds_put(uint8_t **b, size_t *len, size_t *cap, int *err, const void *p, size_t n)
{
	if (*err)
		return;
	if (*len + n > *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		uint8_t *nb;

		while (c < *len + n)
			c *= 2;
		nb = realloc(*b, c);
		if (!nb) {
			*err = -ENOMEM;
			return;
		}
		*b = nb;
		*cap = c;
	}
	memcpy(*b + *len, p, n);
	*len += n;
}

/* systrack_fds_snapshot - every process's descriptors and what they name, from /proc */
int systrack_fds_snapshot(void **buf, size_t *len)
{
	DIR *d = opendir("/proc");
	uint32_t head[2] = { REC_SEC_VERSION, 0 };
	struct dirent *de;
	size_t cap = 0;
	uint8_t *b = NULL;
	int err = 0;

	*len = 0;
	if (!d)
		return -errno;
	fds_put(&b, len, &cap, &err, head, sizeof(head));
	while (!err && (de = readdir(d))) {
		char dir[64], link[128], path[SYSTRACK_PATH_MAX];
		unsigned long pid = strtoul(de->d_name, NULL, 10);
		struct dirent *fe;
		DIR *fd_dir;

		if (!pid)
			continue;
		snprintf(dir, sizeof(dir), "/proc/%lu/fd", pid);
		fd_dir = opendir(dir);
		while (fd_dir && !err && (fe = readdir(fd_dir))) {
			static const uint8_t pad[4];
			char *end;
			long fd = strtol(fe->d_name, &end, 10);
			uint32_t ent[3];
			ssize_t n;

			if (*end || end == fe->d_name)
				continue;
			snprintf(link, sizeof(link), "%s/%ld", dir, fd);
			n = readlink(link, path, sizeof(path) - 1);
			if (n <= 0)
				continue;
			ent[0] = (uint32_t)pid;
			ent[1] = (uint32_t)fd;
			ent[2] = (uint32_t)n;
			fds_put(&b, len, &cap, &err, ent, sizeof(ent));
			fds_put(&b, len, &cap, &err, path, n);
			fds_put(&b, len, &cap, &err, pad, (4 - n % 4) % 4);
			head[1]++;
		}
		if (fd_dir)
			closedir(fd_dir);
	}
	closedir(d);
	if (err) {
		free(b);
		return err;
	}
	memcpy(b + 4, &head[1], 4);
	*buf = b;
	return 0;
}

/* systrack_fds_load - a recording's descriptors at its start into the table; -EINVAL if malformed */
static int systrack_fds_load(struct systrack *st)
{
	const uint8_t *p;
	size_t len;

	for (size_t i = 0; (p = recording_fds(st->ctx->sess, i, &len)); i++) {
		uint32_t ver, count;
		size_t off = 8;

		if (len < 8)
			return -EINVAL;
		memcpy(&ver, p, 4);
		memcpy(&count, p + 4, 4);
		if (ver != REC_SEC_VERSION)
			continue;
		for (uint32_t k = 0; k < count; k++) {
			uint32_t ent[3];
			char path[SYSTRACK_PATH_MAX];
			size_t plen;
			int ret;

			if (len - off < SYSTRACK_FDS_FIXED)
				return -EINVAL;
			memcpy(ent, p + off, sizeof(ent));
			off += SYSTRACK_FDS_FIXED;
			plen = ent[2];
			if (len - off < plen || plen >= sizeof(path))
				return -EINVAL;
			memcpy(path, p + off, plen);
			path[plen] = 0;
			off += plen + (4 - plen % 4) % 4;
			if (off > len)
				return -EINVAL;
			ret = fdtab_set(st->fds, ent[0], (int)ent[1], path, false);
			if (ret && ret != -EINVAL)
				return ret;
		}
	}
	return 0;
}

/* systrack_create - subscribe to the syscalls cfg asks for, and what names need */
int systrack_create(struct systrack **out, struct iotap_ctx *ctx, const struct systrack_cfg *cfg)
{
	struct systrack *st = calloc(1, sizeof(*st));
	unsigned int kinds = cfg->kinds;
	char src[1200] = "", ksrc[128] = "";
	int ret;

	*out = st;
	if (!st)
		return -ENOMEM;
	st->cfg = *cfg;
	st->ctx = ctx;
	st->live = iotap_is_live(ctx);
	if (st->live)
		systrack_comms_warm(ctx);
	st->fds = fdtab_alloc();
	/* Every syscall, plus the libc probes and the three sched events. */
	st->ev = calloc(2 * SYSTRACK_NR_DEFS + SYSTRACK_NR_UPROBES + 4, sizeof(*st->ev));
	if (!st->fds || !st->ev)
		return -ENOMEM;
	if (cfg->names)
		kinds |= SYS_KIND(SYS_OPEN) | SYS_KIND(SYS_CLOSE) | SYS_KIND(SYS_DUP) |
			SYS_KIND(SYS_FCNTL) | SYS_KIND(SYS_READ) | SYS_KIND(SYS_WRITE);
	for (size_t i = 0; i < SYSTRACK_NR_DEFS; i++) {
		char name[64];

		if (!(kinds & SYS_KIND(systrack_defs[i].kind)))
			continue;
		for (int x = 0; x < 2; x++) {
			struct systrack_ev *e = systrack_ev_add(st);

			e->def = i;
			e->exit = x;
			snprintf(name, sizeof(name), "sys_%s_%s", x ? "exit" : "enter",
				 systrack_defs[i].name);
			ret = systrack_use(st, e, "syscalls", name, systrack_on_sys);
			if (ret && ret != -ENOENT)
				return ret;
		}
	}
	if (!cfg->names)
		return 0;
	{
		static const struct { const char *name; iotap_handler_fn fn; } sched[] = {
			{ "sched_process_fork", systrack_on_fork },
			{ "sched_process_exec", systrack_on_exec },
			{ "sched_process_exit", systrack_on_exit_task },
		};

		for (size_t i = 0; i < 3; i++) {
			ret = systrack_use(st, systrack_ev_add(st), "sched", sched[i].name, sched[i].fn);
			if (ret && ret != -ENOENT)
				return ret;
		}
	}
	ret = systrack_kprobe_use(st, systrack_on_getname, ksrc, sizeof(ksrc));
	if (ret && ret != -ENOENT)
		return ret;
	ret = systrack_uprobes_use(st, systrack_on_uprobe, src, sizeof(src));
	if (ret && ret != -ENOENT)
		return ret;
	if (!st->live) {
		ret = systrack_fds_load(st);
		if (ret) {
			iotap_err(ctx, "the recording's descriptor table (FDTB) is malformed");
			return ret;
		}
	}
	snprintf(st->names_src, sizeof(st->names_src), "%s%s%s%s%s", ksrc, *ksrc ? ", else " : "",
		 src, *src ? ", else " : "",
		 st->live ? "/proc/PID/fd at first sight" :
		 "the descriptor table recorded at the start");
	return 0;
}

/* systrack_names_source - where names come from */
const char *systrack_names_source(const struct systrack *st)
{
	return st->names_src;
}

/* systrack_record_ignore - a recorder keeps the probes' records; nothing to do with them */
static int systrack_record_ignore(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return 0;
}

/* systrack_record_probes - the naming uprobes, made for a recording */
int systrack_record_probes(struct iotap_ctx *ctx)
{
	struct systrack *st;
	char src[1200];
	int ret;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->ctx = ctx;
	st->live = iotap_is_live(ctx);
	st->ev = calloc(SYSTRACK_NR_UPROBES + 1, sizeof(*st->ev));
	st->fds = fdtab_alloc();
	ret = st->ev && st->fds ? systrack_kprobe_use(st, systrack_record_ignore, src, sizeof(src)) :
		-ENOMEM;
	if (!ret || ret == -ENOENT)
		ret = systrack_uprobes_use(st, systrack_record_ignore, src, sizeof(src));
	/* The recorder's handler never reads its argument: the tracker can go now. */
	systrack_free(st);
	return ret == -ENOENT ? 0 : ret;
}

/* systrack_thread_free - one thread's state */
static void systrack_thread_free(void *p)
{
	free(p);
}

/* systrack_free - the tracker; accepts NULL */
void systrack_free(struct systrack *st)
{
	if (!st)
		return;
	tdestroy(st->threads, systrack_thread_free);
	fdtab_free(st->fds);
	free(st->ev);
	free(st);
}
