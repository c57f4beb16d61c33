/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RECORDING_H
#define IOTAP_RECORDING_H

/*
 * What an iotap recording holds, on top of the container of recfile.h: the
 * section types and their layouts (iotap-recording(5), SECTIONS), the
 * session source that replays a recording, and the summary behind
 * 'iotap report --info'. The writing side is record.c.
 *
 * Whole sections start with a u32 version; streamed ones with a u32 version
 * and a u32 of zero, so that the records after them stay 8-byte aligned.
 * Integers are in the byte order that META names (the recording machine's,
 * as perf records are); a reader refuses any other than its own.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recfile.h"
#include "session.h"

#define REC_SEC_META	REC_FOURCC('M', 'E', 'T', 'A')	/* key=value lines: host, kernel, clock */
#define REC_SEC_FMTH	REC_FOURCC('F', 'M', 'T', 'H')	/* tracefs events/header_page text */
#define REC_SEC_EVNT	REC_FOURCC('E', 'V', 'N', 'T')	/* one recorded event: ids, format */
#define REC_SEC_DISK	REC_FOURCC('D', 'I', 'S', 'K')	/* block devices and schedulers */
#define REC_SEC_COMM	REC_FOURCC('C', 'O', 'M', 'M')	/* process names when recording began */
#define REC_SEC_KSYM	REC_FOURCC('K', 'S', 'Y', 'M')	/* streamed: /proc/kallsyms text (-g) */
#define REC_SEC_EVTS	REC_FOURCC('E', 'V', 'T', 'S')	/* streamed: the perf records, in time order */
#define REC_SEC_STAT	REC_FOURCC('S', 'T', 'A', 'T')	/* after the records: end time, totals */
#define REC_SEC_MAPS	REC_FOURCC('M', 'A', 'P', 'S')	/* -g: executable mappings when recording began (stacks.h) */
#define REC_SEC_FDTB	REC_FOURCC('F', 'D', 'T', 'B')	/* fileio: open descriptors when recording began (systrack.h) */

#define REC_SEC_VERSION 1u

/*
 * EVNT: u32 version, u32 nr_ids, u64 sample_type, u64 regs, u32 sys/name/format lengths,
 * u32 flags (version 2; zero in version 1).
 */
#define REC_EVNT_FIXED 40
#define REC_EVNT_VERSION_FLAGS 2u
/* EVNT flag: the event's samples carry one callchain entry, the id of a REC_RECORD_STACK. */
#define REC_EVNT_CHAIN_IDS 1u
/*
 * An EVTS record of iotap's own, before the first sample that names it: a
 * distinct callchain, once. Body: u64 id, u64 nr, then nr u64 callchain
 * entries as the kernel lays them out. Ids count up from 0; 0 again starts
 * the table over (the recorder bounds its memory).
 */
#define REC_RECORD_STACK 0x10000u
#define REC_STACK_FIXED 24
#define REC_STACKS_MAX (1u << 20)
/* DISK: u32 version, u32 count, then count entries of u32 dev, name[32], sched[32]. */
#define REC_DISK_ENTRY 68
/* COMM: u32 version, u32 count, then count entries of u32 pid, comm[16]. */
#define REC_COMM_ENTRY 20
/* Streamed sections: u32 version, u32 zero, then the content. */
#define REC_STREAM_PREFIX 8
/* STAT: u32 version, u32 zero, u64 end time, u64 records, u64 samples. */
#define REC_STAT_SIZE 32

/* One recorded event as --info shows it. */
struct recording_event {
	const char *sys, *name;
	uint64_t sample_type;
	uint64_t count;			/* samples in the stream */
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
};

/* The parameters of 'iotap report' itself; the tool after it has its own. */
struct report_params {
	bool info;
};

extern const struct tool cmd_report;

int recording_info(struct session *s, struct recording_info *info);
const char *recording_kallsyms(const struct session *s, size_t *len);
const void *recording_maps(const struct session *s, size_t i, size_t *len);
const void *recording_fds(const struct session *s, size_t i, size_t *len);

#endif
