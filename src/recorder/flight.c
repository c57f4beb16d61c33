// SPDX-License-Identifier: GPL-2.0-or-later
/* flight.c - record --ring: records into the ring, incidents, their dumps handed to the writer */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dump.h"
#include "flight.h"
#include "live.h"
#include "log.h"
#include "reqwatch.h"
#include "ring.h"
#include "rotate.h"
#include "sample.h"
#include "sections.h"
#include "subbufs.h"
#include "tgidmap.h"
#include "trigger.h"

#define NSEC_PER_SEC 1000000000ull
/* The default memory cap, and the raw bytes of a chunk (a second's worth at most). */
#define RING_SIZE_DEFAULT (256ull << 20)
#define RING_CHUNK (REC_STREAM_CHUNK - 3 * PERF_RECORD_MAX)

/* What fired, and the window it opened: later triggers within it join it. */
struct incident {
	bool pending;
	uint64_t t;			/* the trigger: the dump covers [t - ring, t + after] */
	uint64_t more;			/* triggers since, in the same window */
	struct rec_buf why;		/* TRIG */
	char what[512];
	unsigned int reason;		/* flight_reason_names */
};

const char *const flight_reason_names[FLIGHT_REASONS] = { "latency", "error", "signal" };

struct flight {
	const struct record_params *p;
	struct evstream *es;		/* the recorder's: es->w makes the ring's chunks */
	const struct snap_info *info;
	struct ring *ring;
	struct trigger trig;
	bool trig_dev;			/* -d: triggers look at dev only */
	uint32_t dev;
	struct reqwatch *watch;
	struct dumper *dumper;
	uint64_t chunk_t0, chunk_t1;	/* event times in the chunk being filled */
	uint64_t last_t;		/* of the newest event */
	uint64_t dumps, bytes;		/* written */
	uint64_t by_reason[FLIGHT_REASONS];	/* dumps written, by what fired them */
	uint64_t failures;		/* dumps not handed over, or not written */
	bool serve;			/* flight_serve: requests come from flight_request */
	uint64_t holdoff;		/* request triggers before this time are the last incident's */
	bool cap_said;
	int err;			/* the ring writer's first error */
	struct incident inc;
	struct session *sess;
	struct sigaction old_usr2;
	int wake_fd;			/* readable after a SIGUSR2 or a dump written; -1: none */
	/*
	 * The ftrace sub-buffers kept in the ring as read (subbufs.h): their
	 * events are not written to it one by one, a dump makes them again.
	 */
	bool subbufs;
	struct subbufs sb;
	struct live_subbufs live;
};

/* SIGUSR2: dump now; and the eventfd that wakes the run loop for it (-1: none). */
static volatile sig_atomic_t flight_usr2;
static volatile sig_atomic_t flight_usr2_fd = -1;

/* flight_on_usr2 - SIGUSR2: a dump is asked for, the loop woken (any thread may take it) */
static void flight_on_usr2(int sig)
{
	uint64_t one = 1;
	int saved = errno, fd = flight_usr2_fd;

	flight_usr2 = 1;
	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* The counter full: the loop is woken already. */
	}
	errno = saved;
}

/* flight_fail - remember the ring writer's first error */
static int flight_fail(struct flight *f, int err)
{
	if (err && !f->err)
		f->err = err;
	return err;
}

/* flight_cap_said - once, that the cap dropped events still within --ring */
static void flight_cap_said(struct flight *f)
{
	if (!ring_cap_bound(f->ring) || f->cap_said)
		return;
	f->cap_said = true;
	log_msg(LOG_WARN, "--ring-size %s binds: the ring holds the last %.1f s of events, not %llu s",
		f->p->ring_size ? f->p->ring_size : "256M", ring_held_ns(f->ring) / 1e9,
		(unsigned long long)f->p->ring);
}

/* flight_newest - the time of the newest event: recorded, or in a sub-buffer kept */
static uint64_t flight_newest(const struct flight *f)
{
	return f->sb.t_last > f->last_t ? f->sb.t_last : f->last_t;
}

/* flight_ring_chunk - the sink of the ring's writer: a chunk made, kept with its events' times */
static int flight_ring_chunk(void *arg, const void *chunk, size_t len)
{
	struct flight *f = arg;
	uint64_t t0 = f->chunk_t0 ? f->chunk_t0 : flight_newest(f);
	uint64_t t1 = f->chunk_t1 ? f->chunk_t1 : flight_newest(f);
	int ret = ring_add(f->ring, chunk, len, t0, t1);

	f->chunk_t0 = f->chunk_t1 = 0;
	/* Each chunk names its own callchains: it may outlive those before it. */
	if (f->es->stacks)
		stackmap_clear(f->es->stacks);
	if (ret == -E2BIG)
		ret = 0;	/* a chunk larger than the cap: dropped, the cap binds */
	if (!ret)
		flight_cap_said(f);
	return ret;
}

/* flight_full - --max-dumps: as many dumps written or on their way: no incident more */
static bool flight_full(const struct flight *f)
{
	return f->p->max_dumps && f->dumps + dumper_pending(f->dumper) >= f->p->max_dumps;
}

/* flight_incident_begin - a trigger at event time t; later ones within the window join it */
static void flight_incident_begin(struct flight *f, uint64_t t, const char *reason,
				  const char *what)
{
	struct rec_sec_trig tr = {
		.what = what, .reason = reason, .t_trigger = t,
		.t_from = t > f->p->ring * NSEC_PER_SEC ? t - f->p->ring * NSEC_PER_SEC : 0,
		.t_to = t + f->p->after * NSEC_PER_SEC,
	};

	if (f->inc.pending) {
		f->inc.more++;
		return;
	}
	if (flight_full(f))
		return;
	f->inc.pending = true;
	f->inc.t = t;
	f->inc.more = 0;
	snprintf(f->inc.what, sizeof(f->inc.what), "%s", what);
	for (f->inc.reason = 0; f->inc.reason + 1 < FLIGHT_REASONS; f->inc.reason++)
		if (!strcmp(flight_reason_names[f->inc.reason], reason))
			break;
	rec_buf_reset(&f->inc.why);
	rec_sec_trig_encode(&f->inc.why, &tr);
}

/* flight_on_done - each completed request: does it fire the trigger? */
static int flight_on_done(void *arg, const struct blk_io *io)
{
	struct flight *f = arg;
	const char *disk;
	char what[512], rwbs[16];
	uint32_t pid = io->pid;
	uint64_t lat;

	if ((f->trig_dev && io->dev != f->dev) || io->t_done < f->holdoff ||
	    !trigger_match(&f->trig, io, f->p->queued, &lat))
		return 0;
	if (f->inc.pending) {
		f->inc.more++;
		return 0;
	}
	if (flight_full(f))
		return 0;
	disk = iotap_disk_name(&f->sess->ctx, io->dev);
	/* Events delivered without their process (pids_unread): the live map knows it. */
	if (f->live.tgids && f->sess->opts.pids_unread)
		pid = tgidmap_of(f->live.tgids, io->pid);
	snprintf(rwbs, sizeof(rwbs), "%s", io->rwbs);
	if (io->error)
		snprintf(what, sizeof(what), "error %d (%s): %s %s sector %llu, %u bytes, %.3f ms, pid %u (%.16s)",
			 io->error, block_status_name(io->error), disk, rwbs,
			 (unsigned long long)io->sector, io->bytes, lat / 1e6, pid, io->comm);
	else
		snprintf(what, sizeof(what), "latency %.3f ms > %.3f ms%s: %s %s sector %llu, %u bytes, pid %u (%.16s)",
			 lat / 1e6, f->trig.latency_ns / 1e6, f->p->queued ? " (queued + device)" : "",
			 disk, rwbs, (unsigned long long)io->sector, io->bytes, pid, io->comm);
	flight_incident_begin(f, io->t_done, io->error ? "error" : "latency", what);
	rec_buf_meta(&f->inc.why, "disk", "%s", disk);
	rec_buf_meta(&f->inc.why, "dev", "%u", io->dev);
	rec_buf_meta(&f->inc.why, "sector", "%llu", (unsigned long long)io->sector);
	rec_buf_meta(&f->inc.why, "bytes", "%u", io->bytes);
	rec_buf_meta(&f->inc.why, "rwbs", "%s", rwbs);
	rec_buf_meta(&f->inc.why, "latency_ns", "%llu", (unsigned long long)lat);
	rec_buf_meta(&f->inc.why, "error", "%d", io->error);
	rec_buf_meta(&f->inc.why, "pid", "%u", pid);
	rec_buf_meta(&f->inc.why, "comm", "%.16s", io->comm);
	return 0;
}

/*
 * flight_dump_make - what the dump needs the session for, made here as
 * chunks: the formats' header and the disks, then what fired and what
 * names the events; and the ring's chunks of the window, held
 */
static int flight_dump_make(struct flight *f, struct session *s, struct dump *d)
{
	struct rec_writer *w = rec_writer_create_sink(dump_sink, d);
	int ret;

	if (!w)
		return -errno;
	ret = snap_put_head(w, s);
	if (!ret)
		ret = rec_writer_flush(w);
	d->to_names = true;
	if (!ret)
		ret = rec_sec_put(w, REC_SEC_TRIG, &f->inc.why);
	if (!ret)
		ret = snap_put_names(w, s, &d->info);
	if (!ret)
		ret = rec_writer_flush(w);
	rec_writer_free(w);
	if (!ret && f->subbufs) {
		/* The slab being filled holds the window's last sub-buffers. */
		subbufs_end(&f->sb);
		d->dec = subbuf_decoder_clone(f->live.dec);
		if (!d->dec)
			ret = -ENOMEM;
		if (!ret && f->live.tgids && !(d->tgids = tgidmap_copy_at(f->live.tgids, d->from)))
			ret = -ENOMEM;
	}
	return ret ? ret : ring_hold(f->ring, d->from, d->to, &d->held, &d->nr_held);
}

/*
 * flight_dump - the incident's window is over: its dump goes to the writer
 * (with wait, once there is room); a dump that cannot be is said, and the
 * ring goes on
 */
static int flight_dump(struct flight *f, struct session *s, bool wait)
{
	uint64_t from, to = f->inc.t + f->p->after * NSEC_PER_SEC;
	size_t len = strlen(f->p->output) + 32;
	struct dump *d = NULL;
	char *path;
	int ret;

	from = f->inc.t > f->p->ring * NSEC_PER_SEC ? f->inc.t - f->p->ring * NSEC_PER_SEC : 0;
	f->inc.pending = false;
	/* The next dump a request triggers does not overlap this one. */
	f->holdoff = to + f->p->ring * NSEC_PER_SEC;
	/* The chunk being filled holds the window's last events. */
	ret = flight_fail(f, rec_writer_flush(f->es->w));
	if (ret)
		return ret;
	path = malloc(len);
	if (!path)
		return -ENOMEM;
	ret = rotate_part_name(f->p->output, f->inc.t + s->wall_offset, path, len);
	if (!ret && !(d = dump_alloc(path)))
		ret = -ENOMEM;
	if (!ret) {
		d->force = f->p->force;
		d->from = from;
		d->to = to;
		d->t_end = to < flight_newest(f) ? to : flight_newest(f);
		d->info = *f->info;
		d->info.t_start = from;
		d->t = f->inc.t;
		d->more = f->inc.more;
		memcpy(d->what, f->inc.what, sizeof(d->what));
		d->reason = f->inc.reason;
		ret = flight_dump_make(f, s, d);
	}
	if (!ret)
		ret = dumper_submit(f->dumper, d, wait);
	if (ret) {
		log_msg(LOG_ERR, "cannot write the dump '%s': %s; the ring goes on", path,
			ret == -EBUSY ? "the writer is busy with the dumps before it" :
			rec_strerror(ret));
		dump_free(d);
		f->failures++;
	}
	free(path);
	return 0;
}

/* flight_said - a dump the writer is through with: one line on how it went */
static void flight_said(struct flight *f, struct dump *d)
{
	if (d->err) {
		log_msg(LOG_ERR, "cannot write the dump '%s': %s; the ring goes on", d->path,
			rec_strerror(d->err));
		f->failures++;
		return;
	}
	f->dumps++;
	f->by_reason[d->reason < FLIGHT_REASONS ? d->reason : 0]++;
	f->bytes += d->bytes;
	log_msg(LOG_INFO, "dump %llu: %s: %s; %.3f s before, %.3f s after%s", (unsigned long long)f->dumps,
		d->path, d->what, (d->t - d->from) / 1e9, (d->to - d->t) / 1e9,
		d->more ? " (and later triggers in the window)" : "");
}

/* flight_check - a dump asked for (SIGUSR2) or due (its --after is over at now) */
static int flight_check(struct flight *f, struct session *s, uint64_t now)
{
	if (flight_usr2) {
		flight_usr2 = 0;
		flight_incident_begin(f, mono_now(), "signal", "SIGUSR2");
	}
	if (f->inc.pending && now >= f->inc.t + f->p->after * NSEC_PER_SEC)
		return flight_dump(f, s, false);
	return 0;
}

/* flight_record - into the ring: a chunk ends before a record could overflow it */
int flight_record(struct flight *f, struct session *s, const struct perf_event_header *rec)
{
	/*
	 * An ftrace event is in the sub-buffers kept: a dump makes its record
	 * again. Only the triggers' pairing still takes it here (flight_start).
	 */
	bool kept = f->subbufs && ftrace_sample_is(rec);
	struct reqwatch_rec r;
	uint64_t t = 0, first;
	int ret = 0;

	/*
	 * Served (the program pairs the requests): only the time is wanted, at
	 * its fixed place in a sample, not a second parse of every record.
	 */
	if (f->watch)
		t = reqwatch_time(s, rec, &r);
	else if (rec->type == PERF_RECORD_SAMPLE && perf_record_time(rec, &t))
		t = 0;
	if (t > f->last_t)
		f->last_t = t;
	if (f->watch)
		ret = reqwatch_feed(f->watch, s, &r, &first);
	if (!ret && kept)
		return flight_check(f, s, f->last_t);
	if (!ret && rec_writer_pending(f->es->w) + rec->size > RING_CHUNK)
		ret = flight_fail(f, rec_writer_flush(f->es->w));
	if (!ret)
		ret = flight_fail(f, evstream_write(f->es, s, rec));
	if (ret)
		return ret;
	if (t && !f->chunk_t0)
		f->chunk_t0 = t;
	if (t)
		f->chunk_t1 = t;
	return flight_check(f, s, f->last_t);
}

/*
 * flight_tick - a chunk a second at most (one that began a second ago ends,
 * full or not: what the ring holds is dropped by age a second at a time; a
 * busy ring fills its chunks faster, and ending them early only made odd
 * sizes, each fresh memory); an idle window over by the clock; the dumps
 * written
 */
int flight_tick(struct flight *f, struct session *s)
{
	struct dump *d;
	int ret = 0;

	if (!f->chunk_t0 || mono_now() >= f->chunk_t0 + NSEC_PER_SEC)
		ret = flight_fail(f, rec_writer_flush(f->es->w));
	if (f->subbufs && f->sb.t_first && mono_now() >= f->sb.t_first + NSEC_PER_SEC)
		subbufs_end(&f->sb);
	/* Slabs of sub-buffers make room for themselves as they are taken. */
	if (f->subbufs)
		flight_cap_said(f);
	if (!ret && f->sb.err) {
		log_msg(LOG_ERR, "the ring cannot keep the events it reads: %s", strerror(-f->sb.err));
		ret = flight_fail(f, f->sb.err);
	}

	/*
	 * Idle, or the sub-buffers kept (their events are not handed here): the
	 * window is over when the clock says so (a second for events still merging).
	 */
	if (!ret)
		ret = flight_check(f, s, mono_now() - NSEC_PER_SEC);
	while ((d = dumper_done(f->dumper))) {
		flight_said(f, d);
		dump_free(d);
	}
	if (f->p->max_dumps && f->dumps >= f->p->max_dumps && !f->serve)
		session_stop(s);
	return ret;
}

/* flight_wake_join - see flight.h */
int flight_wake_join(struct flight *f, struct session *s, void *consumer)
{
	int ret;

	if (f->wake_fd < 0)
		return 0;
	ret = session_consumer_wake_fd(s, consumer, f->wake_fd);
	return ret == -EOPNOTSUPP ? 0 : ret;
}

/* flight_wake - see flight.h */
int flight_wake(struct flight *f, struct session *s)
{
	uint64_t n;

	/* Nonblocking: nothing to read is another consumer's wake. */
	if (read(f->wake_fd, &n, sizeof(n)) < 0)
		return errno == EAGAIN ? 0 : -errno;
	return flight_tick(f, s);
}

/* flight_finish - the open incident as far as it got, then every dump said */
void flight_finish(struct flight *f, struct session *s)
{
	struct dump *d, *rest;

	if (f->inc.pending && !f->err)
		flight_dump(f, s, true);
	dumper_stop(f->dumper, &rest);
	f->dumper = NULL;
	while ((d = rest)) {
		rest = d->next;
		flight_said(f, d);
		dump_free(d);
	}
}

/* flight_serve - the requests come from the program whose session it is (flight.h) */
void flight_serve(struct flight *f)
{
	f->serve = true;
}

/* flight_request - a request that program paired: does it fire the trigger? */
int flight_request(struct flight *f, const struct blk_io *io)
{
	uint64_t lat;

	/* Most requests fire nothing: that is seen here, without a call. */
	if (!f->p->trigger || !trigger_match(&f->trig, io, f->p->queued, &lat))
		return 0;
	return flight_on_done(f, io);
}

/* flight_stats - dumps by reason, failures, and what the ring holds now */
void flight_stats(const struct flight *f, struct flight_stats *st)
{
	uint64_t from = ring_first_ns(f->ring), to = 0;

	memcpy(st->dumps, f->by_reason, sizeof(st->dumps));
	st->failures = f->failures;
	st->ring_bytes = ring_bytes(f->ring) + rec_writer_pending(f->es->w);
	st->ring_ns = ring_held_ns(f->ring);
	/*
	 * What is being filled is held too: the chunk of records (at a few
	 * hundred events a second, for a second), the slab of sub-buffers.
	 */
	if (f->chunk_t1) {
		to = f->chunk_t1;
		from = from && from < f->chunk_t0 ? from : f->chunk_t0;
	}
	if (f->sb.t_first) {
		to = to > flight_newest(f) ? to : flight_newest(f);
		from = from && from < f->sb.t_first ? from : f->sb.t_first;
	}
	if (to && from && to - from > st->ring_ns)
		st->ring_ns = to - from;
}

/* flight_bytes - what the dumps written hold */
uint64_t flight_bytes(const struct flight *f)
{
	return f->bytes;
}

/*
 * flight_keep_subbufs - a live session's ftrace sub-buffers go into the ring
 * as read, when its events are theirs alone (no callchains joined to them or
 * written beside them) and the cap holds a few slabs; else each record is
 * written to the ring as delivered, as from other sources. Threads that
 * exit stay known for the ring's span, for the dumps' process of each event.
 */
static int flight_keep_subbufs(struct flight *f, struct session *s)
{
	int ret = -EOPNOTSUPP;

	if (!f->es->stacks && ring_bytes_per_chunk(f->ring, REC_CHUNK_HDR + REC_STREAM_CHUNK) * 4 <=
				      ring_cap(f->ring)) {
		subbufs_init(&f->sb, f->ring);
		ret = live_store_subbufs(s, &f->sb.ops, &f->live);
	}
	if (ret == -EOPNOTSUPP) {
		/* Each record goes to the ring as delivered: with its process. */
		s->opts.pids_unread = false;
		return 0;
	}
	if (ret)
		return ret;
	f->subbufs = true;
	if (f->live.tgids)
		tgidmap_linger(f->live.tgids, (f->p->ring + f->p->after) * NSEC_PER_SEC);
	return 0;
}

/* flight_start - -d resolved now that disks are known; the triggers watch requests; the writer */
int flight_start(struct flight *f, struct session *s, const struct snap_info *info,
		 void *consumer)
{
	bool bio;
	int ret;

	f->sess = s;
	f->info = info;
	if (f->p->disk) {
		ret = iotap_disk_resolve(&s->ctx, f->p->disk, &f->dev);
		if (ret) {
			log_msg(LOG_ERR, "unknown disk '%s'", f->p->disk);
			return -EINVAL;
		}
		f->trig_dev = true;
	}
	/* The program that serves pairs requests; md and dm disks complete bios only. */
	if (f->p->trigger && f->serve && f->trig_dev && blktrack_dev_bio_based(&s->ctx, f->dev)) {
		log_msg(LOG_ERR, "--trigger with -d %s: md and dm disks complete bios, which are not paired here; use iotap record --ring -d %s",
			f->p->disk, f->p->disk);
		return -EINVAL;
	}
	/* SIGUSR2 alone needs no pairing; a program that serves pairs for the triggers. */
	if (f->p->trigger && !f->serve) {
		/* md and dm disks complete bios, never requests: -d on one watches its bios. */
		bio = f->trig_dev && blktrack_dev_bio_based(&s->ctx, f->dev);
		ret = reqwatch_create(&f->watch, s, bio, flight_on_done, f);
		if (!ret && !f->watch) {
			log_msg(LOG_ERR, "--trigger needs %s recorded (see --tools)",
				bio ? "block_bio_queue and block_bio_complete" :
				"block_rq_issue and block_rq_complete");
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	ret = dumper_start(&f->dumper, f->wake_fd);
	if (ret) {
		log_msg(LOG_ERR, "cannot start the dump writer: %s", strerror(-ret));
		return ret;
	}
	ret = flight_keep_subbufs(f, s);
	/*
	 * Their events are in the ring, and nothing here pairs them: not one call
	 * each. With --cgroups the recorder looks at each for the births of
	 * children into a cgroup, whose /proc is read as they come (cgbirths.h).
	 */
	if (!ret && f->subbufs && !f->watch && !f->p->cgroups)
		ret = session_consumer_skip_ftrace(s, consumer);
	return ret;
}

/* flight_setup - --ring and what goes with it, checked: one error line each */
int flight_setup(struct flight **out, const struct record_params *p, struct evstream *es)
{
	uint64_t cap = RING_SIZE_DEFAULT;
	struct sigaction sa;
	struct flight *f;
	char why[256];

	*out = NULL;
	if (!p->ring) {
		if (p->ring_size || p->trigger || p->after || p->max_dumps || p->disk || p->queued) {
			log_msg(LOG_ERR, "--ring-size, --trigger, --after, --max-dumps, -d and -Q need --ring");
			return -EINVAL;
		}
		return 0;
	}
	if (p->switch_output) {
		log_msg(LOG_ERR, "--ring and --switch-output cannot be used together");
		return -EINVAL;
	}
	if (p->ring_size && (rotate_parse_size(p->ring_size, &cap) || cap < (1u << 20))) {
		log_msg(LOG_ERR, "bad --ring-size '%s': a size of at least 1M (K, M, G)", p->ring_size);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->p = p;
	f->es = es;
	if (p->trigger && trigger_parse(p->trigger, &f->trig, why, sizeof(why))) {
		log_msg(LOG_ERR, "bad --trigger: %s", why);
		free(f);
		return -EINVAL;
	}
	if (p->queued && !f->trig.latency_ns) {
		log_msg(LOG_ERR, "-Q needs --trigger latency>MS");
		free(f);
		return -EINVAL;
	}
	/* A chunk the writer ends as RING_CHUNK fills is at most a slab. */
	f->ring = ring_alloc((p->ring + p->after) * NSEC_PER_SEC, cap,
			     REC_CHUNK_HDR + REC_STREAM_CHUNK);
	es->w = f->ring ? rec_writer_create_sink_stored(flight_ring_chunk, f) : NULL;
	if (!es->w) {
		ring_free(f->ring);
		free(f);
		return -ENOMEM;
	}
	/* A SIGUSR2 an earlier flight recorder of this process did not take is not this one's. */
	flight_usr2 = 0;
	f->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	flight_usr2_fd = f->wake_fd;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = flight_on_usr2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, &f->old_usr2);
	*out = f;
	return 0;
}

/* flight_free - the writer stopped if it runs, the ring and its writer, SIGUSR2 as it was; accepts NULL */
void flight_free(struct flight *f)
{
	struct dump *rest;

	if (!f)
		return;
	dumper_stop(f->dumper, &rest);
	while (rest) {
		struct dump *d = rest;

		rest = d->next;
		dump_free(d);
	}
	sigaction(SIGUSR2, &f->old_usr2, NULL);
	flight_usr2_fd = -1;
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	rec_writer_free(f->es->w);
	f->es->w = NULL;
	reqwatch_free(f->watch);
	ring_free(f->ring);
	rec_buf_release(&f->inc.why);
	free(f);
}
