// SPDX-License-Identifier: GPL-2.0-or-later
/* dump.c - the flight recorder's dumps, written off the event loop by a thread */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "replay.h"
#include "sample.h"
#include "sections.h"

struct dump_chunk {
	struct dump_chunk *next;
	size_t len;
	uint8_t data[];
};

struct dumper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the writer's: a dump queued, or stop */
	pthread_cond_t room;		/* the loop's: a dump written */
	struct dump *todo, *done;	/* FIFOs by next */
	size_t writing;			/* queued or being written */
	size_t pending;			/* submitted, not given back */
	bool stop;
	int notify;			/* an eventfd told of each dump done; -1: none */
	/* The writer's own: for the chunks at a window's edges. */
	struct rec_inflater *z;
	uint8_t *raw;
	uint8_t *rec;			/* a replayed record the map fills in */
};

/* dump_alloc - an empty dump to be written to path */
struct dump *dump_alloc(const char *path)
{
	struct dump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

/* dump_chunks_free - a list of chunks */
static void dump_chunks_free(struct dump_chunk *c)
{
	while (c) {
		struct dump_chunk *next = c->next;

		free(c);
		c = next;
	}
}

/* dump_free - chunks, the ring's held chunks, the dump; accepts NULL */
void dump_free(struct dump *d)
{
	if (!d)
		return;
	dump_chunks_free(d->head);
	dump_chunks_free(d->names);
	ring_release(d->held, d->nr_held);
	subbuf_decoder_free(d->dec);
	tgidmap_free(d->tgids);
	rec_writer_free(d->w);
	free(d->path);
	free(d);
}

/* dump_sink - a chunk made on the loop, appended to head or names */
int dump_sink(void *arg, const void *chunk, size_t len)
{
	struct dump *d = arg;
	struct dump_chunk **tail = d->to_names ? &d->names : &d->head;
	struct dump_chunk *c = malloc(sizeof(*c) + len);

	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->len = len;
	memcpy(c->data, chunk, len);
	while (*tail)
		tail = &(*tail)->next;
	*tail = c;
	return 0;
}

/* dump_put_chunks - chunks made on the loop, as they are */
static int dump_put_chunks(struct rec_writer *w, const struct dump_chunk *c)
{
	int ret = 0;

	for (; c && !ret; c = c->next)
		ret = rec_writer_put_chunk(w, c->data, c->len);
	return ret;
}

/*
 * dump_trim - a chunk that reaches out of the window: only its records
 * within it (and those without a time: callchains, side-band)
 */
static int dump_trim(struct dumper *dp, struct rec_writer *w, const struct dump *d,
		     const uint8_t *chunk, size_t len)
{
	const struct perf_event_header *h;
	struct rec_packed pk;
	char why[64];
	size_t pos = 0;
	int ret;

	if (!dp->z && !(dp->z = rec_inflater_new()))
		return -ENOMEM;
	if (!dp->raw && !(dp->raw = malloc(REC_CHUNK_MAX + 1)))
		return -ENOMEM;
	ret = rec_chunk_unpack(chunk, len, &pk);
	if (!ret)
		ret = rec_inflate(dp->z, &pk, dp->raw);
	while (!ret) {
		uint64_t t;

		ret = rec_sec_evts_record(dp->raw, pk.raw_len, pos, &h, why, sizeof(why));
		if (ret <= 0)
			break;
		pos += h->size;
		ret = 0;
		if (h->type != REC_RECORD_STACK && !perf_record_time(h, &t) &&
		    (t < d->from || t > d->to))
			continue;
		ret = rec_writer_stream(w, REC_SEC_EVTS, h, h->size);
	}
	return ret ? ret : rec_writer_flush(w);
}

/* dump_record - a replayed record into the file's stream */
static int dump_record(void *w, const struct perf_event_header *h)
{
	return rec_writer_stream(w, REC_SEC_EVTS, h, h->size);
}

/* dump_replay - the window's records made again from its chunks and sub-buffers (replay.h) */
static int dump_replay(struct dumper *dp, struct rec_writer *w, struct dump *d)
{
	struct replay rp = { .dec = d->dec, .tgids = d->tgids };
	int ret;

	if (!dp->z && !(dp->z = rec_inflater_new()))
		return -ENOMEM;
	if (!dp->raw && !(dp->raw = malloc(REC_CHUNK_MAX + 1)))
		return -ENOMEM;
	if (!dp->rec && !(dp->rec = malloc(PERF_RECORD_MAX)))
		return -ENOMEM;
	rp.z = dp->z;
	rp.raw = dp->raw;
	rp.rec = dp->rec;
	ret = replay_window(&rp, d->held, d->nr_held, d->from, d->to, dump_record, w);
	return ret ? ret : rec_writer_flush(w);
}

/* dump_put_window - the ring's chunks of the window, then they are let go */
static int dump_put_window(struct dumper *dp, struct rec_writer *w, struct dump *d)
{
	int ret = 0;

	/* Sub-buffers kept: every record is made again, in order; else the chunks as they are. */
	if (d->dec)
		ret = dump_replay(dp, w, d);
	else
		for (size_t i = 0; i < d->nr_held && !ret; i++) {
			const struct ring_held *h = &d->held[i];

			if (h->t_first < d->from || h->t_last > d->to)
				ret = dump_trim(dp, w, d, h->data, h->len);
			else
				ret = rec_writer_put_chunk(w, h->data, h->len);
		}
	ring_release(d->held, d->nr_held);
	d->held = NULL;
	d->nr_held = 0;
	return ret;
}

/* dump_unlink - remove a dump that failed, if it is a file we made */
static void dump_unlink(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* dump_finish_part - a part of a recording in parts: its STAT, END, fsync; a failed one stays */
static int dump_finish_part(struct dump *d)
{
	int ret = snap_put_stat(d->w, d->t_end, d->records, d->samples);

	if (!ret)
		ret = rec_writer_close(d->w);
	d->bytes = rec_writer_bytes(d->w);
	rec_writer_free(d->w);
	d->w = NULL;
	return ret;
}

/*
 * dump_write - the file: the loop's head, kallsyms (-g), the loop's names,
 * /proc as of now, the window's records, STAT; 0 or -errno
 */
static int dump_write(struct dumper *dp, struct dump *d)
{
	struct rec_writer *w = rec_writer_create(d->path, d->force);
	int ret;

	if (!w)
		return -errno;
	ret = dump_put_chunks(w, d->head);
	if (!ret && d->info.p->callchains)
		ret = snap_put_kallsyms(w);
	if (!ret)
		ret = dump_put_chunks(w, d->names);
	if (!ret)
		ret = snap_put_procs(w, &d->info);
	if (!ret)
		ret = rec_writer_flush(w);
	if (!ret)
		ret = dump_put_window(dp, w, d);
	if (!ret)
		ret = snap_put_stat(w, d->t_end, 0, 0);
	if (!ret)
		ret = rec_writer_close(w);
	if (!ret)
		d->bytes = rec_writer_bytes(w);
	rec_writer_free(w);
	if (ret)
		dump_unlink(d->path);
	return ret;
}

/* dump_push - append d to a FIFO */
static void dump_push(struct dump **list, struct dump *d)
{
	d->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = d;
}

/* dump_pop - the oldest of a FIFO, or NULL */
static struct dump *dump_pop(struct dump **list)
{
	struct dump *d = *list;

	if (d)
		*list = d->next;
	return d;
}

/* dumper_main - the writer: each dump in turn, until stopped with none left */
static void *dumper_main(void *arg)
{
	struct dumper *dp = arg;
	const uint64_t one = 1;
	struct dump *d;

	pthread_mutex_lock(&dp->lock);
	for (;;) {
		while (!dp->todo && !dp->stop)
			pthread_cond_wait(&dp->wake, &dp->lock);
		d = dump_pop(&dp->todo);
		if (!d)
			break;
		pthread_mutex_unlock(&dp->lock);
		d->err = d->w ? dump_finish_part(d) : dump_write(dp, d);
		pthread_mutex_lock(&dp->lock);
		dump_push(&dp->done, d);
		dp->writing--;
		pthread_cond_signal(&dp->room);
		if (dp->notify >= 0 && write(dp->notify, &one, sizeof(one)) < 0) {
			/* The counter full: the loop is woken already. */
		}
	}
	pthread_mutex_unlock(&dp->lock);
	return NULL;
}

/* dumper_start - the writer thread, which takes no signal */
int dumper_start(struct dumper **out, int notify)
{
	struct dumper *dp = calloc(1, sizeof(*dp));
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (!dp)
		return -ENOMEM;
	dp->notify = notify;
	pthread_mutex_init(&dp->lock, NULL);
	pthread_cond_init(&dp->wake, NULL);
	pthread_cond_init(&dp->room, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&dp->thread, NULL, dumper_main, dp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_cond_destroy(&dp->room);
		pthread_cond_destroy(&dp->wake);
		pthread_mutex_destroy(&dp->lock);
		free(dp);
		return ret;
	}
	*out = dp;
	return 0;
}

/* dumper_submit - queue d for the writer, unless (or until, with wait) DUMP_INFLIGHT are in flight */
int dumper_submit(struct dumper *dp, struct dump *d, bool wait)
{
	int ret = 0;

	pthread_mutex_lock(&dp->lock);
	while (wait && dp->writing >= DUMP_INFLIGHT)
		pthread_cond_wait(&dp->room, &dp->lock);
	if (dp->writing >= DUMP_INFLIGHT) {
		ret = -EBUSY;
	} else {
		dump_push(&dp->todo, d);
		dp->writing++;
		dp->pending++;
		pthread_cond_signal(&dp->wake);
	}
	pthread_mutex_unlock(&dp->lock);
	return ret;
}

/* dumper_done - the oldest dump the writer is through with, or NULL */
struct dump *dumper_done(struct dumper *dp)
{
	struct dump *d;

	pthread_mutex_lock(&dp->lock);
	d = dump_pop(&dp->done);
	dp->pending -= d != NULL;
	pthread_mutex_unlock(&dp->lock);
	return d;
}

/* dumper_pending - submitted and not given back */
size_t dumper_pending(struct dumper *dp)
{
	size_t n;

	pthread_mutex_lock(&dp->lock);
	n = dp->pending;
	pthread_mutex_unlock(&dp->lock);
	return n;
}

/* dumper_stop - write what is queued, join the writer, free; the rest to *rest */
void dumper_stop(struct dumper *dp, struct dump **rest)
{
	*rest = NULL;
	if (!dp)
		return;
	pthread_mutex_lock(&dp->lock);
	dp->stop = true;
	pthread_cond_signal(&dp->wake);
	pthread_mutex_unlock(&dp->lock);
	pthread_join(dp->thread, NULL);
	*rest = dp->done;
	pthread_cond_destroy(&dp->room);
	pthread_cond_destroy(&dp->wake);
	pthread_mutex_destroy(&dp->lock);
	rec_inflater_free(dp->z);
	free(dp->raw);
	free(dp->rec);
	free(dp);
}
