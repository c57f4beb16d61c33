// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - the iotap command: dispatch to a tool, by name or by argv[0], or to a command */
#include "config.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "completion.h"
#include "iotap.h"
#include "log.h"
#include "cmds.h"
#include "opt.h"
#include "session.h"
#include "stacks.h"

/* The commands besides the tools; their specs drive --help and the man pages as a tool's do. */
static const struct {
	const struct cmd_spec *spec;
	int (*run)(int argc, char **argv);
} cli_cmds[] = {
	{ &cmd_record, cli_record },
	{ &cmd_report, cli_report },
};

/* cli_cmd_find - the index of the command called name, or -1 */
static int cli_cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		if (!strcmp(cli_cmds[i].spec->name, name))
			return i;
	return -1;
}

/* cli_spec_find - a command's or a tool's spec by name, for help and man; *tool: the tool, or NULL */
static const struct cmd_spec *cli_spec_find(const char *name, const struct tool **tool)
{
	int c = cli_cmd_find(name);

	*tool = c >= 0 ? NULL : tool_find(name);
	return c >= 0 ? cli_cmds[c].spec : *tool ? &(*tool)->cmd : NULL;
}

/* cli_usage - the top-level help */
static void cli_usage(FILE *out)
{
	fputs("usage: iotap TOOL [options] [args]\n"
	      "       iotap record -o FILE [options] [-- command] | iotap report -i FILE TOOL [options]\n"
	      "       iotap help TOOL | iotap list | iotap completion bash | iotap --version\n\n"
	      "Block I/O tracing without BPF: tracepoints read from a tracefs instance of its own, analysis in user space.\n\n"
	      "tools:\n", out);
	for (const struct tool *const *t = iotap_tools; *t; t++)
		fprintf(out, "  %-14s %s\n", (*t)->name, (*t)->summary);
	fputs("\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		fprintf(out, "  %-14s %s\n", cli_cmds[i].spec->name, cli_cmds[i].spec->summary);
	fputs("\nEach tool also runs as its own name through a symlink (biolatency -> iotap).\n"
	      "See iotap(8) and iotap-TOOL(8).\n", out);
}

/* cli_completion - the bash completion script, or the option table, of every tool and command */
static int cli_completion(bool table)
{
	const struct cmd_spec *specs[64];
	size_t n = 0;
	int ret;

	for (const struct tool *const *t = iotap_tools; *t && n < 60; t++)
		specs[n++] = &(*t)->cmd;
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		specs[n++] = cli_cmds[i].spec;
	specs[n] = NULL;
	ret = table ? completion_table_write(stdout, specs) : completion_bash_write(stdout, specs);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}

/* main - iotap TOOL ..., or a tool name as argv[0] */
int main(int argc, char **argv)
{
	char *self = basename(argv[0]);
	const struct cmd_spec *spec;
	const struct tool *tool;

	log_set(cli_log);
	session_stacks_set(stacks_session_want);
	tool = tool_find(self);
	if (tool)
		return cli_run_tool(tool, argc, argv, NULL);
	if (argc < 2) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 3) {
			fprintf(stderr, "iotap: unexpected argument '%s' after 'help %s'\n", argv[3],
				argv[2]);
			return EXIT_USAGE;
		}
		if (argc > 2 && (spec = cli_spec_find(argv[2], &tool))) {
			opt_help(spec, stdout);
			return cli_stdout_check(0);
		}
		if (argc > 2) {
			fprintf(stderr, "iotap: unknown tool '%s'; see 'iotap list'\n", argv[2]);
			return EXIT_USAGE;
		}
		cli_usage(stdout);
		return cli_stdout_check(0);
	}
	if (argc > 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version") ||
			 !strcmp(argv[1], "list"))) {
		fprintf(stderr, "iotap: unexpected argument '%s' after '%s'\n", argv[2], argv[1]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return cli_version();
	if (!strcmp(argv[1], "list")) {
		for (const struct tool *const *t = iotap_tools; *t; t++)
			printf("%s\n", (*t)->name);
		return cli_stdout_check(0);
	}
	if (!strcmp(argv[1], "completion")) {
		if (argc == 3 && (!strcmp(argv[2], "bash") || !strcmp(argv[2], "table")))
			return cli_completion(!strcmp(argv[2], "table"));
		fprintf(stderr, "iotap: expected 'iotap completion bash' (or table)\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "man")) {
		if (argc == 3 && (spec = cli_spec_find(argv[2], &tool))) {
			opt_man(spec, tool, stdout);
			return cli_stdout_check(0);
		}
		fprintf(stderr, "iotap: expected 'iotap man TOOL'; see 'iotap list'\n");
		return EXIT_USAGE;
	}
	tool = tool_find(argv[1]);
	if (tool)
		return cli_run_tool(tool, argc - 1, argv + 1, NULL);
	if (cli_cmd_find(argv[1]) >= 0)
		return cli_cmds[cli_cmd_find(argv[1])].run(argc - 1, argv + 1);
	fprintf(stderr, "iotap: unknown tool or command '%s'; see 'iotap --help'\n", argv[1]);
	return EXIT_USAGE;
}
