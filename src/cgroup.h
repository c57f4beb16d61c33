/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGROUP_H
#define IOTAP_CGROUP_H

/*
 * Which cgroup (v2) each task is in, at every moment of the event stream,
 * kept in user space so that it works whatever delivers the events (perf
 * rings, the ftrace ring buffer, a recording): a snapshot of every task's
 * /proc/TID/cgroup when tracing starts, then sched:sched_process_fork (a
 * child starts in its parent's cgroup) and cgroup:cgroup_attach_task (a
 * task moved) in stream order. A block request is attributed when its
 * submitter's event (block_io_start, or block_rq_insert before 6.5) is
 * delivered, to the cgroup the submitting task was in at that moment: never
 * at completion, which runs in whatever task the interrupt hit (bcc#3741).
 *
 * Not seen: a child created straight into another cgroup (clone3 with
 * CLONE_INTO_CGROUP) is taken to be in its parent's until it is moved.
 */
#include <stdbool.h>
#include <stdint.h>

#include "iotap.h"

struct cgtrack;
struct session;

/*
 * cgtrack_create - start tracking for a session (the events are subscribed
 * now); path, if not NULL, is the --cgroup filter: a directory of the
 * cgroup2 mount, or a path inside the hierarchy ("/a/b") for a report.
 * Return: 0, -ENOENT (no such cgroup, with one error line) or -errno.
 */
int cgtrack_create(struct cgtrack **out, struct iotap_ctx *ctx, const char *path);
/* cgtrack_started - live, once the events are enabled: every task's cgroup now */
void cgtrack_started(struct cgtrack *ct);
/*
 * cgtrack_of - the cgroup path ("/a/b") the task of a sample is in at the
 * sample's time, NULL when unknown. The string lives as long as ct.
 */
const char *cgtrack_of(struct cgtrack *ct, const struct perf_sample *s);
/* cgtrack_match - whether that cgroup is the filter's or below it (true without a filter) */
bool cgtrack_match(struct cgtrack *ct, const struct perf_sample *s);
/* cgtrack_filtering - whether a --cgroup filter is set */
bool cgtrack_filtering(const struct cgtrack *ct);
/* cgtrack_free - free the tracker; accepts NULL */
void cgtrack_free(struct cgtrack *ct);

#endif
