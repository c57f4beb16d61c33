// SPDX-License-Identifier: GPL-2.0-or-later
/* iostackbreakdown.c - I/O latency by layer (syscall, fs, block) and block I/O per syscall */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "blktrack.h"
#include "field.h"
#include "hist.h"
#include "pairtab.h"
#include "systrack.h"
#include "shared.h"


/* Layers, in -T's order. */
enum iosb_layer { IOSB_SYSCALL, IOSB_VFS, IOSB_FS, IOSB_BLK, IOSB_NR_LAYERS };
static const char *const iosb_layers[] = { "syscall", "vfs", "fs", "blk", "ext4", "xfs", "block",
					   NULL };

/* What a syscall in progress collects (sys_call.user). */
enum { U_REQS, U_QUEUE_NS, U_DEV_NS, U_WAIT_NS, U_BUSY_UNTIL, U_DEV_BYTES, U_PAGES };

/* -T bits, in iosb_layers' order. */
enum { T_SYSCALL = 1u << 0, T_VFS = 1u << 1, T_FS = 1u << 2, T_BLK = 1u << 3, T_EXT4 = 1u << 4,
       T_XFS = 1u << 5, T_BLOCK = 1u << 6 };

struct iosb_params {
	unsigned int layers;
	int pid;
	const char *disk, *comm;
	bool queued, msecs, percentiles, json;
};

/* Per syscall name: the attribution table's row. */
struct iosb_sys {
	const char *name;
	uint64_t calls, lat_ns, disk_calls, reqs, queue_ns, dev_ns, wait_ns;
	uint64_t bytes_cache, bytes_dev, pages;
};

/* An operation's total time this interval. */
struct iosb_op {
	char name[40];
	uint64_t ns;
};

/* Block I/O queued outside any traced syscall, by submitter. */
struct iosb_out {
	char comm[16];
	uint64_t reqs, bytes, ns;
};

struct iosb_state {
	bool layer[IOSB_NR_LAYERS];
	bool has_dev;
	uint32_t dev;
	struct systrack *sys;
	struct blktrack *bt;
	struct hist_set hs;
	/* Rows of the interval, in order of first sight; they grow as needed. */
	struct iosb_op *ops;
	size_t nr_ops, cap_ops;
	struct iosb_sys *sysrow;
	size_t nr_sys, cap_sys;
	struct iosb_out *out;
	size_t nr_out, cap_out;
	uint64_t late_reqs;		/* completed after their syscall returned */
	struct pairtab *fsin;		/* threads inside the traced vfs and fs functions */
	struct field f_dev, f_flags, f_sdev, f_sync_dev;
	struct reqtab *bios;		/* before block_io_start (6.5): bio queued -> its syscall */
	struct block_fmt f_bio;
	char *lines[IOSB_NR_LAYERS];	/* each layer's source, for the banner */
};

#define P(f) offsetof(struct iosb_params, f)
static const struct opt iosb_opts[] = {
	{ 'T', "layer", OPT_LIST, P(layers), "LAYER",
	  "trace these layers, a comma-separated list, repeatable (default: every layer this kernel offers); ext4 and xfs are the fs layer of that filesystem only",
	  iosb_layers },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace this process only" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM", "trace processes with this command name only" },
	TOOL_OPT_DISK_HELP(P(disk), "block and filesystem layers: this disk only"),
	{ 'Q', "queued", OPT_FLAG, P(queued), NULL,
	  "block layer: include OS queued time (from block_io_start, or block_rq_insert before 6.5)" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms" },
	{ 0, "percentiles", OPT_FLAG, P(percentiles), NULL,
	  "print p50, p90, p99, p99.9 and max under each histogram" },
	TOOL_OPT_JSON(P(json), "one object per line for each histogram, operation total and syscall row"),
	OPT_END
};

static const struct tool_event iosb_events[] = {
	SYSTRACK_EVENTS_RW,
	SYSTRACK_EVENTS_SYNC,
	SYSTRACK_EVENTS_OPEN,
	SYSTRACK_EVENTS_URING,
	TOOL_EVENTS_BLOCK_REQ,
	{ "block", "block_bio_queue", TOOL_EV_OPTIONAL },
	{ "ext4", "ext4_sync_file_enter", TOOL_EV_OPTIONAL },
	{ "ext4", "ext4_sync_file_exit", TOOL_EV_OPTIONAL },
	{ "iomap", "iomap_dio_rw_begin", TOOL_EV_OPTIONAL },
	{ "iomap", "iomap_dio_complete", TOOL_EV_OPTIONAL },
	{ "filemap", "mm_filemap_add_to_page_cache", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* iosb_op_add - one timed operation into its histogram and total */
static int iosb_op_add(struct iotap_ctx *ctx, const char *op, uint64_t ns)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	struct hist *h = hist_set_get(&st->hs, op);
	size_t i;

	if (!h || hist_add(h, ns / (p->msecs ? 1000000 : 1000)))
		return -ENOMEM;
	for (i = 0; i < st->nr_ops && strcmp(st->ops[i].name, op); i++)
		;
	if (i == st->nr_ops) {
		if (array_reserve(&st->ops, &st->cap_ops, i + 1, sizeof(*st->ops), 16))
			return -ENOMEM;
		st->ops[i] = (struct iosb_op){ .ns = 0 };
		snprintf(st->ops[st->nr_ops++].name, sizeof(st->ops[0].name), "%s", op);
	}
	st->ops[i].ns += ns;
	return 0;
}

/* iosb_sysrow - the attribution row of a syscall name */
static struct iosb_sys *iosb_sysrow(struct iosb_state *st, const char *name)
{
	for (size_t i = 0; i < st->nr_sys; i++)
		if (st->sysrow[i].name == name)
			return &st->sysrow[i];
	if (array_reserve(&st->sysrow, &st->cap_sys, st->nr_sys + 1, sizeof(*st->sysrow), 16))
		return NULL;
	memset(&st->sysrow[st->nr_sys], 0, sizeof(st->sysrow[0]));
	st->sysrow[st->nr_sys].name = name;
	return &st->sysrow[st->nr_sys++];
}

/* iosb_on_sys_exit - a syscall ended: its latency and what it waited for */
static int iosb_on_sys_exit(void *arg, struct sys_call *c)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_state *st = ctx->state;
	uint64_t ns = c->t_exit - c->t_enter;
	struct iosb_sys *row = iosb_sysrow(st, c->name);
	char op[40];

	if (!row)
		return -ENOMEM;
	row->calls++;
	row->lat_ns += ns;
	if (c->user[U_REQS]) {
		row->disk_calls++;
		row->reqs += c->user[U_REQS];
		row->queue_ns += c->user[U_QUEUE_NS];
		row->dev_ns += c->user[U_DEV_NS];
		row->wait_ns += c->user[U_WAIT_NS];
	}
	row->pages += c->user[U_PAGES];
	if ((c->kind == SYS_READ || c->kind == SYS_WRITE) && c->ret > 0) {
		uint64_t dev = c->user[U_DEV_BYTES] < (uint64_t)c->ret ? c->user[U_DEV_BYTES] :
			(uint64_t)c->ret;

		row->bytes_dev += dev;
		row->bytes_cache += c->ret - dev;
	} else {
		row->bytes_dev += c->user[U_DEV_BYTES];
	}
	if (!st->layer[IOSB_SYSCALL])
		return 0;
	snprintf(op, sizeof(op), "sys_%s", c->name);
	return iosb_op_add(ctx, op, ns);
}

/* iosb_on_start - a request is created: it belongs to the syscall its thread is in */
static int iosb_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_state *st = ctx->state;
	/* block_rq_insert (before 6.5) may run in another context: bios tag instead. */
	struct sys_call *c = st->bios ? NULL : systrack_current(st->sys, s->tid);

	r->user = c ? (uint64_t)s->tid << 32 | (uint32_t)c->seq : 0;
	return 0;
}

/* iosb_on_bio_queue - kernels before 6.5: a bio queued in the submitter tags its sector */
static int iosb_on_bio_queue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iosb_state *st = ctx->state;
	struct sys_call *c = systrack_current(st->sys, s->tid);
	struct block_rq rq;
	struct blkreq *r;

	if (!c || block_rq_decode(&st->f_bio, s->raw, s->raw_size, &rq) || !rq.nr_sector ||
	    (st->has_dev && rq.dev != st->dev))
		return 0;
	r = reqtab_insert(st->bios, rq.dev, rq.sector, s->time);
	if (!r)
		return -ENOMEM;
	r->user = (uint64_t)s->tid << 32 | (uint32_t)c->seq;
	return 0;
}

/* iosb_out_add - block I/O queued outside the traced syscalls, by submitter; 0 or -ENOMEM */
static int iosb_out_add(struct iosb_state *st, const struct blk_io *io, uint64_t ns)
{
	size_t i;

	for (i = 0; i < st->nr_out && strncmp(st->out[i].comm, io->comm, 16); i++)
		;
	if (i == st->nr_out) {
		if (array_reserve(&st->out, &st->cap_out, i + 1, sizeof(*st->out), 16))
			return -ENOMEM;
		memset(&st->out[i], 0, sizeof(st->out[i]));
		snprintf(st->out[i].comm, sizeof(st->out[i].comm), "%.15s", io->comm);
		st->nr_out++;
	}
	st->out[i].reqs++;
	st->out[i].bytes += io->bytes;
	st->out[i].ns += ns;
	return 0;
}

static bool iosb_wanted(struct iotap_ctx *ctx, uint32_t pid);

/* iosb_out_wanted - with -p or -c: the chosen processes' own, and the kernel's workers */
static bool iosb_out_wanted(struct iotap_ctx *ctx, const struct blk_io *io)
{
	static const char *const workers[] = { "kworker", "jbd2", "xfs", "flush", NULL };
	struct iosb_params *p = ctx->params;

	if ((!p->pid && !p->comm) || (io->t_start && iosb_wanted(ctx, io->pid)))
		return true;
	/* Writeback and journal threads act for every process: never another program's. */
	for (const char *const *w = workers; *w; w++)
		if (!strncmp(io->comm, *w, strlen(*w)))
			return true;
	return false;
}

/* iosb_on_done - a request completed: device time, and its syscall's waiting */
static int iosb_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	uint64_t from = io->t_issue, start = io->t_start ? io->t_start : io->t_issue;
	struct sys_call *c = NULL;
	uint64_t user = io->user;
	int ret = 0;

	if (p->queued)
		from = start;
	/* With -p or -c the block layer shows the requests the chosen processes submitted. */
	if (st->layer[IOSB_BLK] && ((!p->pid && !p->comm) || (io->t_start && iosb_wanted(ctx, io->pid))))
		ret = iosb_op_add(ctx, io->op == BLOCK_OP_WRITE ? "blk_write" :
				  io->op == BLOCK_OP_READ ? "blk_read" : "blk_other",
				  io->t_done > from ? io->t_done - from : 0);
	if (ret)
		return ret;
	if (!user && st->bios) {
		/* A request starts at its first bio's sector (merges append, or prepend the caller's). */
		struct blkreq *b = reqtab_find(st->bios, io->dev, io->sector);

		if (b) {
			user = b->user;
			reqtab_remove(st->bios, b);
		}
	}
	if (user) {
		c = systrack_current(st->sys, (uint32_t)(user >> 32));
		if (c && (uint32_t)c->seq != (uint32_t)user)
			c = NULL;
		if (!c)
			st->late_reqs++;
	}
	if (!c) {
		if (!user && iosb_out_wanted(ctx, io))
			return iosb_out_add(st, io, io->t_done - start);
		return 0;
	}
	c->user[U_REQS]++;
	c->user[U_QUEUE_NS] += io->t_issue - start;
	c->user[U_DEV_NS] += io->t_done - io->t_issue;
	/* Waiting is the union of the requests' lifetimes: overlapping ones count once. */
	if (io->t_done > c->user[U_BUSY_UNTIL]) {
		uint64_t from_w = start > c->user[U_BUSY_UNTIL] ? start : c->user[U_BUSY_UNTIL];

		c->user[U_WAIT_NS] += io->t_done - from_w;
		c->user[U_BUSY_UNTIL] = io->t_done;
	}
	c->user[U_DEV_BYTES] += io->bytes;
	return 0;
}

/* iosb_fsin_exit - tid left op, which it entered: one timed operation (none without its entry) */
static int iosb_fsin_exit(struct iotap_ctx *ctx, uint32_t tid, const char *op, uint64_t t)
{
	struct iosb_state *st = ctx->state;
	uint64_t t_enter;

	if (pairtab_exit(st->fsin, tid, op, &t_enter))
		return 0;
	return iosb_op_add(ctx, op, t - t_enter);
}

/* iosb_fs_dev_ok - with -d, only this disk's filesystem */
static bool iosb_fs_dev_ok(struct iosb_state *st, const struct field *f, const struct perf_sample *s)
{
	return !st->has_dev || (uint32_t)field_u64(f, s->raw, s->raw_size) == st->dev;
}

static const char IOSB_OP_SYNC[] = "ext4_sync_file";
static const char IOSB_OP_DIO_R[] = "iomap_dio_read";
static const char IOSB_OP_DIO_W[] = "iomap_dio_write";

/* iosb_wanted - the -p/-c filter for fs events, which come in the caller's context */
static bool iosb_wanted(struct iotap_ctx *ctx, uint32_t pid)
{
	struct iosb_params *p = ctx->params;

	if (p->pid && (int)pid != p->pid)
		return false;
	return !p->comm || !strcmp(iotap_comm(ctx, pid), p->comm);
}

/* iosb_on_sync_enter - ext4_sync_file_enter */
static int iosb_on_sync_enter(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iosb_state *st = ctx->state;

	if (!iosb_fs_dev_ok(st, &st->f_sync_dev, s) || !iosb_wanted(ctx, s->pid) ||
	    !iotap_cgroup_match(ctx, s))
		return 0;
	return pairtab_enter(st->fsin, s->tid, IOSB_OP_SYNC, s->time);
}

/* iosb_on_sync_exit - ext4_sync_file_exit */
static int iosb_on_sync_exit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return iosb_fsin_exit(ctx, s->tid, IOSB_OP_SYNC, s->time);
}

/* iosb_on_dio_begin - iomap_dio_rw_begin, in the caller */
static int iosb_on_dio_begin(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iosb_state *st = ctx->state;
	bool write = field_u64(&st->f_flags, s->raw, s->raw_size) & (1u << 18);

	if (!iosb_fs_dev_ok(st, &st->f_dev, s) || !iosb_wanted(ctx, s->pid) ||
	    !iotap_cgroup_match(ctx, s))
		return 0;
	return pairtab_enter(st->fsin, s->tid, write ? IOSB_OP_DIO_W : IOSB_OP_DIO_R, s->time);
}

/* iosb_on_dio_complete - synchronous direct I/O completes in the caller; aio is not paired */
static int iosb_on_dio_complete(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iosb_state *st = ctx->state;
	bool write = field_u64(&st->f_flags, s->raw, s->raw_size) & (1u << 18);

	return iosb_fsin_exit(ctx, s->tid, write ? IOSB_OP_DIO_W : IOSB_OP_DIO_R, s->time);
}

/* iosb_on_pagecache - a page added to the page cache: a miss of the syscall in progress */
static int iosb_on_pagecache(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iosb_state *st = ctx->state;
	struct sys_call *c = st->sys ? systrack_current(st->sys, s->tid) : NULL;

	if (c && iosb_fs_dev_ok(st, &st->f_sdev, s))
		c->user[U_PAGES]++;
	return 0;
}

/* iosb_use - subscribe to an optional event; false if the kernel (or recording) lacks it */
static int iosb_use(struct iotap_ctx *ctx, const char *sys, const char *name, iotap_handler_fn fn,
		    struct field *f, const char *field)
{
	struct iotap_event *ev;

	if (!iotap_event_available(ctx, sys, name))
		return -ENOENT;
	ev = iotap_event_use(ctx, sys, name, 0, fn, NULL);
	if (!ev)
		return -errno;
	if (f)
		field_init(f, iotap_event_format(ev), field);
	return 0;
}

/* Functions timed by kprobe/kretprobe pairs where the kernel has kprobes: layer, op name. */
static const struct iosb_kfunc {
	const char *fn, *op;
	enum iosb_layer layer;
} iosb_kfuncs[] = {
	{ "vfs_read", "vfs_read", IOSB_VFS },
	{ "vfs_write", "vfs_write", IOSB_VFS },
	{ "vfs_open", "vfs_open", IOSB_VFS },
	{ "vfs_fsync_range", "vfs_fsync", IOSB_VFS },
	{ "ext4_file_read_iter", "ext4_file_read_iter", IOSB_FS },
	{ "ext4_file_write_iter", "ext4_file_write_iter", IOSB_FS },
	{ "ext4_file_open", "ext4_file_open", IOSB_FS },
	{ "ext4_sync_file", "ext4_sync_file", IOSB_FS },
	{ "xfs_file_read_iter", "xfs_file_read_iter", IOSB_FS },
	{ "xfs_file_write_iter", "xfs_file_write_iter", IOSB_FS },
	{ "xfs_file_open", "xfs_file_open", IOSB_FS },
	{ "xfs_file_fsync", "xfs_file_fsync", IOSB_FS },
};
#define IOSB_NR_KFUNCS (sizeof(iosb_kfuncs) / sizeof(iosb_kfuncs[0]))

/* The kprobe and kretprobe of each of iosb_kfuncs, in its order: `iotap record` makes them too. */
#define IOSB_KPROBES(f) { .name = "kp_" f, .symbol = f }, { .name = "kr_" f, .symbol = f, .ret = true }
static const struct probe_spec iosb_probes[] = {
	IOSB_KPROBES("vfs_read"), IOSB_KPROBES("vfs_write"), IOSB_KPROBES("vfs_open"),
	IOSB_KPROBES("vfs_fsync_range"), IOSB_KPROBES("ext4_file_read_iter"),
	IOSB_KPROBES("ext4_file_write_iter"), IOSB_KPROBES("ext4_file_open"),
	IOSB_KPROBES("ext4_sync_file"), IOSB_KPROBES("xfs_file_read_iter"),
	IOSB_KPROBES("xfs_file_write_iter"), IOSB_KPROBES("xfs_file_open"),
	IOSB_KPROBES("xfs_file_fsync"),
	{ 0 }
};

/* iosb_on_kentry - a traced kernel function entered */
static int iosb_on_kentry(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	const struct iosb_kfunc *k = arg;

	if (!iosb_wanted(ctx, s->pid) ||
	    !iotap_cgroup_match(ctx, s))
		return 0;
	return pairtab_enter(((struct iosb_state *)ctx->state)->fsin, s->tid, k->op, s->time);
}

/* iosb_on_kreturn - it returned: one timed operation */
static int iosb_on_kreturn(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	const struct iosb_kfunc *k = arg;

	return iosb_fsin_exit(ctx, s->tid, k->op, s->time);
}

/* iosb_cat - append text to the string *s (NULL: empty), which grows to hold it; 0 or -ENOMEM */
static int iosb_cat(char **s, const char *text)
{
	size_t n = *s ? strlen(*s) : 0, m = strlen(text);
	char *p = realloc(*s, n + m + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + n, text, m + 1);
	*s = p;
	return 0;
}

/* iosb_line - the layer's line for the banner, made from fmt; 0 or -ENOMEM */
static int iosb_line(struct iosb_state *st, enum iosb_layer layer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int iosb_line(struct iosb_state *st, enum iosb_layer layer, const char *fmt, ...)
{
	va_list ap;
	int ret;

	free(st->lines[layer]);
	va_start(ap, fmt);
	ret = vasprintf(&st->lines[layer], fmt, ap);
	va_end(ap);
	if (ret < 0) {
		st->lines[layer] = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* iosb_kprobes_use - kprobe pairs on the layer's functions; their names appended to *fns */
static int iosb_kprobes_use(struct iotap_ctx *ctx, enum iosb_layer layer, bool ext4, bool xfs,
			    iotap_handler_fn on_entry, iotap_handler_fn on_return, char **fns)
{
	int nr = 0;

	for (size_t i = 0; i < IOSB_NR_KFUNCS; i++) {
		const struct iosb_kfunc *k = &iosb_kfuncs[i];
		const struct probe_spec *pr = &iosb_probes[2 * i];
		const char *sys;
		int ret = 0;

		if (k->layer != layer || (!ext4 && !strncmp(k->fn, "ext4", 4)) ||
		    (!xfs && !strncmp(k->fn, "xfs", 3)))
			continue;
		/* Live, a function ftrace cannot hook (inlined, notrace) is refused: it would time nothing. */
		if (!iotap_probe_available(ctx, &pr[0]) || !iotap_probe_available(ctx, &pr[1]))
			continue;
		for (int r = 0; r < 2 && !ret; r++) {
			struct iotap_event *ev;

			ret = iotap_probe_create(ctx, &pr[r], &sys);
			if (ret)
				break;
			ev = iotap_event_use(ctx, sys, pr[r].name, 0, r ? on_return : on_entry, (void *)k);
			/* iotap's own report writes are not the traced I/O. */
			ret = !ev ? -errno : iotap_event_filter(ev, "common_pid != %d", (int)getpid());
		}
		if (!ret && nr++)
			ret = iosb_cat(fns, ", ");
		if (!ret)
			ret = iosb_cat(fns, k->fn);
		if (ret)
			return ret;
	}
	return nr;
}

/* iosb_fs_tracepoints - the filesystem's tracepoints this kernel has, named in *tp; 0 or -errno */
static int iosb_fs_tracepoints(struct iotap_ctx *ctx, bool ext4_sync, char **tp)
{
	struct iosb_state *st = ctx->state;
	int ret = 0;

	if (ext4_sync &&
	    !(ret = iosb_use(ctx, "ext4", "ext4_sync_file_enter", iosb_on_sync_enter,
			     &st->f_sync_dev, "dev")) &&
	    !(ret = iosb_use(ctx, "ext4", "ext4_sync_file_exit", iosb_on_sync_exit, NULL, NULL)))
		ret = iosb_cat(tp, "ext4:ext4_sync_file_enter/exit");
	if (ret && ret != -ENOENT)
		return ret;
	/* iomap serves direct I/O for ext4 and xfs alike. */
	if (!(ret = iosb_use(ctx, "iomap", "iomap_dio_rw_begin", iosb_on_dio_begin, &st->f_dev, "dev")) &&
	    !(ret = iosb_use(ctx, "iomap", "iomap_dio_complete", iosb_on_dio_complete, &st->f_flags,
			     "ki_flags")))
		ret = iosb_cat(tp, *tp ? ", iomap:iomap_dio_rw_begin/iomap_dio_complete" :
			       "iomap:iomap_dio_rw_begin/iomap_dio_complete");
	if (ret && ret != -ENOENT)
		return ret;
	if (!(ret = iosb_use(ctx, "filemap", "mm_filemap_add_to_page_cache", iosb_on_pagecache,
			     &st->f_sdev, "s_dev")))
		ret = iosb_cat(tp, *tp ? ", filemap:mm_filemap_add_to_page_cache (page-cache misses)" :
			       "filemap:mm_filemap_add_to_page_cache (page-cache misses)");
	return ret == -ENOENT ? 0 : ret;
}

/* iosb_fs_init - the filesystem's kprobe pairs where the kernel has kprobes, and its tracepoints */
static int iosb_fs_init(struct iotap_ctx *ctx, bool ext4, bool xfs, bool kprobes)
{
	struct iosb_state *st = ctx->state;
	char *kp = NULL, *tp = NULL;
	int ret = 0, nr_kp = 0;

	if (kprobes)
		nr_kp = iosb_kprobes_use(ctx, IOSB_FS, ext4, xfs, iosb_on_kentry, iosb_on_kreturn,
					 &kp);
	/* A kprobe on ext4_sync_file times what the tracepoint pair would: not both. */
	if (nr_kp >= 0)
		ret = iosb_fs_tracepoints(ctx, ext4 && !(kp && strstr(kp, "ext4_sync_file")), &tp);
	if (nr_kp < 0)
		ret = nr_kp;
	else if (!ret && !nr_kp && !tp)
		ret = iosb_line(st, IOSB_FS, "fs: not offered: no kprobes, and none of the ext4, iomap and filemap tracepoints");
	else if (!ret)
		ret = iosb_line(st, IOSB_FS, "fs: %s%s%s%s%s", nr_kp ? "kprobe/kretprobe pairs on " : "",
				kp ? kp : "", nr_kp && tp ? "; " : "", tp ? tp : "",
				tp ? " tracepoints" : "");
	free(kp);
	free(tp);
	return ret;
}

/* iosb_vfs_init - kprobe pairs on vfs_*, or the reason there are none */
static int iosb_vfs_init(struct iotap_ctx *ctx, bool kprobes)
{
	struct iosb_state *st = ctx->state;
	char *fns = NULL;
	int nr, ret;

	if (!kprobes)
		return iosb_line(st, IOSB_VFS, "vfs: not offered: no kprobes (none in this kernel, or none recorded), and no tracepoint marks vfs_read/vfs_write");
	nr = iosb_kprobes_use(ctx, IOSB_VFS, true, true, iosb_on_kentry, iosb_on_kreturn, &fns);
	if (nr < 0)
		ret = nr;
	else if (nr)
		ret = iosb_line(st, IOSB_VFS, "vfs: kprobe/kretprobe pairs on %s", fns);
	else
		ret = iosb_line(st, IOSB_VFS, "vfs: not offered: no vfs_* function can be probed (not in available_filter_functions, or not recorded)");
	free(fns);
	return ret;
}

/* iosb_has_kprobes - whether any of the functions can be timed by kprobes here (or was recorded) */
static bool iosb_has_kprobes(struct iotap_ctx *ctx)
{
	for (size_t i = 0; i < IOSB_NR_KFUNCS; i++)
		if (iotap_probe_available(ctx, &iosb_probes[2 * i + 1]))
			return true;
	return false;
}

/* iosb_init - pick each layer's source from what this kernel offers */
static int iosb_init(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	bool ext4 = true, xfs = true, kprobes, has_io_start, any = !p->layers;
	struct systrack_cfg scfg = {
		.kinds = SYS_KIND(SYS_READ) | SYS_KIND(SYS_WRITE) | SYS_KIND(SYS_SYNC) |
			SYS_KIND(SYS_OPEN) | SYS_KIND(SYS_URING),
		.pid = p->pid,
		.comm = p->comm,
		.on_exit = iosb_on_sys_exit,
		.arg = ctx,
	};
	struct blktrack_cfg bcfg = {
		.flags = BT_START,
		.on_start = iosb_on_start,
		.on_done = iosb_on_done,
		.arg = ctx,
	};
	int ret;

	for (int i = 0; i < IOSB_NR_LAYERS; i++)
		st->layer[i] = any;
	if (p->layers) {
		st->layer[IOSB_SYSCALL] = p->layers & T_SYSCALL;
		st->layer[IOSB_VFS] = p->layers & T_VFS;
		st->layer[IOSB_FS] = p->layers & (T_FS | T_EXT4 | T_XFS);
		st->layer[IOSB_BLK] = p->layers & (T_BLK | T_BLOCK);
		/* -T xfs alone leaves out ext4's functions; iomap and filemap serve both. */
		if (!(p->layers & T_FS) && (p->layers & (T_EXT4 | T_XFS))) {
			ext4 = p->layers & T_EXT4;
			xfs = p->layers & T_XFS;
		}
	}
	if (p->pid && iotap_pid_check(ctx, p->pid)) {
		iotap_err(ctx, "no process with PID %d", p->pid);
		return -ESRCH;
	}
	if (p->disk) {
		ret = iotap_disk_resolve(ctx, p->disk, &st->dev);
		if (ret) {
			iotap_err(ctx, "unknown disk '%s'", p->disk);
			return ret;
		}
		st->has_dev = true;
	}
	st->fsin = pairtab_alloc();
	if (!st->fsin)
		return -ENOMEM;
	/* Attribution needs the syscalls and the block layer whichever layers are shown. */
	ret = systrack_create(&st->sys, ctx, &scfg);
	if (ret)
		return ret;
	ret = iosb_line(st, IOSB_SYSCALL, "syscall: syscalls:sys_enter_*/sys_exit_* tracepoints%s",
			st->layer[IOSB_SYSCALL] ? "" : " (attribution only)");
	if (ret)
		return ret;
	kprobes = iosb_has_kprobes(ctx);
	if (st->layer[IOSB_VFS]) {
		ret = iosb_vfs_init(ctx, kprobes);
		if (ret)
			return ret;
	}
	if (st->layer[IOSB_FS]) {
		ret = iosb_fs_init(ctx, ext4, xfs, kprobes);
		if (ret)
			return ret;
	}
	ret = blktrack_cfg_select(&bcfg, ctx, p->disk, 0);
	if (ret)
		return ret;
	bcfg.flags |= BT_START;
	ret = blktrack_create(&st->bt, ctx, &bcfg);
	if (ret)
		return ret;
	has_io_start = iotap_event_available(ctx, "block", "block_io_start");
	if (!has_io_start && iotap_event_available(ctx, "block", "block_bio_queue")) {
		struct iotap_event *ev = iotap_event_use(ctx, "block", "block_bio_queue", 0,
							 iosb_on_bio_queue, NULL);

		if (!ev)
			return -errno;
		ret = block_fmt_init(&st->f_bio, iotap_event_format(ev));
		if (ret)
			return ret;
		st->bios = reqtab_alloc(1u << 16, 60ull * 1000000000ull);
		if (!st->bios)
			return -ENOMEM;
	}
	return iosb_line(st, IOSB_BLK, "blk: block:%s/block_rq_issue/block_rq_complete tracepoints (%s)%s",
			 has_io_start ? "block_io_start" : blktrack_has_start(st->bt) ? "block_rq_insert" : "",
			 p->queued ? "from creation, -Q" : "device time",
			 st->bios ? "; requests matched to syscalls by their first bio (block_bio_queue)" : "");
}

/* iosb_start - which source each layer has, once tracing runs (over a recording too: what
 * the recorder's kernel offered); in the output, as the tables that follow refer to it */
static int iosb_start(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;

	if (!p->json)
		for (int i = 0; i < IOSB_NR_LAYERS; i++)
			if (st->layer[i])
				fprintf(ctx->out, "layer %s\n", st->lines[i]);
	return ferror(ctx->out) ? -EIO : 0;
}

/* iosb_us - ns as microseconds for the table */
static unsigned long long iosb_us(uint64_t ns)
{
	return (unsigned long long)(ns / 1000);
}

/* iosb_print_attribution - per syscall: calls, latency, disk, waiting, bytes by source */
static void iosb_print_attribution(struct iotap_ctx *ctx)
{
	struct iosb_state *st = ctx->state;

	fprintf(ctx->out, "\nper syscall (block I/O queued by the thread between sys_enter and sys_exit):\n");
	fprintf(ctx->out, "%-16s %8s %12s %10s %8s %8s %12s %12s %12s %12s %10s %10s %8s\n",
		"SYSCALL", "CALLS", "TOTAL_us", "AVG_us", "DISK", "BLK_REQ", "BLK_WAIT_us",
		"BLK_QUE_us", "BLK_DEV_us", "REST_us", "CACHE_KB", "DEV_KB", "PC_MISS");
	for (size_t i = 0; i < st->nr_sys; i++) {
		const struct iosb_sys *r = &st->sysrow[i];

		fprintf(ctx->out, "%-16s %8llu %12llu %10llu %8llu %8llu %12llu %12llu %12llu %12llu %10llu %10llu %8llu\n",
			r->name, (unsigned long long)r->calls, iosb_us(r->lat_ns),
			iosb_us(r->calls ? r->lat_ns / r->calls : 0), (unsigned long long)r->disk_calls,
			(unsigned long long)r->reqs, iosb_us(r->wait_ns), iosb_us(r->queue_ns),
			iosb_us(r->dev_ns), iosb_us(r->lat_ns > r->wait_ns ? r->lat_ns - r->wait_ns : 0),
			(unsigned long long)(r->bytes_cache / 1024), (unsigned long long)(r->bytes_dev / 1024),
			(unsigned long long)r->pages);
	}
	if (st->nr_out) {
		fprintf(ctx->out, "\nblock I/O outside traced syscalls (writeback, journal, workers):\n");
		fprintf(ctx->out, "%-16s %8s %10s %12s %s\n", "SUBMITTER", "BLK_REQ", "KB", "BLK_us", "");
		for (size_t i = 0; i < st->nr_out; i++)
			fprintf(ctx->out, "%-16s %8llu %10llu %12llu %s\n", st->out[i].comm,
				(unsigned long long)st->out[i].reqs,
				(unsigned long long)(st->out[i].bytes / 1024), iosb_us(st->out[i].ns),
				!strncmp(st->out[i].comm, "kworker", 7) ? "writeback (flusher)" : "");
	}
	if (st->late_reqs)
		fprintf(ctx->out, "%llu requests completed after their syscall returned (not attributed)\n",
			(unsigned long long)st->late_reqs);
}

/* iosb_print_json - -j: the totals and the attribution, one object per line */
static void iosb_print_json(struct iotap_ctx *ctx, const char *ts)
{
	struct iosb_state *st = ctx->state;

	for (size_t i = 0; i < st->nr_ops; i++) {
		fprintf(ctx->out, "{\"ts\": \"%s\", \"operation\": ", ts);
		json_str(ctx->out, st->ops[i].name);
		fprintf(ctx->out, ", \"total_ns\": %llu}\n", (unsigned long long)st->ops[i].ns);
	}
	for (size_t i = 0; i < st->nr_sys; i++) {
		const struct iosb_sys *r = &st->sysrow[i];

		fprintf(ctx->out, "{\"ts\": \"%s\", \"syscall\": \"%s\", \"calls\": %llu, \"total_ns\": %llu, "
			"\"disk_calls\": %llu, \"blk_requests\": %llu, \"blk_wait_ns\": %llu, "
			"\"blk_queue_ns\": %llu, \"blk_device_ns\": %llu, \"rest_ns\": %llu, "
			"\"cache_bytes\": %llu, \"device_bytes\": %llu, \"pagecache_misses\": %llu}\n",
			ts, r->name, (unsigned long long)r->calls, (unsigned long long)r->lat_ns,
			(unsigned long long)r->disk_calls, (unsigned long long)r->reqs,
			(unsigned long long)r->wait_ns, (unsigned long long)r->queue_ns,
			(unsigned long long)r->dev_ns,
			(unsigned long long)(r->lat_ns > r->wait_ns ? r->lat_ns - r->wait_ns : 0),
			(unsigned long long)r->bytes_cache, (unsigned long long)r->bytes_dev,
			(unsigned long long)r->pages);
	}
	for (size_t i = 0; i < st->nr_out; i++) {
		fprintf(ctx->out, "{\"ts\": \"%s\", \"outside_syscalls\": ", ts);
		json_str(ctx->out, st->out[i].comm);
		fprintf(ctx->out, ", \"blk_requests\": %llu, \"bytes\": %llu, \"blk_ns\": %llu}\n",
			(unsigned long long)st->out[i].reqs, (unsigned long long)st->out[i].bytes,
			(unsigned long long)st->out[i].ns);
	}
}

/* iosb_op_cmp - totals in the histograms' order */
static int iosb_op_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * iosb_warn_stats - at the end, what was left untimed or unattributed: a
 * bound that bit is a warning, the rest (functions entered before tracing
 * began, or begun again before they returned, as asynchronous direct I/O
 * does) is said with --verbose
 */
static void iosb_warn_stats(struct iotap_ctx *ctx)
{
	struct iosb_state *st = ctx->state;
	const struct pairtab_stats *ps = pairtab_stats(st->fsin);
	const struct reqtab_stats *bs = st->bios ? reqtab_stats(st->bios) : NULL;

	if (bs && (bs->evicted_age || bs->evicted_full))
		iotap_warn(ctx, "%llu bios queued in syscalls waited over 60 s for their request or overflowed the table of bios: those requests were not attributed",
			   (unsigned long long)(bs->evicted_age + bs->evicted_full));
	if (iotap_verbose(ctx))
		iotap_info(ctx, "vfs and fs functions: %llu timed; not timed: %llu returns whose entry was not seen (entered before tracing began), %llu entries begun again before they returned, %zu not returned yet",
			   (unsigned long long)ps->paired, (unsigned long long)ps->unmatched_exits,
			   (unsigned long long)ps->replaced, pairtab_pending(st->fsin));
}

/* iosb_report - histograms per operation, totals, then the attribution; then reset */
static int iosb_report(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	const char *label = p->msecs ? "msecs" : "usecs";
	char ts[32] = "";
	int ret = 0;

	tool_report_begin(ctx, p->json, false, ts, sizeof(ts));
	hist_set_sort(&st->hs);
	for (size_t i = 0; i < st->hs.nr && !ret; i++) {
		if (p->json) {
			ret = hist_print_json(&st->hs.h[i], ctx->out, label, ts, "operation",
					      st->hs.keys[i]);
			continue;
		}
		fprintf(ctx->out, "\noperation = %s\n", st->hs.keys[i]);
		ret = hist_print_log2(&st->hs.h[i], ctx->out, label);
		if (!ret && p->percentiles)
			ret = hist_print_percentiles(&st->hs.h[i], ctx->out, label);
	}
	if (p->json) {
		iosb_print_json(ctx, ts);
	} else {
		fputc('\n', ctx->out);
		/* name is the first member: the entries sort as strings. No ops: no array. */
		if (st->nr_ops)
			qsort(st->ops, st->nr_ops, sizeof(st->ops[0]), iosb_op_cmp);
		for (size_t i = 0; i < st->nr_ops; i++)
			fprintf(ctx->out, "%s, %llu\n", st->ops[i].name, (unsigned long long)st->ops[i].ns);
		iosb_print_attribution(ctx);
	}
	if (ctx->final) {
		blktrack_warn_stats(st->bt, ctx);
		iosb_warn_stats(ctx);
	}
	hist_set_reset(&st->hs);
	st->nr_ops = 0;
	st->nr_sys = 0;
	st->nr_out = 0;
	st->late_reqs = 0;
	return ret ? ret : ferror(ctx->out) ? -EIO : 0;
}

/* iosb_fini - free the state */
static void iosb_fini(struct iotap_ctx *ctx)
{
	struct iosb_state *st = ctx->state;

	systrack_free(st->sys);
	blktrack_free(st->bt);
	reqtab_free(st->bios);
	hist_set_release(&st->hs);
	pairtab_free(st->fsin);
	for (int i = 0; i < IOSB_NR_LAYERS; i++)
		free(st->lines[i]);
	free(st->ops);
	free(st->sysrow);
	free(st->out);
}

const struct tool tool_iostackbreakdown = {
	.name = "iostackbreakdown",
	.alias = "iobreakdown",
	.summary = "Break I/O latency down by layer (syscall, filesystem, block), and block I/O per syscall.",
	.description =
		"Traces each layer of the I/O stack from the most stable source the running kernel "
		"offers, named in the lines printed at start: the syscall layer from the syscalls "
		"tracepoints (read, write, pread64, pwrite64, readv, writev, preadv, pwritev, preadv2, "
		"pwritev2, fsync, fdatasync, sync_file_range, openat, open, creat, openat2, "
		"io_uring_enter); the filesystem layer from ext4_sync_file_enter/exit, "
		"iomap_dio_rw_begin/iomap_dio_complete (direct I/O of ext4 and xfs) and "
		"filemap:mm_filemap_add_to_page_cache (page-cache misses), and where the kernel has "
		"kprobes, kprobe/kretprobe pairs on ext4_file_read_iter, ext4_file_write_iter, "
		"ext4_file_open, ext4_sync_file and their xfs counterparts; the vfs layer from kprobe "
		"pairs on vfs_read, vfs_write, vfs_open and vfs_fsync_range (functions ftrace cannot "
		"hook are refused); the block layer as biolatency does (device time, or with -Q from "
		"when the request was created). A line names each layer's source, or says why the "
		"kernel does not offer it. "
		"It prints a log2 histogram per operation (operation = sys_pread64, iomap_dio_read, "
		"blk_read...), one 'op, total ns' line per operation, then what the others cannot: "
		"per syscall, how many calls, their total and average latency, how many went to disk, "
		"the block requests they queued (a request belongs to the syscall its submitting "
		"thread was in between sys_enter and sys_exit), the time spent waiting on them "
		"(overlapping requests count once), split into queue and device time, the rest "
		"(page cache, filesystem, CPU), the bytes served from the page cache and from the "
		"device, and the pages added to the page cache. Block I/O queued outside the traced "
		"syscalls, such as writeback by the flusher threads or the journal, is listed by "
		"submitter instead of being charged to a syscall.",
	.examples =
		"iotap iostackbreakdown\n  Every layer, until Ctrl-C.\n"
		"iotap iobreakdown -T syscall,blk -p 1234\n  The syscall and block layers of one process.\n"
		"iotap iostackbreakdown -d sda -Q -m 5 1\n  Five seconds on sda, block time from creation, in milliseconds.\n"
		"iotap iostackbreakdown -i trace.iotap -c postgres\n  From a recording, postgres processes only.\n",
	.banner = "Tracing I/O by layer... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = iosb_opts,
	.events = iosb_events,
	.probes = iosb_probes,
	.params_size = sizeof(struct iosb_params),
	.state_size = sizeof(struct iosb_state),
	.init = iosb_init,
	.start = iosb_start,
	.report = iosb_report,
	.fini = iosb_fini,
};
