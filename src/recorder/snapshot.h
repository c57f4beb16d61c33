/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SNAPSHOT_H
#define IOTAP_SNAPSHOT_H

/*
 * The sections that name a recording's events as of now, each written to a
 * writer the caller owns: the formats' header and the disks, kallsyms, what
 * each event is and the machine (from the session), and the processes'
 * names, mappings, cgroups and descriptors (from /proc). The /proc ones use
 * no session, so another thread may write them while the session runs. A
 * writer's error comes back as the first -errno; an unreadable /proc is
 * said with a warning and written as far as it goes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "container.h"
#include "record-params.h"

struct session;

/* What a recording's head says besides the session: the command line's. */
struct snap_info {
	const struct record_params *p;
	const char *tools;		/* the tools recorded for, comma-separated */
	char **command;			/* NULL: none */
	pid_t pid;			/* the command's */
	bool fds;			/* a tool names files: FDTB */
	uint64_t t_start;		/* the file's first event time (a part's or a dump's) */
};

/*
 * Each writes its sections through w: 0, or -errno (the writer's, or -ENOMEM).
 * FMTH, the header_page text the formats were parsed with, and DISK, the block devices.
 */
int snap_put_head(struct rec_writer *w, const struct session *s);
/* KSYM: /proc/kallsyms as it is now, streamed (-errno said when it cannot be read). */
int snap_put_kallsyms(struct rec_writer *w);
/* One EVNT per event (layout, ids, format text), then META: the machine and the command line. */
int snap_put_names(struct rec_writer *w, const struct session *s, const struct snap_info *in);
/*
 * From /proc: COMM, MAPS (-g), CGRP (--cgroups), FDTB (in->fds), then the
 * start of the EVTS stream that the records follow.
 */
int snap_put_procs(struct rec_writer *w, const struct snap_info *in);
/* STAT, after the records: when recording stopped, and how much it wrote. */
int snap_put_stat(struct rec_writer *w, uint64_t t_end, uint64_t records, uint64_t samples);

#endif
