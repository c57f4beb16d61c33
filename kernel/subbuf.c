// SPDX-License-Identifier: GPL-2.0-or-later
/* subbuf.c - ftrace sub-buffers' events, as they lie or as perf samples; a decoder per thread */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "sample.h"
#include "subbuf.h"

struct subbuf_decoder {
	char *text;			/* the header_page it was made from */
	size_t text_len;
	struct tep_handle *hp;
	struct kbuffer *kb;
	size_t size;			/* of a whole sub-buffer */
	int *types;			/* the tracepoint ids decoded */
	size_t nr_types;
	uint8_t *rec;			/* the record being built */
};

/* subbuf_decoder_free - accepts NULL */
void subbuf_decoder_free(struct subbuf_decoder *d)
{
	if (!d)
		return;
	if (d->kb)
		kbuffer_free(d->kb);
	if (d->hp)
		tep_free(d->hp);
	free(d->text);
	free(d->types);
	free(d->rec);
	free(d);
}

/* subbuf_decoder_new - a decoder of the layout the header_page text describes */
struct subbuf_decoder *subbuf_decoder_new(const char *text, size_t len)
{
	struct subbuf_decoder *d = calloc(1, sizeof(*d));
	int size, err = ENOMEM;

	if (!d)
		goto fail;
	d->text = malloc(len + 1);
	d->rec = malloc(PERF_RECORD_MAX);
	d->hp = tep_alloc();
	if (!d->text || !d->rec || !d->hp)
		goto fail;
	memcpy(d->text, text, len);
	d->text[len] = 0;
	d->text_len = len;
	tep_set_long_size(d->hp, sizeof(long));
	/* tep_parse_header_page writes into the text it parses: a copy of the copy. */
	{
		char *scratch = strdup(d->text);

		if (!scratch)
			goto fail;
		err = tep_parse_header_page(d->hp, scratch, len, sizeof(long)) ? EINVAL : 0;
		free(scratch);
		if (err)
			goto fail;
	}
	size = tep_get_sub_buffer_size(d->hp);
	d->size = size > 0 ? (size_t)size : (size_t)getpagesize();
	d->kb = tep_kbuffer(d->hp);
	if (!d->kb) {
		err = ENOMEM;
		goto fail;
	}
	return d;
fail:
	subbuf_decoder_free(d);
	errno = err;
	return NULL;
}

/* subbuf_decoder_clone - the same layout and types, a position of its own */
struct subbuf_decoder *subbuf_decoder_clone(const struct subbuf_decoder *d)
{
	struct subbuf_decoder *c = subbuf_decoder_new(d->text, d->text_len);

	for (size_t i = 0; c && i < d->nr_types; i++) {
		if (subbuf_decoder_add(c, d->types[i])) {
			subbuf_decoder_free(c);
			errno = ENOMEM;
			return NULL;
		}
	}
	return c;
}

/* subbuf_size - a whole sub-buffer's bytes */
size_t subbuf_size(const struct subbuf_decoder *d)
{
	return d->size;
}

/* subbuf_decoder_add - one more tracepoint to decode */
int subbuf_decoder_add(struct subbuf_decoder *d, int tp_id)
{
	int *t = realloc(d->types, (d->nr_types + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	d->types = t;
	d->types[d->nr_types++] = tp_id;
	return 0;
}

/* subbuf_known - whether a record's common_type is one to decode */
static bool subbuf_known(const struct subbuf_decoder *d, int type)
{
	for (size_t i = 0; i < d->nr_types; i++)
		if (d->types[i] == type)
			return true;
	return false;
}

/* subbuf_entries - each event of one sub-buffer, as it lies in it (subbuf.h) */
int subbuf_entries(struct subbuf_decoder *d, void *subbuf, struct ftrace_stats *st,
		   struct subbuf_span *span, subbuf_entry_fn fn, void *arg)
{
	unsigned long long ts;
	void *data;
	int missed, ret;

	if (span)
		*span = (struct subbuf_span){ 0, 0 };
	if (kbuffer_load_subbuffer(d->kb, subbuf))
		return -EINVAL;
	missed = kbuffer_missed_events(d->kb);
	if (missed)
		st->missed += missed > 0 ? (uint64_t)missed : 1;
	for (data = kbuffer_read_event(d->kb, &ts); data; data = kbuffer_next_event(d->kb, &ts)) {
		int size = kbuffer_event_size(d->kb);
		uint16_t type;

		if (span) {
			if (!span->first)
				span->first = ts;
			span->last = ts;
		}
		if (size < 8)
			continue;
		memcpy(&type, data, 2);
		if (!subbuf_known(d, type)) {
			st->foreign++;
			continue;
		}
		st->records++;
		ret = fn(arg, ts, data, (uint32_t)size);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * subbuf_sample_lay - a trace entry as a perf sample (subbuf.h)
 *
 * The raw data is the trace entry itself, exactly what perf's PERF_SAMPLE_RAW
 * carries, padded as perf pads it. The entry names its thread only: the
 * sample's pid is that thread id too, for the reader to replace with the
 * process it knows (tgidmap.h).
 */
const struct perf_event_header *subbuf_sample_lay(void *buf, int cpu, uint64_t time,
						  const void *entry, uint32_t size)
{
	struct perf_event_header *h = buf;
	uint64_t *v = (uint64_t *)(h + 1);
	/* perf pads the raw data so that the u32 size and it end 8-byte aligned */
	uint32_t raw_size = ((size + 4 + 7) & ~7u) - 4, tid;
	uint16_t type;
	int32_t pid;
	char *raw;

	if (size < 8 || sizeof(*h) + 32 + 4 + raw_size > PERF_RECORD_MAX)
		return NULL;
	/* struct trace_entry: u16 type, u8 flags, u8 preempt_count, s32 pid */
	memcpy(&type, entry, 2);
	memcpy(&pid, (const char *)entry + 4, 4);
	tid = (uint32_t)pid;
	v[0] = ftrace_sample_id(type);
	v[1] = (uint64_t)tid << 32 | tid;
	v[2] = time;
	v[3] = (uint32_t)cpu;
	raw = (char *)(v + 4);
	memcpy(raw, &raw_size, 4);
	memcpy(raw + 4, entry, size);
	memset(raw + 4 + size, 0, raw_size - size);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = sizeof(*h) + 32 + 4 + raw_size;
	return h;
}

struct subbuf_lay_arg {
	struct subbuf_decoder *d;
	int cpu;
	ftrace_record_fn fn;
	void *arg;
};

/* subbuf_lay_one - one entry laid out as a sample, to the caller's fn */
static int subbuf_lay_one(void *arg, uint64_t time, const void *entry, uint32_t size)
{
	struct subbuf_lay_arg *a = arg;
	const struct perf_event_header *h = subbuf_sample_lay(a->d->rec, a->cpu, time, entry, size);

	return h ? a->fn(a->arg, time, h) : 0;
}

/* subbuf_decode - each event of one sub-buffer as a perf sample */
int subbuf_decode(struct subbuf_decoder *d, int cpu, void *subbuf, struct ftrace_stats *st,
		  struct subbuf_span *span, ftrace_record_fn fn, void *arg)
{
	struct subbuf_lay_arg a = { d, cpu, fn, arg };

	return subbuf_entries(d, subbuf, st, span, subbuf_lay_one, &a);
}

/* subbuf_used - header, events, and the missed count the kernel may store after them */
size_t subbuf_used(struct subbuf_decoder *d, void *subbuf)
{
	size_t used;

	if (kbuffer_load_subbuffer(d->kb, subbuf))
		return 0;
	used = (size_t)kbuffer_start_of_data(d->kb) + (size_t)kbuffer_subbuffer_size(d->kb) + 8;
	return used < d->size ? used : d->size;
}
