/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OPT_H
#define IOTAP_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iotap.h"
#include "common-opts.h"

struct session_opts;

/* What the command line asked for besides the tool's own parameters. */
struct cli_args {
	uint64_t interval_ns;
	uint64_t count;
	uint64_t duration_ns;
	const char *spec;
	char **rest;			/* TOOL_ARGS_COMMAND, TOOL_ARGS_TOOL: after the options */
	int nr_rest;
	bool help;
	bool version;			/* -V, --version */
	bool usage;			/* --usage: the synopsis only */
};

/*
 * opt_parse - fill params, so and ca from argv by the command's option tables.
 * 0, or -EINVAL for a usage error with one line for the user in why (a bad value, an
 * unknown option, an unexpected argument), or -ENOMEM with why left empty. The line is
 * the parser's answer, not a report: the caller words it for its context (main prints it
 * with the tool's name and exits 1; a reader of options from a file would name the file),
 * so it comes back in why rather than through the log hook.
 */
int opt_parse(const struct cmd_spec *cmd, int argc, char **argv, void *params,
	      struct session_opts *so, struct cli_args *ca, char *why, size_t whylen);
void opt_help(const struct cmd_spec *cmd, FILE *out);
void opt_usage(const struct cmd_spec *cmd, FILE *out);
/* opt_man - cmd's man page; tool: the tool it belongs to, whose events and probes it lists (NULL: a command) */
void opt_man(const struct cmd_spec *cmd, const struct tool *tool, FILE *out);
/* opt_seconds - decimal seconds ("0.5") from OPT_SECONDS_MIN to 1e9 to ns: 0, or -EINVAL */
int opt_seconds(const char *s, uint64_t *ns);

#endif
