// SPDX-License-Identifier: GPL-2.0-or-later
/* otf2report.c - report --otf2's analysis: block requests and file reads and writes as OTF2 I/O */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blktrack.h"
#include "otf2write.h"
#include "systrack.h"
#include "tools/otf2report.h"
#include "tools/shared.h"

/*
 * A request's tag (blkreq.user): its operation's matching id + 1, whether it was issued and
 * whether it began as a write.
 */
#define OR_ISSUED (1ull << 63)
#define OR_WRITE (1ull << 62)
#define OR_ID(user) (((user) & ~(OR_ISSUED | OR_WRITE)) - 1)
#define OR_S(n) ((n) == 1 ? "" : "s")

struct otf2report_state {
	struct blktrack *bt;
	struct systrack *sys;
	uint64_t other;			/* completed requests neither read nor write (discards...): left out */
};

static const struct tool_event or_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	SYSTRACK_EVENTS_RW,
	SYSTRACK_EVENTS_OPEN,
	SYSTRACK_EVENTS_NAMES,
	{ NULL, NULL, 0 }
};

/* or_loc - the location of thread tid of process pid, named by what the input calls it now */
static int or_loc(struct iotap_ctx *ctx, uint32_t pid, uint32_t tid, uint32_t *loc)
{
	struct otf2report_params *p = ctx->params;

	return otf2_defs_location(otf2w_defs(p->w), pid, tid ? tid : pid, iotap_comm(ctx, pid), loc);
}

/* or_rq_begin - a read or write request begins at t on its submitter's thread and its disk */
static int or_rq_begin(struct iotap_ctx *ctx, struct blkreq *r, uint64_t t)
{
	struct otf2report_params *p = ctx->params;
	uint32_t loc, h;
	uint64_t id;
	int ret;

	if (r->op != BLOCK_OP_READ && r->op != BLOCK_OP_WRITE)
		return 0;
	ret = or_loc(ctx, r->pid, r->tid, &loc);
	if (!ret)
		ret = otf2_defs_disk(otf2w_defs(p->w), r->dev, iotap_disk_name(ctx, r->dev), &h);
	if (!ret)
		ret = otf2w_begin(p->w, loc, h, t, r->op == BLOCK_OP_READ ? OTF2W_READ : OTF2W_WRITE,
				  true, r->bytes, &id);
	if (ret)
		return ret;
	r->user = (id + 1) | (r->op == BLOCK_OP_WRITE ? OR_WRITE : 0);
	return 0;
}

/* or_on_start - the submitter's event: the request begins */
static int or_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	return r->user ? 0 : or_rq_begin(arg, r, r->t_start);
}

/* or_issued_other - whether r is issued as another operation than it began as */
static bool or_issued_other(const struct blkreq *r)
{
	bool write = r->user & OR_WRITE;

	if (r->op == BLOCK_OP_READ)
		return write;
	return r->op != BLOCK_OP_WRITE || !write;
}

/*
 * or_on_issue - the driver takes it; one whose start was not seen begins here. An issue that
 * is not the operation the request began as (two requests of one sector, a discard and a
 * write, issued the other way round: blktrack gives the first started the first issued)
 * cancels it, and it begins again as issued, as report counts it.
 */
static int or_on_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct otf2report_params *p = ctx->params;
	int ret;

	if (r->user && !(r->user & OR_ISSUED) && or_issued_other(r)) {
		ret = otf2w_cancel(p->w, OR_ID(r->user), r->t_issue);
		r->user = 0;
		if (ret)
			return ret;
	}
	if (!r->user) {
		ret = or_rq_begin(ctx, r, r->t_issue);
		if (ret || !r->user)
			return ret;
	}
	/* A request the driver gave back and takes again was issued once already. */
	if (r->user & OR_ISSUED)
		return 0;
	r->user |= OR_ISSUED;
	return otf2w_issued(p->w, OR_ID(r->user), r->t_issue);
}

/* or_on_done - completion with its size, as the kernel counts it even when it failed, and its error */
static int or_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct otf2report_params *p = ctx->params;
	struct otf2report_state *st = ctx->state;

	if (!io->user) {
		st->other += io->op != BLOCK_OP_READ && io->op != BLOCK_OP_WRITE;
		return 0;
	}
	return otf2w_complete(p->w, OR_ID(io->user), io->t_done, io->bytes, io->error);
}

/* or_on_enter - a read or write syscall begins, on its file's handle */
static int or_on_enter(void *arg, struct sys_call *c)
{
	struct iotap_ctx *ctx = arg;
	struct otf2report_params *p = ctx->params;
	char name[48];
	uint32_t loc, h;
	uint64_t id;
	int ret;

	/* A descriptor whose file is not known is a file of its own, per process. */
	if (!c->path)
		snprintf(name, sizeof(name), "[fd %d of pid %u]", c->fd, c->pid);
	ret = or_loc(ctx, c->pid, c->tid, &loc);
	if (!ret)
		ret = otf2_defs_file(otf2w_defs(p->w), c->path ? c->path : name, &h);
	if (!ret)
		ret = otf2w_begin(p->w, loc, h, c->t_enter,
				  c->kind == SYS_READ ? OTF2W_READ : OTF2W_WRITE, false, c->count, &id);
	if (ret)
		return ret;
	c->user[0] = id + 1;
	return 0;
}

/* or_on_exit - it returned: the bytes it moved, or none and its error */
static int or_on_exit(void *arg, struct sys_call *c, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct otf2report_params *p = ctx->params;

	if (!c->user[0])
		return 0;
	if (c->ret < 0)
		return otf2w_complete(p->w, c->user[0] - 1, c->t_exit, 0, (int)c->ret);
	return otf2w_complete(p->w, c->user[0] - 1, c->t_exit, (uint64_t)c->ret, 0);
}

/* or_init - the block requests and the read and write syscalls, each where the input has them */
static int or_init(struct iotap_ctx *ctx)
{
	struct otf2report_state *st = ctx->state;
	struct blktrack_cfg bcfg = {
		.flags = BT_START | BT_START_OPTIONAL,
		.on_start = or_on_start,
		.on_issue = or_on_issue,
		.on_done = or_on_done,
		.arg = ctx,
	};
	struct systrack_cfg scfg = {
		.kinds = SYS_KIND(SYS_READ) | SYS_KIND(SYS_WRITE),
		.names = true,
		.on_enter = or_on_enter,
		.on_exit = or_on_exit,
		.arg = ctx,
	};
	bool block = iotap_event_available(ctx, "block", "block_rq_issue") &&
		     iotap_event_available(ctx, "block", "block_rq_complete");
	bool files = iotap_event_available(ctx, "syscalls", "sys_enter_read") &&
		     iotap_event_available(ctx, "syscalls", "sys_exit_read");
	int ret;

	if (!block && !files) {
		iotap_err(ctx, "the input holds neither block requests (block:block_rq_issue and "
			  "block_rq_complete) nor file reads and writes (syscalls:sys_enter_read and "
			  "the others of iotap record --tools fileio): nothing to write");
		return -ENOENT;
	}
	if (!block)
		iotap_info(ctx, "no block requests in the input: only file reads and writes are written");
	if (!files)
		iotap_info(ctx, "no read and write syscalls in the input: only block requests are written");
	if (block) {
		ret = blktrack_create(&st->bt, ctx, &bcfg);
		if (ret)
			return ret;
	}
	return files ? systrack_create(&st->sys, ctx, &scfg) : 0;
}

/* or_meta - what the definitions say of the machine and the span */
static void or_meta(struct iotap_ctx *ctx, struct iotap_machine *mc, struct otf2w_meta *m)
{
	struct otf2report_params *p = ctx->params;
	uint64_t t0 = iotap_start_time(ctx);

	iotap_machine(ctx, mc);
	*m = (struct otf2w_meta){
		.host = mc->host, .sysname = mc->sysname, .release = mc->release,
		.version = mc->version, .arch = mc->arch,
		.description = p->description,
		.t_start = t0, .t_end = iotap_now(ctx),
		.have_wall = true, .wall_offset = (int64_t)(iotap_wall_ns(ctx, t0) - t0),
	};
}

/* or_report - at the end: the open operations cancelled, the definitions written, what was left out said */
static int or_report(struct iotap_ctx *ctx)
{
	struct otf2report_params *p = ctx->params;
	struct otf2report_state *st = ctx->state;
	const struct otf2_defs *d = otf2w_defs(p->w);
	struct iotap_machine mc;
	struct otf2w_meta m;
	uint64_t cancelled;
	int ret;

	if (!ctx->final)
		return 0;
	or_meta(ctx, &mc, &m);
	ret = otf2w_finish(p->w, &m, &cancelled);
	if (ret)
		return ret;
	if (st->bt)
		blktrack_warn_stats(st->bt, ctx);
	if (cancelled)
		iotap_info(ctx, "%llu operation%s had not ended when the input does: cancelled there",
			   (unsigned long long)cancelled, OR_S(cancelled));
	if (d->late)
		iotap_warn(ctx, "%llu event%s came before their thread's last one (by up to %llu ns) "
			   "and are written at its time", (unsigned long long)d->late, OR_S(d->late),
			   (unsigned long long)d->late_max_ns);
	if (st->other)
		iotap_info(ctx, "requests that neither read nor write (discards, write zeroes, ...), "
			   "left out as OTF2 has no operation for them: %llu",
			   (unsigned long long)st->other);
	return 0;
}

/* or_fini - free the trackers; the archive is the caller's */
static void or_fini(struct iotap_ctx *ctx)
{
	struct otf2report_state *st = ctx->state;

	blktrack_free(st->bt);
	systrack_free(st->sys);
}

const struct tool tool_otf2report = {
	.name = "report",
	.summary = "The I/O of report --otf2.",
	.events = or_events,
	.fds_initial = true,
	.params_size = sizeof(struct otf2report_params),
	.state_size = sizeof(struct otf2report_state),
	.init = or_init,
	.report = or_report,
	.fini = or_fini,
};
