/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SESSION_H
#define IOTAP_SESSION_H

/*
 * A session: one stream of events (source.h) fed to its consumers (consumer.h).
 * session.c opens, runs, dispatches, resets and releases it; its events and
 * their handlers are session-events.c's (session_event_use), its process names
 * session-comms.c's (session_comm_*), its stop session-signals.c's; what those
 * files share and nothing else calls is in session-local.h.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "disk.h"
#include "hashtab.h"
#include "iotap.h"
#include "source.h"
#include "tfs.h"

/* The defaults of --mmap-pages and --max-stack (perf's), written here only. */
#define SESSION_MMAP_PAGES_DEFAULT 128
#define SESSION_MAX_STACK_DEFAULT 127
#define SESSION_OPTS_DEFAULT \
	{ .mmap_pages = SESSION_MMAP_PAGES_DEFAULT, .max_stack = SESSION_MAX_STACK_DEFAULT }

/* Options every tool accepts (the common part of the option table). */
struct session_opts {
	const char *input;		/* report from this recording instead of live */
	const void *input_buf;		/* or from one in memory (tests, fuzzing) */
	size_t input_len;
	uint64_t mmap_pages;
	uint64_t max_stack;
	bool verbose;
	bool track_mmap;		/* live: MMAP2 side-band, for user symbols */
	bool walk_only;			/* the consumer names no frames (a recorder) */
	bool no_procs;			/* live: no consumer names processes nor pids: no side-band */
	/*
	 * live: the map of each thread's process is kept (a flight recorder's
	 * dumps fill events in from it, replay.h) but no event's is filled in
	 * as it is delivered: its pid is its thread's id
	 */
	bool pids_unread;
	int call_graph;			/* enum stack_call_graph: how user stacks are walked */
	const char *symfs;		/* where a recording's binaries are looked up */
	int source;			/* enum session_source: where live events are read */
	const char *cgroup;		/* --cgroup: only I/O submitted in this cgroup (cgroup.h) */
};

/* Where live events are read (--source). */
enum session_source {
	SOURCE_AUTO,			/* ftrace, unless the event takes callchains */
	SOURCE_FTRACE,			/* the ftrace ring buffer of a private tracefs instance */
	SOURCE_PERF,			/* perf_event_open rings */
};

extern const char *const session_source_names[];

/* A subscription to an event: fn(ctx, sample, arg), ctx that of the consumer that subscribed. */
struct iotap_handler {
	iotap_handler_fn fn;
	void *arg;
	struct iotap_ctx *ctx;
};

/* A consumer the session feeds (consumer.h). */
struct session_consumer {
	const struct consumer_ops *ops;
	void *priv;
	bool no_ftrace;			/* session_consumer_skip_ftrace */
	int wake_fd;			/* session_consumer_wake_fd; -1: none */
};

/* One event a session delivers, with the handlers subscribed to it. */
struct iotap_event {
	char *sys, *name;		/* stored after the event, in its allocation */
	struct tep_event *tep;
	void *backend;			/* the source's handle (live: its backend's) */
	unsigned int be;		/* live: which backend reads it */
	uint64_t sample_type;
	uint64_t regs_mask;
	bool chain_ids;			/* a recording's: the callchain is an id (source_ops.chain) */
	bool layout_fixed;		/* opened with these flags: a later user cannot add stacks */
	unsigned int flags;		/* IOTAP_EV_* */
	struct iotap_handler *h;	/* called in the order they subscribed */
	size_t nr_h, cap_h;
	struct iotap_handler h_one;	/* h while it holds one (most events): no allocation */
	uint64_t count;
	uint64_t undelivered;		/* counted by the kernel, never delivered (perf) */
	uint64_t undelivered_reported;
	uint64_t stackless;		/* delivered without their callchain (a twin's) */
	uint64_t stackless_reported;
	unsigned int twin;		/* live: 1 + its index among the twinned events; 0 none */
	struct session *sess;
};

struct session;

/* How a session names stacks: the tools' stack API (stacks.h: stacks_session_want). */
typedef int (*session_stacks_fn)(struct session *s, bool user);

struct session {
	/*
	 * The ctx of the tool session_init was given, a consumer like those of
	 * session_tool_add; without one, what the session's own callers (the
	 * recorder, report --info) pass to the tool API.
	 */
	struct iotap_ctx ctx;
	struct session_consumer *cons;
	size_t nr_cons, cap_cons;
	size_t nr_raw;			/* consumers with on_record */
	size_t nr_decoders;		/* and without: samples are decoded (consumer.h) */
	/*
	 * The consumers with on_record, observers first, as session_on_record
	 * calls them, made again when one is added or skips ftrace samples:
	 * rec[0..nr_rec) take every record; then, when one skips them, the
	 * nr_rec_ftrace that take an ftrace sample.
	 */
	struct session_consumer *rec;
	size_t nr_rec, nr_rec_ftrace;
	bool rec_skip, rec_stale;
	/*
	 * A consumer takes stacks on an event (user: user frames too): make s->sym,
	 * an observer of the records. NULL: stacks are delivered unnamed. The
	 * hook session_stacks_set installed when the session was opened.
	 */
	session_stacks_fn stacks_want;
	uint64_t interval_ns;		/* session_run's: every tool reports then */
	uint64_t duration_ns;
	struct session_opts opts;
	const struct source_ops *src;	/* the stream (source.h) */
	const struct host_ops *host;	/* src's host facts (host.h), host_none when it has none */
	void *src_priv;
	struct fmt_set fs;
	struct iotap_event **ev;
	size_t nr_ev, cap_ev;		/* the array outlives its events (session_reset) */
	struct hashtab ev_index;	/* sys:name -> index into ev (session_find_event) */
	struct disk_table disks;
	struct symbolizer *sym;		/* stacks.c: made when a tool takes stacks (stacks_want) */
	struct cgtrack *cg;		/* cgroup.c: with --cgroup, or a tool's cgroup column (tool-cgroup.c) */
	struct comm_ent *comms;
	size_t nr_comms, cap_comms;
	/* pid -> index into comms: every fork on the host adds a name, read on each lookup. */
	struct hashtab comm_index;
	/* Names of processes that exited (their EXIT seen), and when to compact them away. */
	size_t nr_comms_gone, comm_compact_at;
	/* What the source knew when it opened, for session_reset: names, and how many disks. */
	struct comm_ent *comms_open;
	size_t nr_comms_open;
	size_t nr_disks_open;
	uint64_t t_start;		/* CLOCK_MONOTONIC ns when tracing began */
	int64_t wall_offset;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	uint64_t now;			/* stream time of the current report */
	uint64_t lost_reported;
	uint64_t dropped;		/* samples of no known event, or malformed */
	uint64_t malformed;		/* of which malformed */
	const char *probe_sys;		/* the group of the probes this run made */
	bool pid_filtered;		/* a tool keeps one process's events (-p): see iotap_pid_check */
	volatile sig_atomic_t stop;	/* session_stop: ends after the current record */
	sig_atomic_t sig_base;		/* the process's signal counts when it began */
	sig_atomic_t abort_base;
};

/*
 * session_open - a session reading src, with no consumer yet.
 * Return: 0 or -errno; session_release s either way.
 */
int session_open(struct session *s, const struct source_ops *src, const struct session_opts *opts);
/*
 * session_stacks_set - the hook every session opened from now on takes as its
 * stacks_want; process-wide, like the log hook. The stack API sits above the
 * sessions that use it, so the program that links it installs it (the CLI's
 * main, a test): without it (NULL, the default) stacks come unnamed.
 */
void session_stacks_set(session_stacks_fn fn);
/*
 * session_tool_add - one more tool over s (tool-consumer.c), with its own
 * params (the caller's, valid until session_release), state and output;
 * before session_run. Its handlers get its ctx. Return: the ctx (the
 * session's), or NULL with errno.
 */
struct iotap_ctx *session_tool_add(struct session *s, const struct tool *tool, void *params,
				   FILE *out);
/* tool_consumer_add - session_tool_add with ctx the caller's (s->ctx); 0 or -ENOMEM */
int tool_consumer_add(struct session *s, struct iotap_ctx *ctx, const struct tool *tool,
		      void *params, FILE *out);
/*
 * session_run - init the consumers, trace, report per interval or once at the end: 0, or
 * -errno (a consumer's, the source's; -EINVAL with an error line when no event is traced)
 */
int session_run(struct session *s, uint64_t interval_ns, uint64_t count, uint64_t duration_ns);
/*
 * session_reset - s, opened and maybe run, back to where session_open left it,
 * to run again without opening its source again: every consumer's fini (the
 * tool's too; add tools again before session_run), the events and their
 * handlers, the process names and disks learnt since open, the counts, the
 * stop and the time dropped; the source replays its stream from the first
 * record. opts (NULL: the session's) are the options from then on: a file
 * source reads the input they name, which must begin as the one opened
 * (the same sections before the records; a fuzzer or a test changes only
 * what follows). opts that name no input at all (no path, no buffer) let go
 * of the last one: the stream is then empty until a reset names one, so that
 * the caller may free a buffer the session read. Signals that came before are
 * not the next run's.
 * Return: 0; -ENOTSUP when the source cannot replay (live), s untouched;
 * else the source's error (-EINVAL: not the head the session opened), and
 * then only session_release is safe. session_release s either way.
 */
int session_reset(struct session *s, const struct session_opts *opts);
void session_release(struct session *s);
/*
 * Stopping. Each session has its own stop: session_stop (safe in a signal
 * handler) ends that session after the current record, and leaves every other
 * session alone. session_signals_install's handler counts signals
 * process-wide; session_stopped turns one that came after session_open into
 * that session's stop, so a signal stops whatever session runs, and a later
 * session does not stop for it. A caller that runs session after session
 * asks session_signalled before it opens the next, and ends there. The
 * sources' run loops end when session_stopped says so.
 */
void session_signals_install(void);
void session_stop(struct session *s);
bool session_stopped(struct session *s);
bool session_signalled(const struct session *s);
/*
 * session_dispatch - hand one record to the consumers: raw, then to the event's handlers: 0,
 * or the first non-zero return of a consumer or handler
 */
int session_dispatch(struct session *s, const struct perf_event_header *rec);
/*
 * session_dispatch_sample - a sample already decoded (a trace entry where it
 * lies, ftrace.h), when no consumer takes it as a record
 * (session_takes_ftrace_records), to its event's handlers, as
 * session_dispatch hands the sample of a record: 0, or a handler's non-zero return
 */
int session_dispatch_sample(struct session *s, const struct perf_sample *smp);
/*
 * session_takes_ftrace_records - whether a consumer takes the records of
 * ftrace samples (a recorder that does not store the sub-buffers): those
 * must be laid out as perf samples, and go to session_dispatch. true too
 * when the list of consumers could not be made (ENOMEM): session_dispatch
 * then says so.
 */
bool session_takes_ftrace_records(struct session *s);
void session_comm_cache(struct session *s, uint32_t pid, const char *comm);
/*
 * session_comm_cached - a name COMM records (or an earlier lookup) gave pid, or NULL when none
 * (no error)
 */
const char *session_comm_cached(const struct session *s, uint32_t pid);
/* session_comm_count - how many names s keeps: flat on a long run, as processes come and go */
size_t session_comm_count(const struct session *s);
/* session_event_find - the event a sample id belongs to, NULL when none is in use (no error) */
struct iotap_event *session_event_find(struct session *s, uint64_t id);
/*
 * session_event_use - subscribe fn, called with ctx (NULL: s->ctx), to sys:name,
 * outside any tool's events table (iotap_event_use checks it); NULL with errno.
 */
struct iotap_event *session_event_use(struct session *s, struct iotap_ctx *ctx, const char *sys,
				      const char *name, unsigned int flags, iotap_handler_fn fn,
				      void *arg);

bool session_aborted(const struct session *s);
uint64_t session_lost_total(const struct session *s);
uint64_t session_undelivered_total(const struct session *s);
void session_warn_malformed(const struct session *s);
uint64_t mono_now(void);

#endif
