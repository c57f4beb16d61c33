// SPDX-License-Identifier: GPL-2.0-or-later
/* iouring.c - io_uring request latency per process and opcode, with the block I/O each caused */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "hist.h"
#include "shared.h"
#include "field.h"
#include "hashtab.h"

#define IOU_SLOT_BITS 16
#define IOU_MAX_INFLIGHT (1u << IOU_SLOT_BITS)	/* io_uring requests followed at once */
#define IOU_HASH (1u << 14)			/* req pointer buckets, a power of two */
#define IOU_NONE UINT32_MAX
#define IOU_MAX_TASKS 4096		/* tasks whose current request is followed */
#define IOU_MAX_BIOS (1u << 20)		/* bios waiting for their block request's completion */
#define IOU_BIO_AGE_NS (60ull * 1000000000ull)

struct iouring_params {
	bool timestamp, msecs, snoop, stages;
	const char *comm, *disk;
	int pid;
};

/* Where a block request was issued from, relative to the io_uring request that caused it. */
enum iou_via { IOU_INLINE, IOU_IOWQ, IOU_SQPOLL, IOU_VIA_NR };
/* A bio of no io_uring request (blkreq.op of a bio): an io_uring thread's, or another task's. */
#define IOU_BIO_UNATTR IOU_VIA_NR
#define IOU_BIO_OTHER (IOU_VIA_NR + 1)
static const char *const iou_via_name[IOU_VIA_NR] = { "inline", "io-wq", "sqpoll" };

/* The fields of the io_uring events, by name across the kernels' renames. */
struct iou_fmt {
	struct field ring, req, user_data, opcode, op_str, sq_thread, fd, res;
};

/* One io_uring request in flight: from its submission to its CQE. */
struct iou_req {
	uint64_t req, ring, user_data;
	/*
	 * Ours, never 0 while in flight, 0 when the slot is free: a count above
	 * IOU_SLOT_BITS, the slot below, so a handle (what tasks and bios keep) finds
	 * its slot at once and sees whether the request there is still the same.
	 */
	uint64_t serial;
	uint32_t hnext;			/* next slot in its req bucket */
	uint32_t pid, tid;		/* submitter (an iou-sqp thread under SQPOLL) */
	char comm[16];
	char op[24];
	int fd;				/* -1: not seen (fixed files, no io_uring_file_get) */
	bool sqpoll, punted, worker_seen;
	uint64_t t_submit, t_first, t_last;	/* first bio queued, last block request completed */
	uint32_t nblk;
	uint64_t last_blk;		/* the block request counted last (st->blk_seq), not twice */
	unsigned int via;		/* bit per enum iou_via */
};

/* A task and the io_uring request it is working on (serial 0: none). */
struct iou_task {
	uint32_t tid;
	uint64_t serial;
	bool guessed;			/* a worker's request by iou_worker_guess, not by its start */
	int next_fd;			/* 5.10: the file its next submission looked up, or -1 */
};

struct iouring_state {
	struct blktrack *bt;
	struct blktrack_cfg cfg;	/* -d: the disk whose bios are followed */
	struct block_fmt f_bio;
	struct reqtab *bios;		/* queued bios by (dev, sector); user: the request's serial */
	uint64_t blk_seq;
	struct iou_fmt f_submit, f_async, f_file, f_done, f_wait;
	struct iou_req *rq;		/* slots, stable while a request is in flight */
	size_t nr, cap;
	uint32_t *free_slots;		/* cap of them; nfree free */
	size_t nfree;
	uint32_t bucket[IOU_HASH];	/* by req pointer: first slot, or IOU_NONE */
	struct iou_task *tk;
	size_t ntk, captk;
	struct hashtab tids;		/* tid -> index into tk */
	uint64_t next_serial;
	struct hist_set lat, pre, blk, post;
	/* Counts since the last report. */
	uint64_t requests, punted, sqpoll, nobio;
	uint64_t blk_via[IOU_VIA_NR], blk_unattr, blk_other, blk_unseen, blk_late, blk_flush;
	uint64_t cqe_unknown, evicted, untracked;
	uint64_t t0;
};

#define P(f) offsetof(struct iouring_params, f)
static const struct opt iouring_opts[] = {
	{ 'T', "timestamp", OPT_FLAG, P(timestamp), NULL, "include timestamp on output" },
	{ 'm', "milliseconds", OPT_FLAG, P(msecs), NULL, "millisecond histograms" },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace io_uring requests of this process only" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM",
	  "trace io_uring requests of processes with this name only (the first 15 characters)" },
	TOOL_OPT_DISK_HELP(P(disk), "count block requests on this disk only"),
	{ 0, "stages", OPT_FLAG, P(stages), NULL,
	  "also print histograms of each stage: before the first bio was queued, block, after the last block completion" },
	{ 0, "snoop", OPT_FLAG, P(snoop), NULL,
	  "print one line per request as its CQE is posted instead of histograms" },
	OPT_END
};

/*
 * The io_uring events are recorded when iouring is named (record --tools iouring, --all):
 * a program that runs network I/O through io_uring makes them by the million, none of it
 * block I/O, and a default recording must not grow with that.
 */
static const struct tool_event iouring_events[] = {
	{ "io_uring", "io_uring_complete", TOOL_EV_OPTIN },
	{ "io_uring", "io_uring_submit_req", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN },
	{ "io_uring", "io_uring_submit_sqe", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN },
	{ "io_uring", "io_uring_queue_async_work", TOOL_EV_OPTIN },
	{ "io_uring", "io_uring_file_get", TOOL_EV_OPTIN },
	/* Optional: without it (a recording made before iouring took it) a wait ends nothing. */
	{ "io_uring", "io_uring_cqring_wait", TOOL_EV_OPTIONAL | TOOL_EV_OPTIN },
	{ "block", "block_bio_queue", 0 },
	TOOL_EVENTS_BLOCK_RQ,
	/* Who asked for a flush: blktrack traces it for flushes alone. */
	{ "block", "block_io_start", TOOL_EV_OPTIONAL },
	{ NULL, NULL, 0 }
};

/* Opcode names for kernels whose events carry no op_str (5.10: include/uapi/linux/io_uring.h). */
static const char *const iou_opnames[] = {
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD",
	"POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE",
	"ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE",
	"FILES_UPDATE", "STATX", "READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV",
	"OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
};

/* iou_fmt_init - locate the fields; only ring is required of every event (the others: absent) */
static int iou_fmt_init(struct iou_fmt *f, struct iotap_event *ev)
{
	static const char *const data[] = { "user_data", "data", NULL };
	struct tep_event *tev = iotap_event_format(ev);

	field_init(&f->req, tev, "req");
	field_init_any(&f->user_data, tev, data);
	field_init(&f->opcode, tev, "opcode");
	field_init(&f->op_str, tev, "op_str");
	field_init(&f->sq_thread, tev, "sq_thread");
	field_init(&f->fd, tev, "fd");
	field_init(&f->res, tev, "res");
	return field_init(&f->ring, tev, "ctx");
}

/* iou_bucket - the bucket of a req pointer */
static uint32_t *iou_bucket(struct iouring_state *st, uint64_t req)
{
	return &st->bucket[hashtab_mix(req) & (IOU_HASH - 1)];
}

/* iou_find - the in-flight request with this req pointer, or NULL */
static struct iou_req *iou_find(struct iouring_state *st, uint64_t req)
{
	for (uint32_t i = *iou_bucket(st, req); i != IOU_NONE; i = st->rq[i].hnext)
		if (st->rq[i].req == req)
			return &st->rq[i];
	return NULL;
}

/*
 * iou_find_data - the oldest in-flight request of ring with user_data, for 5.10,
 * whose io_uring_complete has no req: a walk over every slot
 */
static struct iou_req *iou_find_data(struct iouring_state *st, uint64_t ring, uint64_t data)
{
	struct iou_req *best = NULL;

	for (size_t i = 0; i < st->cap; i++)
		if (st->rq[i].serial && st->rq[i].ring == ring && st->rq[i].user_data == data &&
		    (!best || st->rq[i].t_submit < best->t_submit))
			best = &st->rq[i];
	return best;
}

/* iou_find_serial - the in-flight request a handle names, or NULL (it completed since) */
static struct iou_req *iou_find_serial(struct iouring_state *st, uint64_t serial)
{
	size_t slot = serial & (IOU_MAX_INFLIGHT - 1);

	return serial && slot < st->cap && st->rq[slot].serial == serial ? &st->rq[slot] : NULL;
}

/* iou_task - tid's entry, made when new (NULL: out of room, or ENOMEM) */
static struct iou_task *iou_task(struct iouring_state *st, uint32_t tid, bool make)
{
	struct hashtab_pos pos;
	struct iou_task *t;
	uint32_t *v;

	for (v = hashtab_find(&st->tids, hashtab_mix(tid), &pos); v;
	     v = hashtab_find_next(&st->tids, &pos))
		if (st->tk[*v].tid == tid)
			return &st->tk[*v];
	if (!make || st->ntk == IOU_MAX_TASKS)
		return NULL;
	if (array_reserve(&st->tk, &st->captk, st->ntk + 1, sizeof(*st->tk), 64))
		return NULL;
	if (hashtab_add(&st->tids, &pos, (uint32_t)st->ntk))
		return NULL;
	t = &st->tk[st->ntk++];
	t->tid = tid;
	t->serial = 0;
	t->guessed = false;
	t->next_fd = -1;
	return t;
}

/* iou_task_set - tid works on serial now (0: on none) */
static int iou_task_set(struct iouring_state *st, uint32_t tid, uint64_t serial)
{
	struct iou_task *t = iou_task(st, tid, true);

	if (!t)
		return st->ntk == IOU_MAX_TASKS ? 0 : -ENOMEM;
	t->serial = serial;
	t->guessed = false;
	return 0;
}

/* iou_remove - forget a request; handles to it (tasks', bios') find nothing from now on */
static void iou_remove(struct iouring_state *st, struct iou_req *r)
{
	uint32_t slot = (uint32_t)(r - st->rq), *p = iou_bucket(st, r->req);

	while (*p != slot)
		p = &st->rq[*p].hnext;
	*p = r->hnext;
	r->serial = 0;
	st->free_slots[st->nfree++] = slot;
	st->nr--;
}

/* iou_slot - a free slot, the slots grown when all are taken: its index, or IOU_NONE */
static uint32_t iou_slot(struct iouring_state *st)
{
	if (!st->nfree) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct iou_req *n;
		uint32_t *f;

		if (cap > IOU_MAX_INFLIGHT)
			return IOU_NONE;
		n = realloc(st->rq, cap * sizeof(*n));
		if (!n)
			return IOU_NONE;
		st->rq = n;
		f = realloc(st->free_slots, cap * sizeof(*f));
		if (!f)
			return IOU_NONE;
		st->free_slots = f;
		memset(&st->rq[st->cap], 0, (cap - st->cap) * sizeof(*n));
		for (size_t i = cap; i > st->cap; i--)
			st->free_slots[st->nfree++] = (uint32_t)(i - 1);
		st->cap = cap;
	}
	return st->free_slots[--st->nfree];
}

/* iou_keep - whether -p, -c and --cgroup keep a submission of this task */
static bool iou_keep(struct iotap_ctx *ctx, const struct perf_sample *s)
{
	struct iouring_params *p = ctx->params;

	if (p->pid && (int)s->pid != p->pid)
		return false;
	if (p->comm && strncmp(iotap_comm(ctx, s->pid), p->comm, 15))
		return false;
	return iotap_cgroup_match(ctx, s);
}

/* iou_op - the opcode's name: op_str where the event has it, else the table */
static void iou_op(const struct iou_fmt *f, const struct perf_sample *s, char *buf, size_t len)
{
	uint64_t op = field_u64(&f->opcode, s->raw, s->raw_size);

	if (f->op_str.present && field_str(&f->op_str, s->raw, s->raw_size, buf, len))
		return;
	if (op < sizeof(iou_opnames) / sizeof(iou_opnames[0]))
		snprintf(buf, len, "%s", iou_opnames[op]);
	else
		snprintf(buf, len, "op%u", (unsigned int)op);
}

/* iou_on_submit - a request enters the kernel: io_uring_submit_req (io_uring_submit_sqe before 5.18) */
static int iou_on_submit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iouring_state *st = ctx->state;
	const struct iou_fmt *f = &st->f_submit;
	uint64_t req = field_u64(&f->req, s->raw, s->raw_size);
	struct iou_task *t;
	struct iou_req *r;
	uint32_t slot;
	int ret;

	if (!iou_keep(ctx, s))
		return 0;
	/* The same req again: its completion was not seen (lost, or cancelled without a CQE). */
	r = iou_find(st, req);
	if (r) {
		st->evicted++;
		iou_remove(st, r);
	}
	slot = iou_slot(st);
	if (slot == IOU_NONE) {
		if (st->cap < IOU_MAX_INFLIGHT)
			return -ENOMEM;
		/* As many in flight as are followed: this one is not, and says so. */
		st->untracked++;
		return iou_task_set(st, s->tid, 0);
	}
	r = &st->rq[slot];
	memset(r, 0, sizeof(*r));
	r->req = req;
	r->hnext = *iou_bucket(st, req);
	*iou_bucket(st, req) = slot;
	st->nr++;
	r->ring = field_u64(&f->ring, s->raw, s->raw_size);
	r->user_data = field_u64(&f->user_data, s->raw, s->raw_size);
	r->serial = (++st->next_serial << IOU_SLOT_BITS) | slot;
	r->pid = s->pid;
	r->tid = s->tid;
	snprintf(r->comm, sizeof(r->comm), "%s", iotap_comm(ctx, s->pid));
	iou_op(f, s, r->op, sizeof(r->op));
	r->fd = -1;
	r->sqpoll = field_u64(&f->sq_thread, s->raw, s->raw_size) != 0;
	r->t_submit = s->time;
	ret = iou_task_set(st, s->tid, r->serial);
	t = iou_task(st, s->tid, false);
	if (t && t->next_fd >= 0) {
		r->fd = t->next_fd;
		t->next_fd = -1;
	}
	return ret;
}

/* iou_on_async - the request is punted to io-wq: its submitter is done with it */
static int iou_on_async(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iouring_state *st = ctx->state;
	struct iou_req *r = iou_find(st, field_u64(&st->f_async.req, s->raw, s->raw_size));
	struct iou_task *t;

	if (!r)
		return 0;
	r->punted = true;
	t = iou_task(st, s->tid, false);
	if (t && t->serial == r->serial)
		t->serial = 0;
	return 0;
}

/*
 * iou_on_file - the request's file is looked up: in the submitter when issued
 * inline, in an io-wq worker that starts a request punted before its file was
 * needed (IOSQE_ASYNC, fsync; on 6.18, not 6.12, whose submitter looks it up
 * before the punt): that worker works on it from now on.
 */
static int iou_on_file(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iouring_state *st = ctx->state;
	const struct iou_fmt *f = &st->f_file;
	struct iou_req *r;

	if (f->req.present) {
		r = iou_find(st, field_u64(&f->req, s->raw, s->raw_size));
	} else {
		/* 5.10: no req, and the lookup comes before the submission it is for. */
		struct iou_task *t = iou_task(st, s->tid, true);

		if (!t)
			return st->ntk == IOU_MAX_TASKS ? 0 : -ENOMEM;
		t->next_fd = (int)field_s64(&f->fd, s->raw, s->raw_size);
		return 0;
	}
	if (!r)
		return 0;
	if (r->fd < 0)
		r->fd = (int)field_s64(&f->fd, s->raw, s->raw_size);
	if (s->tid == r->tid)
		return 0;
	r->worker_seen = true;
	return iou_task_set(st, s->tid, r->serial);
}

/*
 * iou_on_wait - the task waits for CQEs: it submits nothing more in this
 * io_uring_enter, so the block I/O it does next (a pread) is no request's
 */
static int iou_on_wait(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iou_task *t = iou_task(ctx->state, s->tid, false);

	if (t)
		t->serial = 0;
	return 0;
}

/* iou_snoop - one line for a request whose CQE was posted at t */
static int iou_snoop(struct iotap_ctx *ctx, const struct iou_req *r, uint64_t t, int64_t res)
{
	struct iouring_state *st = ctx->state;
	char file[96] = "-", via[32] = "";

	if (!st->t0) {
		st->t0 = t;
		fprintf(ctx->out, "%-10s %-14s %-7s %-12s %-4s %-18s %8s %4s %9s %9s %9s %9s %-8s %s\n",
			"TIME(s)", "COMM", "PID", "OP", "FD", "USER_DATA", "RES", "BLK", "TOTAL_us",
			"BEFORE_us", "BLOCK_us", "AFTER_us", "VIA", "FILE");
	}
	if (r->fd >= 0 && iotap_fd_path(ctx, r->pid, r->fd, file, sizeof(file)))
		snprintf(file, sizeof(file), "[fd %d]", r->fd);
	for (int i = 0; i < IOU_VIA_NR; i++)
		if (r->via & (1u << i))
			snprintf(via + strlen(via), sizeof(via) - strlen(via), "%s%s",
				 via[0] ? "," : "", iou_via_name[i]);
	fprintf(ctx->out, "%-10.6f %-14.14s %-7u %-12.12s %-4d 0x%-16llx %8lld %4u %9.1f ",
		(double)(t - st->t0) / 1e9, r->comm, r->pid, r->op, r->fd,
		(unsigned long long)r->user_data, (long long)res, r->nblk, (t - r->t_submit) / 1e3);
	if (r->nblk)
		fprintf(ctx->out, "%9.1f %9.1f %9.1f ", (r->t_first - r->t_submit) / 1e3,
			(r->t_last - r->t_first) / 1e3, (t > r->t_last ? t - r->t_last : 0) / 1e3);
	else
		fprintf(ctx->out, "%9s %9s %9s ", "-", "-", "-");
	fprintf(ctx->out, "%-8s %s\n", via[0] ? via : "-", file);
	return 0;
}

/* iou_hist_add - v (ns) into key's histogram of hs, in the unit asked for */
static int iou_hist_add(struct iotap_ctx *ctx, struct hist_set *hs, const char *key, uint64_t v)
{
	struct iouring_params *p = ctx->params;
	struct hist *h = hist_set_get(hs, key);

	return h && !hist_add(h, v / (p->msecs ? 1000000 : 1000)) ? 0 : -ENOMEM;
}

/* iou_on_complete - the CQE is posted: the request's latency and stages */
static int iou_on_complete(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	const struct iou_fmt *f = &st->f_done;
	int64_t res = field_s64(&f->res, s->raw, s->raw_size);
	struct iou_req *r;
	char key[96];
	int ret = 0;

	if (f->req.present)
		r = iou_find(st, field_u64(&f->req, s->raw, s->raw_size));
	else
		r = iou_find_data(st, field_u64(&f->ring, s->raw, s->raw_size),
				  field_u64(&f->user_data, s->raw, s->raw_size));
	if (!r) {
		if (iou_keep(ctx, s))
			st->cqe_unknown++;
		return 0;
	}
	st->requests++;
	st->punted += r->punted;
	st->sqpoll += r->sqpoll;
	st->nobio += !r->nblk;
	if (p->snoop) {
		ret = iou_snoop(ctx, r, s->time, res);
	} else {
		snprintf(key, sizeof(key), "%s [%u] %s", r->comm, r->pid, r->op);
		ret = iou_hist_add(ctx, &st->lat, key, s->time - r->t_submit);
		if (!ret && p->stages && r->nblk)
			ret = iou_hist_add(ctx, &st->pre, key, r->t_first - r->t_submit);
		if (!ret && p->stages && r->nblk)
			ret = iou_hist_add(ctx, &st->blk, key, r->t_last - r->t_first);
		if (!ret && p->stages && r->nblk)
			ret = iou_hist_add(ctx, &st->post, key,
					   s->time > r->t_last ? s->time - r->t_last : 0);
	}
	iou_remove(st, r);
	return ret;
}

/*
 * iou_worker_owner - the task whose io-wq an iou-wrk-TID worker serves; UINT32_MAX for
 * 5.10's io_wqe_worker-N threads, which serve a ring, not a task; 0: not a worker
 */
static uint32_t iou_worker_owner(const char *comm)
{
	char *end;
	unsigned long tid;

	if (!strncmp(comm, "io_wqe_worker", 13))
		return UINT32_MAX;
	if (strncmp(comm, "iou-wrk-", 8))
		return 0;
	tid = strtoul(comm + 8, &end, 10);
	return *end || tid >= UINT32_MAX ? 0 : (uint32_t)tid;
}

/*
 * iou_worker_guess - a worker issues block I/O and no start of a request was
 * seen in it (punted after its file was assigned): the one punted request of
 * its owner that no worker was seen starting, if there is exactly one.
 */
static struct iou_req *iou_worker_guess(struct iouring_state *st, uint32_t owner, size_t *waiting)
{
	struct iou_req *found = NULL;

	*waiting = 0;
	for (size_t i = 0; owner && i < st->cap; i++) {
		struct iou_req *r = &st->rq[i];

		if (!r->serial || (owner != UINT32_MAX && r->tid != owner) || !r->punted || r->worker_seen)
			continue;
		found = r;
		++*waiting;
	}
	return *waiting == 1 ? found : NULL;
}

/* iou_on_bio - a bio is queued, in the task that submits it: whose io_uring request? */
static int iou_on_bio(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iouring_state *st = ctx->state;
	struct iou_task *t = iou_task(st, s->tid, false);
	struct iou_req *r = t ? iou_find_serial(st, t->serial) : NULL, *g;
	struct block_rq rq;
	struct blkreq *b;
	size_t waiting;

	if (block_rq_decode(&st->f_bio, s->raw, s->raw_size, &rq) || !rq.nr_sector ||
	    (st->cfg.has_dev && rq.dev != st->cfg.dev))
		return 0;
	/*
	 * A worker's guessed request holds only while no other punted request waits
	 * unseen: the worker may have moved on to it, and nothing would say so.
	 */
	if (!r || (t && t->guessed)) {
		g = iou_worker_guess(st, iou_worker_owner(rq.comm), &waiting);
		if (r && waiting)
			r = g = NULL;	/* its guessed request's, or the waiting one's */
		if (!r && g) {
			r = g;
			r->worker_seen = true;
			if (iou_task_set(st, s->tid, r->serial))
				return -ENOMEM;
			t = iou_task(st, s->tid, false);
			if (t)
				t->guessed = true;
		}
	}
	b = reqtab_insert(st->bios, rq.dev, rq.sector, s->time);
	b->nr_sector = rq.nr_sector;
	b->user = r ? r->serial : 0;
	if (!r) {
		b->op = !strncmp(rq.comm, "iou-", 4) || iou_worker_owner(rq.comm) ?
			IOU_BIO_UNATTR : IOU_BIO_OTHER;
		return 0;
	}
	b->op = s->tid != r->tid ? IOU_IOWQ : r->sqpoll ? IOU_SQPOLL : IOU_INLINE;
	r->via |= 1u << b->op;
	if (!r->t_first)
		r->t_first = s->time;
	return 0;
}

/* iou_credit - a completed block request held a bio of request serial */
static void iou_credit(struct iouring_state *st, uint64_t serial, const struct blk_io *io)
{
	struct iou_req *r = iou_find_serial(st, serial);

	if (!r) {
		st->blk_late++;
		return;
	}
	if (r->last_blk == st->blk_seq)
		return;
	r->last_blk = st->blk_seq;
	r->nblk++;
	if (io->t_done > r->t_last)
		r->t_last = io->t_done;
}

/*
 * iou_on_blk_done - a block request completed: the bios it held, found from
 * its first sector on, each ending where the next begins (back and front
 * merges); a bio split over several requests is left, shortened, for the next.
 * The request counts as its first bio's; it is every request's whose bio it held.
 */
static int iou_on_blk_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct iouring_state *st = ctx->state;
	uint64_t sec = io->sector, end = io->sector + io->nr_sector;
	int kind = -1;
	struct blkreq *b;

	st->blk_seq++;
	while (sec < end && (b = reqtab_find(st->bios, io->dev, sec))) {
		uint64_t bend = sec + b->nr_sector;

		if (kind < 0)
			kind = b->op;
		if (b->user)
			iou_credit(st, b->user, io);
		if (bend > end) {
			b->nr_sector = bend - end;
			reqtab_rekey(st->bios, b, end);
			break;
		}
		reqtab_remove(st->bios, b);
		sec = bend;
	}
	if (kind < 0)
		st->blk_unseen++;
	else if (kind < IOU_VIA_NR)
		st->blk_via[kind]++;
	else if (kind == IOU_BIO_UNATTR)
		st->blk_unattr++;
	else
		st->blk_other++;
	return 0;
}

/* iou_on_blk_flush - a flush (no data) completed: counted, never attributed (no task to key it on) */
static int iou_on_blk_flush(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct iouring_state *st = ctx->state;

	st->blk_flush++;
	return 0;
}

/* iou_use - subscribe to one io_uring event and locate its fields */
static int iou_use(struct iotap_ctx *ctx, const char *name, iotap_handler_fn fn, struct iou_fmt *f)
{
	struct iotap_event *ev = iotap_event_use(ctx, "io_uring", name, 0, fn, NULL);

	if (!ev)
		return -errno;
	if (iou_fmt_init(f, ev)) {
		iotap_err(ctx, "io_uring:%s has no ctx field", name);
		return -ENOENT;
	}
	return 0;
}

/* iouring_init - the io_uring events, then the block requests with their submitter */
static int iouring_init(struct iotap_ctx *ctx)
{
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	struct blktrack_cfg *cfg = &st->cfg;
	struct iotap_event *ev;
	const char *submit = iotap_event_available(ctx, "io_uring", "io_uring_submit_req") ?
			     "io_uring_submit_req" : "io_uring_submit_sqe";
	int ret;

	if (p->snoop && p->stages) {
		iotap_err(ctx, "--stages prints histograms: not with --snoop");
		return -EINVAL;
	}
	memset(st->bucket, 0xff, sizeof(st->bucket));
	ret = hashtab_init(&st->tids, 64);
	if (ret)
		return ret;
	ret = iou_use(ctx, "io_uring_complete", iou_on_complete, &st->f_done);
	if (!ret)
		ret = iou_use(ctx, submit, iou_on_submit, &st->f_submit);
	if (!ret)
		ret = iou_use(ctx, "io_uring_queue_async_work", iou_on_async, &st->f_async);
	if (!ret)
		ret = iou_use(ctx, "io_uring_file_get", iou_on_file, &st->f_file);
	if (!ret && iotap_event_available(ctx, "io_uring", "io_uring_cqring_wait"))
		ret = iou_use(ctx, "io_uring_cqring_wait", iou_on_wait, &st->f_wait);
	if (!ret && !st->f_submit.req.present) {
		iotap_err(ctx, "io_uring:%s has no req field", submit);
		ret = -ENOENT;
	}
	if (ret)
		return ret;
	*cfg = (struct blktrack_cfg){
		.on_done = iou_on_blk_done,
		.on_nodata = iou_on_blk_flush,
		.arg = ctx,
	};
	ret = blktrack_cfg_select(cfg, ctx, p->disk, 0);
	if (ret)
		return ret;
	st->bios = reqtab_alloc(IOU_MAX_BIOS, IOU_BIO_AGE_NS);
	if (!st->bios)
		return -errno;
	ev = iotap_event_use(ctx, "block", "block_bio_queue", 0, iou_on_bio, NULL);
	if (!ev)
		return -errno;
	if (block_fmt_init(&st->f_bio, iotap_event_format(ev))) {
		iotap_err(ctx, "block:block_bio_queue has no dev/sector/nr_sector/rwbs fields");
		return -ENOENT;
	}
	if (cfg->has_dev) {
		ret = iotap_event_filter(ev, "dev == %u", cfg->dev);
		if (ret)
			return ret;
	}
	return blktrack_create(&st->bt, ctx, cfg);
}

/* iouring_print_set - one histogram set with its sections */
static int iouring_print_set(struct iotap_ctx *ctx, struct hist_set *hs, const char *title)
{
	struct iouring_params *p = ctx->params;
	int ret = 0;

	hist_set_sort(hs);
	for (size_t i = 0; i < hs->nr && !ret; i++) {
		fprintf(ctx->out, "\n%s = %s\n", title, hs->keys[i]);
		ret = hist_print_log2(&hs->h[i], ctx->out, p->msecs ? "msecs" : "usecs");
	}
	return ret;
}

/* iouring_report - histograms and counts of the interval, then reset */
static int iouring_report(struct iotap_ctx *ctx)
{
	struct iouring_params *p = ctx->params;
	struct iouring_state *st = ctx->state;
	uint64_t attr = st->blk_via[IOU_INLINE] + st->blk_via[IOU_IOWQ] + st->blk_via[IOU_SQPOLL];
	int ret = 0;

	if (!p->snoop) {
		iotap_interval_header(ctx, p->timestamp);
		ret = iouring_print_set(ctx, &st->lat, "request (comm [pid] op), submit to CQE");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->pre, "before its first bio was queued");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->blk, "block (first bio queued to last block completion)");
		if (!ret && p->stages)
			ret = iouring_print_set(ctx, &st->post, "after the last block completion");
		fprintf(ctx->out, "\nio_uring requests: %llu completed, %llu punted to io-wq, "
			"%llu submitted by SQPOLL, %llu without block I/O\n",
			(unsigned long long)st->requests, (unsigned long long)st->punted,
			(unsigned long long)st->sqpoll, (unsigned long long)st->nobio);
		fprintf(ctx->out, "block requests: %llu attributed (inline %llu, io-wq %llu, "
			"sqpoll %llu), %llu unattributed from io_uring threads, %llu from other tasks, "
			"%llu whose bios were not seen, %llu flushes (not attributed)\n",
			(unsigned long long)attr, (unsigned long long)st->blk_via[IOU_INLINE],
			(unsigned long long)st->blk_via[IOU_IOWQ],
			(unsigned long long)st->blk_via[IOU_SQPOLL],
			(unsigned long long)st->blk_unattr, (unsigned long long)st->blk_other,
			(unsigned long long)st->blk_unseen, (unsigned long long)st->blk_flush);
		if (st->cqe_unknown || st->evicted || st->blk_late || st->untracked)
			fprintf(ctx->out, "not timed: %llu CQEs of requests submitted before tracing, "
				"%llu requests without a CQE, %llu block completions after the CQE, "
				"%llu requests beyond %u in flight\n",
				(unsigned long long)st->cqe_unknown, (unsigned long long)st->evicted,
				(unsigned long long)st->blk_late, (unsigned long long)st->untracked,
				IOU_MAX_INFLIGHT);
	}
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	hist_set_reset(&st->lat);
	hist_set_reset(&st->pre);
	hist_set_reset(&st->blk);
	hist_set_reset(&st->post);
	st->requests = st->punted = st->sqpoll = st->nobio = 0;
	memset(st->blk_via, 0, sizeof(st->blk_via));
	st->blk_unattr = st->blk_other = st->blk_unseen = st->blk_late = st->blk_flush = st->cqe_unknown = st->evicted = 0;
	st->untracked = 0;
	return ret ? ret : ferror(ctx->out) ? -EIO : 0;
}

/* iouring_fini - free the state */
static void iouring_fini(struct iotap_ctx *ctx)
{
	struct iouring_state *st = ctx->state;

	blktrack_free(st->bt);
	reqtab_free(st->bios);
	hist_set_release(&st->lat);
	hist_set_release(&st->pre);
	hist_set_release(&st->blk);
	hist_set_release(&st->post);
	free(st->rq);
	free(st->free_slots);
	free(st->tk);
	hashtab_release(&st->tids);
}

const struct tool tool_iouring = {
	.name = "iouring",
	.alias = "iouringlat",
	.summary = "Summarize io_uring request latency per process and opcode, with the block I/O each caused.",
	.description =
		"Traces io_uring requests from submission (io_uring_submit_req, io_uring_submit_sqe "
		"before 5.18) to the posting of their CQE (io_uring_complete) and prints, per process "
		"and opcode, a histogram of that latency. Every block request is attributed to the "
		"io_uring requests whose bios it holds, each bio to the request its task was working "
		"on when it queued it (block_bio_queue): the submitting task between the submission "
		"and the request's punt, its completion or the task's wait for CQEs (inline), the "
		"iou-sqp thread under SQPOLL, or "
		"the io-wq worker that looked up the request's file (io_uring_file_get) or, when the "
		"file was looked up before the punt, the worker owner's only punted request that no "
		"worker was seen starting. Block requests of io_uring threads that fit none of these "
		"are counted as unattributed, other tasks' apart. Each request's time splits into "
		"before its first bio was queued, block (from then until its last block request "
		"completed: queue and device), and after that until the CQE. The counts say how many "
		"requests were punted to io-wq (io_uring_queue_async_work), submitted by an SQPOLL "
		"thread, or needed no block I/O (the page cache served them, or another disk than -d). "
		"File names (--snoop) are what /proc/PID/fd names when the line is printed; fixed "
		"files (registered, as SQPOLL programs use) have no descriptor in the events.",
	.examples =
		"iotap iouring\n  Trace until Ctrl-C, then print a histogram per process and opcode.\n"
		"iotap iouring --stages -d nvme0n1 5 1\n"
		"  Five seconds, with the stage histograms, counting block I/O on nvme0n1 only.\n"
		"iotap iouring --snoop -c postgres\n  One line per request of processes named postgres.\n",
	.banner = "Tracing io_uring requests... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.opts = iouring_opts,
	.events = iouring_events,
	.params_size = sizeof(struct iouring_params),
	.state_size = sizeof(struct iouring_state),
	.init = iouring_init,
	.report = iouring_report,
	.fini = iouring_fini,
};
