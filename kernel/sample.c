// SPDX-License-Identifier: GPL-2.0-or-later
/* sample.c - bounds-checked decoding of perf records */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sample.h"

/* perf_sample_parse - decode a sample laid out for sample_type (IOTAP_SAMPLE_BASE plus extras) */
int perf_sample_parse(const struct perf_event_header *hdr, uint64_t sample_type,
		      uint64_t regs_mask, struct perf_sample *s)
{
	struct cursor c;
	uint64_t v;

	if (hdr->type != PERF_RECORD_SAMPLE || hdr->size < sizeof(*hdr))
		return -EINVAL;
	c = cursor_make(hdr + 1, hdr->size - sizeof(*hdr));
	if ((sample_type & IOTAP_SAMPLE_BASE) != IOTAP_SAMPLE_BASE ||
	    (sample_type & ~(IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN |
			     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)))
		return -ENOTSUP;
	memset(s, 0, sizeof(*s));
	if (cursor_u64(&c, &s->id) || cursor_u64(&c, &v))
		return -EINVAL;
	s->pid = (uint32_t)v;
	s->tid = (uint32_t)(v >> 32);
	if (cursor_u64(&c, &s->time) || cursor_u64(&c, &v))
		return -EINVAL;
	s->cpu = (uint32_t)v;
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (cursor_u64(&c, &s->nr_ips) || s->nr_ips > 0xffff)
			return -EINVAL;
		s->ips = cursor_take(&c, s->nr_ips * 8);
		if (!s->ips)
			return -EINVAL;
	}
	{
		uint32_t size;

		if (cursor_u32(&c, &size))
			return -EINVAL;
		s->raw_size = size;
		s->raw = cursor_take(&c, size);
		if (!s->raw)
			return -EINVAL;
	}
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		if (cursor_u64(&c, &s->regs_abi))
			return -EINVAL;
		if (s->regs_abi) {
			s->regs_mask = regs_mask;
			s->regs = cursor_take(&c, 8ull * __builtin_popcountll(regs_mask));
			if (!s->regs)
				return -EINVAL;
		}
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;

		if (cursor_u64(&c, &size))
			return -EINVAL;
		if (size) {
			s->stack = cursor_take(&c, size);
			if (!s->stack || cursor_u64(&c, &dyn))
				return -EINVAL;
			s->stack_size = dyn < size ? dyn : size;
		}
	}
	return 0;
}

/* put - append n bytes at *at, if they fit before end (data may be NULL when n is 0) */
static void put(uint8_t **at, const uint8_t *end, const void *data, size_t n)
{
	if (!n)
		return;
	if (*at && (size_t)(end - *at) >= n) {
		memcpy(*at, data, n);
		*at += n;
	} else {
		*at = NULL;
	}
}

/*
 * perf_sample_write - lay out a sample as the kernel would for sample_type
 *
 * The inverse of perf_sample_parse(), for IOTAP_SAMPLE_BASE plus
 * PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_REGS_USER (regs_abi, then the registers
 * of regs_mask unless it is 0) and PERF_SAMPLE_STACK_USER (stack_size bytes,
 * none when 0). RAW keeps the kernel's padding and a stack copy is padded
 * as the kernel pads it, so the record stays 8-byte aligned.
 * Return: the record's size, -ENOSPC when it does not fit in room, or
 * -EINVAL for a sample_type or raw size it cannot lay out.
 */
int perf_sample_write(const struct perf_sample *s, uint64_t sample_type, uint16_t misc,
		      void *buf, size_t room)
{
	uint8_t *at = (uint8_t *)buf + sizeof(struct perf_event_header);
	const uint8_t *end = (const uint8_t *)buf + room;
	struct perf_event_header h;
	uint64_t v;
	uint32_t raw_size;
	size_t size;

	if ((sample_type & ~(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER)) != IOTAP_SAMPLE_BASE ||
	    (s->raw_size + 4) % 8)
		return -EINVAL;
	if (room < sizeof(h))
		return -ENOSPC;
	put(&at, end, &s->id, 8);
	v = (uint64_t)s->tid << 32 | s->pid;
	put(&at, end, &v, 8);
	put(&at, end, &s->time, 8);
	v = s->cpu;
	put(&at, end, &v, 8);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		put(&at, end, &s->nr_ips, 8);
		put(&at, end, s->ips, s->nr_ips * 8);
	}
	raw_size = s->raw_size;
	put(&at, end, &raw_size, 4);
	put(&at, end, s->raw, raw_size);
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		put(&at, end, &s->regs_abi, 8);
		if (s->regs_abi)
			put(&at, end, s->regs, 8ull * __builtin_popcountll(s->regs_mask));
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		static const uint8_t zero[8];

		v = (s->stack_size + 7) & ~7ull;
		put(&at, end, &v, 8);
		if (v) {
			put(&at, end, s->stack, s->stack_size);
			put(&at, end, zero, v - s->stack_size);
			put(&at, end, &s->stack_size, 8);
		}
	}
	if (!at)
		return -ENOSPC;
	size = at - (uint8_t *)buf;
	if (size > UINT16_MAX)
		return -ENOSPC;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = misc;
	h.size = (uint16_t)size;
	memcpy(buf, &h, sizeof(h));
	return (int)size;
}

/* iotap_count_record_write - see sample.h */
void iotap_count_record_write(void *buf, uint32_t type, uint64_t count, uint64_t total,
			      uint64_t time, uint32_t cpu, uint64_t id)
{
	struct perf_event_header h = { .type = type, .size = IOTAP_UNDELIVERED_SIZE };
	/* The body, then the sample_id trailer: pid and tid (none), time, cpu, id. */
	uint64_t v[6] = { count, total, 0, time, cpu, id };

	memcpy(buf, &h, sizeof(h));
	memcpy((uint8_t *)buf + sizeof(h), v, sizeof(v));
}

/* perf_sample_id_parse - decode the TID/TIME/CPU/IDENTIFIER trailer of a non-sample record */
int perf_sample_id_parse(const struct perf_event_header *hdr, struct perf_sample_id *sid)
{
	const uint8_t *end = (const uint8_t *)hdr + hdr->size;
	uint64_t v[4];

	if (hdr->type == PERF_RECORD_SAMPLE || hdr->size < sizeof(*hdr) + sizeof(v))
		return -EINVAL;
	memcpy(v, end - sizeof(v), sizeof(v));
	sid->pid = (uint32_t)v[0];
	sid->tid = (uint32_t)(v[0] >> 32);
	sid->time = v[1];
	sid->cpu = (uint32_t)v[2];
	sid->id = v[3];
	return 0;
}

/* perf_record_id - the event id of any record (0 when it has none) */
uint64_t perf_record_id(const struct perf_event_header *hdr)
{
	struct perf_sample_id sid;
	uint64_t id;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (hdr->size < sizeof(*hdr) + 8)
			return 0;
		memcpy(&id, hdr + 1, 8);
		return id;
	}
	return perf_sample_id_parse(hdr, &sid) ? 0 : sid.id;
}

/* perf_record_time - the timestamp of any record carrying one */
int perf_record_time(const struct perf_event_header *hdr, uint64_t *time)
{
	struct perf_sample_id sid;
	int ret;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (hdr->size < sizeof(*hdr) + 24)
			return -EINVAL;
		memcpy(time, (const uint8_t *)(hdr + 1) + 16, 8);
		return 0;
	}
	ret = perf_sample_id_parse(hdr, &sid);
	if (!ret)
		*time = sid.time;
	return ret;
}

/* lost_cpus_add - see sample.h */
int lost_cpus_add(struct lost_cpus *lc, const struct perf_event_header *hdr, size_t max)
{
	struct cursor c = cursor_make(hdr + 1, hdr->size - sizeof(*hdr));
	struct perf_sample_id sid;
	struct lost_cpu *v;
	uint64_t id, n;
	size_t i;

	/* LOST: id and count; LOST_SAMPLES: count; then the sample_id trailer. */
	if (hdr->size < sizeof(*hdr) + (hdr->type == PERF_RECORD_LOST ? 16 : 8) + 32 ||
	    perf_sample_id_parse(hdr, &sid) ||
	    (hdr->type == PERF_RECORD_LOST && cursor_u64(&c, &id)) || cursor_u64(&c, &n))
		return -EINVAL;
	for (i = 0; i < lc->nr && lc->v[i].cpu != (int)sid.cpu; i++)
		;
	if (i == lc->nr) {
		if (lc->nr == max)
			return -E2BIG;
		v = realloc(lc->v, (lc->nr + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		lc->v = v;
		lc->v[lc->nr++] = (struct lost_cpu){ .cpu = (int)sid.cpu };
	}
	lc->v[i].lost += n;
	return 0;
}

/* lost_cpus_get - see sample.h */
int lost_cpus_get(const struct lost_cpus *lc, int i, int *cpu, uint64_t *lost)
{
	if (i < 0 || (size_t)i >= lc->nr)
		return -ENOENT;
	*cpu = lc->v[i].cpu;
	*lost = lc->v[i].lost;
	return 0;
}

/* lost_cpus_release - see sample.h */
void lost_cpus_release(struct lost_cpus *lc)
{
	free(lc->v);
	lc->v = NULL;
	lc->nr = 0;
}
