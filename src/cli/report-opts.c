// SPDX-License-Identifier: GPL-2.0-or-later
/* report-opts.c - the 'iotap report' command: its options, help and man page */
#include <stddef.h>

#include "cmds.h"
#include "opt.h"
#include "source-recording.h"

#define RP(f) offsetof(struct report_params, f)
static const struct opt report_opts[] = {
	{ 0, "info", OPT_FLAG, RP(info), NULL,
	  "describe the recording instead: host, kernel, CPUs, start, duration, events per type, events lost per CPU, and whether it is complete" },
	{ 0, "html", OPT_OUTFILE, RP(html), "FILE",
	  "write one self-contained HTML page about the recording to FILE instead: its header (host, "
	  "kernel, time span, events, losses, what fired a flight recorder's dump), per disk the "
	  "latency histograms, percentiles, heat map, rates, sizes and pattern, the top processes, "
	  "the 50 slowest requests with their stacks and a flame graph of the submitting stacks; "
	  "it names nothing outside itself, so it opens from a file with no network" },
	{ 0, "otf2", OPT_STR, RP(otf2), "DIR",
	  "write the recording as an OTF2 trace into DIR instead, a new or empty directory (Vampir "
	  "and otf2-print open DIR/traces.otf2): each block request and each read and write "
	  "syscall as an I/O operation of the thread that did it, on the handle of its disk or "
	  "file; needs an iotap built with libotf2 (iotap --version says when it is not)" },
	OPT_END
};

const struct cmd_spec cmd_report = {
	.name = "report",
	.summary = "Run a tool over a recording made by iotap record (or a perf.data or trace.dat), or describe the recording.",
	.description =
		"Runs TOOL over the events of the recording given with -i, exactly as it runs live "
		"(iotap TOOL -i FILE is the same): the same options, the same output, intervals "
		"that follow the recorded time, and the events the kernel lost printed as they were "
		"lost. Only the banner that live tracing prints is left out. A report reads nothing "
		"of the machine it runs on (no tracefs, /proc, /sys or kallsyms), so it needs no "
		"privileges and works on any machine. A recording that was cut short (the recorder "
		"was killed, the disk filled up) is reported up to its last complete chunk, followed "
		"by a warning; a damaged one gives one error line and a non-zero exit status. "
		"A perf.data file (recognized by its magic) works the same for every tool whose "
		"events perf recorded (perf record -e block:block_rq_issue -e block:block_rq_complete "
		"-a; add block:block_io_start for the submitter, -g for the stack tools). perf.data "
		"names no disks: they print as MAJ:MIN and -d takes that form, unless the file was "
		"recorded on this machine and kernel; kernel symbols come from perf's build-id "
		"cache (~/.debug), as perf report finds them. Pipe-mode and compressed (-z) files "
		"are refused. With --cgroup a report needs the recorded cgroups (iotap record "
		"--cgroups). "
		"With --otf2 DIR the recording becomes an OTF2 archive, the format of Score-P and "
		"lo2s that Vampir reads: the machine, a location group per process and a location "
		"per thread; an I/O handle per disk and per file, named; each block request as an "
		"operation begun when its submitter started it, issued to the device and completed "
		"with its bytes, each read and write syscall as an operation on its file's handle "
		"with the bytes it returned. A recording holds the syscalls when fileio's events were "
		"recorded (iotap record --tools biosnoop,fileio, or --all). DIR is written whole or "
		"not at all.",
	.examples =
		"iotap report -i io.iotap biolatency -D\n  One latency histogram per disk from the recording.\n"
		"iotap report -i perf.data biosnoop\n  biosnoop over what perf record -e block:... -a recorded.\n"
		"iotap report -i io.iotap biolatency 1\n  One histogram per recorded second.\n"
		"iotap report -i io.iotap --info\n  Where, when and what was recorded, and whether anything was lost.\n"
		"iotap report -i io.iotap --html io.html\n  One page about the recording, for any browser, offline.\n"
		"iotap report -i io.iotap --otf2 io.otf2\n  The recording as an OTF2 trace: vampir io.otf2/traces.otf2, or otf2-print.\n",
	.args = TOOL_ARGS_TOOL,
	.opts = report_opts,
	.common = report_common_opts,
	.params_size = sizeof(struct report_params),
};
