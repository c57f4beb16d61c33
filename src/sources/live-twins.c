// SPDX-License-Identifier: GPL-2.0-or-later
/* live-twins.c - stack events read from the ftrace ring too, and the two streams joined */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <event-parse.h>

#include "array.h"
#include "live-local.h"
#include "merge.h"
#include "sample.h"
#include "session.h"
#include "stackjoin.h"

/*
 * How long a stack event's copy in one ring waits for its twin in the other
 * before it goes out alone. Both are written in one tracepoint call, so a
 * twin that has not come within a round is lost; the margin covers a vCPU
 * the host stops between the two writes.
 */
#define TWIN_GRACE_NS (50 * 1000000ull)

/*
 * live_twin_wanted - whether ev is read from the ftrace ring too: when its
 * backend samples callchains, perf drops a sample now and then without a
 * trace, the ftrace ring does not, so the count stays exact and only the
 * stack is lost (live-local.h)
 */
bool live_twin_wanted(const struct session *s, const struct iotap_event *ev)
{
	return (ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) && s->opts.source == SOURCE_AUTO;
}

/* live_twin_add - have ev read from the ftrace ring too, through be, ftrace's backend (live-local.h) */
int live_twin_add(struct live_src *lv, struct live_be *be, struct iotap_event *ev)
{
	uint64_t id;
	int ret;

	if (array_reserve(&lv->twins, &lv->cap_twins, lv->nr_twins + 1, sizeof(*lv->twins), 4))
		return -ENOMEM;
	ret = be->ops->twin(be->priv, ev, &id);
	if (ret)
		return ret;
	lv->twins[lv->nr_twins++] = (struct live_twin){ .ev = ev, .ftrace_id = id, .join = -1 };
	ev->twin = (unsigned int)lv->nr_twins;
	return 0;
}

/* live_key - the raw bytes of an event's own fields, which tell its events apart; caller frees */
static struct stackjoin_range *live_key(const struct tep_event *tp, size_t *nr)
{
	struct stackjoin_range *k = NULL;
	size_t cap = 0;

	*nr = 0;
	for (const struct tep_format_field *f = tp->format.fields; f; f = f->next) {
		if (array_reserve(&k, &cap, *nr + 1, sizeof(*k), 8)) {
			free(k);
			return NULL;
		}
		k[(*nr)++] = (struct stackjoin_range){ .off = (uint32_t)f->offset,
						       .len = (uint32_t)f->size,
						       .string = f->flags & TEP_FIELD_IS_STRING };
	}
	/* An event without fields is told apart by its thread alone. */
	return k ? k : calloc(1, sizeof(*k));
}

/* live_join_open - the join of the twinned events, once perf has handed out their ids (live-local.h) */
int live_join_open(struct session *s)
{
	struct live_src *lv = s->src_priv;

	if (!lv->nr_twins)
		return 0;
	lv->join = stackjoin_alloc(TWIN_GRACE_NS);
	if (!lv->join)
		return -ENOMEM;
	for (size_t i = 0; i < lv->nr_twins; i++) {
		struct iotap_event *ev = lv->twins[i].ev;
		struct live_be *be = &lv->be[ev->be];
		struct stackjoin_range *key;
		const uint64_t *ids;
		size_t nr, nr_key;
		int ret = be->ops->event_ids(be->priv, ev, &ids, &nr);

		if (ret)
			return ret;
		if (!nr)
			return -ENOENT;
		key = live_key(ev->tep, &nr_key);
		if (!key)
			return -ENOMEM;
		ret = stackjoin_event_add(lv->join, ev->sample_type, ev->regs_mask, ids[0], key,
					  nr_key);
		free(key);
		if (ret < 0)
			return ret;
		lv->twins[i].join = ret;
		lv->twins[i].perf_id = ids[0];
	}
	return 0;
}

/*
 * live_twins_account - a record per twinned event whose stackless count
 * grew: events delivered from the ftrace ring whose perf sample, and so
 * whose stack, never came (live-local.h)
 */
int live_twins_account(struct live_src *lv, uint64_t time)
{
	for (size_t i = 0; lv->join && i < lv->nr_twins; i++) {
		struct live_twin *t = &lv->twins[i];
		const struct stackjoin_stats *st = stackjoin_stats(lv->join, t->join);
		char rec[IOTAP_STACKLESS_SIZE];
		int ret;

		if (!st || st->stackless <= t->stackless_pushed)
			continue;
		/* Any CPU's id names the event; the count is the event's on all of them. */
		iotap_count_record_write(rec, IOTAP_RECORD_STACKLESS, st->stackless,
					 st->joined + st->stackless + st->perf_only, time, 0,
					 t->perf_id);
		t->stackless_pushed = st->stackless;
		ret = merge_push(lv->merge, time, rec, sizeof(rec));
		if (ret)
			return ret;
	}
	return 0;
}
