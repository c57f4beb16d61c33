/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OPT_H
#define IOTAP_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iotap.h"

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

extern const struct opt common_opts[];
extern const struct opt record_common_opts[];
extern const struct opt stack_common_opts[];
extern const struct opt report_common_opts[];

int opt_parse(const struct tool *tool, int argc, char **argv, void *params,
	      struct session_opts *so, struct cli_args *ca, char *err, size_t errlen);
void opt_help(const struct tool *tool, FILE *out);
void opt_usage(const struct tool *tool, FILE *out);
void opt_man(const struct tool *tool, FILE *out);
int opt_seconds(const char *s, uint64_t *ns);

#endif
