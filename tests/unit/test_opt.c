// SPDX-License-Identifier: GPL-2.0-or-later
/* test_opt.c - every tool and option is documented; parsing rejects bad values with one line */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmds.h"
#include "opt.h"
#include "recorder.h"
#include "source-recording.h"

/* capture - a command's --help text (man: its man page, with tool's events) as a string */
static char *capture(const struct cmd_spec *c, const struct tool *tool, bool man)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (man)
		opt_man(c, tool, f);
	else
		opt_help(c, f);
	fclose(f);
	return buf;
}

/* check_table - each option has help, unique names, and appears in help and man */
static void check_table(const struct cmd_spec *c, const struct opt *opts, const char *help,
			const char *man)
{
	for (const struct opt *o = opts; o->short_name || o->long_name; o++) {
		char needle[80];

		assert_non_null(o->help);
		assert_true(strlen(o->help) > 5);
		if (o->type == OPT_CHOICE || o->type == OPT_LIST)
			assert_non_null(o->choices);
		for (const struct opt *p = o + 1; p->short_name || p->long_name; p++) {
			if (o->short_name)
				assert_int_not_equal(o->short_name, p->short_name);
			if (o->long_name && p->long_name)
				assert_string_not_equal(o->long_name, p->long_name);
		}
		if (o->long_name) {
			snprintf(needle, sizeof(needle), "--%s", o->long_name);
			assert_non_null(strstr(help, needle));
			snprintf(needle, sizeof(needle), "\\fB\\-\\-%s\\fR", o->long_name);
			assert_non_null(strstr(man, needle));
		}
		if (o->short_name) {
			snprintf(needle, sizeof(needle), "-%c", o->short_name);
			assert_non_null(strstr(help, needle));
			snprintf(needle, sizeof(needle), "\\fB\\-%c\\fR", o->short_name);
			assert_non_null(strstr(man, needle));
		}
	}
}

/* test_documented - the check that fails when a tool or an option lacks documentation */
static void test_documented(void **state)
{
	for (const struct tool *const *t = iotap_tools; *t; t++) {
		char *help = capture(&(*t)->cmd, *t, false), *man = capture(&(*t)->cmd, *t, true);

		assert_non_null((*t)->summary);
		assert_non_null((*t)->description);
		assert_non_null((*t)->examples);
		assert_non_null((*t)->events);
		assert_non_null(strstr(man, ".SH NAME"));
		assert_non_null(strstr(man, ".SH EXAMPLES"));
		check_table(&(*t)->cmd, (*t)->opts, help, man);
		check_table(&(*t)->cmd, common_opts, help, man);
		assert_ptr_equal(tool_find((*t)->name), *t);
		free(help);
		free(man);
	}
}

/* test_commands_documented - record and report are documented from their tables too */
static void test_commands_documented(void **state)
{
	const struct cmd_spec *cmds[] = { &cmd_record, &cmd_report };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct cmd_spec *t = cmds[i];
		char *help = capture(t, NULL, false), *man = capture(t, NULL, true);

		assert_non_null(t->description);
		assert_non_null(t->examples);
		assert_non_null(strstr(man, ".SH EXAMPLES"));
		assert_non_null(strstr(man, ".SH ARGUMENTS"));
		/* A command is no argv[0] alias, and -i is not among record's options. */
		assert_null(tool_find(t->name));
		check_table(t, t->opts, help, man);
		check_table(t, t->common, help, man);
		free(help);
		free(man);
	}
	{
		char *help = capture(&cmd_record, NULL, false);

		assert_null(strstr(help, "--input"));
		free(help);
	}
}

/* test_parse_rest - what follows a command's options is left for the command */
static void test_parse_rest(void **state)
{
	char *argv[] = { "record", "-o", "f", "-g", "--", "dio", "-x", "read", NULL };
	char *argv2[] = { "report", "-i", "f", "biolatency", "-D", "-d", "sda", NULL };
	struct record_params rp = { 0 };
	struct report_params pp = { 0 };
	struct session_opts so = { 0 };
	struct cli_args ca;
	char err[256] = "";

	assert_int_equal(opt_parse(&cmd_record, 8, argv, &rp, &so, &ca, err, sizeof(err)), 0);
	assert_string_equal(rp.output, "f");
	assert_true(rp.callchains);
	assert_int_equal(ca.nr_rest, 3);
	assert_string_equal(ca.rest[0], "dio");
	assert_string_equal(ca.rest[1], "-x");
	assert_int_equal(opt_parse(&cmd_report, 7, argv2, &pp, &so, &ca, err, sizeof(err)), 0);
	assert_string_equal(so.input, "f");
	assert_int_equal(ca.nr_rest, 4);
	assert_string_equal(ca.rest[0], "biolatency");
	assert_string_equal(ca.rest[1], "-D");
	assert_int_not_equal(opt_parse(&cmd_record, 3, (char *[]){ "record", "-i", "x", NULL }, &rp, &so,
				       &ca, err, sizeof(err)), 0);
	assert_string_equal(err, "unknown option '-i'; see --help");
}

/* parse - run opt_parse on a NULL-terminated argument list */
static int parse(const char *tool, void *params, struct cli_args *ca, char *err, ...)
{
	char *argv[32];
	int argc = 0;
	struct session_opts so = { 0 };
	va_list ap;

	argv[argc++] = (char *)tool;
	va_start(ap, err);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = 0;
	return opt_parse(&tool_find(tool)->cmd, argc, argv, params, &so, ca, err, 256);
}

/* test_parse_errors - one clear message for each kind of bad input */
static void test_parse_errors(void **state)
{
	char params[512], err[256];
	struct cli_args ca;

	memset(params, 0, sizeof(params));
	assert_int_equal(parse("biolatency", params, &ca, err, "-T", "-m", "1", "5", NULL), 0);
	assert_int_equal(ca.interval_ns, 1000000000ull);
	assert_int_equal(ca.count, 5);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "-z", NULL), 0);
	assert_string_equal(err, "unknown option '-z'; see --help");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "--bogus", NULL), 0);
	assert_string_equal(err, "unknown option '--bogus'; see --help");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "-d", NULL), 0);
	assert_string_equal(err, "option '-d' needs a value");
	/* Long options are named as given, whatever their place in the table. */
	assert_int_not_equal(parse("biolatency", params, &ca, err, "--prom", NULL), 0);
	assert_string_equal(err, "option '--prom' needs a value");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "--json=x", NULL), 0);
	assert_string_equal(err, "option '--json' takes no value");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "-p", "abc", NULL), 0);
	assert_string_equal(err, "invalid -p/--pid 'abc': expected a process ID");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "0", NULL), 0);
	assert_string_equal(err,
		"invalid interval '0': expected decimal seconds from 0.01 to 1000000000 (e.g. 0.5)");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "1e-12", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "0.001", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "1e3", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "inf", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, ".", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, " 1", NULL), 0);
	assert_int_equal(parse("biolatency", params, &ca, err, "0.01", NULL), 0);
	assert_int_equal(ca.interval_ns, 10000000ull);
	assert_int_equal(parse("biolatency", params, &ca, err, ".5", NULL), 0);
	assert_int_equal(ca.interval_ns, 500000000ull);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "1", "x", NULL), 0);
	assert_string_equal(err, "invalid count 'x': expected an integer >= 1");
	assert_int_not_equal(parse("biolatency", params, &ca, err, "1", "2", "3", NULL), 0);
	assert_int_not_equal(parse("biolatency", params, &ca, err, "--mmap-pages", "0", NULL), 0);
	assert_string_equal(err, "invalid --mmap-pages '0': expected an integer from 1 to 1048576");
	assert_int_equal(parse("biolatency", params, &ca, err, "--help", NULL), 0);
	assert_true(ca.help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_commands_documented),
		cmocka_unit_test(test_parse_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
