// SPDX-License-Identifier: GPL-2.0-or-later
/* recorder.c - iotap record: a consumer of the session that writes every record to a file */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgbirths.h"
#include "command.h"
#include "dump.h"
#include "evstream.h"
#include "flight.h"
#include "live.h"
#include "log.h"
#include "recorder.h"
#include "reqwatch.h"
#include "rotate.h"
#include "select.h"
#include "selection.h"
#include "snapshot.h"

#define NSEC_PER_SEC 1000000000ull

/* A part of a recording in parts (--switch-output): its records and its file. */
struct record_part {
	struct evstream es;
	char *path;
};

/* What a recording is being written with: a consumer of the session's run loop (record_consumer). */
struct recorder {
	const struct record_params *p;
	char **command;
	record_progress_fn progress;
	void *progress_arg;
	struct command child;
	struct rec_buf tools;		/* the names of the tools recorded for */
	struct snap_info info;		/* what the file's head says besides the session */
	struct evstream es;		/* the records: into the file, the part, or the ring */
	int werr;			/* the first write error */
	bool started;			/* the records began: the file stays */
	/* --switch-output: es and path are the part being written. */
	struct rotate_spec rotate;
	struct rotate_files kept;	/* --max-files */
	char *path;			/* of the part being written */
	uint64_t t_part;		/* event time the part began at */
	uint64_t part_base;		/* bytes of the part before its records */
	uint64_t part_ms;		/* wall-clock ms its name says: each part's is later */
	struct handover ho;		/* the parts open (rotate.h): part i is open[i], the last es */
	struct record_part open[ROTATE_OPEN_MAX - 1];	/* parts before, open while their requests finish */
	uint64_t given_up;		/* requests whose part closed before they completed */
	bool parts_full;		/* a part could not be written: none until retry_t */
	uint64_t retry_t;		/* event time to try a new part at */
	uint64_t unwritten;		/* samples of the parts removed, and dropped meanwhile */
	uint64_t closed_samples, closed_bytes;	/* of the parts closed */
	struct reqwatch *watch;
	struct dumper *closer;		/* finishes the parts off the loop */
	struct flight *flight;		/* --ring: the records go to its ring instead */
	struct cgbirths *births;	/* --cgroups: where the children born into a cgroup are */
};

/* rc_fail - remember the first write error */
static int rc_fail(struct recorder *rc, int err)
{
	if (err && !rc->werr)
		rc->werr = err;
	return err;
}

/* record_put_static - what needs no tracing: the formats' header, the disks, kallsyms (-g) */
static int record_put_static(struct recorder *rc, const struct session *s)
{
	int ret = snap_put_head(rc->es.w, s);

	if (!ret && rc->p->callchains)
		ret = snap_put_kallsyms(rc->es.w);
	return rc_fail(rc, ret);
}

/* record_put_state - what names the events as of now, then the start of the records */
static int record_put_state(struct recorder *rc, const struct session *s)
{
	int ret;

	rc->info.t_start = rc->t_part ? rc->t_part : s->t_start;
	rc->info.pid = rc->child.pid;
	ret = snap_put_names(rc->es.w, s, &rc->info);
	if (!ret)
		ret = snap_put_procs(rc->es.w, &rc->info);
	return rc_fail(rc, ret);
}

/* record_part_swap - write to pt from now on; the part written to so far goes to pt */
static void record_part_swap(struct recorder *rc, struct record_part *pt)
{
	struct record_part cur = { rc->es, rc->path };

	rc->es = pt->es;
	rc->path = pt->path;
	*pt = cur;
}

/* record_no_room - err says the disk (or the quota) is full */
static bool record_no_room(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/*
 * record_part_lost - a part at path could not be written for want of room:
 * said (once until a part is whole again), removed, its samples counted as
 * unwritten; no part is begun before event time t plus a second. A full
 * disk does not end a recording in parts.
 */
static void record_part_lost(struct recorder *rc, const char *path, int err, uint64_t samples,
			     uint64_t t)
{
	if (!rc->parts_full)
		log_msg(LOG_ERR, "cannot write '%s': %s; the part is removed, and the recording goes on in a new part once there is room",
			path, rec_strerror(err));
	rc->parts_full = true;
	rc->retry_t = t + NSEC_PER_SEC;
	rc->unwritten += samples;
	unlink(path);
}

/* record_part_closed - a part finished: said if that failed, else kept (--max-files: the newest) */
static int record_part_closed(struct recorder *rc, const char *path, int err, uint64_t bytes,
			      uint64_t samples)
{
	int kept;

	if (record_no_room(err)) {
		record_part_lost(rc, path, err, samples, mono_now());
		return 0;
	}
	rc->closed_bytes += bytes;
	if (err) {
		log_msg(LOG_ERR, "cannot write '%s': %s", path, rec_strerror(err));
		return rc_fail(rc, err);
	}
	if ((kept = rotate_files_add(&rc->kept, path)))
		log_msg(LOG_WARN, "cannot remove the oldest part: %s", strerror(-kept));
	if (rc->parts_full) {
		log_msg(LOG_WARN, "'%s' is written whole: the recording is back; %llu events were not written",
			path, (unsigned long long)rc->unwritten);
		rc->parts_full = false;
	}
	return 0;
}

/* record_parts_collect - the parts the closer is through with; wait: all, and it stops */
static int record_parts_collect(struct recorder *rc, bool wait)
{
	struct dump *d, *rest = NULL;
	int ret = 0, err;

	if (wait) {
		dumper_stop(rc->closer, &rest);
		rc->closer = NULL;
	} else if (rc->closer) {
		rest = dumper_done(rc->closer);
	}
	while ((d = rest)) {
		rest = wait ? d->next : dumper_done(rc->closer);
		err = record_part_closed(rc, d->path, d->err, d->bytes, d->samples);
		if (!ret)
			ret = err;
		dump_free(d);
	}
	return ret;
}

/*
 * record_part_close - finish the part written to at event time t_end: the
 * closer writes its end and syncs it, or here after a write error
 */
static int record_part_close(struct recorder *rc, uint64_t t_end)
{
	struct dump *d = NULL;
	int ret = rc->werr;

	if (!ret && rc->closer && !(d = dump_alloc(rc->path)))
		ret = rc_fail(rc, -ENOMEM);
	if (d) {
		d->w = rc->es.w;
		d->t_end = t_end;
		d->records = rc->es.records;
		d->samples = rc->es.samples;
		rc->es.w = NULL;
		/* Parts are seconds apart at least: waiting for room is rare and short. */
		dumper_submit(rc->closer, d, true);
	} else {
		if (!ret)
			ret = rc_fail(rc, snap_put_stat(rc->es.w, t_end, rc->es.records, rc->es.samples));
		if (!ret)
			ret = rc_fail(rc, rec_writer_close(rc->es.w));
		if (record_no_room(ret))
			rc->werr = 0;
		record_part_closed(rc, rc->path, ret, rec_writer_bytes(rc->es.w), rc->es.samples);
		rec_writer_free(rc->es.w);
	}
	rc->closed_samples += rc->es.samples;
	evstream_release(&rc->es);
	/* A part that met a full disk is removed and said: the recording goes on. */
	if (record_no_room(ret))
		ret = 0;
	free(rc->path);
	memset(&rc->es, 0, sizeof(rc->es));
	rc->path = NULL;
	return ret;
}

/*
 * record_part_drop - the part written to, open part i, met a full disk at
 * event time t: removed, not closed; later events of its requests are not written
 */
static int record_part_drop(struct recorder *rc, size_t i, uint64_t t)
{
	handover_drop(&rc->ho, i);
	record_part_lost(rc, rc->path, rc->werr, rc->es.samples, t);
	rec_writer_free(rc->es.w);
	evstream_release(&rc->es);
	free(rc->path);
	memset(&rc->es, 0, sizeof(rc->es));
	rc->path = NULL;
	rc->werr = 0;
	return 0;
}

/* record_parts_full - in parts, the last write error was a full disk */
static bool record_parts_full(const struct recorder *rc)
{
	return (rc->rotate.bytes || rc->rotate.ns) && record_no_room(rc->werr);
}

/* record_part_create - a new part file named for wall-clock time wall_ns; 0 or -errno, said */
static int record_part_create(struct recorder *rc, uint64_t wall_ns)
{
	size_t len = strlen(rc->p->output) + 32;
	uint64_t ms = wall_ns / 1000000;

	/* Two parts within a millisecond must not share a name. */
	if (ms <= rc->part_ms)
		ms = rc->part_ms + 1;
	rc->part_ms = ms;
	rc->path = malloc(len);
	if (!rc->path)
		return -ENOMEM;
	if (rotate_part_name(rc->p->output, ms * 1000000, rc->path, len))
		return -ENAMETOOLONG;
	rc->es.w = rec_writer_create(rc->path, rc->p->force);
	if (!rc->es.w) {
		int ret = -errno;

		log_msg(LOG_ERR, "cannot create '%s': %s", rc->path, strerror(errno));
		return ret;
	}
	return rc->p->callchains ? evstream_init_stacks(&rc->es) : 0;
}

/*
 * record_open_close - close open part i (not the last) at event time t_end;
 * *given_up gets its requests still in flight
 */
static int record_open_close(struct recorder *rc, size_t i, uint64_t t_end, uint64_t *given_up)
{
	int ret = 0;

	if (rc->open[i].es.w) {
		record_part_swap(rc, &rc->open[i]);
		ret = record_part_close(rc, t_end);
		record_part_swap(rc, &rc->open[i]);
	}
	*given_up = handover_close(&rc->ho, i);
	memmove(rc->open + i, rc->open + i + 1, (rc->ho.nr - 1 - i) * sizeof(*rc->open));
	memset(&rc->open[rc->ho.nr - 1], 0, sizeof(*rc->open));
	return ret;
}

/* record_parts_settle - close the parts before the last that are done at event time t */
static int record_parts_settle(struct recorder *rc, uint64_t t)
{
	uint64_t n;
	int i, ret = 0;

	while (!ret && (i = handover_due(&rc->ho, t)) >= 0) {
		ret = record_open_close(rc, (size_t)i, t, &n);
		rc->given_up += n;
	}
	return ret;
}

/*
 * record_rotate - the part is due at event time t: the next begins, whole
 * (formats, disks, names, kallsyms and mappings as of now); the ones before
 * stay open while requests first seen in them are in flight (rotate.h).
 */
static int record_rotate(struct recorder *rc, struct session *s, uint64_t t)
{
	uint64_t n = 0;
	int ret = 0;

	/* As many parts as may be are open: the oldest gives way. */
	if (handover_full(&rc->ho))
		ret = record_open_close(rc, 0, t, &n);
	rc->given_up += n;
	if (ret)
		return ret;
	ret = handover_boundary(&rc->ho, t);
	if (ret)
		return ret;
	record_part_swap(rc, &rc->open[rc->ho.nr - 2]);
	rc->t_part = t;
	ret = record_part_create(rc, t + s->wall_offset);
	if (!ret)
		ret = record_put_static(rc, s);
	if (!ret)
		ret = record_put_state(rc, s);
	if (ret)
		return rc_fail(rc, ret);
	rc->part_base = rec_writer_bytes(rc->es.w);
	return record_parts_settle(rc, t);
}

/* record_unlink - remove a recording that never started, if it is a file we made */
static void record_unlink(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* record_part_due - whether the part written to is full (size) or old enough (time) at t */
static bool record_part_due(const struct recorder *rc, uint64_t t)
{
	return (rc->rotate.ns && t >= rc->t_part + rc->rotate.ns) ||
	       (rc->rotate.bytes && rec_writer_bytes(rc->es.w) - rc->part_base >= rc->rotate.bytes);
}

/* record_write - one record into the part written to */
static int record_write(struct recorder *rc, struct session *s, const struct perf_event_header *rec)
{
	return rc_fail(rc, evstream_write(&rc->es, s, rec));
}

/* record_part_write - rec at event time t into open part i; not written if it was removed */
static int record_part_write(struct recorder *rc, struct session *s,
			     const struct perf_event_header *rec, size_t i, uint64_t t)
{
	bool before = i + 1 < rc->ho.nr;
	int ret;

	if (rc->ho.part[i].dropped) {
		rc->unwritten += rec->type == PERF_RECORD_SAMPLE;
		return 0;
	}
	if (before)
		record_part_swap(rc, &rc->open[i]);
	ret = record_write(rc, s, rec);
	if (ret && record_parts_full(rc))
		ret = record_part_drop(rc, i, t);
	if (before)
		record_part_swap(rc, &rc->open[i]);
	return ret;
}

/*
 * record_put - one record into the file, the ring, or the part its request
 * belongs to (rotate.h); before, if not NULL, right before it, in the same part
 */
static int record_put(struct recorder *rc, struct session *s, const struct perf_event_header *rec,
		      const struct perf_event_header *before)
{
	struct reqwatch_rec r;
	uint64_t t, first;
	size_t part;
	int ret = 0, i;

	if (rc->flight) {
		ret = before ? flight_record(rc->flight, s, before) : 0;
		return ret ? ret : flight_record(rc->flight, s, rec);
	}
	if (!rc->rotate.bytes && !rc->rotate.ns) {
		ret = before ? record_write(rc, s, before) : 0;
		return ret ? ret : record_write(rc, s, rec);
	}
	t = reqwatch_time(s, rec, &r);
	/*
	 * The boundary first: a request this record starts is the next part's.
	 * No part since one met a full disk: none until retry_t.
	 */
	if (t && (rc->es.w ? record_part_due(rc, t) : t >= rc->retry_t))
		ret = record_rotate(rc, s, t);
	if (ret && record_parts_full(rc))
		ret = record_part_drop(rc, rc->ho.nr - 1, t);
	if (!ret)
		ret = reqwatch_feed(rc->watch, s, &r, &first);
	if (ret)
		return ret;
	i = first ? handover_find(&rc->ho, first) : -1;
	part = i < 0 ? rc->ho.nr - 1 : (size_t)i;
	ret = before ? record_part_write(rc, s, before, part, t) : 0;
	if (!ret)
		ret = record_part_write(rc, s, rec, part, t);
	if (!ret && t && rc->ho.nr > 1)
		ret = record_parts_settle(rc, t);
	return ret;
}

/*
 * record_on_record - every record the session delivers, in time order, goes
 * to the file; a child's birth into a cgroup of its own after what /proc
 * said of it then (cgbirths.h)
 */
static int record_on_record(struct session *s, void *priv, const struct perf_event_header *rec)
{
	struct recorder *rc = priv;

	return record_put(rc, s, rec, rc->births ? cgbirths_learn(rc->births, s, rec) : NULL);
}

/* The session recording while a command runs, for the SIGCHLD handler. */
static struct session *volatile record_child_sess;

/* record_on_child - the command exited: stop the recording session as a signal would */
static void record_on_child(int sig)
{
	if (record_child_sess)
		session_stop(record_child_sess);
}

/* record_progress - tell the caller how far recording got */
static void record_progress(struct session *s, struct recorder *rc, bool final, int cmd_status)
{
	uint64_t samples = rc->closed_samples + rc->es.samples, bytes = rc->closed_bytes;
	struct record_progress pr;

	for (size_t i = 0; i + 1 < rc->ho.nr; i++) {
		samples += rc->open[i].es.samples;
		bytes += rec_writer_bytes(rc->open[i].es.w);
	}
	pr = (struct record_progress){
		.elapsed_ns = mono_now() - s->t_start,
		.samples = samples,
		/* A ring's writer fills memory, not a file: only its dumps are written. */
		.bytes = bytes + (rc->flight ? flight_bytes(rc->flight) : rec_writer_bytes(rc->es.w)),
		.lost = session_lost_total(s),
		.undelivered = session_undelivered_total(s),
		.final = final,
		.cmd_status = cmd_status,
	};

	if (rc->progress)
		rc->progress(rc->progress_arg, &pr);
}

/* record_init - the events, and what needs no tracing yet: it goes first, so rings do not wait */
static int record_init(struct session *s, void *priv)
{
	struct recorder *rc = priv;
	int ret = selection_subscribe(s, rc->p, &rc->tools, &rc->info.fds);

	rc->info.p = rc->p;
	rc->info.tools = (const char *)rc->tools.p;
	rc->info.command = rc->command;
	if (!ret && rc->p->cgroups)
		ret = cgbirths_create(&rc->births, s);
	if (!ret && rc->p->callchains && !rc->es.stacks)
		ret = evstream_init_stacks(&rc->es);
	if (!ret && !rc->flight)
		ret = record_put_static(rc, s);
	/* SIGUSR2 and the dumps written wake the loop: no second's wait for either. */
	if (!ret && rc->flight)
		ret = flight_wake_join(rc->flight, s, rc);
	if (!ret && rc->command)
		ret = command_spawn(rc->command, &rc->child);
	rc->info.pid = rc->child.pid;
	return ret;
}

/* record_start - events flow: what names them, then the command may run */
static int record_start(struct session *s, void *priv)
{
	struct recorder *rc = priv;
	int ret = 0;

	if (rc->rotate.bytes || rc->rotate.ns) {
		rc->t_part = s->t_start;
		handover_init(&rc->ho);
		ret = reqwatch_create(&rc->watch, s, false, NULL, NULL);
		if (!ret && rc->watch)
			ret = reqwatch_add_bio_disks(rc->watch, s);
		reqwatch_handover(rc->watch, &rc->ho);
		if (!ret && (ret = dumper_start(&rc->closer, -1)))
			log_msg(LOG_ERR, "cannot start the writer of parts: %s", strerror(-ret));
	} else if (rc->flight) {
		ret = flight_start(rc->flight, s, &rc->info, rc);
	}
	if (!ret && !rc->flight)
		ret = record_put_state(rc, s);
	rc->part_base = rec_writer_bytes(rc->es.w);
	if (!ret && rc->command) {
		ret = command_release(&rc->child);
		if (ret)
			log_msg(LOG_ERR, "cannot run '%s': %s", rc->command[0], strerror(-ret));
	}
	rc->started = !ret;
	return ret;
}

/* record_report - a chunk a second: the file grows as events come, a crash loses a second at most */
static int record_report(struct session *s, void *priv, bool final)
{
	struct recorder *rc = priv;
	int ret;

	if (final)
		return 0;
	if (rc->flight)
		ret = flight_tick(rc->flight, s);
	else
		ret = rc->es.w ? rc_fail(rc, rec_writer_flush(rc->es.w)) : 0;
	if (ret && record_parts_full(rc))
		ret = record_part_drop(rc, rc->ho.nr - 1, mono_now());
	if (!ret)
		ret = record_parts_collect(rc, false);
	if (!ret)
		record_progress(s, rc, false, 0);
	return ret;
}

/* record_wake - the flight recorder's fd readable: a dump asked for, or one written */
static int record_wake(struct session *s, void *priv)
{
	return flight_wake(((struct recorder *)priv)->flight, s);
}

/* The recorder as a consumer of the session's run loop: it takes every record raw. */
static const struct consumer_ops record_consumer = {
	.name = "record",
	.init = record_init,
	.start = record_start,
	.report = record_report,
	.on_record = record_on_record,
	.wake = record_wake,
};

/* record_parts_setup - --switch-output and --max-files, checked: one error line each */
static int record_parts_setup(struct recorder *rc, const struct record_params *p)
{
	if (p->max_files && !p->switch_output) {
		log_msg(LOG_ERR, "--max-files needs --switch-output");
		return -EINVAL;
	}
	if (p->switch_output && rotate_parse(p->switch_output, &rc->rotate)) {
		log_msg(LOG_ERR, "bad --switch-output '%s': a size (100M, 1G; B, K, M, G) or a time (30s, 10m, 1h, 1d)",
			p->switch_output);
		return -EINVAL;
	}
	rc->kept.max = (unsigned int)p->max_files;
	return 0;
}

/* record_run - record until stopped; progress gets the status about once a second */
int record_run(const struct record_params *p, const struct session_opts *so_in, char **command,
	       record_progress_fn progress, void *arg)
{
	struct recorder rc = {
		.p = p, .command = command, .progress = progress, .progress_arg = arg,
		.child = COMMAND_NONE,
	};
	struct session_opts so = *so_in;
	struct sigaction sa, old_sa;
	struct session s;
	uint64_t cut;
	int ret, status = 0;

	if (!p->output) {
		log_msg(LOG_ERR, "no output file: use -o FILE");
		return -EINVAL;
	}
	so.input = NULL;
	so.input_buf = NULL;
	so.track_mmap = p->callchains;
	so.walk_only = true;
	/* Refused tracing is said before any file is made. */
	ret = live_permitted();
	if (ret)
		return ret;
	ret = record_parts_setup(&rc, p);
	if (!ret)
		ret = flight_setup(&rc.flight, p, &rc.es);
	if (ret)
		return ret;
	if (!rc.flight && (rc.rotate.bytes || rc.rotate.ns)) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		ret = record_part_create(&rc, now.tv_sec * NSEC_PER_SEC + now.tv_nsec);
		if (ret) {
			free(rc.path);
			rec_writer_free(rc.es.w);
			evstream_release(&rc.es);
			return ret;
		}
	} else if (!rc.flight) {
		rc.es.w = rec_writer_create(p->output, p->force);
	}
	if (!rc.es.w) {
		ret = -errno;
		if (ret == -EEXIST)
			log_msg(LOG_ERR, "'%s' exists; use -f to overwrite it", p->output);
		else if (ret == -ENOTSUP)
			log_msg(LOG_ERR, "'%s' is not a regular file: not replaced", p->output);
		else
			log_msg(LOG_ERR, "cannot create '%s': %s", p->output, strerror(errno));
		return ret;
	}
	/* The command's exit stops recording; a stop (SIGSTOP) does not. */
	record_child_sess = &s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);

	ret = session_init(&s, NULL, NULL, &so);
	if (!ret)
		ret = session_consumer_add(&s, &record_consumer, &rc);
	if (!ret)
		ret = session_run(&s, NSEC_PER_SEC, 0, p->duration * NSEC_PER_SEC);
	if (rc.started) {
		if (ret && !rc.werr)
			log_msg(LOG_ERR, "recording stopped: %s", strerror(-ret));
		status = command_reap(&rc.child);
		/* Requests in flight at the end are not given up at a boundary: none is. */
		while (rc.ho.nr > 1)
			record_open_close(&rc, 0, mono_now(), &cut);
		/* What was written stays readable even after an error: a reader sees it as cut short. */
		if (rc.flight) {
			flight_finish(rc.flight, &s);
		} else if (rc.path) {
			record_part_close(&rc, mono_now());
			record_parts_collect(&rc, true);
		} else if (rc.rotate.bytes || rc.rotate.ns) {
			record_parts_collect(&rc, true);
		} else if (!rc.werr && !rc_fail(&rc, snap_put_stat(rc.es.w, mono_now(), rc.es.records,
								   rc.es.samples))) {
			rc_fail(&rc, rec_writer_close(rc.es.w));
		}
		if (!ret)
			ret = rc.werr;
		cgbirths_report(rc.births);
		if (rc.parts_full)
			log_msg(LOG_WARN, "%llu events were not written: no part could be written since the disk filled",
				(unsigned long long)rc.unwritten);
		if (rc.given_up)
			log_msg(LOG_WARN, "%llu requests were given up at part boundaries: their part closed while they were in flight (%d parts open, or %llu s past its end); %llu of them completed later, in a part without their first events",
				(unsigned long long)rc.given_up, ROTATE_OPEN_MAX,
				ROTATE_HANDOVER_NS / NSEC_PER_SEC,
				(unsigned long long)rc.ho.split);
		record_progress(&s, &rc, true, status);
	}
	command_reap(&rc.child);
	record_parts_collect(&rc, true);
	if (rc.werr && !rc.path)
		log_msg(LOG_ERR, "cannot write '%s': %s", p->output, rec_strerror(rc.werr));
	/* The dump writer uses no session, but stops before it: nothing outlives the run. */
	flight_free(rc.flight);
	rc.flight = NULL;
	session_release(&s);
	sigaction(SIGCHLD, &old_sa, NULL);
	record_child_sess = NULL;
	rec_writer_free(rc.es.w);
	evstream_release(&rc.es);
	if (!rc.started && !p->ring)
		record_unlink(rc.path ? rc.path : p->output);
	free(rc.path);
	reqwatch_free(rc.watch);
	cgbirths_free(rc.births);
	rotate_files_release(&rc.kept);
	free(rc.tools.p);
	return ret;
}
