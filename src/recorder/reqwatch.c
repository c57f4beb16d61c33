// SPDX-License-Identifier: GPL-2.0-or-later
/* reqwatch.c - the recorder pairs the block requests it records: hand-over and triggers */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reqwatch.h"
#include "sample.h"

struct reqwatch {
	struct blktrack *bt;
	struct blktrack *bt_bio;	/* reqwatch_add_bio_disks: md and dm disks' bios */
	struct handover *ho;		/* the recorder's parts, or NULL */
	uint64_t first;			/* of the record being fed */
	reqwatch_done_fn done;
	void *arg;
};

/* reqwatch_first - when a request was first seen: the earliest of its known times */
static uint64_t reqwatch_first(uint64_t t_start, uint64_t t_insert, uint64_t t_issue)
{
	uint64_t t = 0;

	if (t_start)
		t = t_start;
	if (t_insert && (!t || t_insert < t))
		t = t_insert;
	if (t_issue && (!t || t_issue < t))
		t = t_issue;
	return t;
}

/* reqwatch_seen - the request being fed is in flight from w->first on */
static void reqwatch_seen(struct reqwatch *w)
{
	if (w->ho)
		handover_seen(w->ho, w->first);
}

/* reqwatch_on_start - a request's submitter event: always its first */
static int reqwatch_on_start(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct reqwatch *w = arg;

	w->first = s->time;
	reqwatch_seen(w);
	return 0;
}

/* reqwatch_on_insert - scheduler insert: the first event of a request whose start was not traced */
static int reqwatch_on_insert(void *arg, const struct blkreq *r, const struct perf_sample *s)
{
	struct reqwatch *w = arg;

	w->first = reqwatch_first(r->t_start, r->t_insert, r->t_issue);
	if (!r->t_start)
		reqwatch_seen(w);
	return 0;
}

/* reqwatch_on_issue - the driver takes it: its first event when nothing came before */
static int reqwatch_on_issue(void *arg, struct blkreq *r, const struct perf_sample *s)
{
	struct reqwatch *w = arg;

	w->first = reqwatch_first(r->t_start, r->t_insert, r->t_issue);
	if (!r->t_start && !r->t_insert)
		reqwatch_seen(w);
	return 0;
}

/* reqwatch_on_done - a request completed: its part, and the trigger's look at it */
static int reqwatch_on_done(void *arg, const struct blk_io *io)
{
	struct reqwatch *w = arg;

	w->first = reqwatch_first(io->t_start, io->t_insert, io->t_issue);
	if (w->ho)
		handover_done(w->ho, w->first);
	return w->done ? w->done(w->arg, io) : 0;
}

/*
 * reqwatch_on_nodata - a flush completed: not counted in flight; triggers see
 * it only when it failed (flushes pair per device in order, so a time across
 * one in flight when tracing began is not its own)
 */
static int reqwatch_on_nodata(void *arg, const struct blk_io *io)
{
	struct reqwatch *w = arg;

	w->first = reqwatch_first(io->t_start, io->t_insert, io->t_issue);
	return w->done && io->error ? w->done(w->arg, io) : 0;
}

/* reqwatch_recorded - whether the session records block:name */
static bool reqwatch_recorded(const struct session *s, const char *name)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (!strcmp(s->ev[i]->sys, "block") && !strcmp(s->ev[i]->name, name))
			return true;
	return false;
}

/* reqwatch_cfg - how blktrack calls back into w */
static struct blktrack_cfg reqwatch_cfg(struct reqwatch *w)
{
	return (struct blktrack_cfg){
		.on_start = reqwatch_on_start,
		.on_insert = reqwatch_on_insert,
		.on_issue = reqwatch_on_issue,
		.on_done = reqwatch_on_done,
		.on_nodata = reqwatch_on_nodata,
		.arg = w,
	};
}

/* reqwatch_create - pair the recorded block requests, adding no event */
int reqwatch_create(struct reqwatch **out, struct session *s, bool bio, reqwatch_done_fn done,
		    void *arg)
{
	struct reqwatch *w;
	struct blktrack_cfg cfg;
	int ret;

	*out = NULL;
	if (bio ? !reqwatch_recorded(s, "block_bio_queue") || !reqwatch_recorded(s, "block_bio_complete") :
	    !reqwatch_recorded(s, "block_rq_issue") || !reqwatch_recorded(s, "block_rq_complete"))
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->done = done;
	w->arg = arg;
	cfg = reqwatch_cfg(w);
	/* blktrack takes block_io_start when the kernel has it, else insert as the start. */
	if (bio)
		cfg.flags |= BT_BIO;
	else if (reqwatch_recorded(s, "block_io_start") ||
		 (!iotap_event_available(&s->ctx, "block", "block_io_start") &&
		  reqwatch_recorded(s, "block_rq_insert")))
		cfg.flags |= BT_START;
	if (!bio && reqwatch_recorded(s, "block_rq_insert"))
		cfg.flags |= BT_INSERT;
	ret = blktrack_create(&w->bt, &s->ctx, &cfg);
	if (ret) {
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* reqwatch_handover - count the requests in flight per part in ho from now on */
void reqwatch_handover(struct reqwatch *w, struct handover *ho)
{
	if (w)
		w->ho = ho;
}

/* reqwatch_free - accepts NULL */
void reqwatch_free(struct reqwatch *w)
{
	if (!w)
		return;
	blktrack_free(w->bt);
	blktrack_free(w->bt_bio);
	free(w);
}

/* reqwatch_add_bio_disks - pair the bios of md and dm disks too, when they are recorded */
int reqwatch_add_bio_disks(struct reqwatch *w, struct session *s)
{
	struct blktrack_cfg cfg = reqwatch_cfg(w);

	if (!reqwatch_recorded(s, "block_bio_queue") || !reqwatch_recorded(s, "block_bio_complete"))
		return 0;
	cfg.flags = BT_BIO | BT_BIO_DISKS;
	return blktrack_create(&w->bt_bio, &s->ctx, &cfg);
}

/* reqwatch_time - a sample's event and fields, and its time */
uint64_t reqwatch_time(struct session *s, const struct perf_event_header *rec,
		       struct reqwatch_rec *r)
{
	r->ev = NULL;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	r->ev = session_event_find(s, perf_record_id(rec));
	if (r->ev && perf_sample_parse(rec, r->ev->sample_type, r->ev->regs_mask, &r->smp))
		r->ev = NULL;
	return r->ev ? r->smp.time : 0;
}

/* reqwatch_feed - one record through the session's handlers of its event */
int reqwatch_feed(struct reqwatch *w, struct session *s, struct reqwatch_rec *r,
		  uint64_t *first)
{
	*first = r->ev ? r->smp.time : 0;
	if (!w || !r->ev)
		return 0;
	w->first = r->smp.time;
	for (int i = 0; i < r->ev->nr_h; i++) {
		int ret = r->ev->h[i].fn(&s->ctx, &r->smp, r->ev->h[i].arg);

		if (ret)
			return ret;
	}
	*first = w->first;
	return 0;
}
