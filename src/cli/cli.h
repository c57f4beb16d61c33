/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CLI_H
#define IOTAP_CLI_H

/* The command-line layer: the only code that prints and chooses exit statuses. */
#include "iotap.h"
#include "log.h"
#include "opt.h"
#include "session.h"

#define EXIT_USAGE 1
#define EXIT_TRACE 2

/* What every command shares (cli.c): main and the front ends call it, it calls neither. */
void cli_set_prefix(const char *name);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_log(enum log_level level, const char *msg);
/*
 * The functions below return an exit status (0, EXIT_USAGE, EXIT_TRACE), not -errno: what
 * failed has been said on stderr by then. cli_stdout_check - status, or EXIT_TRACE when it
 * was 0 and a write to stdout failed (said, but for EPIPE). cli_parse - an exit status to
 * stop with (help, version, a usage error said), or -1 to go on.
 */
int cli_stdout_check(int status);
int cli_version(void);
int cli_parse(const struct cmd_spec *spec, int argc, char **argv, void *params,
	      struct session_opts *so, struct cli_args *ca);
int cli_run_tool(const struct tool *tool, int argc, char **argv, const char *input);

/* The commands' front ends (record-main.c, report-main.c), which main dispatches to; an exit status. */
int cli_record(int argc, char **argv);
int cli_report(int argc, char **argv);
/* report --html (report-html.c): the page of the recording so names into path; an exit status */
int cli_report_html(const struct session_opts *so, const char *path);
/* report --otf2 (report-otf2.c): the OTF2 archive of what so names, into dir; an exit status */
int cli_report_otf2(const struct session_opts *so, const char *dir);

#endif
