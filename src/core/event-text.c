// SPDX-License-Identifier: GPL-2.0-or-later
/* event-text.c - an event's samples as text, and user-space tracepoint filters (iotap.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>

#include "session.h"

/* event_text_record - the sample as libtraceevent's record of ev */
static struct tep_record event_text_record(const struct perf_sample *s)
{
	return (struct tep_record){
		.ts = s->time,
		.cpu = s->cpu,
		.size = s->raw_size,
		.data = (void *)s->raw,
	};
}

/* iotap_event_print - the fields, formatted by the kernel's own print fmt for the event */
int iotap_event_print(struct iotap_event *ev, const struct perf_sample *s, FILE *out)
{
	struct tep_record rec = event_text_record(s);
	struct trace_seq seq;
	int ret = 0;

	trace_seq_init(&seq);
	tep_print_event(ev->tep->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	if (seq.state == TRACE_SEQ__MEM_ALLOC_FAILED)
		ret = -ENOMEM;
	else
		fputs(seq.buffer, out);
	trace_seq_destroy(&seq);
	return ret;
}

struct iotap_filter {
	struct tep_event_filter *tep;
};

/* iotap_filter_alloc - expr parsed for ev's format */
int iotap_filter_alloc(struct iotap_event *ev, const char *expr, struct iotap_filter **f)
{
	char *s;
	int ret;

	*f = calloc(1, sizeof(**f));
	if (!*f)
		return -ENOMEM;
	(*f)->tep = tep_filter_alloc(ev->tep->tep);
	if (!(*f)->tep || asprintf(&s, "%s/%s:%s", ev->sys, ev->name, expr) < 0) {
		iotap_filter_free(*f);
		*f = NULL;
		return -ENOMEM;
	}
	ret = tep_filter_add_filter_str((*f)->tep, s);
	free(s);
	if (ret < 0) {
		iotap_filter_free(*f);
		*f = NULL;
		return -EINVAL;
	}
	return 0;
}

/* iotap_filter_match - whether the sample passes the filter */
bool iotap_filter_match(const struct iotap_filter *f, const struct perf_sample *s)
{
	struct tep_record rec = event_text_record(s);

	return !f || tep_filter_match(f->tep, &rec) == TEP_ERRNO__FILTER_MATCH;
}

/* iotap_filter_free - free a filter; NULL is fine */
void iotap_filter_free(struct iotap_filter *f)
{
	if (!f)
		return;
	if (f->tep)
		tep_filter_free(f->tep);
	free(f);
}
