// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - the iotap command: dispatch to a tool, by name or by argv[0] */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotap.h"
#include "log.h"
#include "opt.h"
#include "session.h"

#define EXIT_USAGE 1
#define EXIT_TRACE 2

static const char *cli_prefix = "iotap";

/* cli_log - core messages go to stderr, one line each, prefixed with the tool */
static void cli_log(enum log_level level, const char *msg)
{
	fprintf(stderr, "%s: %s%s\n", cli_prefix,
		level == LOG_WARN ? "warning: " : "", msg);
}

/* cli_usage - the top-level help */
static void cli_usage(FILE *out)
{
	fputs("usage: iotap TOOL [options] [args]\n"
	      "       iotap help TOOL | iotap list | iotap --version\n\n"
	      "Block I/O tracing without BPF: tracepoints through perf_event_open, analysis in user space.\n\n"
	      "tools:\n", out);
	for (const struct tool *const *t = iotap_tools; *t; t++)
		fprintf(out, "  %-14s %s\n", (*t)->name, (*t)->summary);
	fputs("\nEach tool also runs as its own name through a symlink (biolatency -> iotap).\n"
	      "See iotap(8) and iotap-TOOL(8).\n", out);
}

/* cli_stdout_check - report a failed write to stdout (full disk, closed pipe) */
static int cli_stdout_check(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "%s: write error on standard output: %s\n", cli_prefix,
				strerror(errno));
		return status ? status : EXIT_TRACE;
	}
	return status;
}

/* cli_run_tool - parse a tool's options and run it */
static int cli_run_tool(const struct tool *tool, int argc, char **argv)
{
	struct session_opts so = { .mmap_pages = 128, .max_stack = 127 };
	static char prefix[64];
	struct session sess;
	struct cli_args ca;
	char err[512] = "";
	void *params;
	int ret;

	snprintf(prefix, sizeof(prefix), "iotap %s", tool->name);
	cli_prefix = prefix;
	params = calloc(1, tool->params_size ? tool->params_size : 1);
	if (!params) {
		fprintf(stderr, "%s: out of memory\n", cli_prefix);
		return EXIT_TRACE;
	}
	ret = opt_parse(tool, argc, argv, params, &so, &ca, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", cli_prefix, err[0] ? err : strerror(-ret));
		free(params);
		return EXIT_USAGE;
	}
	if (ca.help) {
		opt_help(tool, stdout);
		free(params);
		return cli_stdout_check(0);
	}
	if (so.mmap_pages & (so.mmap_pages - 1)) {
		fprintf(stderr, "%s: invalid --mmap-pages %llu: expected a power of two\n", cli_prefix,
			(unsigned long long)so.mmap_pages);
		free(params);
		return EXIT_USAGE;
	}
	session_signals_install();
	ret = session_init(&sess, tool, params, &so);
	sess.ctx.spec = ca.spec;
	if (!ret)
		ret = session_run(&sess, ca.interval_ns, ca.count, ca.duration_ns);
	session_release(&sess);
	free(params);
	if (ret == -EINVAL || ret == -ENODEV || ret == -ESRCH)
		return cli_stdout_check(EXIT_USAGE);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}

/* main - iotap TOOL ..., or a tool name as argv[0] */
int main(int argc, char **argv)
{
	char *self = basename(argv[0]);
	const struct tool *tool;

	log_set(cli_log);
	tool = tool_find(self);
	if (tool)
		return cli_run_tool(tool, argc, argv);
	if (argc < 2) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 2 && (tool = tool_find(argv[2]))) {
			opt_help(tool, stdout);
			return cli_stdout_check(0);
		}
		if (argc > 2) {
			fprintf(stderr, "iotap: unknown tool '%s'; see 'iotap list'\n", argv[2]);
			return EXIT_USAGE;
		}
		cli_usage(stdout);
		return cli_stdout_check(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		puts("iotap " PACKAGE_VERSION);
		return cli_stdout_check(0);
	}
	if (!strcmp(argv[1], "list")) {
		for (const struct tool *const *t = iotap_tools; *t; t++)
			printf("%s\n", (*t)->name);
		return cli_stdout_check(0);
	}
	if (!strcmp(argv[1], "man") && argc == 3 && (tool = tool_find(argv[2]))) {
		opt_man(tool, stdout);
		return cli_stdout_check(0);
	}
	tool = tool_find(argv[1]);
	if (tool)
		return cli_run_tool(tool, argc - 1, argv + 1);
	fprintf(stderr, "iotap: unknown tool or command '%s'; see 'iotap --help'\n", argv[1]);
	return EXIT_USAGE;
}
