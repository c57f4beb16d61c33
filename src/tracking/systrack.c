// SPDX-License-Identifier: GPL-2.0-or-later
/* systrack.c - file I/O syscalls per thread, with the names of their files */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "fdtab.h"
#include "syscall.h"
#include "systrack.h"

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

/*
 * Where names come from, first the kernel's: getname returns a struct filename
 * whose first member points at its copy of the path. getname first: the openat
 * path calls it across files, while the compiler may clone getname_flags for
 * its constant arguments and call the clone instead. Then the C library's
 * functions that take the path a following open syscall gets, its register
 * fetched (matched to the syscall by the pointer).
 */
#define SYSTRACK_GETNAME(fn, fb) \
	{ .ret = true, .fallback = fb, .name = "kr_getname", .symbol = fn, \
	  .args = "path=+0(+0($retval)):string" }
#define SYSTRACK_UPROBE(fn, probe, reg) \
	{ .uprobe = true, .libc = true, .name = probe, .symbol = fn, \
	  .args = "path=+0(%" reg "):string ptr=%" reg ":x64" }
const struct probe_spec systrack_probes[] = {
	SYSTRACK_GETNAME("getname", false),
	SYSTRACK_GETNAME("getname_flags", true),
	SYSTRACK_UPROBE("open64", "libc_open64", "di"),
	SYSTRACK_UPROBE("__open64_2", "libc_open64_2", "di"),
	SYSTRACK_UPROBE("__open_nocancel", "libc_open_nocancel", "di"),
	SYSTRACK_UPROBE("creat64", "libc_creat64", "di"),
	SYSTRACK_UPROBE("openat64", "libc_openat64", "si"),
	SYSTRACK_UPROBE("__openat64_2", "libc_openat64_2", "si"),
	{ 0 }
};
#define SYSTRACK_NR_PROBES (sizeof(systrack_probes) / sizeof(systrack_probes[0]) - 1)

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
	char names_src[800];
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

/* systrack_source_name - what the source says pid's fd names (live: /proc now); NULL if unknown */
static const char *systrack_source_name(struct systrack *st, uint32_t pid, int fd)
{
	char path[SYSTRACK_PATH_MAX];

	if (fd < 0 || iotap_fd_path(st->ctx, pid, fd, path, sizeof(path)))
		return NULL;
	return fdtab_intern(st->fds, path);
}

/* systrack_fd_name - the name of pid's fd: followed, else /proc at first sight */
static const char *systrack_fd_name(struct systrack *st, uint32_t pid, int fd)
{
	bool known;
	const char *name = fdtab_get(st->fds, pid, fd, &known);

	if (name || !st->cfg.names)
		return name;
	name = systrack_source_name(st, pid, fd);
	if (name)
		fdtab_set(st->fds, pid, fd, name, false);
	return name;
}

/* systrack_wanted - whether a call of this sample's process is reported (-p, -c, --cgroup) */
static bool systrack_wanted(struct systrack *st, const struct perf_sample *s)
{
	if (st->cfg.pid && (int)s->pid != st->cfg.pid)
		return false;
	if (st->cfg.comm && strcmp(iotap_comm(st->ctx, s->pid), st->cfg.comm))
		return false;
	return iotap_cgroup_match(st->ctx, s);
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
	th->report = (st->cfg.kinds & SYS_KIND(d->kind)) && systrack_wanted(st, s);
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
		return systrack_source_name(st, pid, fd);
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
	return st->cfg.on_exit ? st->cfg.on_exit(st->cfg.arg, &th->c, s) : 0;
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

/* systrack_use - subscribe e to sys:name with fn (and flags); -ENOENT if the event is missing */
static int systrack_use(struct systrack *st, struct systrack_ev *e, const char *sys,
			const char *name, unsigned int flags, iotap_handler_fn fn)
{
	struct iotap_event *ev;

	if (!iotap_event_available(st->ctx, sys, name)) {
		st->nr_ev--;
		return -ENOENT;
	}
	ev = iotap_event_use(st->ctx, sys, name, flags, fn, e);
	if (!ev)
		return -errno;
	if (e->def >= 0)
		return syscall_fmt_init(&e->fmt, iotap_event_format(ev));
	field_init(&e->f_child, iotap_event_format(ev), "child_pid");
	field_init(&e->f_group_dead, iotap_event_format(ev), "group_dead");
	field_init(&e->f_path, iotap_event_format(ev), "path");
	field_init(&e->f_ptr, iotap_event_format(ev), "ptr");
	/* Our own writes (the report) must not feed the trace. */
	if (!strcmp(sys, "syscalls"))
		return iotap_event_filter(ev, "common_pid != %d", (int)getpid());
	return 0;
}

/*
 * systrack_probes_use - the naming probes this source can make (live) or has (a
 * recording): the getname kretprobe to on_getname, the C library's to on_uprobe
 */
static int systrack_probes_use(struct systrack *st, iotap_handler_fn on_getname,
			       iotap_handler_fn on_uprobe, char *ksrc, char *src, size_t len)
{
	bool made = false;
	int nr = 0;

	for (const struct probe_spec *p = systrack_probes; p->name; p++) {
		const char *sys;
		int ret;

		if (p->fallback && made)
			continue;
		made = false;
		if (!iotap_probe_available(st->ctx, p))
			continue;
		ret = iotap_probe_create(st->ctx, p, &sys);
		if (ret == -EEXIST)
			continue;	/* an alias of a function probed already */
		if (ret)
			return ret;
		ret = systrack_use(st, systrack_ev_add(st), sys, p->name, 0,
				   p->uprobe ? on_uprobe : on_getname);
		if (ret)
			return ret;
		made = true;
		if (p->uprobe)
			nr++;
		else
			snprintf(ksrc, len, "a kretprobe on %s", p->symbol);
	}
	if (nr)
		snprintf(src, len, "uprobes on %d open functions of the C library", nr);
	return 0;
}

/* systrack_fd_initial - a descriptor open when tracing began */
static int systrack_fd_initial(void *arg, uint32_t pid, int fd, const char *path)
{
	struct systrack *st = arg;
	int ret = fdtab_set(st->fds, pid, fd, path, false);

	/* A descriptor past what the table follows stays unnamed. */
	return ret == -EINVAL ? 0 : ret;
}

/* systrack_create - subscribe to the syscalls cfg asks for, and what names need */
int systrack_create(struct systrack **out, struct iotap_ctx *ctx, const struct systrack_cfg *cfg)
{
	struct systrack *st = calloc(1, sizeof(*st));
	unsigned int kinds = cfg->kinds;
	char src[256] = "", ksrc[256] = "";
	const char *how;
	int ret;

	*out = st;
	if (!st)
		return -ENOMEM;
	st->cfg = *cfg;
	st->ctx = ctx;
	st->fds = fdtab_alloc();
	/* Every syscall, plus the naming probes and the three sched events. */
	st->ev = calloc(2 * SYSTRACK_NR_DEFS + SYSTRACK_NR_PROBES + 4, sizeof(*st->ev));
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
			/* The stack at the exit of a call reported: where the program made it. */
			unsigned int flags = x && (cfg->kinds & SYS_KIND(systrack_defs[i].kind)) ?
				cfg->stack_flags : 0;

			e->def = i;
			e->exit = x;
			snprintf(name, sizeof(name), "sys_%s_%s", x ? "exit" : "enter",
				 systrack_defs[i].name);
			ret = systrack_use(st, e, "syscalls", name, flags, systrack_on_sys);
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
			ret = systrack_use(st, systrack_ev_add(st), "sched", sched[i].name, 0,
					   sched[i].fn);
			if (ret && ret != -ENOENT)
				return ret;
		}
	}
	ret = systrack_probes_use(st, systrack_on_getname, systrack_on_uprobe, ksrc, src,
				  sizeof(src));
	if (ret)
		return ret;
	/* The descriptors open when tracing began, where the source knows them (a recording). */
	ret = iotap_fds_initial(ctx, systrack_fd_initial, st);
	if (ret && ret != -ENOTSUP)
		return ret;
	how = iotap_fd_names(ctx);
	snprintf(st->names_src, sizeof(st->names_src), "%s%s%s%s%s", ksrc,
		 *ksrc && (*src || *how) ? ", else " : "", src, *src && *how ? ", else " : "", how);
	return 0;
}

/* systrack_names_source - where names come from */
const char *systrack_names_source(const struct systrack *st)
{
	return st->names_src;
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
