/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGBIRTHS_H
#define IOTAP_CGBIRTHS_H

/*
 * --cgroups: where each child created straight into a cgroup (clone3 with
 * CLONE_INTO_CGROUP) is, read from /proc as its birth (task:task_newtask)
 * is delivered, as a live run's cgroup tracker reads it (cgroup.h), for the
 * born record the recorder writes before that birth (sections.h): a report
 * then counts the child where a live run does.
 */
#include "sample.h"
#include "session.h"

struct cgbirths;

/*
 * cgbirths_create - subscribe s to the births, where it can deliver them; *out NULL where
 * not (the children then count as their parents' in reports). 0 or -errno
 */
int cgbirths_create(struct cgbirths **out, struct session *s);
/*
 * cgbirths_learn - rec, when it is the birth of a child born straight into a cgroup: the
 * born record to write before it (valid until the next call); NULL for any other record
 */
const struct perf_event_header *cgbirths_learn(struct cgbirths *cb, struct session *s,
					       const struct perf_event_header *rec);
/* cgbirths_report - at the end, once: the children that were gone before they were read */
void cgbirths_report(struct cgbirths *cb);
/* cgbirths_free - accepts NULL */
void cgbirths_free(struct cgbirths *cb);

#endif
