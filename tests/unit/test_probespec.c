// SPDX-License-Identifier: GPL-2.0-or-later
/* test_probespec.c - a probe's text parsed: tracepoints with globs and filters, kprobes, uprobes */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probespec.h"

/* test_tracepoint - both tracepoint forms, a glob and a filter after the first space */
static void test_tracepoint(void **state)
{
	struct probespec ps;
	const char *why = NULL;

	assert_int_equal(probespec_parse("t:block:block_rq_i*", &ps, &why), 0);
	assert_true(ps.tracepoint);
	assert_string_equal(ps.sys, "block");
	assert_string_equal(ps.name, "block_rq_i*");
	assert_null(ps.filter);
	assert_true(probespec_names(&ps, "block", "block_rq_issue"));
	assert_true(probespec_names(&ps, "block", "block_rq_insert"));
	assert_false(probespec_names(&ps, "block", "block_rq_complete"));
	assert_false(probespec_names(&ps, "nvme", "block_rq_issue"));
	probespec_release(&ps);

	assert_int_equal(probespec_parse("block:block_rq_complete nr_sector > 8", &ps, &why), 0);
	assert_true(ps.tracepoint);
	assert_string_equal(ps.name, "block_rq_complete");
	assert_string_equal(ps.filter, "nr_sector > 8");
	probespec_release(&ps);
	probespec_release(&ps);
}

/* test_dynamic - kprobes and uprobes: their place, offset, fetchargs and event name */
static void test_dynamic(void **state)
{
	struct probespec ps;
	const char *why = NULL;

	assert_int_equal(probespec_parse("p:vfs_read+8 count=%dx:u64", &ps, &why), 0);
	assert_false(ps.tracepoint);
	assert_false(ps.probe.uprobe);
	assert_false(ps.probe.ret);
	assert_string_equal(ps.probe.symbol, "vfs_read");
	assert_int_equal(ps.probe.offset, 8);
	assert_string_equal(ps.probe.args, "count=%dx:u64");
	assert_string_equal(ps.probe.name, "p_vfs_read");
	assert_false(probespec_names(&ps, "iotap_1", "p_vfs_read"));
	probespec_release(&ps);

	assert_int_equal(probespec_parse("r:/usr/bin/bash:readline.part.0", &ps, &why), 0);
	assert_true(ps.probe.uprobe);
	assert_true(ps.probe.ret);
	assert_string_equal(ps.probe.path, "/usr/bin/bash");
	assert_string_equal(ps.probe.symbol, "readline.part.0");
	assert_null(ps.probe.args);
	assert_string_equal(ps.probe.name, "r_readline_part_0");
	probespec_release(&ps);
}

/* test_invalid - what each malformed form was expected to be */
static void test_invalid(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "t:block", "expected [t:]system:event [filter]" },
		{ "t::x", "expected [t:]system:event [filter]" },
		{ "t:a:b:c", "expected [t:]system:event [filter]" },
		{ "vfs_read", "expected p|r:[/path/binary:]symbol[+offset] [fetchargs]" },
		{ "p:", "expected p|r:[/path/binary:]symbol[+offset] [fetchargs]" },
		{ "x:a:b", "expected p|r:[/path/binary:]symbol[+offset] [fetchargs]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probespec ps;
		const char *why = NULL;

		assert_int_equal(probespec_parse(cases[i].text, &ps, &why), -EINVAL);
		assert_non_null(why);
		assert_string_equal(why, cases[i].why);
		probespec_release(&ps);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint),
		cmocka_unit_test(test_dynamic),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
