// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_syscall.c - sys_enter/sys_exit records decoded by name from the formats of
 * every kernel in tests/data/formats that has syscall events (captured, or
 * reconstructed from the distributions' trees)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "session.h"
#include "syscall.h"
#include "testlib.h"

static const char *const kernels[] = {
	"6.1.0-56-amd64", "6.18.44-fc-v669", "6.12.117+deb12-amd64", "5.10.0-46-amd64",
	"rhel8-4.18", "ubuntu20.04-5.4", "rhel9-5.14", "ubuntu22.04-5.15", NULL
};

/* The syscalls events the tests decode. */
static const char *const events[] = { "sys_enter_openat", "sys_exit_pread64",
				      "sys_enter_pread64", NULL };

/* put64 - a u64 at off of a raw record */
static void put64(uint8_t *raw, int off, uint64_t v)
{
	memcpy(raw + off, &v, 8);
}

/* test_openat - dfd AT_FDCWD (either way a 64-bit slot holds it), the name pointer, the flags */
static void test_openat(void **state)
{
	for (const char *const *k = kernels; *k; k++) {
		struct syscall_fmt f;
		struct syscall_args a;
		struct fmt_set fs;
		uint8_t raw[48] = { 0 };

		testlib_fmt_load(&fs, *k, "syscalls", events);
		assert_int_equal(syscall_fmt_init(&f, fmt_set_find(&fs, "syscalls", "sys_enter_openat")), 0);
		assert_false(f.ret.present);
		/* Offsets as the format files give them (checked by hand). */
		put64(raw, 16, 0xffffff9cull);
		put64(raw, 24, 0x7ffd12345678ull);
		put64(raw, 32, 02000101);
		syscall_decode(&f, raw, sizeof(raw), &a);
		assert_int_equal(a.dfd, -100);
		assert_int_equal(a.filename, 0x7ffd12345678ull);
		assert_int_equal(a.flags, 02000101);
		put64(raw, 16, (uint64_t)-100);
		syscall_decode(&f, raw, sizeof(raw), &a);
		assert_int_equal(a.dfd, -100);
		/* A record cut short reads absent fields as zero, never past its end. */
		syscall_decode(&f, raw, 24, &a);
		assert_int_equal(a.filename, 0);
		fmt_set_release(&fs);
	}
}

/* test_pread - fd and count on enter, a negative errno on exit */
static void test_pread(void **state)
{
	for (const char *const *k = kernels; *k; k++) {
		struct syscall_fmt fe, fx;
		struct syscall_args a;
		struct fmt_set fs;
		uint8_t raw[48] = { 0 };

		testlib_fmt_load(&fs, *k, "syscalls", events);
		assert_int_equal(syscall_fmt_init(&fe, fmt_set_find(&fs, "syscalls", "sys_enter_pread64")), 0);
		assert_int_equal(syscall_fmt_init(&fx, fmt_set_find(&fs, "syscalls", "sys_exit_pread64")), 0);
		put64(raw, 16, 7);
		put64(raw, 32, 4096);
		syscall_decode(&fe, raw, sizeof(raw), &a);
		assert_int_equal(a.fd, 7);
		assert_int_equal(a.count, 4096);
		memset(raw, 0, sizeof(raw));
		put64(raw, 16, (uint64_t)-EAGAIN);
		syscall_decode(&fx, raw, sizeof(raw), &a);
		assert_int_equal(a.ret, -EAGAIN);
		put64(raw, 16, 1ull << 40);
		syscall_decode(&fx, raw, sizeof(raw), &a);
		assert_int_equal(a.ret, 1ll << 40);
		fmt_set_release(&fs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat),
		cmocka_unit_test(test_pread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
