// SPDX-License-Identifier: GPL-2.0-or-later
/* subbuf.c - ftrace sub-buffers' events, as they lie or as perf samples; a decoder per thread */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "sample.h"
#include "subbuf.h"

struct subbuf_decoder {
	char *text;			/* the header_page it was made from */
	size_t text_len;
	struct tep_handle *hp;
	size_t size;			/* of a whole sub-buffer */
	uint32_t start;			/* where its events start: after the time stamp and commit */
	uint32_t long_size;		/* of the commit word and the missed count: 4 or 8 */
	int *types;			/* the tracepoint ids decoded */
	size_t nr_types;
	uint8_t *rec;			/* the record being built */
};

/* subbuf_decoder_free - accepts NULL */
void subbuf_decoder_free(struct subbuf_decoder *d)
{
	if (!d)
		return;
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
	d->long_size = tep_get_header_page_size(d->hp) == 8 ? 8 : 4;
	d->start = 8 + d->long_size;
	if (d->size <= d->start + d->long_size) {
		err = EINVAL;
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

/*
 * The sub-buffer's layout, as the kernel's ring buffer writes it (and
 * events/header_page describes): a u64 time stamp, a commit word (a long) whose
 * low 27 bits are the bytes of events after it and whose top bits say events
 * were missed before it (and whether their count is stored after the events),
 * then the events. Each starts with a u32: 5 bits of type_len, 27 of time delta.
 */
#define SUBBUF_COMMIT_MASK	((1u << 27) - 1)
#define SUBBUF_MISSED		(1ull << 31)
#define SUBBUF_MISSED_STORED	(1ull << 30)
#define SUBBUF_TS_SHIFT		27
#define SUBBUF_TS_MSB		(0xf8ull << 56)
enum {
	SUBBUF_PADDING = 29,		/* skip array[0] bytes (discarded, or the page's end) */
	SUBBUF_TIME_EXTEND = 30,	/* array[0] << 27 more delta */
	SUBBUF_TIME_STAMP = 31,		/* an absolute time stamp, its top bits the current time's */
};

/* One sub-buffer's walk: its events' bytes and the time of the last one read. */
struct subbuf_walk {
	const uint8_t *data;
	uint32_t size, next;
	uint64_t ts;
};

static uint32_t subbuf_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t subbuf_long(const uint8_t *p, uint32_t long_size)
{
	uint64_t v = 0;

	if (long_size == 8)
		memcpy(&v, p, 8);
	else
		v = subbuf_u32(p);
	return v;
}

/*
 * subbuf_walk_next - the next data event of w (*len gets its bytes), NULL at
 * the end; time extends, stamps and padding are taken on the way, as kbuffer
 * takes them, and an event that would run past the commit ends the walk
 */
static const uint8_t *subbuf_walk_next(struct subbuf_walk *w, uint32_t *len)
{
	while (w->next < w->size && w->size - w->next >= 4) {
		uint32_t at = w->next + 4, h = subbuf_u32(w->data + w->next);
		uint32_t type_len = h & 31, delta = h >> 5;
		uint64_t length;

		if (type_len != 0 && type_len < SUBBUF_PADDING) {
			length = type_len * 4u;
		} else {
			if (w->size - at < 4)
				return NULL;
			length = subbuf_u32(w->data + at);
		}
		switch (type_len) {
		case SUBBUF_PADDING:
			w->ts += delta;
			w->next = at + length > w->size ? w->size : at + (uint32_t)length;
			continue;
		case SUBBUF_TIME_STAMP:
			w->ts = ((length << SUBBUF_TS_SHIFT) + delta) | (w->ts & SUBBUF_TS_MSB);
			w->next = at + 4;
			continue;
		case SUBBUF_TIME_EXTEND:
			w->ts += (length << SUBBUF_TS_SHIFT) + delta;
			w->next = at + 4;
			continue;
		case 0:
			if (length < 4)
				return NULL;
			length = (length - 4 + 3) & ~3ull;
			at += 4;
			break;
		default:
			break;
		}
		if (length > w->size - at)
			return NULL;
		w->ts += delta;
		w->next = at + (uint32_t)length;
		*len = (uint32_t)length;
		return w->data + at;
	}
	return NULL;
}

/*
 * subbuf_walk_start - w over the sub-buffer at subbuf; -EINVAL for a commit
 * past its end. *missed gets the events the kernel says were lost before it:
 * the count it stored, 1 where it stored none, 0 for none lost.
 */
static int subbuf_walk_start(const struct subbuf_decoder *d, const void *subbuf,
			     struct subbuf_walk *w, uint64_t *missed)
{
	const uint8_t *p = subbuf;
	uint64_t commit = subbuf_long(p + 8, d->long_size);
	uint32_t size = (uint32_t)commit & SUBBUF_COMMIT_MASK;

	if (size > d->size - d->start)
		return -EINVAL;
	memcpy(&w->ts, p, 8);
	w->data = p + d->start;
	w->size = size;
	w->next = 0;
	*missed = 0;
	if (commit & SUBBUF_MISSED) {
		*missed = 1;
		if ((commit & SUBBUF_MISSED_STORED) && d->size - d->start - size >= d->long_size)
			*missed = subbuf_long(w->data + size, d->long_size);
		if (!*missed)
			*missed = 1;
	}
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
	struct subbuf_walk w;
	const uint8_t *data;
	uint64_t missed;
	uint32_t size;

	if (span)
		*span = (struct subbuf_span){ 0, 0 };
	if (subbuf_walk_start(d, subbuf, &w, &missed))
		return -EINVAL;
	st->missed += missed;
	while ((data = subbuf_walk_next(&w, &size))) {
		uint16_t type;
		int ret;

		if (span) {
			if (!span->first)
				span->first = w.ts;
			span->last = w.ts;
		}
		if (size < 8)
			continue;
		memcpy(&type, data, 2);
		if (!subbuf_known(d, type)) {
			st->foreign++;
			continue;
		}
		st->records++;
		ret = fn(arg, w.ts, data, size);
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
	struct subbuf_walk w;
	uint64_t missed;
	size_t used;

	if (subbuf_walk_start(d, subbuf, &w, &missed))
		return 0;
	used = (size_t)d->start + w.size + 8;
	return used < d->size ? used : d->size;
}
