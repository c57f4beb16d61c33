/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SAMPLE_H
#define IOTAP_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Every event iotap opens carries these, so records can be demultiplexed and ordered. */
#define IOTAP_SAMPLE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/*
 * A record of iotap's own in the stream: events of one perf event that the
 * kernel counted on its fd but never wrote to the ring (no LOST record says
 * so). Body: u64 undelivered, u64 counted, both since the start, all CPUs;
 * then the sample_id trailer (time, and the event's id on its first CPU).
 */
#define IOTAP_RECORD_UNDELIVERED 0x10001u
#define IOTAP_UNDELIVERED_SIZE (8 + 16 + 32)

/*
 * Events of one event delivered without their callchain: read from the
 * ftrace ring, while the perf sample that carried the stack never came.
 * Body: u64 stackless, u64 events, both since the start, all CPUs; then the
 * sample_id trailer, as IOTAP_RECORD_UNDELIVERED.
 */
#define IOTAP_RECORD_STACKLESS 0x10002u
#define IOTAP_STACKLESS_SIZE (8 + 16 + 32)

/* Room for any perf record: its size is a u16. */
#define PERF_RECORD_MAX 65536

/* One decoded PERF_RECORD_SAMPLE; pointers point into the record. */
struct perf_sample {
	uint64_t id;
	uint64_t time;
	uint32_t pid, tid;
	uint32_t cpu;
	uint64_t nr_ips;
	const uint64_t *ips;
	uint32_t raw_size;
	const void *raw;
	uint64_t regs_abi;
	uint64_t regs_mask;
	const uint64_t *regs;
	uint64_t stack_size;
	const void *stack;
};

/*
 * perf_sample_of_entry - s as a trace entry's sample: no callchain, registers
 * or stack. Every field set one by one, on the path of every live event: an
 * initializer that zeroes the whole struct first costs a rep stos there.
 */
static inline void perf_sample_of_entry(struct perf_sample *s, uint64_t id, uint64_t time,
					uint32_t tid, uint32_t cpu, const void *raw,
					uint32_t raw_size)
{
	s->id = id;
	s->time = time;
	s->pid = s->tid = tid;
	s->cpu = cpu;
	s->nr_ips = 0;
	s->ips = NULL;
	s->raw_size = raw_size;
	s->raw = raw;
	s->regs_abi = s->regs_mask = 0;
	s->regs = NULL;
	s->stack_size = 0;
	s->stack = NULL;
}

/* The sample_id trailer that sample_id_all appends to non-sample records. */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id;
};

/* Events lost per CPU, as LOST and LOST_SAMPLES records of a file tell them. */
struct lost_cpus {
	struct lost_cpu {
		int cpu;
		uint64_t lost;
	} *v;
	size_t nr;
};

/*
 * lost_cpus_add - count a LOST or LOST_SAMPLES record (with its sample_id trailer) for
 * its CPU; at most max CPUs are kept. -EINVAL malformed, -E2BIG past max, -ENOMEM.
 */
int lost_cpus_add(struct lost_cpus *lc, const struct perf_event_header *hdr, size_t max);
/* lost_cpus_get - the i-th CPU seen losing events and its count; -ENOENT past the last */
int lost_cpus_get(const struct lost_cpus *lc, int i, int *cpu, uint64_t *lost);
/* lost_cpus_release - free the counts; lc may be zeroed or released already */
void lost_cpus_release(struct lost_cpus *lc);

/*
 * perf_sample_parse - decode a sample laid out for sample_type (IOTAP_SAMPLE_BASE plus
 * extras): 0, -EINVAL for a record too short for it, or -ENOTSUP for a sample_type it cannot
 * decode
 */
int perf_sample_parse(const struct perf_event_header *hdr, uint64_t sample_type,
		      uint64_t regs_mask, struct perf_sample *s);
/*
 * perf_sample_write - lay out a sample as the kernel would (sample.c): its size, -ENOSPC when
 * it does not fit in room, or -EINVAL for a layout it cannot make
 */
int perf_sample_write(const struct perf_sample *s, uint64_t sample_type, uint16_t misc,
		      void *buf, size_t room);
/*
 * perf_sample_id_parse - decode the TID/TIME/CPU/IDENTIFIER trailer of a non-sample record: 0,
 * or -EINVAL when too short
 */
int perf_sample_id_parse(const struct perf_event_header *hdr, struct perf_sample_id *sid);
/*
 * iotap_count_record_write - an IOTAP_RECORD_UNDELIVERED or _STACKLESS record
 * into buf (IOTAP_UNDELIVERED_SIZE bytes): count of total, since the start,
 * stamped time, for the event of sample id on cpu
 */
void iotap_count_record_write(void *buf, uint32_t type, uint64_t count, uint64_t total,
			      uint64_t time, uint32_t cpu, uint64_t id);
uint64_t perf_record_id(const struct perf_event_header *hdr);
/*
 * perf_record_time - the timestamp of any record carrying one: 0, or -EINVAL for a record
 * without one or too short
 */
int perf_record_time(const struct perf_event_header *hdr, uint64_t *time);

#endif
