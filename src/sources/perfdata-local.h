/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PERFDATA_LOCAL_H
#define IOTAP_PERFDATA_LOCAL_H

/*
 * What the perf.data source (source-perfdata.c) and the host facts it serves
 * (host-perfdata.c) share: the source's state, s->src_priv. The source's open
 * makes it and its close frees all of it, info_ev and lost included, which the
 * host's info fills; the file it reads is perfdata-read.h's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "perfdata-read.h"
#include "sample.h"

struct host_ops;
struct iotap_event;
struct merge;
struct recording_event;

/* Distinct CPUs whose lost counts are kept; more only happens in a damaged file. */
#define PD_LOST_CPUS_MAX 4096

/* What the session makes of one attribute of the file. */
struct pd_use {
	struct field dev;		/* a block event's disk */
	struct iotap_event *ev;		/* the session's, when a tool uses it */
	uint64_t out_type;		/* the layout its samples are rewritten to */
};

struct perf_src {
	struct perfdata pd;		/* the file: its image, attributes and features */
	void *map;			/* pd.img, when mapped from the file */
	struct pd_use *use;		/* one per pd.attrs */
	uint64_t pos;			/* the next record to read */
	char writer[96];
	struct recording_event *info_ev;
	struct merge *m;
	uint8_t *rec;			/* one rewritten record */
	uint8_t *ready;			/* records the merge released, in time order */
	size_t ready_len, ready_cap, ready_pos;
	uint64_t t_first, t_last;	/* of the samples */
	uint64_t last_time;		/* newest time read (file order) or delivered (run) */
	bool ended;
	struct lost_cpus lost;
};

/* What the file's feature sections say about the host perf ran on (host-perfdata.c). */
extern const struct host_ops host_perfdata;

#endif
