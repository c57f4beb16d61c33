/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SHARED_H
#define IOTAP_SHARED_H

/*
 * What several tools share: the block events table, the option entries of -d DISK, -j and --prom FILE
 * (each tool's help says only its own part), and the --prom file's set-up and
 * interval write with their error lines.
 */
#include <stdio.h>

#include "iotap.h"

struct prom;

/*
 * The block events of the tools that pair requests (blktrack): issue and completion,
 * the submitter's (block_io_start, block_rq_insert on kernels before 6.5), the
 * bio front merges that move a started request's first sector, and the remaps of a
 * partition's bios, which name the submitter of what blk-throttle's worker starts. One
 * table, so a tool copied from bitesize.c declares what blktrack may ask for; a tool
 * that never asks who submitted a request takes issue and completion alone.
 */
#define TOOL_EVENTS_BLOCK_RQ \
	{ "block", "block_rq_issue", 0 }, \
	{ "block", "block_rq_complete", 0 }
#define TOOL_EVENTS_BLOCK_REQ \
	TOOL_EVENTS_BLOCK_RQ, \
	{ "block", "block_io_start", TOOL_EV_OPTIONAL }, \
	{ "block", "block_rq_insert", TOOL_EV_OPTIONAL }, \
	{ "block", "block_bio_frontmerge", TOOL_EV_OPTIONAL }, \
	{ "block", "block_bio_remap", TOOL_EV_OPTIONAL }
/*
 * The same with stacks on the submitter's events (BT_START_STACK), for the tools that tag
 * each request with the stack that started it.
 */
#define TOOL_EVENTS_BLOCK_REQ_STACK \
	{ "block", "block_io_start", TOOL_EV_OPTIONAL | TOOL_EV_STACK }, \
	{ "block", "block_rq_insert", TOOL_EV_OPTIONAL | TOOL_EV_STACK }, \
	{ "block", "block_bio_frontmerge", TOOL_EV_OPTIONAL }, \
	{ "block", "block_bio_remap", TOOL_EV_OPTIONAL }, \
	TOOL_EVENTS_BLOCK_RQ
/* And the bios (BT_BIO), for the disks that take bios and make no requests (md, dm). */
#define TOOL_EVENTS_BLOCK_BIO \
	{ "block", "block_bio_queue", TOOL_EV_OPTIONAL }, \
	{ "block", "block_bio_complete", TOOL_EV_OPTIONAL }

/* And btt's stages (BT_STAGES): bios queued, requests allocated, merges, requeues, splits. */
#define TOOL_EVENTS_BLOCK_STAGES \
	{ "block", "block_bio_queue", TOOL_EV_OPTIONAL }, \
	{ "block", "block_getrq", TOOL_EV_OPTIONAL }, \
	{ "block", "block_bio_backmerge", TOOL_EV_OPTIONAL }, \
	{ "block", "block_rq_merge", TOOL_EV_OPTIONAL }, \
	{ "block", "block_rq_requeue", TOOL_EV_OPTIONAL }, \
	{ "block", "block_split", TOOL_EV_OPTIONAL }

#define TOOL_OPT_DISK_HELP(off, help) { 'd', "disk", OPT_DISK, (off), "DISK", help }
#define TOOL_OPT_DISK(off) TOOL_OPT_DISK_HELP(off, "trace this disk only")
/* what: "one object per flush and line" */
#define TOOL_OPT_JSON(off, what) { 'j', "json", OPT_FLAG, (off), NULL, "json output: " what }
/* what: "the histograms as Prometheus metrics (...)" */
#define TOOL_OPT_PROM(off, what) \
	{ 0, "prom", OPT_OUTFILE, (off), "FILE", \
	  "each interval, also write " what " to a temporary and rename it over FILE" }

/*
 * tool_report_begin - an interval's report begins: with json its time, which each JSON object
 * carries, in ts ("YYYY-MM-DD HH:MM:SS", else ""); without, the interval header (timestamp: -T)
 */
void tool_report_begin(struct iotap_ctx *ctx, bool json, bool timestamp, char *ts, size_t len);

/*
 * tool_file_write - write PATH whole through write(f, arg), or leave it as it was
 *
 * The file is written beside PATH and renamed over it (outfile.h) only when write returns 0.
 * Returns 0 or -errno; a failure is logged with PATH.
 */
int tool_file_write(struct iotap_ctx *ctx, const char *path, int (*write)(FILE *f, void *arg),
		    void *arg);

/*
 * tool_prom_open - with --prom PATH (not NULL), its writer in *prom, else *prom NULL
 *
 * Returns 0, or -EINVAL (logged) when the temporary beside PATH cannot be created. The caller
 * frees *prom with prom_free.
 */
int tool_prom_open(struct iotap_ctx *ctx, const char *path, struct prom **prom);

/*
 * tool_prom_write - after adding an interval's series (ret: how that went), write PATH
 *
 * Returns ret, else prom_write's result; a failure is logged with PATH.
 */
int tool_prom_write(struct iotap_ctx *ctx, struct prom *prom, const char *path, int ret);

struct hist_set;

/* One part of a command latency report: its set as latency histograms, or counted. */
struct tool_cmd_part {
	struct hist_set *set;
	const char *count;		/* NULL: histograms; else the name its counts print under */
};

/*
 * tool_cmd_report - nvmelatency's and scsilatency's report: the interval's beginning (json: its
 * time on each object; -T: a timestamp line), each part in turn (histograms in msecs or
 * usecs, bpftrace's layout), then every part's set reset. 0 or the first printing error.
 */
int tool_cmd_report(struct iotap_ctx *ctx, const struct tool_cmd_part *parts, size_t n, bool msecs,
		    bool json, bool timestamp, bool percentiles);

#endif
