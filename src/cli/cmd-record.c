// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd-record.c - the 'iotap record' command: its options, help and man page */
#include <stddef.h>

#include "cmds.h"
#include "opt.h"
#include "record.h"

#define P(f) offsetof(struct record_params, f)
static const struct opt record_opts[] = {
	{ 'o', "output", OPT_OUTFILE, P(output), "FILE", "write the recording to FILE (required; created mode 0600)" },
	{ 'f', "force", OPT_FLAG, P(force), NULL, "overwrite FILE if it exists" },
	{ 'g', NULL, OPT_FLAG, P(callchains), NULL,
	  "record kernel and user stacks on the events tools take stacks on, with /proc/kallsyms and the processes' mappings (--call-graph chooses how user stacks are walked)" },
	{ 'D', "duration", OPT_UINT, P(duration), "SECS", "stop after SECS seconds", NULL, 1, 0 },
	{ 0, "tools", OPT_STR, P(tools), "LIST",
	  "record the events of these tools, comma-separated (default: every block tool; see iotap list)" },
	{ 0, "all", OPT_FLAG, P(all), NULL, "record the events of every tool whose events this kernel has" },
	{ 0, "cgroups", OPT_FLAG, P(cgroups), NULL,
	  "also record which cgroup v2 every task is in (when recording starts, then sched_process_fork and cgroup_attach_task), for reports with --cgroup or --show-cgroup" },
	OPT_END
};

const struct tool cmd_record = {
	.name = "record",
	.summary = "Record block I/O events to a file, for iotap report to analyse later.",
	.description =
		"Traces the events that the chosen tools use (by default every block tool; see each "
		"tool's EVENTS in iotap-TOOL(8)) and writes them to a file, with everything a later "
		"report needs and nothing it would otherwise take from the machine that analyses it: "
		"the kernel's own format text of each event, the block devices and their schedulers, "
		"the process names, the host, kernel, CPU count and clock. Events that this kernel "
		"lacks are skipped when a tool can do without them. Any tool then runs over the file "
		"with iotap report -i FILE TOOL (or iotap TOOL -i FILE), with the same output as live, "
		"on any machine and without privileges. "
		"With -g, user stacks are walked as they are recorded (see --call-graph) and each "
		"distinct callchain is stored once: the file holds no copies of stacks, and a report "
		"needs the traced binaries (or --symfs) only to name the frames. "
		"Recording stops at Ctrl-C, after -D seconds, or when the command given after the "
		"options exits. While stderr is a terminal a status line shows the time, events, "
		"bytes written and events lost so far; a summary line is always printed at the end. "
		"The file is created with mode 0600; its format is described in iotap-recording(5). "
		"What a recording tells whoever reads it: the host name, the kernel version, process "
		"names and IDs and the command line; with -g also /proc/kallsyms (kernel symbol "
		"addresses, which give away the kernel's KASLR offset) and the processes' executable "
		"mappings; with fileio's events the names of open files; with --cgroups every task's "
		"cgroup. Without -g no kernel address is recorded: leave -g out when stacks are not "
		"needed. iotap report --info lists what a file holds.",
	.examples =
		"iotap record -o io.iotap -D 10\n  Record the block events of every tool for ten seconds.\n"
		"iotap record -o io.iotap -- fio job.fio\n  Record while fio runs.\n"
		"iotap record -g -o stacks.iotap --tools biostacks\n  Record biostacks' events, with the stacks it takes.\n"
		"iotap report -i io.iotap biolatency -D\n  Analyse the recording later, anywhere.\n",
	.args = TOOL_ARGS_COMMAND,
	.opts = record_opts,
	.common = record_common_opts,
	.params_size = sizeof(struct record_params),
};
