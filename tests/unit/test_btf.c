// SPDX-License-Identifier: GPL-2.0-or-later
/* test_btf.c - struct member offsets from a hand-built BTF blob, and malformed blobs refused */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "btf.h"

/* Strings: "", "int", "bio", "bi_next", "bi_bdev", "block_device", "bd_dev". */
static const char strs[] = "\0int\0bio\0bi_next\0bi_bdev\0block_device\0bd_dev";
#define S_INT 1
#define S_BIO 5
#define S_NEXT 9
#define S_BDEV 17
#define S_BLKDEV 25
#define S_DEV 38

static uint32_t blob[64];

/* build - header, an int, struct bio { next @0, bdev @64 bits }, struct block_device { bd_dev @416 bits } */
static size_t build(void)
{
	uint32_t t[] = {
		S_INT, 1u << 24, 4, 0x20,					/* int, 32 bits */
		S_BIO, 4u << 24 | 2, 16, S_NEXT, 1, 0, S_BDEV, 1, 64,		/* struct bio */
		S_BLKDEV, 4u << 24 | 1, 64, S_DEV, 1, 416,			/* struct block_device */
	};
	uint8_t *b = (uint8_t *)blob;

	memset(blob, 0, sizeof(blob));
	b[0] = 0x9f;
	b[1] = 0xeb;
	b[2] = 1;
	blob[1] = 24;				/* hdr_len */
	blob[2] = 0;				/* type_off */
	blob[3] = sizeof(t);			/* type_len */
	blob[4] = sizeof(t);			/* str_off */
	blob[5] = sizeof(strs);			/* str_len */
	memcpy(b + 24, t, sizeof(t));
	memcpy(b + 24 + sizeof(t), strs, sizeof(strs));
	return 24 + sizeof(t) + sizeof(strs);
}

/* test_offsets - members found by struct and member name, in bytes */
static void test_offsets(void **state)
{
	size_t len = build();
	uint32_t off = 99;

	assert_int_equal(btf_member_offset(blob, len, "bio", "bi_bdev", &off), 0);
	assert_int_equal(off, 8);
	assert_int_equal(btf_member_offset(blob, len, "bio", "bi_next", &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(btf_member_offset(blob, len, "block_device", "bd_dev", &off), 0);
	assert_int_equal(off, 52);
	assert_int_equal(btf_member_offset(blob, len, "bio", "bd_dev", &off), -ENOENT);
	assert_int_equal(btf_member_offset(blob, len, "gendisk", "part0", &off), -ENOENT);
}

/* test_malformed - bad magic, sections past the end, truncated types */
static void test_malformed(void **state)
{
	size_t len = build();
	uint32_t off;

	assert_int_equal(btf_member_offset(blob, 10, "bio", "bi_bdev", &off), -EINVAL);
	assert_int_equal(btf_member_offset(blob, len - 4, "bio", "bi_bdev", &off), -EINVAL);
	blob[3] -= 8;		/* the last struct's member cut off */
	assert_int_equal(btf_member_offset(blob, len, "block_device", "bd_dev", &off), -EINVAL);
	build();
	((uint8_t *)blob)[0] = 0;
	assert_int_equal(btf_member_offset(blob, len, "bio", "bi_bdev", &off), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
