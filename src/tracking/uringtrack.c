// SPDX-License-Identifier: GPL-2.0-or-later
/* uringtrack.c - io_uring requests paired from submission to CQE, with the block I/O each caused */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "blktrack.h"
#include "hashtab.h"
#include "uring.h"
#include "uringtrack.h"

#define UT_SLOT_BITS 16
#define UT_HASH (1u << 14)			/* req pointer buckets, a power of two */
#define UT_NONE UINT32_MAX
#define UT_MAX_TASKS 4096		/* tasks whose current request is followed */
#define UT_MAX_BIOS (1u << 20)		/* bios waiting for their block request's completion */
#define UT_BIO_AGE_NS (60ull * 1000000000ull)
/* A bio of no io_uring request (blkreq.op of a bio): an io_uring thread's, or another task's. */
#define UT_BIO_UNATTR URING_VIA_NR
#define UT_BIO_OTHER (URING_VIA_NR + 1)

_Static_assert(URINGTRACK_MAX_INFLIGHT == 1u << UT_SLOT_BITS, "a slot index fits its bits");

/* One io_uring request in flight: from its submission to its CQE. */
struct ut_req {
	struct uring_req r;		/* what on_done sees */
	uint64_t req;
	/*
	 * Ours, never 0 while in flight, 0 when the slot is free: a count above
	 * UT_SLOT_BITS, the slot below, so a handle (what tasks and bios keep) finds
	 * its slot at once and sees whether the request there is still the same.
	 */
	uint64_t serial;
	uint32_t hnext;			/* next slot in its req bucket */
	bool worker_seen;
	uint64_t last_blk;		/* the block request counted last (ut->blk_seq), not twice */
};

/* A task and the io_uring request it is working on (serial 0: none). */
struct ut_task {
	uint32_t tid;
	uint64_t serial;
	bool guessed;			/* a worker's request by ut_worker_guess, not by its start */
	int next_fd;			/* 5.10: the file its next submission looked up, or -1 */
};

struct uringtrack {
	struct iotap_ctx *ctx;
	struct uringtrack_cfg cfg;
	struct blktrack *bt;
	struct blktrack_cfg bcfg;	/* the disk whose bios are followed */
	struct block_fmt f_bio;
	struct reqtab *bios;		/* queued bios by (dev, sector); user: the request's serial */
	uint64_t blk_seq;
	struct uring_fmt f_submit, f_async, f_file, f_done, f_wait;
	struct ut_req *rq;		/* slots, stable while a request is in flight */
	size_t nr, cap;
	uint32_t *free_slots;		/* cap of them; nfree free */
	size_t nfree;
	uint32_t bucket[UT_HASH];	/* by req pointer: first slot, or UT_NONE */
	struct ut_task *tk;
	size_t ntk, captk;
	struct hashtab tids;		/* tid -> index into tk */
	uint64_t next_serial;
	struct uringtrack_stats stats;
};

/* ut_bucket - the bucket of a req pointer */
static uint32_t *ut_bucket(struct uringtrack *ut, uint64_t req)
{
	return &ut->bucket[hashtab_mix(req) & (UT_HASH - 1)];
}

/* ut_find - the in-flight request with this req pointer, or NULL */
static struct ut_req *ut_find(struct uringtrack *ut, uint64_t req)
{
	for (uint32_t i = *ut_bucket(ut, req); i != UT_NONE; i = ut->rq[i].hnext)
		if (ut->rq[i].req == req)
			return &ut->rq[i];
	return NULL;
}

/*
 * ut_find_data - the oldest in-flight request of ring with user_data, for 5.10,
 * whose io_uring_complete has no req: a walk over every slot
 */
static struct ut_req *ut_find_data(struct uringtrack *ut, uint64_t ring, uint64_t data)
{
	struct ut_req *best = NULL;

	for (size_t i = 0; i < ut->cap; i++)
		if (ut->rq[i].serial && ut->rq[i].r.ring == ring && ut->rq[i].r.user_data == data &&
		    (!best || ut->rq[i].r.t_submit < best->r.t_submit))
			best = &ut->rq[i];
	return best;
}

/* ut_find_serial - the in-flight request a handle names, or NULL (it completed since) */
static struct ut_req *ut_find_serial(struct uringtrack *ut, uint64_t serial)
{
	size_t slot = serial & (URINGTRACK_MAX_INFLIGHT - 1);

	return serial && slot < ut->cap && ut->rq[slot].serial == serial ? &ut->rq[slot] : NULL;
}

/* ut_task - tid's entry, made when new (NULL: out of room, or ENOMEM) */
static struct ut_task *ut_task(struct uringtrack *ut, uint32_t tid, bool make)
{
	struct hashtab_pos pos;
	struct ut_task *t;
	uint32_t *v;

	for (v = hashtab_find(&ut->tids, hashtab_mix(tid), &pos); v;
	     v = hashtab_find_next(&ut->tids, &pos))
		if (ut->tk[*v].tid == tid)
			return &ut->tk[*v];
	if (!make || ut->ntk == UT_MAX_TASKS)
		return NULL;
	if (array_reserve(&ut->tk, &ut->captk, ut->ntk + 1, sizeof(*ut->tk), 64))
		return NULL;
	if (hashtab_add(&ut->tids, &pos, (uint32_t)ut->ntk))
		return NULL;
	t = &ut->tk[ut->ntk++];
	t->tid = tid;
	t->serial = 0;
	t->guessed = false;
	t->next_fd = -1;
	return t;
}

/* ut_task_set - tid works on serial now (0: on none): 0, or -ENOMEM */
static int ut_task_set(struct uringtrack *ut, uint32_t tid, uint64_t serial)
{
	struct ut_task *t = ut_task(ut, tid, true);

	if (!t)
		return ut->ntk == UT_MAX_TASKS ? 0 : -ENOMEM;
	t->serial = serial;
	t->guessed = false;
	return 0;
}

/* ut_remove - forget a request; handles to it (tasks', bios') find nothing from now on */
static void ut_remove(struct uringtrack *ut, struct ut_req *r)
{
	uint32_t slot = (uint32_t)(r - ut->rq), *p = ut_bucket(ut, r->req);

	while (*p != slot)
		p = &ut->rq[*p].hnext;
	*p = r->hnext;
	r->serial = 0;
	ut->free_slots[ut->nfree++] = slot;
	ut->nr--;
}

/* ut_slot - a free slot, the slots grown when all are taken: its index, or UT_NONE */
static uint32_t ut_slot(struct uringtrack *ut)
{
	if (!ut->nfree) {
		size_t cap = ut->cap ? ut->cap * 2 : 64;
		struct ut_req *n;
		uint32_t *f;

		if (cap > URINGTRACK_MAX_INFLIGHT)
			return UT_NONE;
		n = realloc(ut->rq, cap * sizeof(*n));
		if (!n)
			return UT_NONE;
		ut->rq = n;
		f = realloc(ut->free_slots, cap * sizeof(*f));
		if (!f)
			return UT_NONE;
		ut->free_slots = f;
		memset(&ut->rq[ut->cap], 0, (cap - ut->cap) * sizeof(*n));
		for (size_t i = cap; i > ut->cap; i--)
			ut->free_slots[ut->nfree++] = (uint32_t)(i - 1);
		ut->cap = cap;
	}
	return ut->free_slots[--ut->nfree];
}

/* ut_keep - whether cfg's pid and comm and --cgroup keep a submission of this task */
static bool ut_keep(struct uringtrack *ut, const struct perf_sample *s)
{
	if (ut->cfg.pid && (int)s->pid != ut->cfg.pid)
		return false;
	if (ut->cfg.comm && strncmp(iotap_comm(ut->ctx, s->pid), ut->cfg.comm, 15))
		return false;
	return iotap_cgroup_match(ut->ctx, s);
}

/* ut_on_submit - a request enters: io_uring_submit_req (io_uring_submit_sqe before 5.18) */
static int ut_on_submit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct uringtrack *ut = arg;
	struct uring_ev e;
	struct ut_task *t;
	struct ut_req *r;
	uint32_t slot;
	int ret;

	if (uring_ev_decode(&ut->f_submit, s->raw, s->raw_size, &e) || !ut_keep(ut, s))
		return 0;
	/* The same req again: its completion was not seen (lost, or cancelled without a CQE). */
	r = ut_find(ut, e.req);
	if (r) {
		ut->stats.evicted++;
		ut_remove(ut, r);
	}
	slot = ut_slot(ut);
	if (slot == UT_NONE) {
		if (ut->cap < URINGTRACK_MAX_INFLIGHT)
			return -ENOMEM;
		/* As many in flight as are followed: this one is not, and says so. */
		ut->stats.untracked++;
		return ut_task_set(ut, s->tid, 0);
	}
	r = &ut->rq[slot];
	memset(r, 0, sizeof(*r));
	r->req = e.req;
	r->hnext = *ut_bucket(ut, e.req);
	*ut_bucket(ut, e.req) = slot;
	ut->nr++;
	r->r.ring = e.ring;
	r->r.user_data = e.user_data;
	r->serial = (++ut->next_serial << UT_SLOT_BITS) | slot;
	r->r.pid = s->pid;
	r->r.tid = s->tid;
	snprintf(r->r.comm, sizeof(r->r.comm), "%s", iotap_comm(ctx, s->pid));
	memcpy(r->r.op, e.op, sizeof(r->r.op));
	r->r.fd = -1;
	r->r.sqpoll = e.sq_thread;
	r->r.t_submit = s->time;
	ret = ut_task_set(ut, s->tid, r->serial);
	t = ut_task(ut, s->tid, false);
	if (t && t->next_fd >= 0) {
		r->r.fd = t->next_fd;
		t->next_fd = -1;
	}
	return ret;
}

/* ut_on_async - the request is punted to io-wq: its submitter is done with it */
static int ut_on_async(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct uringtrack *ut = arg;
	struct uring_ev e;
	struct ut_task *t;
	struct ut_req *r;

	if (uring_ev_decode(&ut->f_async, s->raw, s->raw_size, &e))
		return 0;
	r = ut_find(ut, e.req);
	if (!r)
		return 0;
	r->r.punted = true;
	t = ut_task(ut, s->tid, false);
	if (t && t->serial == r->serial)
		t->serial = 0;
	return 0;
}

/*
 * ut_on_file - the request's file is looked up: in the submitter when issued
 * inline, in an io-wq worker that starts a request punted before its file was
 * needed (IOSQE_ASYNC, fsync; on 6.18, not 6.12, whose submitter looks it up
 * before the punt): that worker works on it from now on.
 */
static int ut_on_file(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct uringtrack *ut = arg;
	struct uring_ev e;
	struct ut_req *r;

	if (uring_ev_decode(&ut->f_file, s->raw, s->raw_size, &e))
		return 0;
	if (!ut->f_file.req.present) {
		/* 5.10: no req, and the lookup comes before the submission it is for. */
		struct ut_task *t = ut_task(ut, s->tid, true);

		if (!t)
			return ut->ntk == UT_MAX_TASKS ? 0 : -ENOMEM;
		t->next_fd = e.fd;
		return 0;
	}
	r = ut_find(ut, e.req);
	if (!r)
		return 0;
	if (r->r.fd < 0)
		r->r.fd = e.fd;
	if (s->tid == r->r.tid)
		return 0;
	r->worker_seen = true;
	return ut_task_set(ut, s->tid, r->serial);
}

/*
 * ut_on_wait - the task waits for CQEs: it submits nothing more in this
 * io_uring_enter, so the block I/O it does next (a pread) is no request's
 */
static int ut_on_wait(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct ut_task *t = ut_task(arg, s->tid, false);

	if (t)
		t->serial = 0;
	return 0;
}

/* ut_on_complete - the CQE is posted: the request to on_done, then forgotten */
static int ut_on_complete(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct uringtrack *ut = arg;
	struct uring_ev e;
	struct ut_req *r;
	int ret;

	if (uring_ev_decode(&ut->f_done, s->raw, s->raw_size, &e))
		return 0;
	if (ut->f_done.req.present)
		r = ut_find(ut, e.req);
	else
		r = ut_find_data(ut, e.ring, e.user_data);
	if (!r) {
		if (ut_keep(ut, s))
			ut->stats.cqe_unknown++;
		return 0;
	}
	r->r.t_done = s->time;
	r->r.res = e.res;
	ret = ut->cfg.on_done ? ut->cfg.on_done(ut->cfg.arg, &r->r) : 0;
	ut_remove(ut, r);
	return ret;
}

/*
 * ut_worker_owner - the task whose io-wq an iou-wrk-TID worker serves; UINT32_MAX for
 * 5.10's io_wqe_worker-N threads, which serve a ring, not a task; 0: not a worker
 */
static uint32_t ut_worker_owner(const char *comm)
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
 * ut_worker_guess - a worker issues block I/O and no start of a request was
 * seen in it (punted after its file was assigned): the one punted request of
 * its owner that no worker was seen starting, if there is exactly one.
 */
static struct ut_req *ut_worker_guess(struct uringtrack *ut, uint32_t owner, size_t *waiting)
{
	struct ut_req *found = NULL;

	*waiting = 0;
	for (size_t i = 0; owner && i < ut->cap; i++) {
		struct ut_req *r = &ut->rq[i];

		if (!r->serial || (owner != UINT32_MAX && r->r.tid != owner) || !r->r.punted ||
		    r->worker_seen)
			continue;
		found = r;
		++*waiting;
	}
	return *waiting == 1 ? found : NULL;
}

/* ut_on_bio - a bio is queued, in the task that submits it: whose io_uring request? */
static int ut_on_bio(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct uringtrack *ut = arg;
	struct ut_task *t = ut_task(ut, s->tid, false);
	struct ut_req *r = t ? ut_find_serial(ut, t->serial) : NULL, *g;
	struct block_rq rq;
	struct blkreq *b;
	size_t waiting;

	if (block_rq_decode(&ut->f_bio, s->raw, s->raw_size, &rq) || !rq.nr_sector ||
	    (ut->bcfg.has_dev && rq.dev != ut->bcfg.dev))
		return 0;
	/*
	 * A worker's guessed request holds only while no other punted request waits
	 * unseen: the worker may have moved on to it, and nothing would say so.
	 */
	if (!r || (t && t->guessed)) {
		g = ut_worker_guess(ut, ut_worker_owner(rq.comm), &waiting);
		if (r && waiting)
			r = g = NULL;	/* its guessed request's, or the waiting one's */
		if (!r && g) {
			r = g;
			r->worker_seen = true;
			if (ut_task_set(ut, s->tid, r->serial))
				return -ENOMEM;
			t = ut_task(ut, s->tid, false);
			if (t)
				t->guessed = true;
		}
	}
	b = reqtab_insert(ut->bios, rq.dev, rq.sector, s->time);
	b->nr_sector = rq.nr_sector;
	b->user = r ? r->serial : 0;
	if (!r) {
		b->op = !strncmp(rq.comm, "iou-", 4) || ut_worker_owner(rq.comm) ?
			UT_BIO_UNATTR : UT_BIO_OTHER;
		return 0;
	}
	b->op = s->tid != r->r.tid ? URING_IOWQ : r->r.sqpoll ? URING_SQPOLL : URING_INLINE;
	r->r.via |= 1u << b->op;
	if (!r->r.t_first)
		r->r.t_first = s->time;
	return 0;
}

/* ut_credit - a completed block request held a bio of request serial */
static void ut_credit(struct uringtrack *ut, uint64_t serial, const struct blk_io *io)
{
	struct ut_req *r = ut_find_serial(ut, serial);

	if (!r) {
		ut->stats.blk_late++;
		return;
	}
	if (r->last_blk == ut->blk_seq)
		return;
	r->last_blk = ut->blk_seq;
	r->r.nblk++;
	if (io->t_done > r->r.t_last)
		r->r.t_last = io->t_done;
}

/*
 * ut_on_blk_done - a block request completed: the bios it held, found from
 * its first sector on, each ending where the next begins (back and front
 * merges); a bio split over several requests is left, shortened, for the next.
 * The request counts as its first bio's; it is every request's whose bio it held.
 */
static int ut_on_blk_done(void *arg, const struct blk_io *io)
{
	struct uringtrack *ut = arg;
	uint64_t sec = io->sector, end = io->sector + io->nr_sector;
	int kind = -1;
	struct blkreq *b;

	ut->blk_seq++;
	while (sec < end && (b = reqtab_find(ut->bios, io->dev, sec))) {
		uint64_t bend = sec + b->nr_sector;

		if (kind < 0)
			kind = b->op;
		if (b->user)
			ut_credit(ut, b->user, io);
		if (bend > end) {
			b->nr_sector = bend - end;
			reqtab_rekey(ut->bios, b, end);
			break;
		}
		reqtab_remove(ut->bios, b);
		sec = bend;
	}
	if (kind < 0)
		ut->stats.blk_unseen++;
	else if (kind < URING_VIA_NR)
		ut->stats.blk_via[kind]++;
	else if (kind == UT_BIO_UNATTR)
		ut->stats.blk_unattr++;
	else
		ut->stats.blk_other++;
	return 0;
}

/* ut_on_blk_flush - a flush (no data) completed: counted, never attributed (no task to key on) */
static int ut_on_blk_flush(void *arg, const struct blk_io *io)
{
	struct uringtrack *ut = arg;

	ut->stats.blk_flush++;
	return 0;
}

/* ut_use - subscribe to one io_uring event and locate its fields: 0, or -errno */
static int ut_use(struct uringtrack *ut, const char *name, iotap_handler_fn fn,
		  struct uring_fmt *f)
{
	struct iotap_event *ev = iotap_event_use(ut->ctx, "io_uring", name, 0, fn, ut);

	if (!ev)
		return -errno;
	if (uring_fmt_init(f, iotap_event_format(ev))) {
		iotap_err(ut->ctx, "io_uring:%s has no ctx field", name);
		return -ENOENT;
	}
	return 0;
}

/* ut_use_uring - the io_uring events: 0, or -errno */
static int ut_use_uring(struct uringtrack *ut)
{
	const char *submit = iotap_event_available(ut->ctx, "io_uring", "io_uring_submit_req") ?
			     "io_uring_submit_req" : "io_uring_submit_sqe";
	int ret;

	ret = ut_use(ut, "io_uring_complete", ut_on_complete, &ut->f_done);
	if (!ret)
		ret = ut_use(ut, submit, ut_on_submit, &ut->f_submit);
	if (!ret)
		ret = ut_use(ut, "io_uring_queue_async_work", ut_on_async, &ut->f_async);
	if (!ret)
		ret = ut_use(ut, "io_uring_file_get", ut_on_file, &ut->f_file);
	if (!ret && iotap_event_available(ut->ctx, "io_uring", "io_uring_cqring_wait"))
		ret = ut_use(ut, "io_uring_cqring_wait", ut_on_wait, &ut->f_wait);
	if (!ret && !ut->f_submit.req.present) {
		iotap_err(ut->ctx, "io_uring:%s has no req field", submit);
		ret = -ENOENT;
	}
	return ret;
}

/* ut_use_block - the bios of the disk chosen, then the block requests: 0, or -errno */
static int ut_use_block(struct uringtrack *ut)
{
	struct blktrack_cfg *cfg = &ut->bcfg;
	struct iotap_event *ev;
	int ret;

	*cfg = (struct blktrack_cfg){
		.on_done = ut_on_blk_done,
		.on_nodata = ut_on_blk_flush,
		.arg = ut,
	};
	ret = blktrack_cfg_select(cfg, ut->ctx, ut->cfg.disk, 0);
	if (ret)
		return ret;
	ut->bios = reqtab_alloc(UT_MAX_BIOS, UT_BIO_AGE_NS);
	if (!ut->bios)
		return -errno;
	ev = iotap_event_use(ut->ctx, "block", "block_bio_queue", 0, ut_on_bio, ut);
	if (!ev)
		return -errno;
	if (block_fmt_init(&ut->f_bio, iotap_event_format(ev))) {
		iotap_err(ut->ctx, "block:block_bio_queue has no dev/sector/nr_sector/rwbs fields");
		return -ENOENT;
	}
	if (cfg->has_dev) {
		ret = iotap_event_filter(ev, "dev == %u", cfg->dev);
		if (ret)
			return ret;
	}
	return blktrack_create(&ut->bt, ut->ctx, cfg);
}

/* uringtrack_create - subscribe to the io_uring events, then the block I/O they cause */
int uringtrack_create(struct uringtrack **out, struct iotap_ctx *ctx,
		      const struct uringtrack_cfg *cfg)
{
	struct uringtrack *ut = calloc(1, sizeof(*ut));
	int ret;

	*out = NULL;
	if (!ut)
		return -ENOMEM;
	ut->ctx = ctx;
	ut->cfg = *cfg;
	memset(ut->bucket, 0xff, sizeof(ut->bucket));
	ret = hashtab_init(&ut->tids, 64);
	if (!ret)
		ret = ut_use_uring(ut);
	if (!ret)
		ret = ut_use_block(ut);
	if (ret) {
		uringtrack_free(ut);
		return ret;
	}
	*out = ut;
	return 0;
}

/* uringtrack_free - free it; accepts NULL */
void uringtrack_free(struct uringtrack *ut)
{
	if (!ut)
		return;
	blktrack_free(ut->bt);
	reqtab_free(ut->bios);
	free(ut->rq);
	free(ut->free_slots);
	free(ut->tk);
	hashtab_release(&ut->tids);
	free(ut);
}

/* uringtrack_stats - the counts since the last reset */
const struct uringtrack_stats *uringtrack_stats(const struct uringtrack *ut)
{
	return &ut->stats;
}

/* uringtrack_stats_reset - zero the counts */
void uringtrack_stats_reset(struct uringtrack *ut)
{
	memset(&ut->stats, 0, sizeof(ut->stats));
}

/* uringtrack_warn_stats - what the block tracker could not pair */
int uringtrack_warn_stats(struct uringtrack *ut, struct iotap_ctx *ctx)
{
	return blktrack_warn_stats(ut->bt, ctx);
}
