/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RECORD_PARAMS_H
#define IOTAP_RECORD_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
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

/*
 * The flight recorder's options, written once for every command that keeps
 * one (record --ring, exporter --ring): base is the offset of the struct
 * record_params they fill within the command's params; max_dumps_help says
 * what --max-dumps ends for that command. For an option table (iotap.h);
 * -Q apart, so that each command places it after its -d.
 */
#define RECORD_P(base, f) ((base) + offsetof(struct record_params, f))
#define RECORD_RING_OPTS(base, max_dumps_help, ring_cost_help) \
	{ 0, "ring", OPT_UINT, RECORD_P(base, ring), "SECS", \
	  "flight recorder: keep the last SECS seconds of events in memory, as read (uncompressed: only what a dump writes is compressed), and write nothing until a trigger (--trigger, SIGUSR2); each trigger writes FILE.<timestamp>, a whole recording of the SECS before it and --after SECS after it" ring_cost_help, \
	  NULL, 1, 86400 }, \
	{ 0, "ring-size", OPT_STR, RECORD_P(base, ring_size), "SIZE", \
	  "with --ring: at most SIZE bytes of events in memory (default 256M; K, M, G); when it binds, the ring holds less than SECS and says once how much" }, \
	{ 0, "trigger", OPT_STR, RECORD_P(base, trigger), "EXPR", \
	  "with --ring: dump when a block request completes that meets EXPR, a comma-separated list of latency>MS (device time above MS milliseconds, decimals allowed; with -Q queued time too; requests with data) and error (completed with an error, flushes included). One incident, one file: requests that meet EXPR during a dump's window belong to it, and for SECS after the window (a hold-off) none triggers, so dumps do not overlap; SIGUSR2 always dumps" }, \
	{ 0, "after", OPT_UINT, RECORD_P(base, after), "SECS", "with --ring: a dump also holds SECS seconds after its trigger (default 0)", \
	  NULL, 0, 3600 }, \
	{ 0, "max-dumps", OPT_UINT, RECORD_P(base, max_dumps), "N", max_dumps_help, \
	  NULL, 1, 1000000 }
#define RECORD_OPT_QUEUED(base) \
	{ 'Q', "queued", OPT_FLAG, RECORD_P(base, queued), NULL, "with --trigger latency>MS: time requests from when they were queued (block_io_start or insert), as biolatency -Q" }

#endif
