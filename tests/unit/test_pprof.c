// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pprof.c - profiles written and read back with protobuf-c's own unpack: strings,
 * functions, mappings and locations kept once, samples of one stack and labels summed,
 * inlined frames as lines of one location, what each mapping knows, and the refusals
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "pprof.h"
#include "pprof.pb-c.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const struct pprof_type types[] = {
	{ "requests", "count" }, { "bytes", "bytes" }, { "latency", "nanoseconds" },
};

/* decode - p written, gunzipped and unpacked: the profile (free with profile_free) */
static IotapPprof__Profile *decode(const struct pprof *p)
{
	char *gz = NULL;
	size_t gzlen = 0, cap = 1 << 16;
	FILE *f = open_memstream(&gz, &gzlen);
	IotapPprof__Profile *prof;
	unsigned char *raw;
	z_stream z = { 0 };

	assert_non_null(f);
	assert_int_equal(pprof_write(p, f), 0);
	assert_int_equal(fclose(f), 0);
	/* gzip: its magic, then what inflate with a gzip header reads to the end */
	assert_true(gzlen > 18);
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_int_equal((unsigned char)gz[1], 0x8b);
	raw = malloc(cap);
	assert_non_null(raw);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	while (inflate(&z, Z_NO_FLUSH) == Z_OK && !z.avail_out) {
		raw = realloc(raw, 2 * cap);
		assert_non_null(raw);
		z.next_out = raw + cap;
		z.avail_out = (uInt)cap;
		cap *= 2;
	}
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	prof = iotap_pprof__profile__unpack(NULL, z.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&z);
	free(raw);
	free(gz);
	return prof;
}

/* profile_free - what decode returned */
static void profile_free(IotapPprof__Profile *prof)
{
	iotap_pprof__profile__free_unpacked(prof, NULL);
}

/* str - string i of a decoded profile */
static const char *str(const IotapPprof__Profile *prof, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < prof->n_string_table);
	return prof->string_table[i];
}

/* loc - the decoded location of id */
static const IotapPprof__Location *loc(const IotapPprof__Profile *prof, uint64_t id)
{
	assert_true(id >= 1 && id <= prof->n_location);
	assert_int_equal(prof->location[id - 1]->id, id);
	return prof->location[id - 1];
}

/* func_name - the name of the function of a line */
static const char *func_name(const IotapPprof__Profile *prof, const IotapPprof__Line *l)
{
	assert_true(l->function_id >= 1 && l->function_id <= prof->n_function);
	assert_int_equal(prof->function[l->function_id - 1]->id, l->function_id);
	return str(prof, prof->function[l->function_id - 1]->name);
}

/* label - the value of a sample's label key, NULL when it has none */
static const char *label(const IotapPprof__Profile *prof, const IotapPprof__Sample *s,
			 const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(prof, s->label[i]->key), key))
			return str(prof, s->label[i]->str);
	return NULL;
}

/* The frames of two stacks that share their outer frames. */
static const struct pprof_frame stack_a[] = {
	{ .address = 0xffffffff81000010, .function = "blk_mq_submit_bio", .mapping = "[kernel.kallsyms]" },
	{ .address = 0x401010, .function = "helper", .file = "/src/prog.c", .line = 7,
	  .mapping = "prog", .inlined = true },
	{ .address = 0x401010, .function = "inner_fn", .file = "/src/prog.c", .line = 20,
	  .mapping = "prog" },
	{ .address = 0x401100, .function = "main", .file = "/src/prog.c", .line = 40, .mapping = "prog" },
};
static const struct pprof_frame stack_b[] = {
	{ .address = 0x401200, .function = "other_fn", .file = "/src/prog.c", .line = 30,
	  .mapping = "prog" },
	{ .address = 0x7f0000001000, .mapping = "libc.so.6" },
	{ .address = 0x401100, .function = "main", .file = "/src/prog.c", .line = 40, .mapping = "prog" },
};

/* test_roundtrip - what is added is what a reader decodes, each thing kept once */
static void test_roundtrip(void **state)
{
	const struct pprof_label la[] = { { "disk", "loop0" }, { "op", "read" }, { "cgroup", NULL } };
	const struct pprof_label lw[] = { { "disk", "loop0" }, { "op", "write" } };
	const uint64_t v1[] = { 1, 4096, 1000 }, v2[] = { 2, 8192, 3000 }, v3[] = { 5, 512, 7 };
	struct pprof *p = pprof_alloc(types, NR(types));
	IotapPprof__Profile *prof;
	const IotapPprof__Sample *s;
	const IotapPprof__Location *l;

	(void)state;
	assert_non_null(p);
	assert_int_equal(pprof_sample_add(p, stack_a, NR(stack_a), v1, la, NR(la)), 0);
	/* the same stack and labels: one sample, its values summed */
	assert_int_equal(pprof_sample_add(p, stack_a, NR(stack_a), v2, la, NR(la)), 0);
	assert_int_equal(pprof_nr_samples(p), 1);
	/* another label value: a sample of its own over the same locations */
	assert_int_equal(pprof_sample_add(p, stack_a, NR(stack_a), v3, lw, NR(lw)), 0);
	assert_int_equal(pprof_sample_add(p, stack_b, NR(stack_b), v3, NULL, 0), 0);
	assert_int_equal(pprof_nr_samples(p), 3);
	assert_int_equal(pprof_comment_add(p, "iotap test"), 0);
	pprof_time_set(p, 1700000000000000000, 5000000000);
	assert_int_equal(pprof_default_type_set(p, 1), 0);
	prof = decode(p);
	pprof_free(p);

	assert_string_equal(str(prof, 0), "");
	assert_int_equal(prof->n_sample_type, 3);
	assert_string_equal(str(prof, prof->sample_type[1]->type), "bytes");
	assert_string_equal(str(prof, prof->sample_type[2]->unit), "nanoseconds");
	assert_string_equal(str(prof, prof->default_sample_type), "bytes");
	assert_int_equal(prof->n_comment, 1);
	assert_string_equal(str(prof, prof->comment[0]), "iotap test");
	assert_int_equal(prof->time_nanos, 1700000000000000000);
	assert_int_equal(prof->duration_nanos, 5000000000);
	/* strings once each */
	for (size_t i = 0; i < prof->n_string_table; i++)
		for (size_t j = i + 1; j < prof->n_string_table; j++)
			assert_string_not_equal(prof->string_table[i], prof->string_table[j]);

	assert_int_equal(prof->n_sample, 3);
	s = prof->sample[0];
	assert_int_equal(s->n_value, 3);
	assert_int_equal(s->value[0], 3);
	assert_int_equal(s->value[1], 12288);
	assert_int_equal(s->value[2], 4000);
	assert_int_equal(s->n_location_id, 3);
	assert_int_equal(s->n_label, 2);
	assert_string_equal(label(prof, s, "disk"), "loop0");
	assert_string_equal(label(prof, s, "op"), "read");
	assert_null(label(prof, s, "cgroup"));
	/* innermost first; the inlined helper is a line of inner_fn's location, before it */
	l = loc(prof, s->location_id[0]);
	assert_int_equal(l->address, 0xffffffff81000010);
	assert_int_equal(l->n_line, 1);
	assert_string_equal(func_name(prof, l->line[0]), "blk_mq_submit_bio");
	l = loc(prof, s->location_id[1]);
	assert_int_equal(l->address, 0x401010);
	assert_int_equal(l->n_line, 2);
	assert_string_equal(func_name(prof, l->line[0]), "helper");
	assert_int_equal(l->line[0]->line, 7);
	assert_string_equal(func_name(prof, l->line[1]), "inner_fn");
	assert_int_equal(l->line[1]->line, 20);
	assert_string_equal(str(prof, prof->function[l->line[1]->function_id - 1]->filename),
			    "/src/prog.c");

	/* the write sample shares all three locations */
	assert_memory_equal(prof->sample[1]->location_id, s->location_id, 3 * sizeof(uint64_t));
	assert_string_equal(label(prof, prof->sample[1], "op"), "write");
	assert_int_equal(prof->sample[1]->value[0], 5);
	/* stack_b: main's location is stack_a's; the unknown frame is an address, no line */
	s = prof->sample[2];
	assert_int_equal(s->n_location_id, 3);
	assert_int_equal(s->location_id[2], prof->sample[0]->location_id[2]);
	l = loc(prof, s->location_id[1]);
	assert_int_equal(l->address, 0x7f0000001000);
	assert_int_equal(l->n_line, 0);
	/* blk_mq_submit_bio, helper, inner_fn, main, other_fn; 5 locations */
	assert_int_equal(prof->n_function, 5);
	assert_int_equal(prof->n_location, 5);

	/* kernel, prog, libc: what each knows */
	assert_int_equal(prof->n_mapping, 3);
	for (size_t i = 0; i < prof->n_mapping; i++) {
		const IotapPprof__Mapping *m = prof->mapping[i];
		const char *name = str(prof, m->filename);

		assert_int_equal(m->id, i + 1);
		if (!strcmp(name, "prog")) {
			assert_true(m->has_functions && m->has_filenames && m->has_line_numbers &&
				    m->has_inline_frames);
		} else if (!strcmp(name, "[kernel.kallsyms]")) {
			assert_true(m->has_functions);
			assert_false(m->has_filenames || m->has_line_numbers || m->has_inline_frames);
		} else {
			/* nothing named there, and none to name later: no address range */
			assert_string_equal(name, "libc.so.6");
			assert_true(m->has_functions);
			assert_false(m->has_filenames || m->has_line_numbers);
		}
	}
	profile_free(prof);
}

/* test_refused - bad stacks and overflowing values change nothing */
static void test_refused(void **state)
{
	const struct pprof_frame dangling[] = {
		{ .address = 1, .function = "f", .inlined = true },
	};
	const uint64_t one[] = { 1, 1, 1 }, huge[] = { 1, INT64_MAX, 1 };
	const uint64_t too_big[] = { 1, (uint64_t)INT64_MAX + 1, 1 };
	struct pprof *p = pprof_alloc(types, NR(types));
	IotapPprof__Profile *prof;

	(void)state;
	assert_non_null(p);
	assert_int_equal(pprof_sample_add(p, NULL, 1, one, NULL, 0), -EINVAL);
	assert_int_equal(pprof_sample_add(p, dangling, 1, one, NULL, 0), -EINVAL);
	assert_int_equal(pprof_sample_add(p, stack_b, NR(stack_b), too_big, NULL, 0), -EOVERFLOW);
	assert_int_equal(pprof_sample_add(p, stack_b, NR(stack_b), huge, NULL, 0), 0);
	assert_int_equal(pprof_sample_add(p, stack_b, NR(stack_b), one, NULL, 0), -EOVERFLOW);
	assert_int_equal(pprof_nr_samples(p), 1);
	assert_int_equal(pprof_default_type_set(p, 3), -EINVAL);
	prof = decode(p);
	assert_int_equal(prof->n_sample, 1);
	assert_int_equal(prof->sample[0]->value[0], 1);
	assert_int_equal(prof->sample[0]->value[1], INT64_MAX);
	/* the default type stays the first */
	assert_string_equal(str(prof, prof->default_sample_type), "requests");
	profile_free(prof);
	pprof_free(p);
	pprof_free(NULL);

	errno = 0;
	assert_null(pprof_alloc(types, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(pprof_alloc(NULL, 1));
}

/* test_empty - a profile without samples is still one a reader takes */
static void test_empty(void **state)
{
	struct pprof *p = pprof_alloc(types, 2);
	IotapPprof__Profile *prof;

	(void)state;
	assert_non_null(p);
	prof = decode(p);
	assert_int_equal(prof->n_sample, 0);
	assert_int_equal(prof->n_sample_type, 2);
	assert_string_equal(str(prof, 0), "");
	profile_free(prof);
	pprof_free(p);
}

/* test_lost_stack - values whose stack was lost count, in a sample without locations */
static void test_lost_stack(void **state)
{
	const struct pprof_label l[] = { { "comm", "dio" } };
	struct pprof *p = pprof_alloc(types, NR(types));
	IotapPprof__Profile *prof;

	(void)state;
	assert_non_null(p);
	assert_int_equal(pprof_sample_add(p, NULL, 0, (const uint64_t[]){ 1, 10, 100 }, l, 1), 0);
	assert_int_equal(pprof_sample_add(p, NULL, 0, (const uint64_t[]){ 2, 20, 200 }, l, 1), 0);
	assert_int_equal(pprof_sample_add(p, stack_b, NR(stack_b), (const uint64_t[]){ 1, 1, 1 },
					  l, 1), 0);
	prof = decode(p);
	assert_int_equal(prof->n_sample, 2);
	assert_int_equal(prof->sample[0]->n_location_id, 0);
	assert_int_equal(prof->sample[0]->value[0], 3);
	assert_int_equal(prof->sample[0]->value[2], 300);
	assert_string_equal(label(prof, prof->sample[0], "comm"), "dio");
	profile_free(prof);
	pprof_free(p);
}

/* test_many - many distinct stacks: the tables grow, every sample keeps its own values */
static void test_many(void **state)
{
	struct pprof *p = pprof_alloc(types, NR(types));
	IotapPprof__Profile *prof;
	char name[32];

	(void)state;
	assert_non_null(p);
	for (uint64_t i = 0; i < 3000; i++) {
		struct pprof_frame f[2] = {
			{ .address = 0x1000 + i, .function = name, .mapping = "prog" },
			{ .address = 0x9000, .function = "main", .mapping = "prog" },
		};
		const uint64_t v[] = { 1, i, 2 * i };

		snprintf(name, sizeof(name), "fn_%llu", (unsigned long long)(i % 1000));
		assert_int_equal(pprof_sample_add(p, f, 2, v, NULL, 0), 0);
	}
	assert_int_equal(pprof_nr_samples(p), 3000);
	prof = decode(p);
	assert_int_equal(prof->n_location, 3001);
	assert_int_equal(prof->n_function, 1001);
	for (size_t i = 0; i < prof->n_sample; i++) {
		const IotapPprof__Location *l = loc(prof, prof->sample[i]->location_id[0]);

		assert_int_equal(prof->sample[i]->value[1], (int64_t)(l->address - 0x1000));
		assert_int_equal(prof->sample[i]->value[2], 2 * prof->sample[i]->value[1]);
	}
	profile_free(prof);
	pprof_free(p);
}

/* test_write_error - a file that takes nothing: -EIO */
static void test_write_error(void **state)
{
	struct pprof *p = pprof_alloc(types, NR(types));
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(p);
	if (!f) {
		pprof_free(p);
		skip();
	}
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(pprof_sample_add(p, stack_a, NR(stack_a), (const uint64_t[]){ 1, 2, 3 },
					  NULL, 0), 0);
	assert_true(pprof_supported());
	assert_int_equal(pprof_write(p, f), -EIO);
	fclose(f);
	pprof_free(p);
}

/* main - run the profile tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_lost_stack),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
