// SPDX-License-Identifier: GPL-2.0-or-later
/* iostackbreakdown.c - I/O latency by layer (syscall, fs, block) and block I/O per syscall */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktrack.h"
#include "breakdown.h"
#include "common-opts.h"
#include "iolayers.h"
#include "stacks.h"
#include "systrack.h"
#include "wbtrack.h"
#include "shared.h"

/* -T's names: the layers (enum iolayer), then the fs and blk layers' other names. */
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
	const char *disk, *comm, *pprof;
	bool queued, msecs, percentiles, json, originator;
};

/* --pprof: the stackmap's values of a stack, over the whole run. */
enum { V_CALLS, V_REQS, V_BYTES, V_NS };

struct iosb_state {
	bool layer[IOLAYER_NR];
	struct systrack *sys;
	struct blktrack *bt;
	struct iolayers *il;		/* each layer's sources, and the vfs and fs layers' timing */
	struct wbtrack *wb;		/* --originator: who dirtied what writeback writes */
	struct breakdown tab;		/* the interval's tables */
	struct stackmap *map;		/* --pprof: (pid, tags, stack) of the syscalls */
	struct stack_tagtab tags;	/* their syscall, file and cgroup */
	uint64_t ips[STACK_IPS_MAX];
};

/* The profile: per calling stack, the syscalls, the block requests they queued, their bytes
 * and their latency. */
static const struct pprof_type iosb_pprof_types[] = {
	{ "calls", "count" }, { "requests", "count" }, { "bytes", "bytes" },
	{ "latency", "nanoseconds" },
};
static const struct stack_profile iosb_profile = {
	.types = iosb_pprof_types, .nr_types = 4, .default_type = 3,
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
	{ 0, "originator", OPT_FLAG, P(originator), NULL,
	  "charge the block I/O outside the syscalls (flusher, journal, sync) to the processes that dirtied the pages written, by inode; the journal and metadata on rows of their own" },
	{ 0, "pprof", OPT_OUTFILE, P(pprof), "FILE",
	  "also write a pprof profile (gzipped profile.proto) of the whole run to FILE at the end: per calling stack the syscalls (calls), the block requests they queued (requests), their bytes and latency in ns, labelled op (the syscall), file, comm, pid and cgroup" },
	OPT_END
};

static const struct tool_event iosb_events[] = {
	SYSTRACK_EVENTS_RW,
	SYSTRACK_EVENTS_SYNC,
	SYSTRACK_EVENTS_OPEN_STACKS,
	SYSTRACK_EVENTS_URING,
	SYSTRACK_EVENTS_NAMES,
	TOOL_EVENTS_BLOCK_REQ,
	IOLAYERS_EVENTS,
	WBTRACK_EVENTS,
	{ NULL, NULL, 0 }
};

/* iosb_op_add - one timed operation into its histogram and total */
static int iosb_op_add(void *arg, const char *op, uint64_t ns)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;

	return breakdown_op_add(&st->tab, op, ns / (p->msecs ? 1000000 : 1000), ns);
}

/* iosb_stack_add - --pprof: an ended syscall into its stack's totals, bytes as its row counts them */
static int iosb_stack_add(struct iotap_ctx *ctx, const struct sys_call *c,
			  const struct perf_sample *s, uint64_t bytes)
{
	struct iosb_state *st = ctx->state;
	const struct stack_tags tags = {
		.op = c->name, .file = c->path, .cgroup = iotap_cgroup_of(ctx, s),
	};
	uint64_t key = stack_tags_key(&st->tags, &tags), *v;
	uint32_t n;

	v = key ? stack_sample_get(ctx, st->map, s, STACK_KERNEL | STACK_USER, key, V_CALLS,
				   st->ips, &n) : NULL;
	if (!v)
		return -ENOMEM;
	v[V_CALLS]++;
	v[V_REQS] += c->user[U_REQS];
	v[V_BYTES] += bytes;
	v[V_NS] += c->t_exit - c->t_enter;
	return 0;
}

/* iosb_on_sys_exit - a syscall ended: its latency and what it waited for */
static int iosb_on_sys_exit(void *arg, struct sys_call *c, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	uint64_t ns = c->t_exit - c->t_enter, bytes;
	struct breakdown_sys *row = breakdown_sysrow(&st->tab, c->name);
	char op[40];
	int ret;

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
		bytes = (uint64_t)c->ret;
	} else {
		row->bytes_dev += c->user[U_DEV_BYTES];
		bytes = c->user[U_DEV_BYTES];
	}
	if (p->pprof) {
		ret = iosb_stack_add(ctx, c, s, bytes);
		if (ret)
			return ret;
	}
	if (!st->layer[IOLAYER_SYSCALL])
		return 0;
	snprintf(op, sizeof(op), "sys_%s", c->name);
	return iosb_op_add(ctx, op, ns);
}

/* iosb_on_start - a request is created: it belongs to the syscall its thread is in */
static int iosb_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_state *st = ctx->state;

	r->user = iolayers_owner(st->il, s->tid);
	return 0;
}

/* iosb_out_wanted - with -p or -c: the chosen processes' own, and the kernel's workers */
static bool iosb_out_wanted(struct iotap_ctx *ctx, const struct blk_io *io)
{
	static const char *const workers[] = { "kworker", "jbd2", "xfs", "flush", NULL };
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;

	if ((!p->pid && !p->comm) || (io->t_start && iolayers_wanted(st->il, io->pid)))
		return true;
	/* Writeback and journal threads act for every process: never another program's. */
	for (const char *const *w = workers; *w; w++)
		if (!strncmp(io->comm, *w, strlen(*w)))
			return true;
	return false;
}

/* The share of a request an originator gets, with the request's time: iosb_on_share's. */
struct iosb_share_arg {
	struct iotap_ctx *ctx;
	uint64_t ns;
};

/* iosb_on_share - one originator's bytes of a request outside the syscalls, on its row */
static int iosb_on_share(void *arg, const struct blk_io *io, const struct wb_share *sh)
{
	struct iosb_share_arg *a = arg;
	struct iosb_state *st = a->ctx->state;
	struct iosb_params *p = a->ctx->params;
	const char *label = wb_kind_label(sh->kind);
	char inode[40] = "";

	if (sh->kind == WB_SUBMITTER)
		return iosb_out_wanted(a->ctx, io) ?
			breakdown_orig_add(&st->tab, sh->comm, 0, "", NULL, sh->bytes, a->ns) : 0;
	if (sh->kind == WB_DIRTIER && (p->pid || p->comm) && !iolayers_wanted(st->il, sh->pid))
		return 0;
	if (sh->kind != WB_JOURNAL)
		snprintf(inode, sizeof(inode), "%u:%u ino %llu", BLOCK_DEV_MAJOR(sh->dev),
			 BLOCK_DEV_MINOR(sh->dev), (unsigned long long)sh->ino);
	return breakdown_orig_add(&st->tab, label ? label : sh->comm,
				  sh->kind == WB_DIRTIER ? sh->pid : 0, inode, sh->file, sh->bytes, a->ns);
}

/* iosb_write_name - --originator: the file the write syscall thread tid is in writes */
static const char *iosb_write_name(void *arg, uint32_t tid)
{
	struct iosb_state *st = arg;
	const struct sys_call *c = systrack_current(st->sys, tid);

	return c && c->kind == SYS_WRITE ? c->path : NULL;
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
	if (st->layer[IOLAYER_BLK] && ((!p->pid && !p->comm) || (io->t_start && iolayers_wanted(st->il, io->pid))))
		ret = iosb_op_add(ctx, io->op == BLOCK_OP_WRITE ? "blk_write" :
				  io->op == BLOCK_OP_READ ? "blk_read" : "blk_other",
				  io->t_done > from ? io->t_done - from : 0);
	if (ret)
		return ret;
	if (!user)
		user = iolayers_bio_owner(st->il, io->dev, io->sector);
	if (user) {
		c = iolayers_call(st->il, user);
		if (!c)
			st->tab.late_reqs++;
	}
	if (!c && !user && st->wb) {
		struct iosb_share_arg a = { ctx, io->t_done - start };

		return wbtrack_split(st->wb, io, iosb_on_share, &a);
	}
	if (!c) {
		if (!user && iosb_out_wanted(ctx, io))
			return breakdown_out_add(&st->tab, io->comm, io->bytes, io->t_done - start);
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

/* iosb_on_pagecache - a page added to the page cache: a miss of the syscall in progress */
static int iosb_on_pagecache(void *arg, uint32_t tid)
{
	struct iotap_ctx *ctx = arg;
	struct iosb_state *st = ctx->state;
	struct sys_call *c = systrack_current(st->sys, tid);

	if (c)
		c->user[U_PAGES]++;
	return 0;
}

/* iosb_init - pick each layer's source from what this kernel offers */
static int iosb_init(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	bool any = !p->layers;
	struct systrack_cfg scfg = {
		.kinds = SYS_KIND(SYS_READ) | SYS_KIND(SYS_WRITE) | SYS_KIND(SYS_SYNC) |
			SYS_KIND(SYS_OPEN) | SYS_KIND(SYS_URING),
		.pid = p->pid,
		.comm = p->comm,
		.on_exit = iosb_on_sys_exit,
		.arg = ctx,
		/* --originator names the files written back by the writes that dirtied them. */
		.names = p->originator,
	};
	struct iolayers_cfg fcfg = {
		.queued = p->queued,
		.ext4 = true, .xfs = true,
		.pid = p->pid,
		.comm = p->comm,
		.on_op = iosb_op_add,
		.on_pagecache = iosb_on_pagecache,
		.arg = ctx,
	};
	struct blktrack_cfg bcfg = {
		.flags = BT_START,
		.on_start = iosb_on_start,
		.on_done = iosb_on_done,
		.arg = ctx,
	};
	int ret;

	for (int i = 0; i < IOLAYER_NR; i++)
		st->layer[i] = any;
	if (p->layers) {
		st->layer[IOLAYER_SYSCALL] = p->layers & T_SYSCALL;
		st->layer[IOLAYER_VFS] = p->layers & T_VFS;
		st->layer[IOLAYER_FS] = p->layers & (T_FS | T_EXT4 | T_XFS);
		st->layer[IOLAYER_BLK] = p->layers & (T_BLK | T_BLOCK);
		/* -T xfs alone leaves out ext4's functions; iomap and filemap serve both. */
		if (!(p->layers & T_FS) && (p->layers & (T_EXT4 | T_XFS))) {
			fcfg.ext4 = p->layers & T_EXT4;
			fcfg.xfs = p->layers & T_XFS;
		}
	}
	if (p->pid && iotap_pid_check(ctx, p->pid)) {
		iotap_err(ctx, "no process with PID %d", p->pid);
		return -ESRCH;
	}
	ret = stack_pprof_init(ctx, p->pprof);
	if (ret)
		return ret;
	if (p->pprof) {
		st->map = stackmap_alloc();
		if (!st->map)
			return -ENOMEM;
		scfg.stack_flags = IOTAP_EV_KSTACK | IOTAP_EV_USTACK;
	}
	if (p->disk) {
		ret = iotap_disk_resolve(ctx, p->disk, &fcfg.dev);
		if (ret) {
			iotap_err(ctx, "unknown disk '%s'", p->disk);
			return ret;
		}
		fcfg.has_dev = true;
	}
	/* Attribution needs the syscalls and the block layer whichever layers are shown. */
	ret = systrack_create(&st->sys, ctx, &scfg);
	if (ret)
		return ret;
	fcfg.sys = st->sys;
	memcpy(fcfg.layer, st->layer, sizeof(fcfg.layer));
	ret = iolayers_create(&st->il, ctx, &fcfg);
	if (ret)
		return ret;
	ret = blktrack_cfg_select(&bcfg, ctx, p->disk, 0);
	if (ret)
		return ret;
	bcfg.flags |= BT_START;
	st->tab.originator = p->originator;
	/* Before the block layer's: a bio's charge is made before its request can complete. */
	if (p->originator) {
		ret = wbtrack_create(&st->wb, ctx, bcfg.has_dev ? &bcfg.dev : NULL,
				     iosb_write_name, st);
		if (ret)
			return ret;
		wbtrack_blktrack(st->wb, &bcfg);
	}
	ret = blktrack_create(&st->bt, ctx, &bcfg);
	if (ret)
		return ret;
	return iolayers_block(st->il, st->bt);
}

/* iosb_start - which source each layer has, once tracing runs (over a recording too: what
 * the recorder's kernel offered); in the output, as the tables that follow refer to it */
static int iosb_start(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;

	if (!p->json)
		for (int i = 0; i < IOLAYER_NR; i++)
			if (st->layer[i])
				fprintf(ctx->out, "layer %s\n", iolayers_source(st->il, i));
	return ferror(ctx->out) ? -EIO : 0;
}

/* iosb_sample - one stack for the profile: its calls, requests, bytes and latency, and labels */
static int iosb_sample(struct iotap_ctx *ctx, uint32_t pid, uint64_t key, const uint64_t *ips,
		       uint32_t nr, const uint64_t *v, struct stack_sample *out)
{
	struct iosb_state *st = ctx->state;

	out->values[0] = v[V_CALLS];
	out->values[1] = v[V_REQS];
	out->values[2] = v[V_BYTES];
	out->values[3] = v[V_NS];
	stack_sample_tags(ctx, &st->tags, key, out);
	return 0;
}

/* iosb_report - histograms per operation, totals, then the attribution; then reset */
static int iosb_report(struct iotap_ctx *ctx)
{
	struct iosb_params *p = ctx->params;
	struct iosb_state *st = ctx->state;
	char ts[32];
	int ret;

	tool_report_begin(ctx, p->json, false, ts, sizeof(ts));
	ret = breakdown_print(&st->tab, ctx->out, p->msecs ? "msecs" : "usecs", p->percentiles,
			      p->json, ts);
	if (ctx->final) {
		blktrack_warn_stats(st->bt, ctx);
		iolayers_warn_stats(st->il);
		if (st->wb)
			wbtrack_warn_stats(st->wb, ctx);
	} else if (st->wb) {
		/* What no completion claimed in a minute never will: counted, not kept forever. */
		uint64_t now = iotap_now(ctx);

		wbtrack_expire(st->wb, now > 60000000000ull ? now - 60000000000ull : 0);
	}
	breakdown_reset(&st->tab);
	if (!ret && ferror(ctx->out))
		ret = -EIO;
	/* The profile covers the whole run: written after the last tables. */
	if (!ret && ctx->final && p->pprof) {
		const struct stack_outputs out = { .pprof = p->pprof, .profile = &iosb_profile };

		ret = stack_output(ctx, st->map, iosb_sample, &out);
	}
	return ret;
}

/* iosb_fini - free the state */
static void iosb_fini(struct iotap_ctx *ctx)
{
	struct iosb_state *st = ctx->state;

	systrack_free(st->sys);
	blktrack_free(st->bt);
	iolayers_free(st->il);
	wbtrack_free(st->wb);
	breakdown_release(&st->tab);
	stackmap_free(st->map);
	stack_tagtab_release(&st->tags);
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
		"submitter instead of being charged to a syscall; with --originator, by the processes "
		"that dirtied the pages written back, per inode (writeback tracepoints: see "
		"doc/attribution.md on originators), the journal's writes as '[jbd2 journal]', "
		"inodes dirtied by kernel threads as '[metadata]', and inodes with no dirtying seen "
		"since tracing began as '[no dirtier]'.",
	.examples =
		"iotap iostackbreakdown\n  Every layer, until Ctrl-C.\n"
		"iotap iobreakdown -T syscall,blk -p 1234\n  The syscall and block layers of one process.\n"
		"iotap iostackbreakdown -d sda -Q -m 5 1\n  Five seconds on sda, block time from creation, in milliseconds.\n"
		"iotap iostackbreakdown -i trace.iotap -c postgres\n  From a recording, postgres processes only.\n"
		"iotap iostackbreakdown -T blk --originator 10 1\n  Ten seconds; writeback charged to the writers.\n",
	.banner = "Tracing I/O by layer... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = iosb_opts,
	/* --pprof takes stacks: how to walk them, where binaries are. */
	.common = stack_common_opts,
	.events = iosb_events,
	.probes = iolayers_probes,
	.params_size = sizeof(struct iosb_params),
	.state_size = sizeof(struct iosb_state),
	.init = iosb_init,
	.start = iosb_start,
	.report = iosb_report,
	.fini = iosb_fini,
};
