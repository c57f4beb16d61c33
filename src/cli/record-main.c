// SPDX-License-Identifier: GPL-2.0-or-later
/* record-main.c - iotap record: options, the status line and the summary */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "recorder.h"

struct cli_record {
	const char *path;
	bool tty;			/* stderr is a terminal: keep a status line */
};

/* cli_bytes - a byte count the way people read it */
static void cli_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else if (n >= 10ull << 10)
		snprintf(buf, len, "%.1f KiB", n / 1024.0);
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

/* cli_record_progress - refresh the status line; at the end, one summary line */
static void cli_record_progress(void *arg, const struct record_progress *p)
{
	const struct cli_record *cr = arg;
	char bytes[32];

	cli_bytes(p->bytes, bytes, sizeof(bytes));
	if (!p->final) {
		if (cr->tty)
			fprintf(stderr, "\r[ %.0f s ] %llu events, %s written, %llu lost\033[K",
				p->elapsed_ns / 1e9, (unsigned long long)p->samples, bytes,
				(unsigned long long)p->lost);
		return;
	}
	if (cr->tty)
		fputs("\r\033[K", stderr);
	cli_error("%llu events in %.2f s, %s written to %s, %llu lost",
		  (unsigned long long)p->samples, p->elapsed_ns / 1e9, bytes, cr->path,
		  (unsigned long long)p->lost);
	if (p->undelivered)
		cli_error("warning: %llu events counted by the kernel but not delivered (perf sampling; --source ftrace does not drop them)",
			  (unsigned long long)p->undelivered);
	if (WIFEXITED(p->cmd_status) && WEXITSTATUS(p->cmd_status))
		cli_error("warning: the command exited with status %d", WEXITSTATUS(p->cmd_status));
	else if (WIFSIGNALED(p->cmd_status))
		cli_error("warning: the command was killed by signal %d (%s)",
			  WTERMSIG(p->cmd_status), strsignal(WTERMSIG(p->cmd_status)));
}

/* cli_record - iotap record [options] [-- command] */
int cli_record(int argc, char **argv)
{
	struct session_opts so = SESSION_OPTS_DEFAULT;
	struct record_params p = { .tool_table = iotap_tools, .tool_find = tool_find };
	struct cli_args ca;
	struct cli_record cr;
	char parts[4200];
	int ret;

	ret = cli_parse(&cmd_record, argc, argv, &p, &so, &ca);
	if (ret >= 0)
		return ret;
	if (!p.output) {
		cli_error("no output file: use -o FILE");
		return EXIT_USAGE;
	}
	cr.path = p.output;
	if (p.switch_output || p.ring) {
		snprintf(parts, sizeof(parts), "%s.*", p.output);
		cr.path = parts;
	}
	cr.tty = isatty(STDERR_FILENO);
	session_signals_install();
	ret = record_run(&p, &so, ca.nr_rest ? ca.rest : NULL, cli_record_progress, &cr);
	if (ret == -EINVAL || ret == -EEXIST)
		return EXIT_USAGE;
	return ret ? EXIT_TRACE : 0;
}
