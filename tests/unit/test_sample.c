// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sample.c - perf record decoding, including malformed records */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sample.h"

struct builder {
	uint8_t buf[1024];
	size_t len;
};

/* put - append bytes */
static void put(struct builder *b, const void *p, size_t n)
{
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

/* put64 - append a u64 */
static void put64(struct builder *b, uint64_t v)
{
	put(b, &v, 8);
}

/* build_sample - a SAMPLE as the kernel lays it out for IOTAP_SAMPLE_BASE (+ callchain) */
static struct perf_event_header *build_sample(struct builder *b, bool chain)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 0 };
	uint32_t raw_size = 12;
	uint8_t raw[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	b->len = 0;
	put(b, &h, sizeof(h));
	put64(b, 42);				/* identifier */
	put64(b, (uint64_t)1235 << 32 | 1234);	/* pid, tid */
	put64(b, 987654321);			/* time */
	put64(b, 1);				/* cpu, res */
	if (chain) {
		put64(b, 3);
		put64(b, 0xffffffffff600000ull);
		put64(b, 0xffffffff81000010ull);
		put64(b, 0x401000);
	}
	put(b, &raw_size, 4);
	put(b, raw, sizeof(raw));
	((struct perf_event_header *)b->buf)->size = b->len;
	return (struct perf_event_header *)b->buf;
}

/* test_parse - every field lands where it should */
static void test_parse(void **state)
{
	struct builder b;
	struct perf_event_header *h = build_sample(&b, true);
	struct perf_sample s;
	uint64_t t;

	assert_int_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN, 0, &s), 0);
	assert_int_equal(s.id, 42);
	assert_int_equal(s.pid, 1234);
	assert_int_equal(s.tid, 1235);
	assert_int_equal(s.time, 987654321);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.nr_ips, 3);
	assert_int_equal(s.ips[2], 0x401000);
	assert_int_equal(s.raw_size, 12);
	assert_int_equal(((const uint8_t *)s.raw)[11], 12);
	assert_int_equal(perf_record_id(h), 42);
	assert_int_equal(perf_record_time(h, &t), 0);
	assert_int_equal(t, 987654321);
}

/* test_write - a written sample is byte for byte what the kernel lays out, and parses back */
static void test_write(void **state)
{
	struct builder b, w;
	struct perf_event_header *h;
	struct perf_sample s, back;
	uint64_t chain[2] = { 0xfffffffffffffe00ull, 0x401234 };
	int n;

	for (int with = 0; with < 2; with++) {
		h = build_sample(&b, with);
		assert_int_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE |
						   (with ? PERF_SAMPLE_CALLCHAIN : 0), 0, &s), 0);
		n = perf_sample_write(&s, IOTAP_SAMPLE_BASE | (with ? PERF_SAMPLE_CALLCHAIN : 0), 0,
				      w.buf, sizeof(w.buf));
		assert_int_equal(n, b.len);
		assert_memory_equal(w.buf, b.buf, b.len);
		/* Every room short of the size is refused, not overrun. */
		for (size_t room = 0; room < b.len; room++)
			assert_int_equal(perf_sample_write(&s, IOTAP_SAMPLE_BASE |
				(with ? PERF_SAMPLE_CALLCHAIN : 0), 0, w.buf, room), -ENOSPC);
	}
	/* A new callchain in place of the sampled one. */
	s.ips = chain;
	s.nr_ips = 2;
	n = perf_sample_write(&s, IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN, 2, w.buf, sizeof(w.buf));
	assert_int_equal(n, b.len - 8);
	h = (struct perf_event_header *)w.buf;
	assert_int_equal(h->misc, 2);
	assert_int_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN, 0, &back), 0);
	assert_int_equal(back.nr_ips, 2);
	assert_int_equal(back.ips[1], 0x401234);
	assert_int_equal(back.pid, 1234);
	assert_int_equal(back.tid, 1235);
	assert_int_equal(back.time, 987654321);
	assert_memory_equal(back.raw, s.raw, 12);
	/* Only what perf_sample_parse() knows, and only kernel-aligned raw data. */
	assert_int_equal(perf_sample_write(&s, IOTAP_SAMPLE_BASE | PERF_SAMPLE_IP, 0, w.buf,
					   sizeof(w.buf)), -EINVAL);
	s.raw_size = 11;
	assert_int_equal(perf_sample_write(&s, IOTAP_SAMPLE_BASE, 0, w.buf, sizeof(w.buf)), -EINVAL);
}

/* test_write_user - user registers and a stack copy, or none of either, parse back as written */
static void test_write_user(void **state)
{
	const uint64_t type = IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_STACK_USER;
	struct builder b, w;
	struct perf_sample s, back;
	uint64_t regs[3] = { 0x7ffd0000, 0x7ffd0100, 0x401000 };
	uint8_t stack[13] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	int n;

	assert_int_equal(perf_sample_parse(build_sample(&b, true), IOTAP_SAMPLE_BASE |
					   PERF_SAMPLE_CALLCHAIN, 0, &s), 0);
	/* None: a kernel thread's sample, or a stand-in for one never delivered. */
	n = perf_sample_write(&s, type, 0, w.buf, sizeof(w.buf));
	assert_int_equal(n, b.len + 16);
	assert_int_equal(perf_sample_parse((void *)w.buf, type, 0x7, &back), 0);
	assert_int_equal(back.regs_abi, 0);
	assert_null(back.regs);
	assert_int_equal(back.stack_size, 0);
	assert_null(back.stack);
	assert_int_equal(back.nr_ips, 3);
	/* Both: the stack is padded as the kernel pads it, its real size kept. */
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.regs_mask = 0x7;
	s.regs = regs;
	s.stack = stack;
	s.stack_size = sizeof(stack);
	n = perf_sample_write(&s, type, 0, w.buf, sizeof(w.buf));
	assert_int_equal(n, b.len + 8 + 24 + 8 + 16 + 8);
	assert_int_equal(n % 8, 0);
	assert_int_equal(perf_sample_parse((void *)w.buf, type, 0x7, &back), 0);
	assert_int_equal(back.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_memory_equal(back.regs, regs, sizeof(regs));
	assert_int_equal(back.stack_size, sizeof(stack));
	assert_memory_equal(back.stack, stack, sizeof(stack));
	assert_memory_equal(back.raw, s.raw, 12);
}

/* test_count_record - an iotap count record carries its figures and a trailer readers find */
static void test_count_record(void **state)
{
	uint64_t buf[IOTAP_UNDELIVERED_SIZE / 8], v[2], t;
	struct perf_event_header h;
	struct perf_sample_id sid;

	iotap_count_record_write(buf, IOTAP_RECORD_STACKLESS, 7, 2000, 123456789, 3, 42);
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(h.type, IOTAP_RECORD_STACKLESS);
	assert_int_equal(h.size, IOTAP_UNDELIVERED_SIZE);
	memcpy(v, (const char *)buf + sizeof(h), sizeof(v));
	assert_int_equal(v[0], 7);
	assert_int_equal(v[1], 2000);
	assert_int_equal(perf_record_id((void *)buf), 42);
	assert_int_equal(perf_record_time((void *)buf, &t), 0);
	assert_int_equal(t, 123456789);
	assert_int_equal(perf_sample_id_parse((void *)buf, &sid), 0);
	assert_int_equal(sid.cpu, 3);
	assert_int_equal(sid.pid, 0);
}

/* test_truncated - every shorter size is rejected, never read past */
static void test_truncated(void **state)
{
	struct builder b;
	struct perf_event_header *h = build_sample(&b, true);
	size_t full = h->size;
	struct perf_sample s;

	for (size_t n = sizeof(*h); n < full; n++) {
		h->size = n;
		assert_int_not_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN, 0, &s), 0);
	}
}

/* test_huge_callchain - a callchain count beyond the record is rejected */
static void test_huge_callchain(void **state)
{
	struct builder b;
	struct perf_event_header *h = build_sample(&b, true);
	struct perf_sample s;
	uint64_t nr = 1ull << 60;

	memcpy(b.buf + sizeof(*h) + 32, &nr, 8);
	assert_int_not_equal(perf_sample_parse(h, IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN, 0, &s), 0);
}

/* test_sample_id - the trailer of a non-sample record (LOST) */
static void test_sample_id(void **state)
{
	struct builder b = { .len = 0 };
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 0 };
	struct perf_sample_id sid;
	uint64_t t;

	put(&b, &h, sizeof(h));
	put64(&b, 42);		/* id */
	put64(&b, 17);		/* lost */
	put64(&b, (uint64_t)8 << 32 | 7);
	put64(&b, 5555);
	put64(&b, 3);
	put64(&b, 42);
	((struct perf_event_header *)b.buf)->size = b.len;
	assert_int_equal(perf_sample_id_parse((void *)b.buf, &sid), 0);
	assert_int_equal(sid.pid, 7);
	assert_int_equal(sid.tid, 8);
	assert_int_equal(sid.time, 5555);
	assert_int_equal(sid.cpu, 3);
	assert_int_equal(sid.id, 42);
	assert_int_equal(perf_record_time((void *)b.buf, &t), 0);
	assert_int_equal(t, 5555);
	((struct perf_event_header *)b.buf)->size = 16;
	assert_int_not_equal(perf_record_time((void *)b.buf, &t), 0);
}

/* build_lost - a LOST (id, count) or LOST_SAMPLES (count) record of cpu, with its trailer */
static struct perf_event_header *build_lost(struct builder *b, uint32_t type, uint32_t cpu,
					    uint64_t n)
{
	struct perf_event_header h = { type, 0, 0 };

	b->len = 0;
	put(b, &h, sizeof(h));
	if (type == PERF_RECORD_LOST)
		put64(b, 42);
	put64(b, n);
	put64(b, (uint64_t)8 << 32 | 7);
	put64(b, 5555);
	put64(b, cpu);
	put64(b, 42);
	((struct perf_event_header *)b->buf)->size = b->len;
	return (struct perf_event_header *)b->buf;
}

/* test_lost_cpus - LOST and LOST_SAMPLES add up per CPU; short records and a full table refused */
static void test_lost_cpus(void **state)
{
	struct lost_cpus lc = { 0 };
	struct builder b;
	uint64_t lost;
	int cpu;

	assert_int_equal(lost_cpus_add(&lc, build_lost(&b, PERF_RECORD_LOST, 3, 17), 2), 0);
	assert_int_equal(lost_cpus_add(&lc, build_lost(&b, PERF_RECORD_LOST_SAMPLES, 3, 5), 2), 0);
	assert_int_equal(lost_cpus_add(&lc, build_lost(&b, PERF_RECORD_LOST, 1, 2), 2), 0);
	assert_int_equal(lost_cpus_add(&lc, build_lost(&b, PERF_RECORD_LOST, 0, 9), 2), -E2BIG);
	build_lost(&b, PERF_RECORD_LOST, 1, 100);
	((struct perf_event_header *)b.buf)->size -= 8;
	assert_int_equal(lost_cpus_add(&lc, (void *)b.buf, 2), -EINVAL);
	assert_int_equal(lost_cpus_get(&lc, 0, &cpu, &lost), 0);
	assert_int_equal(cpu, 3);
	assert_int_equal(lost, 22);
	assert_int_equal(lost_cpus_get(&lc, 1, &cpu, &lost), 0);
	assert_int_equal(cpu, 1);
	assert_int_equal(lost, 2);
	assert_int_equal(lost_cpus_get(&lc, 2, &cpu, &lost), -ENOENT);
	lost_cpus_release(&lc);
	lost_cpus_release(&lc);
	assert_int_equal(lost_cpus_get(&lc, 0, &cpu, &lost), -ENOENT);
}

/* test_unsupported - sample types iotap never asks for are refused */
static void test_unsupported(void **state)
{
	struct builder b;
	struct perf_sample s;

	assert_int_equal(perf_sample_parse(build_sample(&b, false), IOTAP_SAMPLE_BASE | PERF_SAMPLE_IP, 0, &s),
			 -ENOTSUP);
	assert_int_equal(perf_sample_parse(build_sample(&b, false), PERF_SAMPLE_TIME, 0, &s), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_write_user),
		cmocka_unit_test(test_count_record),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_huge_callchain),
		cmocka_unit_test(test_sample_id),
		cmocka_unit_test(test_lost_cpus),
		cmocka_unit_test(test_unsupported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
