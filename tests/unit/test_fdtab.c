// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fdtab.c - descriptor names through open, dup, close, fork and exec */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fdtab.h"
#include "sections.h"

/* test_open_dup_close - a dup names the same file; closing one leaves the other */
static void test_open_dup_close(void **state)
{
	struct fdtab *t = fdtab_alloc();
	bool known;

	assert_int_equal(fdtab_set(t, 10, 3, "/mnt/a", false), 0);
	assert_int_equal(fdtab_dup(t, 10, 3, 7, false), 0);
	assert_string_equal(fdtab_get(t, 10, 7, NULL), "/mnt/a");
	fdtab_close(t, 10, 3);
	assert_null(fdtab_get(t, 10, 3, &known));
	assert_false(known);
	assert_string_equal(fdtab_get(t, 10, 7, NULL), "/mnt/a");
	/* Another process's fd 7 is not this one. */
	assert_null(fdtab_get(t, 11, 7, NULL));
	/* dup2 over an open fd replaces it; dup of an unknown fd forgets the target. */
	assert_int_equal(fdtab_set(t, 10, 4, "/mnt/b", false), 0);
	assert_int_equal(fdtab_dup(t, 10, 4, 7, false), 0);
	assert_string_equal(fdtab_get(t, 10, 7, NULL), "/mnt/b");
	assert_int_equal(fdtab_dup(t, 10, 99, 7, false), 0);
	assert_null(fdtab_get(t, 10, 7, &known));
	assert_false(known);
	/* Names are interned: one pointer per name. */
	assert_int_equal(fdtab_set(t, 12, 5, "/mnt/b", false), 0);
	assert_ptr_equal(fdtab_get(t, 12, 5, NULL), fdtab_get(t, 10, 4, NULL));
	fdtab_free(t);
}

/* test_fork_exec - the child inherits a copy; exec closes only close-on-exec fds */
static void test_fork_exec(void **state)
{
	struct fdtab *t = fdtab_alloc();
	bool known;

	fdtab_set(t, 20, 3, "a", false);
	fdtab_set(t, 20, 4, "b", true);
	fdtab_set(t, 20, 5, NULL, false);
	assert_int_equal(fdtab_fork(t, 20, 21), 0);
	fdtab_close(t, 20, 3);
	assert_string_equal(fdtab_get(t, 21, 3, NULL), "a");
	assert_null(fdtab_get(t, 20, 3, NULL));
	/* Known open, name unknown. */
	assert_null(fdtab_get(t, 21, 5, &known));
	assert_true(known);
	fdtab_exec(t, 21);
	assert_null(fdtab_get(t, 21, 4, &known));
	assert_false(known);
	assert_string_equal(fdtab_get(t, 21, 3, NULL), "a");
	/* F_SETFD then exec. */
	fdtab_set_cloexec(t, 21, 3, true);
	fdtab_exec(t, 21);
	assert_null(fdtab_get(t, 21, 3, NULL));
	fdtab_exit(t, 21);
	assert_null(fdtab_get(t, 21, 5, &known));
	assert_false(known);
	assert_string_equal(fdtab_get(t, 20, 4, NULL), "b");
	/* Out of range descriptors are refused, not followed. */
	assert_int_equal(fdtab_set(t, 20, -1, "x", false), -EINVAL);
	fdtab_free(t);
	fdtab_free(NULL);
}

/* fdtb_into - a decoded FDTB entry into the table */
static int fdtb_into(void *arg, uint32_t pid, int fd, const char *path)
{
	return fdtab_set(arg, pid, fd, path, false);
}

/* test_fdtb_round_trip - a recording's descriptor table reads back as written; damage is -EINVAL */
static void test_fdtb_round_trip(void **state)
{
	struct rec_buf b = { 0 };
	struct fdtab *t = fdtab_alloc();
	char why[128];

	rec_sec_fdtb_begin(&b);
	rec_sec_fdtb_add(&b, 30, 0, "/dev/pts/1");
	rec_sec_fdtb_add(&b, 30, 7, "/mnt/abc");	/* 8 bytes: no padding */
	rec_sec_fdtb_add(&b, 31, 3, "socket:[123]");
	rec_sec_fdtb_end(&b, 3);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len % 4, 0);
	assert_int_equal(rec_sec_fdtb_decode(b.p, b.len, fdtb_into, t, why, sizeof(why)), 0);
	assert_string_equal(fdtab_get(t, 30, 0, NULL), "/dev/pts/1");
	assert_string_equal(fdtab_get(t, 30, 7, NULL), "/mnt/abc");
	assert_string_equal(fdtab_get(t, 31, 3, NULL), "socket:[123]");
	assert_null(fdtab_get(t, 31, 0, NULL));
	/* Cut anywhere inside the entries, or a count past them: malformed. */
	for (size_t len = 8; len < b.len; len++)
		assert_int_equal(rec_sec_fdtb_decode(b.p, len, fdtb_into, t, why, sizeof(why)), -EINVAL);
	assert_int_equal(rec_sec_fdtb_decode(b.p, 4, fdtb_into, t, why, sizeof(why)), -EINVAL);
	((uint8_t *)b.p)[4] = 200;
	assert_int_equal(rec_sec_fdtb_decode(b.p, b.len, fdtb_into, t, why, sizeof(why)), -EINVAL);
	/* Another version is skipped, not misread. */
	((uint8_t *)b.p)[0] = 9;
	assert_int_equal(rec_sec_fdtb_decode(b.p, b.len, fdtb_into, t, why, sizeof(why)), 0);
	rec_buf_release(&b);
	fdtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_dup_close),
		cmocka_unit_test(test_fork_exec),
		cmocka_unit_test(test_fdtb_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
