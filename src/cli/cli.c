// SPDX-License-Identifier: GPL-2.0-or-later
/* cli.c - what the commands share: messages, option parsing, running a tool, checking stdout */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "opt.h"
#include "select.h"
#include "session.h"

static const char *cli_prefix = "iotap";

/* cli_set_prefix - messages from now on start with "iotap NAME:" */
void cli_set_prefix(const char *name)
{
	static char prefix[64];

	snprintf(prefix, sizeof(prefix), "iotap %s", name);
	cli_prefix = prefix;
}

/* cli_error - one error line, prefixed like the core's */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* cli_log - core messages go to stderr, one line each, prefixed with the tool */
void cli_log(enum log_level level, const char *msg)
{
	fprintf(stderr, "%s: %s%s\n", cli_prefix,
		level == LOG_WARN ? "warning: " : "", msg);
}

/* cli_stdout_check - report a failed write to stdout (full disk, closed pipe) */
int cli_stdout_check(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "%s: write error on standard output: %s\n", cli_prefix,
				strerror(errno));
		return status ? status : EXIT_TRACE;
	}
	return status;
}

/* cli_version - iotap's version, the libraries it was built with and what it left out, the exit status */
int cli_version(void)
{
	puts("iotap " PACKAGE_VERSION " (" IOTAP_BUILT_WITH ")");
#ifdef IOTAP_TRACEDAT_ABSENT
	puts("trace.dat input: not built in (" IOTAP_TRACEDAT_ABSENT ")");
#endif
#ifdef IOTAP_PPROF_ABSENT
	puts("pprof output: not built in (" IOTAP_PPROF_ABSENT ")");
#endif
#ifdef IOTAP_OTF2_ABSENT
	puts("OTF2 output: not built in (" IOTAP_OTF2_ABSENT ")");
#endif
	return cli_stdout_check(0);
}

/* cli_parse - a tool's or command's options; -1 to go on, else the exit status (help, error) */
int cli_parse(const struct cmd_spec *spec, int argc, char **argv, void *params,
	      struct session_opts *so, struct cli_args *ca)
{
	char why[512] = "";
	int ret;

	cli_set_prefix(spec->name);
	ret = opt_parse(spec, argc, argv, params, so, ca, why, sizeof(why));
	if (ret) {
		cli_error("%s", why[0] ? why : strerror(-ret));
		return EXIT_USAGE;
	}
	if (ca->help) {
		opt_help(spec, stdout);
		return cli_stdout_check(0);
	}
	if (ca->version)
		return cli_version();
	if (ca->usage) {
		opt_usage(spec, stdout);
		return cli_stdout_check(0);
	}
	if (so->mmap_pages & (so->mmap_pages - 1)) {
		cli_error("invalid --mmap-pages %llu: expected a power of two",
			  (unsigned long long)so->mmap_pages);
		return EXIT_USAGE;
	}
	return -1;
}

/*
 * cli_pid_seen - over a recording, a PID option must name a process the recording saw:
 * one it listed when recording began or one whose name it recorded later. Checked after
 * the run, since a process may first appear at its end. 0 or -ESRCH (said once).
 */
static int cli_pid_seen(const struct tool *tool, const void *params, const struct session *s)
{
	for (const struct opt *o = tool->opts; o && (o->short_name || o->long_name); o++) {
		int pid = o->type == OPT_PID ? *(const int *)((const char *)params + o->offset) : 0;

		if (pid > 0 && !session_comm_cached(s, pid)) {
			cli_error("PID %d does not appear in '%s': nothing could match", pid,
				  s->opts.input);
			return -ESRCH;
		}
	}
	return 0;
}

/* cli_run_tool - parse a tool's options and run it, over a recording when input is set */
int cli_run_tool(const struct tool *tool, int argc, char **argv, const char *input)
{
	struct session_opts so = SESSION_OPTS_DEFAULT;
	struct session sess;
	struct cli_args ca;
	void *params;
	int ret;

	so.input = input;
	cli_set_prefix(tool->name);
	params = calloc(1, tool->params_size ? tool->params_size : 1);
	if (!params) {
		cli_error("out of memory");
		return EXIT_TRACE;
	}
	ret = cli_parse(&tool->cmd, argc, argv, params, &so, &ca);
	if (ret >= 0) {
		free(params);
		return ret;
	}
	session_signals_install();
	ret = session_init(&sess, tool, params, &so);
	sess.ctx.spec = ca.spec;
	if (!ret)
		ret = session_run(&sess, ca.interval_ns, ca.count, ca.duration_ns);
	if (!ret && so.input)
		ret = cli_pid_seen(tool, params, &sess);
	session_release(&sess);
	free(params);
	if (ret == -EINVAL || ret == -ENODEV || ret == -ESRCH)
		return cli_stdout_check(EXIT_USAGE);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}
