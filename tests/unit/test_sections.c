// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sections.c - each section's encoder read back by its decoder; damage is -EINVAL */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "sample.h"
#include "sections.h"

/* test_meta_round_trip - every key META's encoder writes comes back; a line break is a space */
static void test_meta_round_trip(void **state)
{
	const struct rec_sec_meta in = {
		.iotap = "0.1.0", .host = "h", .sysname = "Linux", .release = "6.1.0-9-amd64",
		.kversion = "#1 SMP\nPREEMPT", .machine = "x86_64", .tools = "biolatency,biosnoop",
		.command = "dd if=/dev/zero", .nr_cpus = 2, .page_size = 4096, .long_size = 8,
		.callchains = 1, .command_pid = 42, .t_start = 123456789, .wall_offset = -5,
	};
	struct rec_sec_meta m;
	struct rec_buf b = { 0 };
	char why[256] = "";

	rec_sec_meta_encode(&b, &in);
	assert_int_equal(b.err, 0);
	assert_int_equal(rec_sec_meta_decode(b.p, b.len, &m, why, sizeof(why)), 0);
	assert_int_equal(rec_sec_meta_check(&m, why, sizeof(why)), 0);
	assert_string_equal(m.iotap, in.iotap);
	assert_string_equal(m.host, in.host);
	assert_string_equal(m.release, in.release);
	assert_string_equal(m.kversion, "#1 SMP PREEMPT");
	assert_string_equal(m.machine, in.machine);
	assert_string_equal(m.tools, in.tools);
	assert_string_equal(m.command, in.command);
	assert_string_equal(m.clock, REC_META_CLOCK);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(m.page_size, 4096);
	assert_int_equal(m.long_size, 8);
	assert_int_equal(m.command_pid, 42);
	assert_true(m.have_t_start);
	assert_int_equal(m.t_start, 123456789);
	assert_int_equal(m.wall_offset, -5);
	rec_sec_meta_release(&m);
	rec_sec_meta_release(&m);

	/* Without a command, neither command nor command_pid is written. */
	{
		struct rec_sec_meta none = in;

		none.command = NULL;
		rec_buf_reset(&b);
		rec_sec_meta_encode(&b, &none);
		assert_null(memmem(b.p, b.len, "command", 7));
	}
	rec_buf_release(&b);
}

/* test_meta_damaged - what the decoder and the check refuse, each with its words */
static void test_meta_damaged(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "cpus=0\n", "META cpus=0 is out of range" },
		{ "page_size=1000\n", "META page_size=1000 is out of range" },
		{ "long_size=5\n", "META long_size=5 is out of range" },
		{ "t_start=-1\n", "META t_start=-1 is out of range" },
	};
	struct rec_sec_meta m;
	struct rec_buf b = { 0 };
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rec_buf_reset(&b);
		rec_buf_u32(&b, REC_SEC_VERSION);
		rec_buf_put(&b, bad[i].text, strlen(bad[i].text));
		assert_int_equal(rec_sec_meta_decode(b.p, b.len, &m, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, bad[i].why);
		assert_null(m.text);
	}
	rec_buf_reset(&b);
	rec_buf_u32(&b, 2);
	assert_int_equal(rec_sec_meta_decode(b.p, b.len, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "META version 2 is not supported");
	rec_buf_reset(&b);
	rec_buf_u32(&b, REC_SEC_VERSION);
	rec_buf_put(&b, "a=b\0c", 5);
	assert_int_equal(rec_sec_meta_decode(b.p, b.len, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "META holds a NUL byte");
	/* Decoded but not replayable: another clock, or no t_start. */
	rec_buf_reset(&b);
	rec_buf_u32(&b, REC_SEC_VERSION);
	rec_buf_meta(&b, "byte_order", "%s",
		     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	rec_buf_meta(&b, "clock", "boot");
	assert_int_equal(rec_sec_meta_decode(b.p, b.len, &m, why, sizeof(why)), 0);
	assert_int_equal(rec_sec_meta_check(&m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "events use clock 'boot', not monotonic");
	rec_sec_meta_release(&m);
	assert_int_equal(rec_sec_meta_check(&m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "no META section");
	rec_buf_release(&b);
}

/* test_fmth_stream - FMTH's text, and a streamed section's prefix */
static void test_fmth_stream(void **state)
{
	static const uint32_t other[2] = { 2, 0 };
	struct rec_buf b = { 0 };
	const char *text;
	size_t len;
	char why[128];

	rec_sec_fmth_encode(&b, "field: u64 timestamp;", 21);
	assert_int_equal(rec_sec_fmth_decode(b.p, b.len, &text, &len), 0);
	assert_int_equal(len, 21);
	assert_memory_equal(text, "field: u64 timestamp;", 21);
	assert_int_equal(rec_sec_fmth_decode(b.p, 3, &text, &len), -EINVAL);
	((uint8_t *)b.p)[0] = 2;
	assert_int_equal(rec_sec_fmth_decode(b.p, b.len, &text, &len), -EINVAL);
	rec_buf_release(&b);

	assert_int_equal(rec_sec_stream_skip(other, sizeof(other), "KSYM", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "KSYM stream version 2 is not supported");
	assert_int_equal(rec_sec_stream_skip(other, 4, "EVTS", why, sizeof(why)), -EINVAL);
}

/* sink_keep - a sink writer's chunk, kept whole */
static int sink_keep(void *arg, const void *chunk, size_t len)
{
	struct rec_buf *b = arg;

	rec_buf_put(b, chunk, len);
	return b->err;
}

/* test_stream_begin - the prefix a writer streams is the one the decoder skips */
static void test_stream_begin(void **state)
{
	struct rec_buf chunk = { 0 };
	struct rec_writer *w = rec_writer_create_sink(sink_keep, &chunk);
	struct rec_inflater *z = rec_inflater_new();
	struct rec_packed pk;
	uint8_t raw[64];
	char why[128];

	assert_non_null(w);
	assert_int_equal(rec_sec_stream_begin(w, REC_SEC_EVTS), 0);
	assert_int_equal(rec_writer_flush(w), 0);
	assert_int_equal(rec_chunk_unpack(chunk.p, chunk.len, &pk), 0);
	assert_int_equal(pk.type, REC_SEC_EVTS);
	assert_int_equal(pk.raw_len, REC_STREAM_PREFIX);
	assert_int_equal(rec_inflate(z, &pk, raw), 0);
	assert_int_equal(rec_sec_stream_skip(raw, pk.raw_len, "EVTS", why, sizeof(why)),
			 REC_STREAM_PREFIX);
	/* Not one whole chunk: refused. */
	assert_int_equal(rec_chunk_unpack(chunk.p, chunk.len - 1, &pk), -EINVAL);
	assert_int_equal(rec_chunk_unpack(chunk.p, 10, &pk), -EINVAL);
	rec_inflater_free(z);
	rec_writer_free(w);
	rec_buf_release(&chunk);
}

/* test_stored_chunk - a stored sink chunk holds the bytes raw, unpacks, and is written compressed */
static void test_stored_chunk(void **state)
{
	struct rec_buf chunk = { 0 }, out = { 0 };
	struct rec_writer *w = rec_writer_create_sink_stored(sink_keep, &chunk);
	struct rec_writer *fw = rec_writer_create_sink(sink_keep, &out);
	struct rec_inflater *z = rec_inflater_new();
	struct rec_packed pk;
	uint8_t raw[64];
	char why[128];

	assert_non_null(w);
	assert_non_null(fw);
	assert_int_equal(rec_sec_stream_begin(w, REC_SEC_EVTS), 0);
	assert_int_equal(rec_writer_flush(w), 0);
	assert_int_equal(chunk.len, REC_CHUNK_HDR + REC_STREAM_PREFIX);
	assert_int_equal(rec_chunk_unpack(chunk.p, chunk.len, &pk), 0);
	assert_true(pk.stored);
	assert_int_equal(pk.type, REC_SEC_EVTS);
	assert_int_equal(pk.raw_len, REC_STREAM_PREFIX);
	assert_int_equal(rec_inflate(z, &pk, raw), 0);
	assert_int_equal(rec_sec_stream_skip(raw, pk.raw_len, "EVTS", why, sizeof(why)),
			 REC_STREAM_PREFIX);
	assert_int_equal(rec_chunk_unpack(chunk.p, chunk.len - 1, &pk), -EINVAL);
	/* Written out, it is a file's chunk: compressed, with the same bytes inside. */
	assert_int_equal(rec_writer_put_chunk(fw, chunk.p, chunk.len), 0);
	assert_int_equal(rec_chunk_unpack(out.p, out.len, &pk), 0);
	assert_false(pk.stored);
	assert_int_equal(pk.raw_len, REC_STREAM_PREFIX);
	memset(raw, 0, sizeof(raw));
	assert_int_equal(rec_inflate(z, &pk, raw), 0);
	assert_int_equal(rec_sec_stream_skip(raw, pk.raw_len, "EVTS", why, sizeof(why)),
			 REC_STREAM_PREFIX);
	/* A damaged one is refused, not compressed. */
	assert_int_equal(rec_writer_put_chunk(fw, chunk.p, chunk.len - 1), -EINVAL);
	rec_inflater_free(z);
	rec_writer_free(fw);
	rec_writer_free(w);
	rec_buf_release(&out);
	rec_buf_release(&chunk);
}

/* test_stack_records - a stack record reads back; the EVTS framing finds it and refuses damage */
static void test_stack_records(void **state)
{
	static const uint64_t chain[3] = { 0xffffffff81000000ull, 0x401000, 7 };
	uint64_t buf[16] = { 0 }, id, nr;
	const struct perf_event_header *h, *got;
	const void *entries;
	char why[128];

	h = rec_sec_stack_encode(buf, 5, chain, 3);
	assert_int_equal(h->type, REC_RECORD_STACK);
	assert_int_equal(h->size, REC_STACK_FIXED + 3 * 8);
	assert_int_equal(rec_sec_stack_decode(h, &id, &entries, &nr, why, sizeof(why)), 0);
	assert_int_equal(id, 5);
	assert_int_equal(nr, 3);
	assert_memory_equal(entries, chain, sizeof(chain));

	assert_int_equal(rec_sec_evts_record(buf, h->size, 0, &got, why, sizeof(why)), 1);
	assert_ptr_equal(got, h);
	assert_int_equal(rec_sec_evts_record(buf, h->size, h->size, &got, why, sizeof(why)), 0);
	assert_int_equal(rec_sec_evts_record(buf, h->size - 8, 0, &got, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a record at chunk offset 0 has size 48");

	/* An entry count that is not the record's: damaged. */
	buf[2] = 4;
	assert_int_equal(rec_sec_stack_decode(h, &id, &entries, &nr, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a stack record of 48 bytes says 4 entries");
}

/* test_born_records - a child's cgroup, or its being gone, reads back with the birth's time */
static void test_born_records(void **state)
{
	uint64_t buf[REC_BORN_MAX / 8], t = 0, rt;
	const struct perf_event_header *h, *got;
	char path[REC_CGRP_PATH_MAX + 1], why[128];
	uint32_t tid = 0;

	h = rec_sec_born_encode(buf, 4242, "/system.slice/x.service", 123456789, 3);
	assert_int_equal(h->type, REC_RECORD_BORN);
	assert_int_equal(h->size, REC_BORN_FIXED + 24);
	assert_int_equal(rec_sec_born_decode(h, &tid, &t, path, sizeof(path), why, sizeof(why)), 0);
	assert_int_equal(tid, 4242);
	assert_int_equal(t, 123456789);
	assert_string_equal(path, "/system.slice/x.service");
	/* Framed as any record, and its time where every other record's is. */
	assert_int_equal(rec_sec_evts_record(buf, h->size, 0, &got, why, sizeof(why)), 1);
	assert_int_equal(perf_record_time(h, &rt), 0);
	assert_int_equal(rt, 123456789);

	h = rec_sec_born_encode(buf, 7, NULL, 99, 0);
	assert_int_equal(h->size, REC_BORN_FIXED);
	assert_int_equal(rec_sec_born_decode(h, &tid, &t, path, sizeof(path), why, sizeof(why)), 0);
	assert_int_equal(tid, 7);
	assert_string_equal(path, "");

	/* A length the record's size does not hold: damaged. */
	h = rec_sec_born_encode(buf, 7, "/a", 99, 0);
	((uint32_t *)(buf + 1))[1] = 9;
	assert_int_equal(rec_sec_born_decode(h, &tid, &t, path, sizeof(path), why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "a born-into-a-cgroup record of 56 bytes is damaged");
}

/* cgv1_count - each entry of a decoded CGV1 section, counted and checked */
static void cgv1_count(void *arg, uint32_t tid, const char *path, uint64_t t)
{
	int *n = arg;

	assert_int_equal(tid, 10 + *n);
	assert_string_equal(path, *n ? "/b" : "/a");
	assert_int_equal(t, 5);
	(*n)++;
}

/* test_cgv1_round_trip - a v1 hierarchy's head and entries come back; a damaged head is refused */
static void test_cgv1_round_trip(void **state)
{
	const struct rec_sec_cgv1 in = {
		.id = 7, .controllers = "blkio", .mount = "/sys/fs/cgroup/blkio",
	};
	struct rec_sec_cgv1 h;
	struct rec_buf b = { 0 };
	char why[128];
	int n = 0;

	rec_sec_cgv1_begin(&b, &in);
	rec_sec_cgrp_add(&b, 10, "/a", 5);
	rec_sec_cgrp_add(&b, 11, "/b", 5);
	rec_sec_cgv1_end(&b, 2);
	assert_int_equal(rec_sec_cgv1_decode(b.p, b.len, &h, cgv1_count, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(h.id, 7);
	assert_string_equal(h.controllers, "blkio");
	assert_string_equal(h.mount, "/sys/fs/cgroup/blkio");
	/* The head alone. */
	assert_int_equal(rec_sec_cgv1_decode(b.p, b.len, &h, NULL, NULL, why, sizeof(why)), 0);
	/* An entry cut short. */
	n = 0;
	assert_int_equal(rec_sec_cgv1_decode(b.p, b.len - 1, &h, cgv1_count, &n, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "CGV1 entry 2 of 2 is damaged");
	/* A mount point that is no path. */
	((uint8_t *)b.p)[REC_CGV1_FIXED + 5] = 'x';
	assert_int_equal(rec_sec_cgv1_decode(b.p, b.len, &h, NULL, NULL, why, sizeof(why)), -EINVAL);
	rec_buf_release(&b);
}

/* cgid_count - each entry of a decoded CGID section, counted and checked */
static void cgid_count(void *arg, uint64_t id, const char *path)
{
	int *n = arg;

	assert_int_equal(id, *n ? 1ull << 40 | 77 : 1);
	assert_string_equal(path, *n ? "/kubepods.slice/a" : "/");
	(*n)++;
}

/* test_cgid_round_trip - every directory's 64-bit id and path come back; damage is refused */
static void test_cgid_round_trip(void **state)
{
	struct rec_buf b = { 0 };
	char why[128];
	int n = 0;

	rec_sec_cgid_begin(&b);
	rec_sec_cgid_add(&b, 1, "/");
	rec_sec_cgid_add(&b, 1ull << 40 | 77, "/kubepods.slice/a");
	rec_sec_cgid_end(&b, 2);
	assert_int_equal(b.len, 8 + 2 * REC_CGID_ENTRY + 1 + 17);
	assert_int_equal(rec_sec_cgid_decode(b.p, b.len, cgid_count, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 2);
	n = 0;
	assert_int_equal(rec_sec_cgid_decode(b.p, b.len - 1, cgid_count, &n, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "CGID entry 2 of 2 is damaged");
	/* A NUL inside a path. */
	((uint8_t *)b.p)[b.len - 3] = 0;
	n = 0;
	assert_int_equal(rec_sec_cgid_decode(b.p, b.len, cgid_count, &n, why, sizeof(why)), -EINVAL);
	((uint8_t *)b.p)[0] = 9;
	assert_int_equal(rec_sec_cgid_decode(b.p, b.len, cgid_count, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "version 9"));
	rec_buf_release(&b);
}

/* test_trig_round_trip - TRIG's keys come back; another version is skipped */
static void test_trig_round_trip(void **state)
{
	const struct rec_sec_trig in = {
		.what = "latency 12 ms > 10 ms", .reason = "latency",
		.t_trigger = 30, .t_from = 10, .t_to = 40,
	};
	struct rec_sec_trig t;
	struct rec_buf b = { 0 };
	char why[128], *text;

	rec_sec_trig_encode(&b, &in);
	rec_buf_meta(&b, "disk", "%s", "nvme0n1");
	assert_int_equal(rec_sec_trig_decode(b.p, b.len, &t, &text, why, sizeof(why)), 0);
	assert_non_null(text);
	assert_string_equal(t.what, in.what);
	assert_string_equal(t.reason, in.reason);
	assert_int_equal(t.t_trigger, 30);
	assert_int_equal(t.t_from, 10);
	assert_int_equal(t.t_to, 40);
	free(text);
	((uint8_t *)b.p)[0] = 2;
	assert_int_equal(rec_sec_trig_decode(b.p, b.len, &t, &text, why, sizeof(why)), 0);
	assert_null(text);
	rec_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_round_trip),
		cmocka_unit_test(test_meta_damaged),
		cmocka_unit_test(test_fmth_stream),
		cmocka_unit_test(test_stream_begin),
		cmocka_unit_test(test_stored_chunk),
		cmocka_unit_test(test_stack_records),
		cmocka_unit_test(test_born_records),
		cmocka_unit_test(test_cgv1_round_trip),
		cmocka_unit_test(test_cgid_round_trip),
		cmocka_unit_test(test_trig_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
