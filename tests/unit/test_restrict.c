// SPDX-License-Identifier: GPL-2.0-or-later
/* test_restrict.c - the kernel's lockdown file read into a mode */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "restrict.h"

/* test_lockdown_modes - the bracketed word is the mode, wherever it stands in the list */
static void test_lockdown_modes(void **state)
{
	enum lockdown_mode m = LOCKDOWN_NONE;

	assert_int_equal(lockdown_parse("none integrity [confidentiality]\n", &m), 0);
	assert_int_equal(m, LOCKDOWN_CONFIDENTIALITY);
	assert_int_equal(lockdown_parse("none [integrity] confidentiality\n", &m), 0);
	assert_int_equal(m, LOCKDOWN_INTEGRITY);
	assert_int_equal(lockdown_parse("[none] integrity confidentiality\n", &m), 0);
	assert_int_equal(m, LOCKDOWN_NONE);
	assert_string_equal(lockdown_name(LOCKDOWN_CONFIDENTIALITY), "confidentiality");
}

/* test_lockdown_malformed - no mode, an empty one, or one this iotap does not know */
static void test_lockdown_malformed(void **state)
{
	enum lockdown_mode m = LOCKDOWN_INTEGRITY;

	assert_int_equal(lockdown_parse("", &m), -EINVAL);
	assert_int_equal(lockdown_parse("none integrity confidentiality\n", &m), -EINVAL);
	assert_int_equal(lockdown_parse("none [integrity", &m), -EINVAL);
	assert_int_equal(lockdown_parse("[] none", &m), -EINVAL);
	/* A prefix of a known mode is no mode: "[integ]" is not integrity. */
	assert_int_equal(lockdown_parse("none [integ] confidentiality", &m), -ENOTSUP);
	assert_int_equal(lockdown_parse("none integrity [secrecy]", &m), -ENOTSUP);
	assert_int_equal(m, LOCKDOWN_INTEGRITY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdown_modes),
		cmocka_unit_test(test_lockdown_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
