/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RECORD_PARAMS_H
#define IOTAP_RECORD_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

struct tool;

/* What 'iotap record' was asked for (its option table fills it). */
struct record_params {
	const char *output;
	bool force;
	bool callchains;		/* -g: stacks for the events tools take them on */
	uint64_t duration;		/* seconds; 0: until stopped or the command exits */
	const char *tools;		/* comma-separated; NULL: every block tool */
	bool all;			/* every tool, not only the block tools */
	bool cgroups;			/* every task's cgroup, for --cgroup and --show-cgroup */
	const char *switch_output;	/* SIZE|TIME: write parts output.<timestamp> (rotate.h) */
	uint64_t max_files;		/* with switch_output: keep the newest N parts; 0: all */
	uint64_t ring;			/* seconds: a flight recorder, dumping on a trigger */
	const char *ring_size;		/* SIZE: its memory cap (ring.h) */
	const char *trigger;		/* trigger.h; NULL: SIGUSR2 only */
	uint64_t after;			/* seconds a dump goes on after its trigger */
	uint64_t max_dumps;		/* 0: no limit */
	const char *disk;		/* the triggers look at this disk only */
	bool queued;			/* latency> counts queued time too */
	/* The tools to record for, NULL-terminated, and the one a name in --tools means (the CLI's registry). */
	const struct tool *const *tool_table;
	const struct tool *(*tool_find)(const char *name);
};

#endif
