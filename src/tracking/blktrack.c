// SPDX-License-Identifier: GPL-2.0-or-later
/* blktrack.c - pair block request events (start, insert, issue, complete) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blktrack.h"

#define BLKTRACK_MAX_INFLIGHT (1u << 20)
#define BLKTRACK_MAX_AGE_NS (60ull * 1000000000ull)
/* Bios a partition remapped, waiting for their request (or a throttle): at most, and how long. */
#define BLKTRACK_MAX_HELD (1u << 16)
#define BLKTRACK_HELD_AGE_NS (60ull * 1000000000ull)
#define BLKTRACK_MAX_NODATA 256
#define BLKTRACK_MAX_CLAIMS 256
#define BLKTRACK_CLAIM_NS 1000000000ull	/* a claim no flush answered within 1 s was served without one */
#define BLKTRACK_PART_TIDS 1024		/* power of two */

/* A request without a sector (a flush): no key, so paired per device in issue order. */
struct blk_nodata {
	uint32_t dev;
	uint8_t op, flags;
	uint64_t t_start, t_issue;	/* t_issue 0: started, not issued yet */
	uint32_t pid, tid;
	char comm[16];
	const char *cgroup;
};

/* A data write that asked for a flush (PREFLUSH or FUA): its submitter owns the flush. */
struct blk_claim {
	uint32_t dev, pid, tid;
	uint64_t t;
	char comm[16];
	const char *cgroup;
};

struct blktrack {
	struct blktrack_cfg cfg;
	struct iotap_ctx *ctx;
	bool filter;			/* -p or --cgroup: only requests whose submitter passes */
	struct reqtab *tab;
	struct block_fmt f_start, f_insert, f_issue, f_done, f_front;
	/* BT_STAGES */
	bool stages;
	struct blktrack_stage_events sev;
	struct block_fmt f_queue, f_getrq, f_back, f_rqmerge, f_requeue;
	struct field split_dev, split_sector, split_new, split_rwbs;
	struct reqtab *qtab;		/* bios queued, in no request yet, by first sector */
	struct reqtab *etab;		/* requests bios may join, by end sector; user: their start */
	bool start_is_insert;		/* no block_io_start: insert stands in */
	bool have_start, have_insert;
	bool said_unpaired;		/* that none paired, said once */
	struct blktrack_stats st;
	struct blk_nodata nd[BLKTRACK_MAX_NODATA];	/* oldest first */
	size_t nr_nd;
	bool start_flush_only;		/* start traced only for flushes: no -Q, -p, --cgroup */
	struct blk_claim claims[BLKTRACK_MAX_CLAIMS];	/* oldest first */
	size_t nr_claims;
	/* -d PARTITION: threads that submitted data to it, whose data-less flushes are its */
	uint32_t part_tids[BLKTRACK_PART_TIDS];
	/*
	 * Bios remapped from a partition to its disk (block_bio_remap), by their
	 * key on the disk: the remap runs in the submitter's context before
	 * blk-throttle can hold the bio, whose request its worker starts later.
	 * pid and cgroup are the submitter's; user its thread, t_start when.
	 */
	struct reqtab *held;
	struct block_remap_fmt f_remap;
	/*
	 * The kprobe on blk-throttle's entry (blktrack_probes), which sees every
	 * bio it may hold in its submitter's context, with the key its request
	 * has later: into held too. NULL: none made (no kprobes or BTF here, or
	 * none recorded); then requests a per-CPU kernel worker starts, where
	 * blk-throttle releases what it held, are counted (st.worker) and said.
	 */
	struct iotap_event *throtl;
	struct field throtl_dev, throtl_sector, throtl_major, throtl_minor;
};

/* blktrack_decode - decode a sample with fmt, rejecting truncated records and other disks */
static int blktrack_decode(const struct blktrack *bt, const struct block_fmt *fmt,
			   const struct perf_sample *s, struct block_rq *rq)
{
	int ret = block_rq_decode(fmt, s->raw, s->raw_size, rq);

	/* The kernel filters by disk when live; a recording holds every disk's events. */
	if (!ret && bt->cfg.has_dev && rq->dev != bt->cfg.dev)
		return -ENODEV;
	/* A partition's I/O: its disk's events, sectors counted from the disk's start. */
	if (!ret && bt->cfg.part_end && rq->nr_sector &&
	    (rq->sector < bt->cfg.part_start || rq->sector >= bt->cfg.part_end))
		return -ENODEV;
	return ret;
}

/*
 * blktrack_q_take - the queue time of the bio waiting at sector, which is taken: 0 when
 * none; a request it makes is sent when it was (t_submit, where not known yet)
 */
static uint64_t blktrack_q_take(struct blktrack *bt, uint32_t dev, uint64_t sector,
				struct blkreq *r)
{
	struct blkreq *q = reqtab_find(bt->qtab, dev, sector);
	uint64_t t;

	if (!q)
		return 0;
	t = q->t_start;
	if (r && !r->t_submit)
		r->t_submit = q->t_submit;
	reqtab_remove(bt->qtab, q);
	return t;
}

/* blktrack_q_min - a bio queued at t joined r: r's first bio is the earliest queued */
static void blktrack_q_min(struct blkreq *r, uint64_t t)
{
	if (t && (!r->t_queue || t < r->t_queue))
		r->t_queue = t;
}

/* blktrack_unissued - the request starting at sector not yet issued (bios can join it), or NULL */
static struct blkreq *blktrack_unissued(struct blktrack *bt, uint32_t dev, uint64_t sector)
{
	struct blkreq *r;

	for (r = reqtab_find(bt->tab, dev, sector); r; r = reqtab_find_next(bt->tab, r))
		if (!r->t_issue)
			return r;
	return NULL;
}

/* blktrack_end_entry - r's entry in the end index (NULL: none, its getrq not seen) */
static struct blkreq *blktrack_end_entry(struct blktrack *bt, const struct blkreq *r)
{
	struct blkreq *e;

	if (!r->bios)
		return NULL;
	for (e = reqtab_find(bt->etab, r->dev, r->end); e; e = reqtab_find_next(bt->etab, e))
		if (e->user == r->sector)
			return e;
	return NULL;
}

/* blktrack_ending - the unissued request that ends at end (bios join its back), or NULL */
static struct blkreq *blktrack_ending(struct blktrack *bt, uint32_t dev, uint64_t end,
				      struct blkreq **entry)
{
	struct blkreq *e, *r;

	for (e = reqtab_find(bt->etab, dev, end); e; e = reqtab_find_next(bt->etab, e)) {
		r = blktrack_unissued(bt, dev, e->user);
		if (r && r->bios && r->end == end) {
			*entry = e;
			return r;
		}
	}
	return NULL;
}

/* blktrack_end_drop - r takes no more bios (issued, or merged into another) */
static void blktrack_end_drop(struct blktrack *bt, const struct blkreq *r)
{
	struct blkreq *e = bt->stages ? blktrack_end_entry(bt, r) : NULL;

	if (e)
		reqtab_remove(bt->etab, e);
}

/* blktrack_bio - tell the tool a bio's or request's fate (who: its sender, for a bio queued or split) */
static int blktrack_bio(struct blktrack *bt, enum blk_bio_fate fate, const struct block_rq *rq,
			const struct blk_sender *who)
{
	return bt->cfg.on_bio ? bt->cfg.on_bio(bt->cfg.arg, fate, rq, who) : 0;
}

/* blktrack_new - a fresh entry for a request first seen now */
static struct blkreq *blktrack_new(struct blktrack *bt, const struct block_rq *rq,
				   const struct perf_sample *s)
{
	struct blkreq *r = reqtab_insert(bt->tab, rq->dev, rq->sector, s->time);

	r->pid = s->pid;
	r->tid = s->tid;
	r->cgroup = iotap_cgroup_of(bt->ctx, s);
	memcpy(r->comm, rq->comm, sizeof(r->comm));
	r->bytes = rq->bytes;
	r->nr_sector = rq->nr_sector;
	r->op = rq->op;
	r->flags = rq->flags;
	/* Without block_getrq a request is first seen later: its first bio is the one at its start. */
	if (bt->stages && !bt->sev.getrq)
		r->t_queue = blktrack_q_take(bt, rq->dev, rq->sector, r);
	return r;
}

/* blktrack_nd_drop - forget sectorless entry i, keeping the others in order */
static void blktrack_nd_drop(struct blktrack *bt, size_t i)
{
	bt->nr_nd--;
	memmove(&bt->nd[i], &bt->nd[i + 1], (bt->nr_nd - i) * sizeof(bt->nd[0]));
}

/* blktrack_nd_add - a new sectorless entry; the oldest is forgotten when all are taken */
static struct blk_nodata *blktrack_nd_add(struct blktrack *bt, const struct block_rq *rq,
					  const struct perf_sample *s)
{
	struct blk_nodata *nd;

	if (bt->nr_nd == BLKTRACK_MAX_NODATA)
		blktrack_nd_drop(bt, 0);
	nd = &bt->nd[bt->nr_nd++];
	memset(nd, 0, sizeof(*nd));
	nd->dev = rq->dev;
	nd->pid = s->pid;
	nd->tid = s->tid;
	nd->cgroup = iotap_cgroup_of(bt->ctx, s);
	memcpy(nd->comm, rq->comm, sizeof(nd->comm));
	return nd;
}

/* blktrack_claim_add - a data write asked for a flush: the flush the kernel sends for it is its submitter's */
static void blktrack_claim_add(struct blktrack *bt, const struct block_rq *rq,
			       const struct perf_sample *s)
{
	struct blk_claim *c;

	if (bt->nr_claims == BLKTRACK_MAX_CLAIMS)
		memmove(bt->claims, bt->claims + 1, --bt->nr_claims * sizeof(*c));
	c = &bt->claims[bt->nr_claims++];
	c->dev = rq->dev;
	c->t = s->time;
	c->pid = s->pid;
	c->tid = s->tid;
	c->cgroup = iotap_cgroup_of(bt->ctx, s);
	memcpy(c->comm, rq->comm, sizeof(c->comm));
}

/*
 * blktrack_nd_claimed - a flush issued with no data-less start waiting: the
 * block layer's flush machinery (kblockd's kworker) sends it for a write with
 * PREFLUSH (before it) or FUA (after it, where the device has no FUA), one
 * claim each. It is the oldest claim's submitter's; a claim older than
 * BLKTRACK_CLAIM_NS was served without one (merged, or FUA done by the device)
 * and is forgotten. NULL when no write of this trace asked for it: with -p,
 * --cgroup or -d PARTITION it is not known to be theirs; otherwise the
 * issuing task keeps it.
 */
static struct blk_nodata *blktrack_nd_claimed(struct blktrack *bt, const struct block_rq *rq,
					      const struct perf_sample *s)
{
	struct blk_nodata *nd = NULL;
	size_t i = 0;

	while (i < bt->nr_claims) {
		if (bt->claims[i].dev != rq->dev) {
			i++;
			continue;
		}
		if (!nd && bt->claims[i].t + BLKTRACK_CLAIM_NS >= s->time) {
			nd = blktrack_nd_add(bt, rq, s);
			nd->pid = bt->claims[i].pid;
			nd->tid = bt->claims[i].tid;
			nd->cgroup = bt->claims[i].cgroup;
			memcpy(nd->comm, bt->claims[i].comm, sizeof(nd->comm));
		} else if (nd) {
			break;
		}
		bt->nr_claims--;
		memmove(&bt->claims[i], &bt->claims[i + 1], (bt->nr_claims - i) * sizeof(bt->claims[0]));
	}
	if (nd || bt->filter || bt->cfg.part_end)
		return nd;
	return blktrack_nd_add(bt, rq, s);
}

/* blktrack_part_tid - the slot of tid in the partition's submitters */
static uint32_t *blktrack_part_tid(struct blktrack *bt, uint32_t tid)
{
	return &bt->part_tids[(tid * 2654435761u) & (BLKTRACK_PART_TIDS - 1)];
}

/* blktrack_nd_issue - a sectorless request reaches the driver: it serves the oldest one waiting */
static int blktrack_nd_issue(struct blktrack *bt, const struct block_rq *rq,
			     const struct perf_sample *s)
{
	struct blk_nodata *nd = NULL;
	size_t i = 0;

	while (i < bt->nr_nd) {
		if (bt->nd[i].dev != rq->dev || bt->nd[i].t_issue)
			i++;
		else if (!nd)
			nd = &bt->nd[i++];
		else if (rq->op == BLOCK_OP_FLUSH)
			/* One flush serves every flush waiting on the device: the kernel merges them. */
			blktrack_nd_drop(bt, i);
		else
			break;
	}
	if (!nd) {
		nd = blktrack_nd_claimed(bt, rq, s);
		if (!nd)
			return 0;
	}
	nd->t_issue = s->time;
	nd->op = rq->op;
	nd->flags = rq->flags;
	return 0;
}

/* blktrack_nd_done - a sectorless completion ends the oldest issued one of its device and op */
static int blktrack_nd_done(struct blktrack *bt, const struct block_rq *rq,
			    const struct perf_sample *s)
{
	struct blk_nodata *nd;
	struct blk_io io;
	size_t i;

	bt->st.nodata++;
	for (i = 0; i < bt->nr_nd; i++)
		if (bt->nd[i].dev == rq->dev && bt->nd[i].t_issue && bt->nd[i].op == rq->op)
			break;
	/* Never issued (the data-less original of a flush), or issued before tracing began. */
	if (i == bt->nr_nd)
		return 0;
	nd = &bt->nd[i];
	memset(&io, 0, sizeof(io));
	io.dev = nd->dev;
	io.op = nd->op;
	io.flags = nd->flags;
	memcpy(io.rwbs, rq->rwbs, sizeof(io.rwbs));
	io.error = rq->error;
	io.t_start = nd->t_start;
	io.t_issue = nd->t_issue;
	io.t_done = s->time;
	io.pid = nd->pid;
	io.tid = nd->tid;
	io.cgroup = nd->cgroup;
	memcpy(io.comm, nd->comm, sizeof(io.comm));
	blktrack_nd_drop(bt, i);
	if (!bt->cfg.on_nodata)
		return 0;
	bt->st.flushes++;
	return bt->cfg.on_nodata(bt->cfg.arg, &io);
}

/* blktrack_submitter_ok - whether -p and --cgroup keep what this task submits now */
static bool blktrack_submitter_ok(const struct blktrack *bt, const struct perf_sample *s)
{
	return (!bt->cfg.pid || (int)s->pid == bt->cfg.pid) && iotap_cgroup_match(bt->ctx, s);
}

/*
 * blktrack_hold - a bio that may wait, seen in its submitter's context s: into held. A bio
 * held there and not queued yet keeps its sender: before 5.19, blk-throttle's worker sends
 * what it held through the throttle's entry again, from its own context. One queued
 * already (BT_STAGES) was an older bio's, whose request no start event took: this is
 * another bio.
 */
static int blktrack_hold(struct blktrack *bt, struct iotap_ctx *ctx, const struct perf_sample *s,
			 uint32_t dev, uint64_t sector)
{
	struct blkreq *h = reqtab_find(bt->held, dev, sector);

	if (h && !h->t_queue)
		return 0;
	if (h)
		reqtab_remove(bt->held, h);
	h = reqtab_insert(bt->held, dev, sector, s->time);
	/* Its process name is looked up only when the join is made: most bios never need it. */
	h->pid = s->pid;
	h->user = s->tid;
	h->t_start = s->time;
	h->cgroup = iotap_cgroup_of(ctx, s);
	return bt->cfg.on_send ? bt->cfg.on_send(bt->cfg.send_arg, s, dev, sector) : 0;
}

/* blktrack_on_remap - a partition's bio sent on to its disk, in its submitter's context */
static int blktrack_on_remap(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_remap r;

	if (block_remap_decode(&bt->f_remap, s->raw, s->raw_size, &r) || !r.nr_sector ||
	    (bt->cfg.has_dev && r.dev != bt->cfg.dev))
		return 0;
	return blktrack_hold(bt, ctx, s, r.dev, r.sector);
}

/* blktrack_on_throtl - blk-throttle's entry, in the submitter's context: the bio it may hold */
static int blktrack_on_throtl(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	uint32_t dev;

	if (bt->throtl_dev.present)
		dev = (uint32_t)field_u64(&bt->throtl_dev, s->raw, s->raw_size);
	else
		/* Before 5.12 the bio names its gendisk; a partition's bio is remapped by now. */
		dev = (uint32_t)field_u64(&bt->throtl_major, s->raw, s->raw_size) << 20 |
		      (uint32_t)field_u64(&bt->throtl_minor, s->raw, s->raw_size);
	if (bt->cfg.has_dev && dev != bt->cfg.dev)
		return 0;
	return blktrack_hold(bt, ctx, s, dev, field_u64(&bt->throtl_sector, s->raw, s->raw_size));
}

/*
 * blktrack_worker - whether comm is a per-CPU kernel worker's (kworker/N:M, not an unbound
 * or high-priority pool's), as blk-throttle's dispatch runs on
 */
static bool blktrack_worker(const char *comm)
{
	const char *p = comm;

	/* Asked of every request whose sender is unknown: one letter rules out most. */
	if (p[0] != 'k' || strncmp(p, "kworker/", 8))
		return false;
	p += 8;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != ':' || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return !*p;
}

/*
 * blktrack_submitter - who submitted the request rq starts: the task of s, or
 * the one that remapped its bio where another task (blk-throttle's worker)
 * starts it; *id is then that task's sample, and rq names it. *t_submit gets
 * when the submitter sent it, where an event before blk-throttle saw that (0).
 */
static const struct perf_sample *blktrack_submitter(struct blktrack *bt, struct block_rq *rq,
						    const struct perf_sample *s,
						    struct perf_sample *id, uint64_t *t_submit)
{
	struct blkreq *h = bt->held && rq->nr_sector ? reqtab_find(bt->held, rq->dev, rq->sector) :
			   NULL;

	bool other;

	*t_submit = h ? h->t_start : 0;
	if (!h) {
		/* Where blk-throttle releases what it held, and no probe of its entry names who sent it. */
		if (!bt->throtl && rq->nr_sector && blktrack_worker(rq->comm))
			bt->st.worker++;
		return s;
	}
	other = h->user != s->tid;
	if (other) {
		*id = *s;
		id->pid = h->pid;
		id->tid = (uint32_t)h->user;
		id->time = h->t_start;
		snprintf(rq->comm, sizeof(rq->comm), "%s", iotap_comm(bt->ctx, h->pid));
		bt->st.joined++;
	}
	reqtab_remove(bt->held, h);
	return other ? id : s;
}

/* blktrack_on_start - the submitter's event: block_io_start (or insert on old kernels) */
static int blktrack_on_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	const struct perf_sample *who;
	struct blktrack *bt = arg;
	struct perf_sample id;
	struct block_rq rq;
	struct blkreq *r;
	uint64_t t_submit;

	if (blktrack_decode(bt, &bt->f_start, s, &rq))
		return 0;
	/*
	 * The one place a request is attributed: its submitter's context
	 * (bcc#3741), or where blk-throttle's worker starts it, the context that
	 * remapped its bio from a partition.
	 */
	who = blktrack_submitter(bt, &rq, s, &id, &t_submit);
	if (!blktrack_submitter_ok(bt, who))
		return 0;
	if (rq.nr_sector == 0) {
		/* A data-less flush names no place: a partition's when its thread wrote there. */
		if (bt->cfg.part_end && (!who->tid || *blktrack_part_tid(bt, who->tid) != who->tid))
			return 0;
		blktrack_nd_add(bt, &rq, who)->t_start = s->time;
		return 0;
	}
	if (bt->cfg.part_end)
		*blktrack_part_tid(bt, who->tid) = who->tid;
	if (rq.flags & BLOCK_F_PREFLUSH)
		blktrack_claim_add(bt, &rq, who);
	if (rq.flags & BLOCK_F_FUA)
		blktrack_claim_add(bt, &rq, who);
	/* Traced for flushes alone: a data request is timed from its issue, as without the event. */
	if (bt->start_flush_only)
		return 0;
	/* With BT_STAGES, block_getrq made the request just before. */
	r = bt->stages && bt->sev.getrq ? blktrack_unissued(bt, rq.dev, rq.sector) : NULL;
	if (r && (r->t_start || !r->t_getrq))
		r = NULL;
	if (r) {
		/*
		 * Its cgroup is its bio's, charged when the thread that made it submitted it
		 * (a flusher's plug starts the request after the inode's writeback ended).
		 */
		if (r->tid != who->tid)
			r->cgroup = iotap_cgroup_of(bt->ctx, who);
		r->pid = who->pid;
		r->tid = who->tid;
		memcpy(r->comm, rq.comm, sizeof(r->comm));
	} else {
		r = blktrack_new(bt, &rq, who);
	}
	r->t_start = s->time;
	if (t_submit)
		r->t_submit = t_submit;
	if (bt->start_is_insert)
		r->t_insert = s->time;
	return bt->cfg.on_start ? bt->cfg.on_start(bt->cfg.arg, r, s) : 0;
}

/*
 * blktrack_on_frontmerge - a bio joined a started request in front of it: the
 * request starts at the bio's sector from now on, which is where its insert,
 * issue and completion name it. Not followed, it would be a request whose
 * start was never seen: dropped under -p, its start left to age out.
 */
static int blktrack_on_frontmerge(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r, *e;
	uint64_t t = 0;

	if (blktrack_decode(bt, &bt->f_front, s, &rq) || rq.nr_sector == 0)
		return 0;
	if (bt->stages)
		t = blktrack_q_take(bt, rq.dev, rq.sector, NULL);
	r = blktrack_unissued(bt, rq.dev, rq.sector + rq.nr_sector);
	if (!r) {
		bt->st.merge_unmatched += bt->stages;
		return bt->stages ? blktrack_bio(bt, BLK_BIO_FRONTMERGE, &rq, NULL) : 0;
	}
	e = bt->stages ? blktrack_end_entry(bt, r) : NULL;
	reqtab_rekey(bt->tab, r, rq.sector);
	if (!bt->stages)
		return 0;
	if (e)
		e->user = rq.sector;
	if (r->bios)
		r->bios++;
	blktrack_q_min(r, t);
	return blktrack_bio(bt, BLK_BIO_FRONTMERGE, &rq, NULL);
}

/* blktrack_on_queue - BT_STAGES: a bio enters the block layer, waiting for its request */
static int blktrack_on_queue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	const struct perf_sample *from = s;
	struct perf_sample id;
	struct blk_sender who;
	struct block_rq rq;
	struct blkreq *q, *h;

	if (blktrack_decode(bt, &bt->f_queue, s, &rq) || rq.nr_sector == 0)
		return 0;
	/* md and dm take bios and make no requests: theirs would only age out. */
	if (blktrack_dev_bio_based(ctx, rq.dev))
		return 0;
	/*
	 * Its sender: the one an event before blk-throttle saw, where the throttle's
	 * worker queues it now (left held: the request's start joins it later).
	 */
	h = bt->held ? reqtab_find(bt->held, rq.dev, rq.sector) : NULL;
	/*
	 * Queued before, by an older bio at this sector (its request started where no start
	 * event took the entry: a scheduler none without block_io_start): not this one's, which
	 * no event before blk-throttle saw (a cgroup without limits on 5.19 and later).
	 */
	if (h && h->t_queue) {
		reqtab_remove(bt->held, h);
		h = NULL;
	}
	/* It passed the throttle: the next bio at its sector is another one. */
	if (h)
		h->t_queue = s->time;
	who = (struct blk_sender){ .pid = s->pid, .t_submit = h ? h->t_start : 0 };
	memcpy(who.comm, rq.comm, sizeof(who.comm));
	if (h && h->user != s->tid) {
		id = *s;
		id.pid = h->pid;
		id.tid = (uint32_t)h->user;
		id.time = h->t_start;
		from = &id;
		who.pid = h->pid;
		who.cgroup = h->cgroup;
		snprintf(who.comm, sizeof(who.comm), "%s", iotap_comm(bt->ctx, h->pid));
	} else {
		who.cgroup = iotap_cgroup_of(ctx, s);
	}
	/* --cgroup: the others' bios make requests that are not followed either. */
	if (bt->filter && !blktrack_submitter_ok(bt, from))
		return 0;
	/*
	 * A bio takes its request (or joins one) in the submitter's call, so one still waiting
	 * here was taken where no event says so (a discard merge): it is forgotten, never
	 * lent to this one.
	 */
	q = reqtab_find(bt->qtab, rq.dev, rq.sector);
	if (q)
		reqtab_remove(bt->qtab, q);
	q = reqtab_insert(bt->qtab, rq.dev, rq.sector, s->time);
	q->t_start = s->time;
	/* Kept for its request and its split pieces, which are its sender's too. */
	q->t_submit = who.t_submit;
	q->user = from->tid;
	q->pid = who.pid;
	q->cgroup = who.cgroup;
	memcpy(q->comm, who.comm, sizeof(q->comm));
	return blktrack_bio(bt, BLK_BIO_QUEUED, &rq, &who);
}

/* blktrack_on_getrq - BT_STAGES: a request is allocated for the bio at its start */
static int blktrack_on_getrq(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct blkreq *r, *e, *q, *sent;
	struct block_rq rq;

	if (blktrack_decode(bt, &bt->f_getrq, s, &rq) || rq.nr_sector == 0)
		return 0;
	/* The bio's sender, where blk-throttle's worker makes the request of a bio it held. */
	q = reqtab_find(bt->qtab, rq.dev, rq.sector);
	sent = q && q->user != s->tid ? q : NULL;
	if (bt->filter) {
		struct perf_sample id = *s;

		if (sent) {
			id.pid = sent->pid;
			id.tid = (uint32_t)sent->user;
		}
		if (!blktrack_submitter_ok(bt, &id))
			return 0;
	}
	/* A kernel that starts the request before allocating it (none known): the same request. */
	r = blktrack_unissued(bt, rq.dev, rq.sector);
	if (!r || r->t_getrq || !r->t_start) {
		r = blktrack_new(bt, &rq, s);
		/* The worker's start event, where the kernel has one, joins the same sender. */
		if (sent) {
			r->pid = sent->pid;
			r->cgroup = sent->cgroup;
			memcpy(r->comm, sent->comm, sizeof(r->comm));
		}
	}
	r->t_getrq = s->time;
	blktrack_q_min(r, blktrack_q_take(bt, rq.dev, rq.sector, r));
	r->bios = 1;
	r->end = rq.sector + rq.nr_sector;
	e = reqtab_insert(bt->etab, rq.dev, r->end, s->time);
	e->user = rq.sector;
	return 0;
}

/* blktrack_on_backmerge - BT_STAGES: a bio joins the end of a request */
static int blktrack_on_backmerge(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r, *e;
	uint64_t t;

	if (blktrack_decode(bt, &bt->f_back, s, &rq) || rq.nr_sector == 0)
		return 0;
	t = blktrack_q_take(bt, rq.dev, rq.sector, NULL);
	r = blktrack_ending(bt, rq.dev, rq.sector, &e);
	if (r) {
		r->bios++;
		blktrack_q_min(r, t);
		r->end = rq.sector + rq.nr_sector;
		reqtab_rekey(bt->etab, e, r->end);
	} else {
		bt->st.merge_unmatched++;
	}
	return blktrack_bio(bt, BLK_BIO_BACKMERGE, &rq, NULL);
}

/*
 * blktrack_on_rq_merge - BT_STAGES: the request at rq (the kernel's "next") joins the
 * request that ends where it starts, with its bios, and is never issued itself
 */
static int blktrack_on_rq_merge(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *nx, *r, *e, *ne;

	if (blktrack_decode(bt, &bt->f_rqmerge, s, &rq) || rq.nr_sector == 0)
		return 0;
	nx = blktrack_unissued(bt, rq.dev, rq.sector);
	r = nx ? blktrack_ending(bt, rq.dev, rq.sector, &e) : NULL;
	if (r && nx->bios) {
		ne = blktrack_end_entry(bt, nx);
		r->bios += nx->bios;
		blktrack_q_min(r, nx->t_queue);
		reqtab_remove(bt->etab, e);
		r->end = nx->end;
		if (ne)
			ne->user = r->sector;
		else
			bt->st.merge_unmatched++;
	} else {
		bt->st.merge_unmatched++;
		if (nx)
			blktrack_end_drop(bt, nx);
	}
	if (nx)
		reqtab_remove(bt->tab, nx);
	return blktrack_bio(bt, BLK_RQ_MERGE, &rq, NULL);
}

/* blktrack_on_requeue - BT_STAGES: the driver gives an issued request back; it is issued again */
static int blktrack_on_requeue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_requeue, s, &rq) || rq.nr_sector == 0)
		return 0;
	for (r = reqtab_find(bt->tab, rq.dev, rq.sector); r; r = reqtab_find_next(bt->tab, r))
		if (r->t_issue)
			break;
	if (!r)
		return 0;
	r->t_issue = 0;
	r->requeues++;
	r->requeued = true;
	return blktrack_bio(bt, BLK_RQ_REQUEUE, &rq, NULL);
}

/*
 * blktrack_on_split - BT_STAGES: a bio too big for one request is cut at new_sector; the
 * remainder is sent on without a queue event of its own, so it takes the bio's
 */
static int blktrack_on_split(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq = { 0 };
	struct blk_sender who;
	uint64_t new_sector, tid;
	struct blkreq *q;
	uint64_t t;

	if ((uint32_t)bt->split_rwbs.offset + bt->split_rwbs.size > s->raw_size)
		return 0;
	rq.dev = field_u64(&bt->split_dev, s->raw, s->raw_size);
	rq.sector = field_u64(&bt->split_sector, s->raw, s->raw_size);
	new_sector = field_u64(&bt->split_new, s->raw, s->raw_size);
	field_str(&bt->split_rwbs, s->raw, s->raw_size, rq.rwbs, sizeof(rq.rwbs));
	block_rwbs_parse(rq.rwbs, &rq.op, &rq.flags);
	if (bt->cfg.has_dev && rq.dev != bt->cfg.dev)
		return 0;
	/* The piece cut off, in front of new_sector: a bio with data, as on_bio's all are. */
	if (new_sector <= rq.sector)
		return 0;
	rq.nr_sector = (uint32_t)(new_sector - rq.sector);
	rq.bytes = rq.nr_sector * 512;
	q = reqtab_find(bt->qtab, rq.dev, rq.sector);
	if (!q)
		return 0;
	t = q->t_start;
	tid = q->user;
	who = (struct blk_sender){ .pid = q->pid, .cgroup = q->cgroup, .t_submit = q->t_submit };
	memcpy(who.comm, q->comm, sizeof(who.comm));
	q = reqtab_insert(bt->qtab, rq.dev, new_sector, s->time);
	q->t_start = t;
	q->t_submit = who.t_submit;
	q->user = tid;
	q->pid = who.pid;
	q->cgroup = who.cgroup;
	memcpy(q->comm, who.comm, sizeof(q->comm));
	return blktrack_bio(bt, BLK_BIO_SPLIT, &rq, &who);
}

/* blktrack_on_bio_queue - bio mode: a bio enters the block layer, keyed by its end */
static int blktrack_on_bio_queue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_start, s, &rq) || rq.nr_sector == 0)
		return 0;
	/* Other disks' bios complete only when remapped or split: most would never end here. */
	if ((bt->cfg.flags & BT_BIO_DISKS) && !blktrack_dev_bio_based(ctx, rq.dev))
		return 0;
	if (!blktrack_submitter_ok(bt, s))
		return 0;
	rq.sector += rq.nr_sector;
	r = blktrack_new(bt, &rq, s);
	r->t_start = r->t_issue = s->time;
	return bt->cfg.on_start ? bt->cfg.on_start(bt->cfg.arg, r, s) : 0;
}

/* blktrack_complete - r completed as rq at s: hand the whole request to the tool, forget it */
static int blktrack_complete(struct blktrack *bt, struct blkreq *r, const struct block_rq *rq,
			     const struct perf_sample *s, uint64_t sector)
{
	struct blk_io io;

	/* Field by field: a zeroing initializer is a rep stos on every completion. */
	io.dev = r->dev;
	io.sector = sector;
	io.nr_sector = r->nr_sector;
	io.bytes = r->bytes;
	io.op = r->op;
	io.flags = r->flags;
	io.error = rq->error;
	io.t_start = r->t_start;
	io.t_insert = r->t_insert;
	io.t_issue = r->t_issue;
	io.t_done = s->time;
	io.t_submit = r->t_submit;
	io.pid = r->pid;
	io.tid = r->tid;
	io.cgroup = r->cgroup;
	io.user = r->user;
	io.t_queue = r->t_queue;
	io.t_getrq = r->t_getrq;
	io.bios = r->bios;
	io.requeues = r->requeues;
	memcpy(io.rwbs, rq->rwbs, sizeof(io.rwbs));
	memcpy(io.comm, r->comm, sizeof(io.comm));
	reqtab_remove(bt->tab, r);
	bt->st.completed++;
	return bt->cfg.on_done ? bt->cfg.on_done(bt->cfg.arg, &io) : 0;
}

/* blktrack_on_bio_done - bio mode: the bio ended, whole or advanced to its end */
static int blktrack_on_bio_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_done, s, &rq))
		return 0;
	r = reqtab_find(bt->tab, rq.dev, rq.sector + rq.nr_sector);
	if (!r) {
		if (rq.nr_sector == 0 && rq.sector == 0)
			bt->st.nodata++;
		else
			bt->st.unmatched++;
		return 0;
	}
	/* Keyed by its end; the bio began nr_sector before it. */
	return blktrack_complete(bt, r, &rq, s, r->sector - r->nr_sector);
}

/* blktrack_on_insert - scheduler insert, when it is not the start event */
static int blktrack_on_insert(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_insert, s, &rq) || rq.nr_sector == 0)
		return 0;
	for (r = reqtab_find(bt->tab, rq.dev, rq.sector); r; r = reqtab_find_next(bt->tab, r))
		if ((!r->t_insert || r->requeued) && !r->t_issue)
			break;
	if (!r) {
		if (bt->filter && (bt->have_start || !blktrack_submitter_ok(bt, s)))
			return 0;
		r = blktrack_new(bt, &rq, s);
	}
	/* A requeued request inserted again keeps its first insert: I2D spans the requeue. */
	if (!r->t_insert)
		r->t_insert = s->time;
	r->requeued = false;
	return bt->cfg.on_insert ? bt->cfg.on_insert(bt->cfg.arg, r, s) : 0;
}

/* blktrack_on_issue - the driver takes the request */
static int blktrack_on_issue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_issue, s, &rq))
		return 0;
	if (rq.nr_sector == 0)
		return blktrack_nd_issue(bt, &rq, s);
	for (r = reqtab_find(bt->tab, rq.dev, rq.sector); r; r = reqtab_find_next(bt->tab, r))
		if (!r->t_issue)
			break;
	if (!r) {
		/* No start seen (a scheduler none issues at once): blk-throttle's worker may issue it. */
		struct perf_sample id;
		uint64_t t_submit;
		const struct perf_sample *who = blktrack_submitter(bt, &rq, s, &id, &t_submit);

		/*
		 * With -p, a request whose start we did not see is not known to be the PID's.
		 * Before 6.5 the start is its insert, which a request issued straight to the
		 * driver (scheduler none) never has: its issue runs in its submitter's context.
		 */
		if (bt->filter && (!(bt->cfg.flags & BT_ISSUE_ALL) || iotap_cgroup_filtering(bt->ctx)) &&
		    ((bt->have_start && !bt->start_is_insert) || (bt->cfg.flags & BT_PID_STRICT) ||
		     !blktrack_submitter_ok(bt, who)))
			return 0;
		r = blktrack_new(bt, &rq, who);
		r->t_submit = t_submit;
	}
	r->t_issue = s->time;
	blktrack_end_drop(bt, r);
	/* Merges after start may have grown the request: the issued size is the real one. */
	r->bytes = rq.bytes;
	r->nr_sector = rq.nr_sector;
	r->op = rq.op;
	r->flags = rq.flags;
	return bt->cfg.on_issue ? bt->cfg.on_issue(bt->cfg.arg, r, s) : 0;
}

/* blktrack_on_done - completion: hand the whole request to the tool */
static int blktrack_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct blktrack *bt = arg;
	struct block_rq rq;
	struct blkreq *r;

	if (blktrack_decode(bt, &bt->f_done, s, &rq))
		return 0;
	if (rq.nr_sector == 0)
		return blktrack_nd_done(bt, &rq, s);
	for (r = reqtab_find(bt->tab, rq.dev, rq.sector); r; r = reqtab_find_next(bt->tab, r))
		if (r->t_issue)
			break;
	if (!r) {
		bt->st.unmatched++;
		return 0;
	}
	return blktrack_complete(bt, r, &rq, s, r->sector);
}

/* blktrack_use - subscribe to one block event with the tracker's filters */
static int blktrack_use(struct blktrack *bt, struct iotap_ctx *ctx, const char *name,
			unsigned int flags, iotap_handler_fn fn, struct block_fmt *fmt)
{
	struct iotap_event *ev = iotap_event_use(ctx, "block", name, flags, fn, bt);
	int ret;

	if (!ev)
		return -errno;
	ret = block_fmt_init(fmt, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "block:%s has no dev/sector/nr_sector/rwbs fields", name);
		return ret;
	}
	if (bt->cfg.has_dev) {
		ret = iotap_event_filter(ev, "dev == %u", bt->cfg.dev);
		if (ret)
			return ret;
	}
	/* Sectorless requests (flushes) carry no place: the disk's go through. */
	if (bt->cfg.part_end) {
		ret = iotap_event_filter(ev, "nr_sector == 0 || (sector >= %llu && sector < %llu)",
					 (unsigned long long)bt->cfg.part_start,
					 (unsigned long long)bt->cfg.part_end);
		if (ret)
			return ret;
	}
	/*
	 * For flushes alone: data-less requests, and writes with PREFLUSH or FUA
	 * ("FWS", "WFS"); under a partition every start, to learn who writes there.
	 */
	if (fn == blktrack_on_start && bt->start_flush_only && !bt->cfg.part_end) {
		ret = iotap_event_filter(ev, "nr_sector == 0 || rwbs ~ \"*F*\"");
		if (ret)
			return ret;
	}
	/*
	 * A tool that times no flushes takes no data-less request: the kernel
	 * drops them (blktrack_on_done would pass them over). Requests only: a
	 * bio's front merge always carries its sectors.
	 */
	if (!bt->cfg.on_nodata && fn != blktrack_on_frontmerge && !(bt->cfg.flags & BT_BIO)) {
		ret = iotap_event_filter(ev, "nr_sector != 0");
		if (ret)
			return ret;
	}
	/*
	 * -p is matched in user space: common_pid is the submitting thread, and a
	 * process's threads come and go while tracing.
	 */
	return 0;
}

/* blktrack_bio_dev_args - a bio's device as kprobe fetchargs, through BTF (blktrack.h) */
int blktrack_bio_dev_args(struct iotap_ctx *ctx, const char *bio, bool partno, char *buf,
			  size_t len)
{
	uint32_t bdev_off, dev_off, disk_off, major_off, minor_off, part_off = 0;
	int n = iotap_member_offset(ctx, "bio", "bi_bdev", &bdev_off);

	/* A recording: its probe was made with the recording kernel's offsets. */
	if (n == -ENODATA)
		return n;
	if (!n &&
	    !iotap_member_offset(ctx, "block_device", "bd_dev", &dev_off))
		n = snprintf(buf, len, "dev=+%u(+%u(%s)):u32", dev_off, bdev_off, bio);
	else if (!iotap_member_offset(ctx, "bio", "bi_disk", &disk_off) &&
		 (!partno || !iotap_member_offset(ctx, "bio", "bi_partno", &part_off)) &&
		 !iotap_member_offset(ctx, "gendisk", "major", &major_off) &&
		 !iotap_member_offset(ctx, "gendisk", "first_minor", &minor_off))
		n = partno ?
		    snprintf(buf, len, "major=+%u(+%u(%s)):u32 minor=+%u(+%u(%s)):u32 partno=+%u(%s):u8",
			     major_off, disk_off, bio, minor_off, disk_off, bio, part_off, bio) :
		    snprintf(buf, len, "major=+%u(+%u(%s)):u32 minor=+%u(+%u(%s)):u32",
			     major_off, disk_off, bio, minor_off, disk_off, bio);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/*
 * blktrack_throtl_args - blk-throttle's entry takes the bio first: its device (the
 * partition remapped by then) and its sector, bio->bi_iter.bi_sector. -ENOENT where BTF
 * lacks them, -ENODATA over a recording.
 */
static int blktrack_throtl_args(struct iotap_ctx *ctx, char *buf, size_t len)
{
	uint32_t iter_off, sector_off;
	int n = iotap_member_offset(ctx, "bio", "bi_iter", &iter_off);

	/* A recording: its probe was made with the recording kernel's offsets. */
	if (n == -ENODATA)
		return n;
	if (n || iotap_member_offset(ctx, "bvec_iter", "bi_sector", &sector_off))
		return -ENOENT;
	n = blktrack_bio_dev_args(ctx, "$arg1", false, buf, len);
	if (n < 0)
		return n;
	if (snprintf(buf + n, len - n, " sector=+%u($arg1):u64", iter_off + sector_off) >=
	    (int)(len - n))
		return -ENOSPC;
	return 0;
}

/*
 * The entry of blk-throttle where the kernel has kprobes and BTF: __blk_throtl_bio
 * (5.19 on, called for bios of a queue with limits), else blk_throtl_bio (every bio).
 */
const struct probe_spec blktrack_probes[] = {
	{ .name = "blk_throtl", .symbol = "__blk_throtl_bio", .args_fn = blktrack_throtl_args },
	{ .name = "blk_throtl_old", .symbol = "blk_throtl_bio", .args_fn = blktrack_throtl_args,
	  .fallback = true },
	{ 0 }
};

/*
 * blktrack_throtl_use - the first blktrack_probes this source can make (live) or has (a
 * recording) into the held table: 0 with none (bt->throtl NULL), or -errno (-ENOMEM, the
 * probe's event without its fields)
 */
static int blktrack_throtl_use(struct blktrack *bt, struct iotap_ctx *ctx)
{
	for (const struct probe_spec *p = blktrack_probes; p->name; p++) {
		struct probe_spec spec = *p;
		struct tep_event *fmt;
		const char *sys;
		char args[256];
		int ret;

		if (!iotap_probe_available(ctx, p))
			continue;
		/* -ENODATA: a recording, whose probe was made with the recording kernel's offsets. */
		ret = p->args_fn(ctx, args, sizeof(args));
		if (ret == -ENOENT)
			continue;
		if (ret && ret != -ENODATA)
			return ret;
		spec.args = ret ? NULL : args;
		/*
		 * The join is worth a probe, not the run: where one cannot be made (its
		 * line says why), the requests the worker starts are counted and said.
		 */
		ret = iotap_probe_create(ctx, &spec, &sys);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			continue;
		bt->throtl = iotap_event_use(ctx, sys, p->name, 0, blktrack_on_throtl, bt);
		if (!bt->throtl)
			return -errno;
		fmt = iotap_event_format(bt->throtl);
		if (field_init(&bt->throtl_sector, fmt, "sector") ||
		    (field_init(&bt->throtl_dev, fmt, "dev") &&
		     (field_init(&bt->throtl_major, fmt, "major") ||
		      field_init(&bt->throtl_minor, fmt, "minor")))) {
			iotap_err(ctx, "%s:%s has no dev (or major and minor) and sector fields", sys,
				  p->name);
			return -ENOENT;
		}
		if (!bt->held && !(bt->held = reqtab_alloc(BLKTRACK_MAX_HELD, BLKTRACK_HELD_AGE_NS)))
			return -errno;
		return bt->cfg.has_dev && bt->throtl_dev.present ?
		       iotap_event_filter(bt->throtl, "dev == %u", bt->cfg.dev) : 0;
	}
	return 0;
}

/*
 * blktrack_remap_use - block_bio_remap into the held table. Its filter names the disk as
 * either end (biosnoop --remap filters the same event by where bios came from)
 */
static int blktrack_remap_use(struct blktrack *bt, struct iotap_ctx *ctx)
{
	struct iotap_event *ev = iotap_event_use(ctx, "block", "block_bio_remap", 0,
						 blktrack_on_remap, bt);

	if (!ev)
		return -errno;
	if (block_remap_fmt_init(&bt->f_remap, iotap_event_format(ev))) {
		iotap_err(ctx, "block:block_bio_remap has no dev/sector/old_dev/old_sector fields");
		return -ENOENT;
	}
	if (!bt->held && !(bt->held = reqtab_alloc(BLKTRACK_MAX_HELD, BLKTRACK_HELD_AGE_NS)))
		return -errno;
	return bt->cfg.has_dev ? iotap_event_filter(ev, "dev == %u || old_dev == %u", bt->cfg.dev,
						    bt->cfg.dev) : 0;
}

/* blktrack_stage_use - one BT_STAGES event when the session has it, noted in *have */
static int blktrack_stage_use(struct blktrack *bt, struct iotap_ctx *ctx, const char *name,
			      iotap_handler_fn fn, struct block_fmt *fmt, bool *have)
{
	int ret;

	if (!iotap_event_available(ctx, "block", name))
		return 0;
	ret = blktrack_use(bt, ctx, name, 0, fn, fmt);
	*have = !ret;
	return ret;
}

/* blktrack_stages_use - BT_STAGES' tables and events, each event only where the kernel has it */
static int blktrack_stages_use(struct blktrack *bt, struct iotap_ctx *ctx)
{
	struct iotap_event *ev;
	int ret;

	bt->stages = true;
	bt->qtab = reqtab_alloc(BLKTRACK_MAX_INFLIGHT, BLKTRACK_MAX_AGE_NS);
	if (!bt->qtab)
		return -errno;
	bt->etab = reqtab_alloc(BLKTRACK_MAX_INFLIGHT, BLKTRACK_MAX_AGE_NS);
	if (!bt->etab)
		return -errno;
	ret = blktrack_stage_use(bt, ctx, "block_bio_queue", blktrack_on_queue, &bt->f_queue,
				 &bt->sev.queue);
	if (!ret)
		ret = blktrack_stage_use(bt, ctx, "block_getrq", blktrack_on_getrq, &bt->f_getrq,
					 &bt->sev.getrq);
	if (!ret)
		ret = blktrack_stage_use(bt, ctx, "block_bio_backmerge", blktrack_on_backmerge,
					 &bt->f_back, &bt->sev.backmerge);
	if (!ret)
		ret = blktrack_stage_use(bt, ctx, "block_rq_merge", blktrack_on_rq_merge,
					 &bt->f_rqmerge, &bt->sev.rq_merge);
	if (!ret)
		ret = blktrack_stage_use(bt, ctx, "block_rq_requeue", blktrack_on_requeue,
					 &bt->f_requeue, &bt->sev.requeue);
	if (ret || !iotap_event_available(ctx, "block", "block_split"))
		return ret;
	ev = iotap_event_use(ctx, "block", "block_split", 0, blktrack_on_split, bt);
	if (!ev)
		return -errno;
	if (field_init(&bt->split_dev, iotap_event_format(ev), "dev") ||
	    field_init(&bt->split_sector, iotap_event_format(ev), "sector") ||
	    field_init(&bt->split_new, iotap_event_format(ev), "new_sector") ||
	    field_init(&bt->split_rwbs, iotap_event_format(ev), "rwbs")) {
		iotap_err(ctx, "block:block_split has no dev/sector/new_sector/rwbs fields");
		return -ENOENT;
	}
	bt->sev.split = true;
	if (bt->cfg.has_dev)
		return iotap_event_filter(ev, "dev == %u", bt->cfg.dev);
	return 0;
}

/* blktrack_cfg_select - -d DISK and -p PID into cfg, checked, with one error line each */
int blktrack_cfg_select(struct blktrack_cfg *cfg, struct iotap_ctx *ctx, const char *disk,
			int pid)
{
	int ret;

	if (disk) {
		uint64_t start, nr;
		uint32_t whole;

		ret = iotap_disk_resolve(ctx, disk, &cfg->dev);
		if (ret) {
			iotap_err(ctx, "unknown disk '%s'", disk);
			return ret;
		}
		cfg->has_dev = true;
		ret = iotap_disk_partition(ctx, cfg->dev, &whole, &start, &nr);
		if (ret == -ENODATA) {
			iotap_err(ctx, "'%s' is a partition, and the recording does not say where it lies on its disk: trace the disk",
				  disk);
			return ret;
		}
		if (!ret) {
			cfg->dev = whole;
			cfg->part_start = start;
			cfg->part_end = start + nr;
		}
	}
	ret = pid ? iotap_pid_check(ctx, pid) : 0;
	if (ret == -ESRCH)
		iotap_err(ctx, "no process with PID %d", pid);
	if (ret)
		return ret;
	cfg->pid = pid;
	return 0;
}

/* blktrack_cfg_bio - --bio into cfg, after blktrack_cfg_select: a bio-based -d traces bios anyway */
int blktrack_cfg_bio(struct blktrack_cfg *cfg, struct iotap_ctx *ctx, const char *disk, bool bio)
{
	bool bio_based = cfg->has_dev && blktrack_dev_bio_based(ctx, cfg->dev);

	if (bio && cfg->has_dev && !bio_based) {
		iotap_err(ctx, "--bio: %s completes requests, not bios: trace it without --bio", disk);
		return -EINVAL;
	}
	if (bio || bio_based)
		cfg->flags |= BT_BIO;
	return 0;
}

/* blktrack_create - subscribe to the events the configuration needs */
int blktrack_create(struct blktrack **out, struct iotap_ctx *ctx, const struct blktrack_cfg *cfg)
{
	struct blktrack *bt = calloc(1, sizeof(*bt));
	unsigned int sflags = (cfg->flags & BT_START_STACK) ? cfg->stack_flags : 0;
	bool want_start = cfg->flags & (BT_START | BT_START_STACK);
	int ret;

	if (!bt)
		return -ENOMEM;
	bt->cfg = *cfg;
	bt->ctx = ctx;
	bt->filter = cfg->pid || iotap_cgroup_filtering(ctx);
	bt->tab = reqtab_alloc(BLKTRACK_MAX_INFLIGHT, BLKTRACK_MAX_AGE_NS);
	if (!bt->tab) {
		ret = -errno;
		goto out_free;
	}
	if (cfg->flags & BT_BIO) {
		bt->have_start = true;
		ret = blktrack_use(bt, ctx, "block_bio_queue", sflags, blktrack_on_bio_queue, &bt->f_start);
		if (!ret)
			ret = blktrack_use(bt, ctx, "block_bio_complete", 0, blktrack_on_bio_done, &bt->f_done);
		if (ret)
			goto out_free;
		*out = bt;
		return 0;
	}
	/* Without -Q a pid or cgroup filter still needs the submitter's event to know whose I/O it is. */
	if (bt->filter)
		want_start = true;
	else if (want_start && (cfg->flags & BT_START_OPTIONAL) && !(cfg->flags & BT_START_STACK) &&
		 !iotap_event_available(ctx, "block", "block_io_start") &&
		 !iotap_event_available(ctx, "block", "block_rq_insert")) {
		iotap_info(ctx, "no block_io_start or block_rq_insert events: requests are shown with "
			   "the task that issued them, and no queue time");
		want_start = false;
	}
	/* Else, for a tool that shows flushes, the submitter's event for them alone: who asked. */
	bt->start_flush_only = !want_start && cfg->on_nodata &&
			       iotap_event_available(ctx, "block", "block_io_start");
	if (want_start || bt->start_flush_only) {
		if (iotap_event_available(ctx, "block", "block_io_start")) {
			ret = blktrack_use(bt, ctx, "block_io_start", sflags, blktrack_on_start, &bt->f_start);
			bt->have_start = !bt->start_flush_only;
		} else {
			ret = blktrack_use(bt, ctx, "block_rq_insert", sflags, blktrack_on_start, &bt->f_start);
			bt->start_is_insert = true;
			bt->have_start = true;
		}
		if (ret)
			goto out_free;
	}
	/* Whose a request is matters: join what blk-throttle's worker starts to its submitter. */
	if (bt->have_start && iotap_event_available(ctx, "block", "block_bio_remap")) {
		ret = blktrack_remap_use(bt, ctx);
		if (ret)
			goto out_free;
	}
	/* And what a whole disk's blk-throttle holds, where a probe of its entry can be had. */
	if (bt->have_start) {
		ret = blktrack_throtl_use(bt, ctx);
		if (ret)
			goto out_free;
	}
	if (cfg->flags & BT_STAGES) {
		ret = blktrack_stages_use(bt, ctx);
		if (ret)
			goto out_free;
	}
	if ((bt->have_start || bt->stages) &&
	    iotap_event_available(ctx, "block", "block_bio_frontmerge")) {
		ret = blktrack_use(bt, ctx, "block_bio_frontmerge", 0, blktrack_on_frontmerge,
				   &bt->f_front);
		if (ret)
			goto out_free;
		bt->sev.frontmerge = true;
	}
	if ((cfg->flags & BT_INSERT) && !bt->start_is_insert) {
		ret = blktrack_use(bt, ctx, "block_rq_insert", 0, blktrack_on_insert, &bt->f_insert);
		if (ret)
			goto out_free;
		bt->have_insert = true;
	}
	bt->sev.insert = bt->have_insert || bt->start_is_insert;
	ret = blktrack_use(bt, ctx, "block_rq_issue", 0, blktrack_on_issue, &bt->f_issue);
	if (ret)
		goto out_free;
	ret = blktrack_use(bt, ctx, "block_rq_complete", 0, blktrack_on_done, &bt->f_done);
	if (ret)
		goto out_free;
	*out = bt;
	return 0;
out_free:
	blktrack_free(bt);
	return ret;
}

/* blktrack_free - free the tracker; accepts NULL */
void blktrack_free(struct blktrack *bt)
{
	if (!bt)
		return;
	reqtab_free(bt->tab);
	reqtab_free(bt->held);
	reqtab_free(bt->qtab);
	reqtab_free(bt->etab);
	free(bt);
}

/* blktrack_stats - completion and exclusion counters */
const struct blktrack_stats *blktrack_stats(const struct blktrack *bt)
{
	return &bt->st;
}

/* blktrack_has_start - whether a submitter-context event is traced */
bool blktrack_has_start(const struct blktrack *bt)
{
	return bt->have_start;
}

/* blktrack_stage_events - which stage events are traced */
const struct blktrack_stage_events *blktrack_stage_events(const struct blktrack *bt)
{
	return &bt->sev;
}

/* blktrack_dev_bio_based - md and dm devices: their bios never become requests */
bool blktrack_dev_bio_based(struct iotap_ctx *ctx, uint32_t dev)
{
	const char *name = iotap_disk_name(ctx, dev);

	/* By name, which recordings keep too; request-based dm (multipath) also works with bios. */
	return !strncmp(name, "md", 2) || !strncmp(name, "dm-", 3);
}

/* blktrack_warn_stats - say what was not paired, so nothing is dropped silently */
int blktrack_warn_stats(struct blktrack *bt, struct iotap_ctx *ctx)
{
	const struct reqtab_stats *rs = reqtab_stats(bt->tab);
	bool bio = bt->cfg.flags & BT_BIO;

	/* With -p or --cgroup, the completions of others' requests pair with nothing. */
	if (!bt->filter)
		iotap_unpaired_say(ctx, &bt->said_unpaired, bt->st.completed, bt->st.unmatched,
				   bio ? "bio" : "block request", bio ? "block_bio_queue" : "block_rq_issue",
				   rs->inserted);
	if (rs->evicted_age || rs->evicted_full)
		iotap_warn(ctx, "%llu requests never completed within 60 s or overflowed the in-flight table and were dropped",
			   (unsigned long long)(rs->evicted_age + rs->evicted_full));
	/* A tool that shows flushes (on_nodata) times them apart; the others leave them out. */
	if (iotap_verbose(ctx) && bt->cfg.on_nodata)
		iotap_info(ctx, "%llu requests completed and %llu flushes; not timed: %llu completions whose issue was not seen (in flight at start); %zu still in flight",
			   (unsigned long long)bt->st.completed, (unsigned long long)bt->st.flushes,
			   (unsigned long long)bt->st.unmatched, reqtab_count(bt->tab));
	else if (iotap_verbose(ctx))
		iotap_info(ctx, "%llu requests completed; not timed: %llu completions whose issue was not seen (in flight at start), %llu without a sector (flushes); %zu still in flight",
			   (unsigned long long)bt->st.completed, (unsigned long long)bt->st.unmatched,
			   (unsigned long long)bt->st.nodata, reqtab_count(bt->tab));
	if (bt->st.joined && iotap_verbose(ctx))
		iotap_info(ctx, "%llu requests started by another task (blk-throttle's worker) are charged to the task that sent their bio%s",
			   (unsigned long long)bt->st.joined,
			   bt->throtl ? "" : " to the partition");
	/* Never a worker named silently: where no join can hold, say so. */
	if (bt->st.worker)
		iotap_warn(ctx, "%llu requests were started by a per-CPU kernel worker and are %s: blk-throttle releases the bios it held from one, and without kprobes (or BTF) for its entry this kernel names no task that sent them to a whole disk",
			   (unsigned long long)bt->st.worker,
			   bt->filter ? "left out (-p and --cgroup cannot tell whose they are)" :
			   "shown as it");
	/* Bios that no request took (merged where no event says so: discards) age out here. */
	if (bt->stages && iotap_verbose(ctx))
		iotap_info(ctx, "stages: %llu merges whose request was not seen made; %llu queued bios no request took within 60 s, %zu waiting",
			   (unsigned long long)bt->st.merge_unmatched,
			   (unsigned long long)(reqtab_stats(bt->qtab)->evicted_age +
						reqtab_stats(bt->qtab)->evicted_full),
			   reqtab_count(bt->qtab));
	return 0;
}

/* blk_lastpos_seek - distance from the disk's last request end; 0 on the disk's first, else 1 */
int blk_lastpos_seek(struct blk_lastpos *lp, uint32_t dev, uint64_t sector, uint32_t nr_sector,
		     uint64_t *dist)
{
	struct blk_pos *d;

	/* Requests come in runs of one disk's. */
	if (lp->last >= lp->nr || lp->d[lp->last].dev != dev)
		for (lp->last = 0; lp->last < lp->nr && lp->d[lp->last].dev != dev; lp->last++)
			;
	if (lp->last < lp->nr) {
		d = &lp->d[lp->last];
		*dist = sector > d->end ? sector - d->end : d->end - sector;
		d->end = sector + nr_sector;
		return 1;
	}
	d = realloc(lp->d, (lp->nr + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	lp->d = d;
	lp->d[lp->nr++] = (struct blk_pos){ .dev = dev, .end = sector + nr_sector };
	return 0;
}

/* blk_io_first - see blktrack.h */
uint64_t blk_io_first(const struct blk_io *io)
{
	const uint64_t t[] = { io->t_submit, io->t_queue, io->t_getrq, io->t_start, io->t_insert,
			       io->t_issue };
	uint64_t first = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i] && (!first || t[i] < first))
			first = t[i];
	return first;
}

/* blk_span - b - a where both are known and in order, else 0 */
static uint64_t blk_span(uint64_t a, uint64_t b)
{
	return a && b > a ? b - a : 0;
}

/* blk_io_waits - see blktrack.h */
void blk_io_waits(const struct blk_io *io, uint64_t w[BLK_WAITS])
{
	/* A request made after its start (block_io_start before 6.5's getrq): from the earlier. */
	uint64_t made = io->t_getrq ? io->t_getrq : io->t_start ? io->t_start : io->t_insert;

	if (io->t_start && made > io->t_start)
		made = io->t_start;
	w[BLK_WAIT_THROTTLE] = blk_span(io->t_submit, io->t_queue);
	w[BLK_WAIT_RQOS] = blk_span(io->t_queue, made);
	w[BLK_WAIT_QUEUE] = blk_span(made ? made : io->t_queue, io->t_issue);
	w[BLK_WAIT_DEVICE] = blk_span(io->t_issue, io->t_done);
	/* Without the queue event, the throttle's hold runs to whatever came next. */
	if (!io->t_queue)
		w[BLK_WAIT_THROTTLE] = blk_span(io->t_submit, made ? made : io->t_issue);
}

/* blk_io_type - see blktrack.h */
const char *blk_io_type(const struct blk_io *io)
{
	switch (io->op) {
	case BLOCK_OP_WRITE:
		return "W";
	case BLOCK_OP_FLUSH:
		return "F";
	case BLOCK_OP_DISCARD:
	case BLOCK_OP_SECURE_ERASE:
		return "D";
	default:
		return "R";
	}
}

/* blk_lastpos_release - forget every disk; safe twice */
void blk_lastpos_release(struct blk_lastpos *lp)
{
	free(lp->d);
	lp->d = NULL;
	lp->nr = lp->last = 0;
}
