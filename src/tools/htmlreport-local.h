/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htmlreport-local.h - what the files of report --html's analysis share: what it keeps,
 * and the calls between them. Not for use outside src/tools/htmlreport*.c;
 * htmlreport.h is the interface.
 *
 * htmlreport.c is the tool: it fills struct hr_state from the requests and, at the end,
 * is the only caller of htmlreport-sections.c, which writes the page's sections from it
 * into an open stream and frees nothing: the state owns every array and stack, until the
 * tool's fini.
 */
#ifndef IOTAP_HTMLREPORT_LOCAL_H
#define IOTAP_HTMLREPORT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blktrack.h"
#include "hist.h"
#include "stacks.h"
#include "toptable.h"

struct heatmap;

#define HR_SLOWEST 50
/* Disks drawn in full, the busiest: the others are one row each, so the page stays a few MB. */
#define HR_DISKS_DRAWN 8

/* One disk: biolatency -D's histograms, the heat map, rates, sizes and the pattern. */
struct hr_disk {
	uint32_t dev;
	struct hist lat, queued, size;	/* usecs, usecs, KiB */
	struct heatmap *hm;
	uint64_t col_ns;		/* the columns' width */
	uint64_t *ios, *bytes;		/* per column */
	size_t nr, cap;
	uint64_t reads, writes, rbytes, wbytes, seq, rnd;
};

/* One biotop row over the whole recording: a process on a disk. */
struct hr_proc {
	uint32_t pid, dev;
	char comm[16];
	uint64_t io, reads, writes, bytes, dev_ns, queue_ns;
};

/* A distinct submitting stack: its frames, and the requests it started. */
struct hr_stack {
	uint32_t pid, nr;
	uint64_t *ips;
	uint64_t count;
};

/* One of the slowest requests, as biosnoop prints it. */
struct hr_slow {
	struct blk_io io;
	uint64_t lat;
};

struct hr_state {
	struct blktrack *bt;
	bool block, stacks;		/* it holds block requests; their starts' stacks */
	struct hr_disk *disks;
	size_t nr_disks, cap_disks;
	struct toptable procs;
	struct blk_lastpos pos;
	struct stackmap *map;		/* (pid, stack) -> v[0]: 1 + index into st */
	struct hr_stack *st;
	size_t nr_st, cap_st;
	struct hr_slow slow[HR_SLOWEST];	/* a heap, the fastest on top */
	size_t nr_slow;
	uint64_t ips[STACK_IPS_MAX];
};

/* hr_disk_write - one disk's section */
void hr_disk_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, double span);
/* hr_disks_rest_write - the disks past the ones drawn, a row each with their counts */
void hr_disks_rest_write(struct iotap_ctx *ctx, FILE *f, const struct hr_disk *d, size_t nr);
/* hr_procs_write - the biotop table, sorted by bytes (how 0) or time waited (how 1) */
void hr_procs_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st, int how);
/* hr_slow_write - biosnoop's rows of the slowest requests, sorted slowest first */
void hr_slow_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st);
/* hr_flame_write - the flame graph of the submitting stacks, or why there is none; -ENOMEM */
int hr_flame_write(struct iotap_ctx *ctx, FILE *f, struct hr_state *st);

#endif
