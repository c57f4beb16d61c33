// SPDX-License-Identifier: GPL-2.0-or-later
/* record-opts.c - the 'iotap record' command: its options, help and man page */
#include <stddef.h>

#include "cmds.h"
#include "opt.h"
#include "recorder.h"

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
	  "also record which cgroup every task is in, in cgroup v2 and in the v1 hierarchies of blkio and the named ones (name=systemd) where they are mounted (when recording starts, then sched_process_fork and cgroup_attach_task, and for each child created straight into a cgroup, clone3 CLONE_INTO_CGROUP, its cgroup read as its task_newtask comes), for reports with --cgroup or --show-cgroup" },
	{ 0, "switch-output", OPT_STR, P(switch_output), "SIZE|TIME",
	  "write the recording in parts FILE.<timestamp> (UTC, YYYYmmddHHMMSSmmm), a new one after SIZE bytes of events written (100M, 1G; B, K, M, G; the sections before them, kallsyms with -g, come on top) or TIME of events (30s, 10m, 1h, 1d); each part is a whole recording, and each request is in the part of its first event, completion included" },
	{ 0, "max-files", OPT_UINT, P(max_files), "N",
	  "with --switch-output: keep the newest N parts, removing the oldest", NULL, 1, 100000000 },
	RECORD_RING_OPTS(0, "with --ring: stop after N dumps (default: no limit)", ""),
	{ 'd', "disk", OPT_STR, P(disk), "DISK", "with --trigger: look at requests of this disk only (its bios, for md and dm disks; every disk is still recorded)" },
	RECORD_OPT_QUEUED(0),
	OPT_END
};

const struct cmd_spec cmd_record = {
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
		"Three modes. By default one file, FILE. With --switch-output, parts FILE.<timestamp>, "
		"each a whole recording that report reads alone; a request in flight at a boundary "
		"stays with the part its first event is in (that part is closed when its last request "
		"completes), so every tool counts each request exactly once over the parts; up to 8 "
		"parts stay open at once, and the requests of a part closed before they completed "
		"(the oldest, to make room, or 60 s past its end) are counted and said at the end; md "
		"and dm disks complete bios, not requests, and their bios are handed over the same way. With --ring, "
		"a flight recorder: the last SECS seconds of events are kept in memory in chunks, "
		"uncompressed (at most --ring-size bytes; a dump compresses only what it writes, so "
		"reading the events costs no deflate), and nothing is written until "
		"a trigger: SIGUSR2, or a completed block request that meets --trigger. Each trigger "
		"writes FILE.<timestamp>, a whole recording of the window from SECS before the trigger "
		"to --after SECS after it, with what fired (report --info shows it), and prints one line. "
		"Triggers that fire while a dump's window is still open belong to that dump, and "
		"requests do not trigger again until SECS after it (a hold-off): one incident, one "
		"file. A thread of its own writes each dump while the events are read on; at most "
		"two dumps are written at a time (one more is refused with the reason), so memory "
		"beyond --ring-size holds at most two windows. A dump that cannot be written is "
		"reported and the ring goes on. "
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
		"iotap report -i io.iotap biolatency -D\n  Analyse the recording later, anywhere.\n"
		"iotap record -o io.iotap --switch-output 1h --max-files 24\n  Record always, in hourly parts, keeping a day.\n"
		"iotap record -o /var/log/iotap/slow --ring 60 --after 5 --trigger 'latency>100,error'\n"
		"  Keep the last minute in memory; on a request slower than 100 ms or failed, write it and 5 s more.\n"
		"kill -USR2 $(pidof iotap)\n  Ask a flight recorder for a dump now.\n",
	.args = TOOL_ARGS_COMMAND,
	.opts = record_opts,
	.common = record_common_opts,
	.params_size = sizeof(struct record_params),
};
