// SPDX-License-Identifier: GPL-2.0-or-later
/* report-main.c - iotap report: a tool over a recording, --info about it, --html or --otf2 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "select.h"
#include "source-recording.h"

/* cli_info_print - what, where and when was recorded, and whether anything is missing */
static void cli_info_print(struct session *s, const struct recording_info *in)
{
	uint64_t lost, dur = in->t_end - in->t_start;
	char when[64] = "?";
	int cpu, n = 0;

	if (!iotap_strftime(&s->ctx, in->t_start, "%Y-%m-%d %H:%M:%S", when, sizeof(when)))
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03u",
			 (unsigned int)((in->t_start + s->wall_offset) / 1000000 % 1000));
	if (in->writer)
		printf("recording:  %s (%s)\n", in->path, in->writer);
	else
		printf("recording:  %s (format %u.%u, iotap %s)\n", in->path, in->major, in->minor,
		       in->iotap_version ? in->iotap_version : "?");
	printf("host:       %s\n", in->host ? in->host : "?");
	printf("kernel:     %s %s %s %s\n", in->sysname ? in->sysname : "?",
	       in->release ? in->release : "?", in->kversion ? in->kversion : "",
	       in->machine ? in->machine : "");
	printf("cpus:       %d\n", in->nr_cpus);
	printf("start:      %s (local time)\n", when);
	printf("duration:   %.3f s\n", dur / 1e9);
	if (in->trig) {
		printf("trigger:    %s\n", in->trig->what);
		printf("window:     %.3f s before the trigger to %.3f s after it\n",
		       in->trig->t_trigger > in->trig->t_from ?
		       (in->trig->t_trigger - in->trig->t_from) / 1e9 : 0.0,
		       in->trig->t_to > in->trig->t_trigger ?
		       (in->trig->t_to - in->trig->t_trigger) / 1e9 : 0.0);
	}
	if (in->command && in->command_pid)
		printf("command:    %s (pid %d)\n", in->command, in->command_pid);
	else if (in->command)
		printf("command:    %s\n", in->command);
	printf("events:     %" PRIu64 " records\n", in->records);
	for (size_t i = 0; i < in->nr_ev; i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s:%s", in->ev[i].sys, in->ev[i].name);
		printf("  %-36s %10" PRIu64 "%s", name, in->ev[i].count,
		       in->ev[i].sample_type & PERF_SAMPLE_CALLCHAIN ? "  (with stacks)" : "");
		if (in->ev[i].undelivered)
			printf("  (%" PRIu64 " counted by the kernel but not delivered)",
			       in->ev[i].undelivered);
		if (in->ev[i].stackless)
			printf("  (%" PRIu64 " without a stack)", in->ev[i].stackless);
		putchar('\n');
	}
	printf("lost:       %" PRIu64, session_lost_total(s));
	for (int i = 0; s->src->lost(s, i, &cpu, &lost) == 0; i++)
		if (lost)
			printf("%sCPU %d: %" PRIu64, n++ ? ", " : " (", cpu, lost);
	printf("%s\n", n ? ")" : "");
	/* Say what the file tells whoever gets it, before it is passed on. */
	if (!in->writer)
		printf("reveals:    host name, kernel version, process names and IDs%s%s%s%s%s\n",
		       in->command ? ", the command line" : "",
		       in->kallsyms ? ", kernel symbol addresses (/proc/kallsyms: the KASLR offset)" : "",
		       in->maps ? ", the processes' executable mappings (paths, addresses, build-ids)" : "",
		       in->fdtab ? ", names of the files processes had open" : "",
		       in->cgroups ? ", every task's cgroup" : "");
	if (in->cut_short)
		printf("complete:   no, cut short at byte %" PRIu64 " (the recording was interrupted)\n",
		       in->cut_at);
	else
		printf("complete:   yes\n");
}

/* cli_report_info - iotap report -i FILE --info */
static int cli_report_info(const struct session_opts *so)
{
	struct recording_info info;
	struct session s;
	int ret;

	session_signals_install();
	ret = session_init(&s, NULL, NULL, so);
	if (!ret)
		ret = recording_info(&s, &info);
	if (!ret)
		cli_info_print(&s, &info);
	session_release(&s);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}

/* cli_report_otf2_args - --otf2 alone, with -i: 0, or the exit status of the usage error said */
static int cli_report_otf2_args(const struct report_params *p, const struct session_opts *so,
				const struct cli_args *ca)
{
	if (p->info || p->html) {
		cli_error("--otf2 and %s are two reports: give one", p->info ? "--info" : "--html");
		return EXIT_USAGE;
	}
	if (ca->nr_rest) {
		cli_error("--otf2 takes no tool, but '%s' follows it", ca->rest[0]);
		return EXIT_USAGE;
	}
	if (so->symfs) {
		cli_error("--symfs serves --html only; --otf2 names no symbols");
		return EXIT_USAGE;
	}
	if (!so->input) {
		cli_error("which recording? use -i FILE");
		return EXIT_USAGE;
	}
	return 0;
}

/* cli_report - iotap report -i FILE (--info | --html OUT | --otf2 DIR | TOOL [tool options]) */
int cli_report(int argc, char **argv)
{
	struct session_opts so = SESSION_OPTS_DEFAULT;
	struct report_params p = { 0 };
	const struct tool *tool;
	struct cli_args ca;
	int ret;

	ret = cli_parse(&cmd_report, argc, argv, &p, &so, &ca);
	if (ret >= 0)
		return ret;
	if (p.otf2) {
		ret = cli_report_otf2_args(&p, &so, &ca);
		return ret ? ret : cli_report_otf2(&so, p.otf2);
	}
	if (p.info && p.html) {
		cli_error("--info and --html are two reports: give one");
		return EXIT_USAGE;
	}
	if (p.html) {
		if (ca.nr_rest) {
			cli_error("--html takes no tool, but '%s' follows it", ca.rest[0]);
			return EXIT_USAGE;
		}
		if (!so.input) {
			cli_error("which recording? use -i FILE");
			return EXIT_USAGE;
		}
		return cli_report_html(&so, p.html);
	}
	if (so.symfs && !p.html) {
		cli_error("--symfs here serves --html only; a tool takes its own after its name");
		return EXIT_USAGE;
	}
	if (p.info) {
		if (ca.nr_rest) {
			cli_error("--info takes no tool, but '%s' follows it", ca.rest[0]);
			return EXIT_USAGE;
		}
		if (!so.input) {
			cli_error("which recording? use -i FILE");
			return EXIT_USAGE;
		}
		return cli_report_info(&so);
	}
	if (!ca.nr_rest) {
		cli_error("which tool? use iotap report -i FILE TOOL (see iotap list), or --info");
		return EXIT_USAGE;
	}
	tool = tool_find(ca.rest[0]);
	if (!tool) {
		cli_error("unknown tool '%s'; see 'iotap list'", ca.rest[0]);
		return EXIT_USAGE;
	}
	if (!so.input) {
		cli_error("which recording? use iotap report -i FILE %s", tool->name);
		return EXIT_USAGE;
	}
	return cli_run_tool(tool, ca.nr_rest, ca.rest, so.input);
}
