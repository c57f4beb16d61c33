/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BREAKDOWN_H
#define IOTAP_BREAKDOWN_H

/*
 * iostackbreakdown's tables for an interval and their two layouts, text and one
 * JSON object per line: a log2 histogram and a total per timed operation; per
 * syscall name, its calls, latency, the block requests its threads queued and
 * the time waited on them, and its bytes by source; the block I/O queued
 * outside any traced syscall, by submitter. Rows appear in order of first sight.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

/* Per syscall name: the attribution table's row. */
struct breakdown_sys {
	const char *name;		/* not copied: a name that outlives the table */
	uint64_t calls, lat_ns, disk_calls, reqs, queue_ns, dev_ns, wait_ns;
	uint64_t bytes_cache, bytes_dev, pages;
};

struct breakdown {
	struct hist_set hs;		/* per operation, in the caller's unit */
	struct breakdown_op {
		char name[40];
		uint64_t ns;
	} *ops;
	size_t nr_ops, cap_ops;
	struct breakdown_sys *sysrow;
	size_t nr_sys, cap_sys;
	struct breakdown_out {
		char comm[16];
		uint32_t pid;		/* by originator: the process; 0: a named row, or none */
		char inode[40];		/* by originator: "MAJ:MIN ino N" the bytes came from, or "" */
		const char *file;	/* by originator: the inode's name, NULL: not known (not copied) */
		uint64_t reqs, bytes, ns;
	} *out;
	size_t nr_out, cap_out;
	bool originator;		/* the outside rows are by originator, not by submitter */
	uint64_t late_reqs;		/* completed after their syscall returned */
};

/* breakdown_op_add - one timed operation: value into its histogram, ns to its total; 0 or -ENOMEM */
int breakdown_op_add(struct breakdown *b, const char *op, uint64_t value, uint64_t ns);

/* breakdown_sysrow - the row of a syscall name, made zeroed the first time; NULL: ENOMEM */
struct breakdown_sys *breakdown_sysrow(struct breakdown *b, const char *name);

/* breakdown_out_add - a request queued outside the traced syscalls, by submitter; 0 or -ENOMEM */
int breakdown_out_add(struct breakdown *b, const char *comm, uint64_t bytes, uint64_t ns);

/*
 * breakdown_orig_add - bytes of a request charged to an originator: comm (a process's name,
 * or a row's label such as "[jbd2 journal]"), pid (0 for a label), inode ("" when none),
 * file (the inode's name, or NULL; not copied: it must outlive the table's use);
 * the request counts once on each row it gives bytes to. 0 or -ENOMEM.
 */
int breakdown_orig_add(struct breakdown *b, const char *comm, uint32_t pid, const char *inode,
		       const char *file, uint64_t bytes, uint64_t ns);

/*
 * breakdown_print - the interval's tables: histograms per operation (label their unit,
 * percentiles under each if asked), the totals, then the attribution; with json, one
 * object per line, each with ts. 0 or -errno.
 */
int breakdown_print(struct breakdown *b, FILE *out, const char *label, bool percentiles,
		    bool json, const char *ts);

/* breakdown_reset - empty every table for the next interval */
void breakdown_reset(struct breakdown *b);

/* breakdown_release - free what b holds; safe on a zeroed or released one */
void breakdown_release(struct breakdown *b);

#endif
