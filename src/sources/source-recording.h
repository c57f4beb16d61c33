/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SOURCE_RECORDING_H
#define IOTAP_SOURCE_RECORDING_H

/*
 * The session source that replays an iotap recording, and the summary
 * behind 'iotap report --info'. It reads through the format's reader
 * (container.h) and section decoders (sections.h); the recorder
 * (src/recorder/) writes through their writer and encoders.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "sections.h"
#include "session.h"

/* One recorded event as --info shows it. */
struct recording_event {
	const char *sys, *name;
	uint64_t sample_type;
	uint64_t count;			/* samples in the stream */
	uint64_t undelivered;		/* counted by the kernel but not delivered */
	uint64_t stackless;		/* delivered without their callchain */
};

/* What 'iotap report --info' prints; strings live as long as the session. */
struct recording_info {
	const char *path;
	uint16_t major, minor;		/* container version */
	const char *host, *sysname, *release, *kversion, *machine;
	const char *iotap_version, *command;
	int nr_cpus;
	int command_pid;		/* 0: no command */
	uint64_t t_start, t_end;	/* CLOCK_MONOTONIC ns of the recording machine */
	int64_t wall_offset;
	uint64_t records;		/* everything in the stream, side-band included */
	const struct recording_event *ev;
	size_t nr_ev;
	bool cut_short;
	uint64_t cut_at;		/* file offset of the chunk that could not be read */
	bool kallsyms;			/* it holds /proc/kallsyms (-g) */
	bool maps;			/* processes' executable mappings (-g) */
	bool cgroups;			/* every task's cgroup (--cgroups) */
	bool fdtab;			/* open descriptors with file names (fileio) */
	const char *writer;		/* not an iotap recording: what wrote it ("perf 6.1") */
	const struct rec_sec_trig *trig;	/* a flight recorder's dump: what fired; else NULL */
};

/* The parameters of 'iotap report' itself; the tool after it has its own. */
struct report_params {
	bool info;
	const char *html;		/* --html FILE: the page */
	const char *otf2;		/* --otf2 DIR: the OTF2 archive */
};

/* The source that reads iotap recordings. */
extern const struct source_ops source_file;

/*
 * recording_info - read the whole input and describe it (report --info): 0, or -errno, said
 * through the log hook (-EINVAL: a live session, which is no file).
 */
int recording_info(struct session *s, struct recording_info *info);

#endif
