/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SESSION_H
#define IOTAP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"
#include "disk.h"
#include "../tracefs/evlist.h"
#include "../tracefs/tfs.h"

/* Options every tool accepts (the common part of the option table). */
struct session_opts {
	const char *input;		/* report from this recording instead of live */
	const void *input_buf;		/* or from one in memory (tests, fuzzing) */
	size_t input_len;
	uint64_t mmap_pages;
	uint64_t max_stack;
	bool verbose;
	bool track_mmap;		/* live: MMAP2 side-band, for user symbols */
	int call_graph;			/* enum stack_call_graph: how user stacks are walked */
	const char *symfs;		/* where a recording's binaries are looked up */
	const char *cgroup;		/* --cgroup: only I/O submitted in this cgroup (cgroup.h) */
};

/* One event a session delivers, with the handlers subscribed to it. */
struct iotap_event {
	char *sys, *name;
	struct tep_event *tep;
	struct evsel *sel;		/* live */
	uint64_t sample_type;
	uint64_t regs_mask;
	bool chain_ids;			/* a recording's: the callchain is an id (source_ops.chain) */
	unsigned int flags;		/* IOTAP_EV_* */
	struct {
		iotap_handler_fn fn;
		void *arg;
	} h[4];
	int nr_h;
	uint64_t count;
	struct session *sess;
};

struct session;

/* Where records come from: the kernel now, or a recording. */
struct source_ops {
	int (*open)(struct session *s);
	int (*run)(struct session *s, uint64_t deadline);	/* 1: deadline, 0: ended */
	struct iotap_event *(*find)(struct session *s, uint64_t id);
	/* The callchain a sample of a chain_ids event names; -EINVAL: none */
	int (*chain)(struct session *s, struct perf_sample *smp);
	int (*lost)(const struct session *s, int i, int *cpu, uint64_t *lost);	/* -ENOENT past the last CPU */
	/* The recording kernel's kallsyms text, valid until close; NULL: none (live: /proc) */
	const char *(*kallsyms)(const struct session *s, size_t *len);
	/* The i-th block of initial process mappings (stacks.h); NULL past the last */
	const void *(*maps)(const struct session *s, size_t i, size_t *len);
	void (*close)(struct session *s);
};

struct session {
	struct iotap_ctx ctx;
	struct session_opts opts;
	const struct source_ops *src;
	void *src_priv;
	struct fmt_set fs;
	struct evlist *el;
	struct dynevent_set *dyn;
	struct iotap_event **ev;
	size_t nr_ev;
	struct disk_table disks;
	struct symbolizer *sym;		/* stacks.c: made when a tool takes stacks */
	struct cgtrack *cg;		/* cgroup.c: with --cgroup, or a tool's cgroup column */
	struct comm_ent *comms;
	size_t nr_comms, cap_comms;
	uint64_t t_start;		/* CLOCK_MONOTONIC ns when tracing began */
	int64_t wall_offset;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	uint64_t now;			/* stream time of the current report */
	uint64_t lost_reported;
	uint64_t dropped;		/* samples of no known event, or malformed */
	uint64_t malformed;		/* of which malformed */
	bool live;
	char err[256];
	/* A recording consumer gets every record instead of the dispatch. */
	int (*sink)(struct session *s, const struct perf_event_header *rec);
	void *sink_arg;
};

extern volatile int session_stop;

int session_init(struct session *s, const struct tool *tool, void *params,
		 const struct session_opts *opts);
int session_run(struct session *s, uint64_t interval_ns, uint64_t count, uint64_t duration_ns);
void session_release(struct session *s);
void session_signals_install(void);
int session_dispatch(struct session *s, const struct perf_event_header *rec);
void session_comm_cache(struct session *s, uint32_t pid, const char *comm);
uint64_t session_lost_total(const struct session *s);
void session_warn_malformed(const struct session *s);
uint64_t mono_now(void);

extern const struct source_ops source_live;
extern const struct source_ops source_file;
extern const struct source_ops source_perf;

#endif
