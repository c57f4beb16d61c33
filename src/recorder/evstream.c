// SPDX-License-Identifier: GPL-2.0-or-later
/* evstream.c - a recording's records as the file keeps them: callchains by id */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evstream.h"
#include "sample.h"
#include "sections.h"
#include "session.h"
#include "symbolizer.h"

/* evstream_init_stacks - -g: the callchain ids and the buffer samples are rewritten in */
int evstream_init_stacks(struct evstream *es)
{
	es->stacks = stackmap_alloc();
	es->rewrite = malloc(PERF_RECORD_MAX);
	return es->stacks && es->rewrite ? 0 : -ENOMEM;
}

/* evstream_release - the stacks and the buffer; accepts a zeroed es, safe twice */
void evstream_release(struct evstream *es)
{
	stackmap_free(es->stacks);
	free(es->rewrite);
	es->stacks = NULL;
	es->rewrite = NULL;
}

/* evstream_put_stack - a callchain's id in the file; its REC_RECORD_STACK goes first if new */
static int evstream_put_stack(struct evstream *es, const uint64_t *chain, uint32_t nr,
			      uint64_t *id)
{
	const struct perf_event_header *h;
	uint64_t *v;
	int ret;

	if (nr > (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8)
		nr = (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8;
	if (stackmap_count(es->stacks) >= REC_STACKS_MAX)
		stackmap_clear(es->stacks);
	v = stackmap_get(es->stacks, 0, 0, chain, nr);
	if (!v)
		return -ENOMEM;
	if (!v[0]) {
		v[0] = stackmap_count(es->stacks);
		h = rec_sec_stack_encode(es->rewrite, v[0] - 1, chain, nr);
		ret = rec_writer_stream(es->w, REC_SEC_EVTS, h, h->size);
		if (ret)
			return ret;
	}
	*id = v[0] - 1;
	return 0;
}

/*
 * evstream_rewrite - a sample as the file keeps it into *out: its callchain (a
 * copied user stack walked into it first, symbolizer_walk_record(): DWARF
 * copies come here, frame-pointer ones were walked as they left the ring)
 * named by the id of a REC_RECORD_STACK; any other record as it is. 0, with
 * *out NULL for a sample that does not parse (dropped), or -errno.
 */
static int evstream_rewrite(struct evstream *es, struct session *s,
			    const struct perf_event_header *rec,
			    const struct perf_event_header **out)
{
	const struct iotap_event *ev;
	struct perf_sample smp;
	uint64_t type, regs_mask, id;
	int n, ret;

	*out = rec;
	if (rec->type != PERF_RECORD_SAMPLE || !es->stacks)
		return 0;
	ev = session_event_find(s, perf_record_id(rec));
	if (!ev || !(ev->sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	*out = NULL;
	type = ev->sample_type;
	regs_mask = ev->regs_mask;
	if (type & PERF_SAMPLE_STACK_USER) {
		rec = symbolizer_walk_record(s->sym, rec, type, regs_mask);
		type = symbolizer_walked_type(type);
		regs_mask = 0;
	}
	if (!rec || perf_sample_parse(rec, type, regs_mask, &smp))
		return 0;
	ret = evstream_put_stack(es, smp.ips, (uint32_t)smp.nr_ips, &id);
	if (ret)
		return ret;
	smp.ips = &id;
	smp.nr_ips = 1;
	n = perf_sample_write(&smp, type, rec->misc, es->rewrite, PERF_RECORD_MAX);
	if (n >= 0)
		*out = (const void *)es->rewrite;
	return 0;
}

/* evstream_write - one record into the stream, its callchain by id */
int evstream_write(struct evstream *es, struct session *s, const struct perf_event_header *rec)
{
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE) {
		ret = evstream_rewrite(es, s, rec, &rec);
		if (ret)
			return ret;
		if (!rec) {
			s->dropped++;
			s->malformed++;
			return 0;
		}
	}
	/* The session has given the symbolizer the mappings DWARF unwinding needs. */
	ret = rec_writer_stream(es->w, REC_SEC_EVTS, rec, rec->size);
	if (ret)
		return ret;
	es->records++;
	if (rec->type == PERF_RECORD_SAMPLE)
		es->samples++;
	return 0;
}
