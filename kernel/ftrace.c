// SPDX-License-Identifier: GPL-2.0-or-later
/* ftrace.c - a private tracefs instance's ring buffer, read as perf-shaped samples */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ftrace.h"
#include "log.h"
#include "merge.h"
#include "sample.h"
#include "subbuf.h"
#include "tfs.h"

#define FTRACE_PREFIX "iotap_"

struct ftrace_event {
	char *sys, *name;
	int tp_id;
	char *filter;
	bool early;		/* traces from ftrace_ring_track on, before the others */
};

/* Full sub-buffers read from one CPU a round when the buffer's size is not known: 4 MiB. */
#define FTRACE_ROUND_SUBBUFS 1024

struct ftrace_cpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	int stats_fd;			/* its per_cpu stats, read again at offset 0 */
	struct ftrace_stats st;
	uint64_t t_read;		/* the newest event time read from it */
	bool behind;			/* the last round left full sub-buffers unread */
};

struct ftrace_ring {
	char name[32];
	struct tracefs_instance *inst;
	bool created;
	struct ftrace_event *ev;
	size_t nr_ev;
	struct ftrace_cpu *cpu;
	int nr_cpus;
	struct subbuf_decoder *dec;	/* of the instance's header_page */
	void *page;			/* one sub-buffer */
	int subbuf_size;
	size_t round_subbufs;		/* read from a CPU per round at most: its buffer's */
	struct ftrace_store store;	/* where sub-buffers are read into, when set */
	bool all_enabled;		/* ftrace_ring_enable enabled the events that are not early */
};

/*
 * ftrace_instance_destroy - remove the instance; its rmdir can be refused for a
 * moment after the last reader closed (EBUSY, seen on 6.12 and 6.1 under qemu):
 * tried again for up to a second, then said, and the next run removes it
 */
static void ftrace_instance_destroy(struct ftrace_ring *fr)
{
	for (int i = 0; i < 50; i++) {
		errno = 0;
		if (!tracefs_instance_destroy(fr->inst) || !tracefs_instance_exists(fr->name))
			return;
		if (errno != EBUSY && errno != EAGAIN)
			break;
		usleep(20000);
	}
	log_msg(LOG_WARN, "cannot remove the tracefs instance %s: %s (the next iotap removes it)",
		fr->name, strerror(errno ? errno : EBUSY));
}

/* ftrace_ring_alloc - an empty ring: no instance until ftrace_ring_open */
struct ftrace_ring *ftrace_ring_alloc(void)
{
	struct ftrace_ring *fr = calloc(1, sizeof(*fr));

	if (!fr)
		return NULL;
	snprintf(fr->name, sizeof(fr->name), FTRACE_PREFIX "%d", (int)getpid());
	return fr;
}

/* ftrace_ring_free - close the readers, remove the instance from the kernel, free; accepts NULL */
void ftrace_ring_free(struct ftrace_ring *fr)
{
	if (!fr)
		return;
	/* Open files keep the instance: closed before it goes. */
	for (int i = 0; i < fr->nr_cpus; i++) {
		if (fr->cpu[i].tcpu)
			tracefs_cpu_close(fr->cpu[i].tcpu);
		if (fr->cpu[i].stats_fd >= 0)
			close(fr->cpu[i].stats_fd);
	}
	free(fr->cpu);
	if (fr->inst) {
		/* rmdir disables the instance's events and frees its buffer. */
		if (fr->created) {
			tracefs_instance_file_write(fr->inst, "tracing_on", "0");
			ftrace_instance_destroy(fr);
		}
		tracefs_instance_free(fr->inst);
	}
	for (size_t i = 0; i < fr->nr_ev; i++) {
		free(fr->ev[i].sys);
		free(fr->ev[i].name);
		free(fr->ev[i].filter);
	}
	free(fr->ev);
	subbuf_decoder_free(fr->dec);
	free(fr->page);
	free(fr);
}

/* ftrace_event_add - declare a tracepoint of the instance; early: traced from ftrace_ring_track */
static int ftrace_event_add(struct ftrace_ring *fr, const char *sys, const char *name, int tp_id,
			    const char *filter, bool early)
{
	struct ftrace_event *arr, *ev;

	if (fr->inst)
		return -EBUSY;
	arr = realloc(fr->ev, (fr->nr_ev + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	fr->ev = arr;
	ev = &fr->ev[fr->nr_ev];
	memset(ev, 0, sizeof(*ev));
	ev->sys = strdup(sys);
	ev->name = strdup(name);
	ev->filter = filter ? strdup(filter) : NULL;
	ev->tp_id = tp_id;
	ev->early = early;
	if (!ev->sys || !ev->name || (filter && !ev->filter) ||
	    (fr->dec && subbuf_decoder_add(fr->dec, tp_id))) {
		free(ev->sys);
		free(ev->name);
		free(ev->filter);
		return -ENOMEM;
	}
	fr->nr_ev++;
	return 0;
}

/* ftrace_ring_add - declare a tracepoint to enable in the instance, with an optional filter */
int ftrace_ring_add(struct ftrace_ring *fr, const char *sys, const char *name, int tp_id,
		    const char *filter)
{
	return ftrace_event_add(fr, sys, name, tp_id, filter, false);
}

/* ftrace_ring_add_early - declare a tracepoint traced from ftrace_ring_track on (ftrace.h) */
int ftrace_ring_add_early(struct ftrace_ring *fr, const char *sys, const char *name, int tp_id)
{
	return ftrace_event_add(fr, sys, name, tp_id, NULL, true);
}

/* ftrace_ring_set_header_page - the sub-buffer layout to decode with (events/header_page text) */
int ftrace_ring_set_header_page(struct ftrace_ring *fr, const char *text, size_t len)
{
	if (fr->dec)
		return -EBUSY;
	fr->dec = subbuf_decoder_new(text, len);
	if (!fr->dec)
		return -errno;
	for (size_t i = 0; i < fr->nr_ev; i++)
		if (subbuf_decoder_add(fr->dec, fr->ev[i].tp_id))
			return -ENOMEM;
	fr->subbuf_size = (int)subbuf_size(fr->dec);
	fr->round_subbufs = FTRACE_ROUND_SUBBUFS;
	fr->page = malloc(fr->subbuf_size);
	return fr->page ? 0 : -ENOMEM;
}

/* ftrace_ring_decoder - the decoder of the instance's sub-buffers, NULL before its header page */
const struct subbuf_decoder *ftrace_ring_decoder(const struct ftrace_ring *fr)
{
	return fr->dec;
}

/* ftrace_ring_set_store - read sub-buffers into the store's room from now on (ftrace.h) */
void ftrace_ring_set_store(struct ftrace_ring *fr, const struct ftrace_store *store)
{
	fr->store = store ? *store : (struct ftrace_store){ 0 };
}

/* ftrace_write - write a control file of the instance, -errno on refusal */
static int ftrace_write(struct ftrace_ring *fr, const char *file, const char *val)
{
	errno = 0;
	if (tracefs_instance_file_write(fr->inst, file, val) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* ftrace_cpu_file - open one of c's per_cpu files: the fd, or -errno */
static int ftrace_cpu_file(struct ftrace_ring *fr, struct ftrace_cpu *c, const char *file,
			   int flags)
{
	char rel[64], *path;
	int fd;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/%s", c->cpu, file);
	path = tracefs_instance_get_file(fr->inst, rel);
	if (!path)
		return -ENOMEM;
	fd = open(path, flags | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	return fd < 0 ? -errno : fd;
}

/*
 * ftrace_cpu_open - a non-blocking reader of one CPU's trace_pipe_raw, and its
 * stats kept open: the flight recorder reads them four times a second, and
 * opening them by path each time cost five times the read
 */
static int ftrace_cpu_open(struct ftrace_ring *fr, struct ftrace_cpu *c)
{
	int fd = ftrace_cpu_file(fr, c, "stats", O_RDONLY);

	if (fd < 0)
		return fd;
	c->stats_fd = fd;
	fd = ftrace_cpu_file(fr, c, "trace_pipe_raw", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	c->fd = fd;
	c->tcpu = tracefs_cpu_alloc_fd(c->fd, fr->subbuf_size, true);
	if (!c->tcpu) {
		close(c->fd);
		c->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

/* ftrace_has_early - whether an event traces before the others */
static bool ftrace_has_early(const struct ftrace_ring *fr)
{
	for (size_t i = 0; i < fr->nr_ev; i++)
		if (fr->ev[i].early)
			return true;
	return false;
}

/*
 * ftrace_events_enable - write the filters and enable the events of one kind:
 * the early ones, or the others; 0 or -errno with a LOG_ERR line
 */
static int ftrace_events_enable(struct ftrace_ring *fr, bool early)
{
	char rel[512];
	int ret;

	for (size_t i = 0; i < fr->nr_ev; i++) {
		const struct ftrace_event *ev = &fr->ev[i];

		if (ev->early != early)
			continue;
		if (ev->filter) {
			snprintf(rel, sizeof(rel), "events/%s/%s/filter", ev->sys, ev->name);
			ret = ftrace_write(fr, rel, ev->filter);
			if (ret) {
				log_msg(LOG_ERR, "filter '%s' refused by %s:%s: %s", ev->filter,
					ev->sys, ev->name, strerror(-ret));
				return ret;
			}
		}
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", ev->sys, ev->name);
		ret = ftrace_write(fr, rel, "1");
		if (ret) {
			log_msg(LOG_ERR, "cannot enable %s:%s in tracefs instance %s: %s",
				ev->sys, ev->name, fr->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * Sub-buffers of 16 KiB where the kernel lets an instance choose (6.8+,
 * buffer_subbuf_size_kb), in a buffer of at least 32 of them: a quarter of
 * the reads, page swaps and wake-ups per event of 4 KiB ones, for 6% of
 * biolatency's own CPU (bench/README). Older kernels keep their page; the
 * header_page read after this says which it is.
 */
#define FTRACE_SUBBUF_KB 16
#define FTRACE_SUBBUF_MIN 32

static void ftrace_subbuf_grow(struct ftrace_ring *fr, size_t buffer_kb)
{
	char kb[16];

	if (!buffer_kb || buffer_kb < FTRACE_SUBBUF_KB * FTRACE_SUBBUF_MIN ||
	    !tracefs_file_exists(fr->inst, "buffer_subbuf_size_kb"))
		return;
	snprintf(kb, sizeof(kb), "%d", FTRACE_SUBBUF_KB);
	ftrace_write(fr, "buffer_subbuf_size_kb", kb);
}

/*
 * ftrace_ring_open - create the instance, configure it, enable the events, open the readers
 *
 * Tracing stays off in the instance until ftrace_ring_enable(). On failure
 * -errno, and a LOG_ERR line through the log hook says what was refused
 * (nothing for -ENOMEM); ftrace_ring_free() removes what was created.
 */
int ftrace_ring_open(struct ftrace_ring *fr, const int *cpus, int nr_cpus, size_t buffer_kb)
{
	char *hp;
	int len, ret;

	ret = tfs_libtracefs_sync();
	if (ret) {
		log_msg(LOG_ERR, "cannot find tracefs: %s", strerror(-ret));
		return ret;
	}
	/* Our own pid's name left by a killed run whose pid we reuse: it is dead, take it over. */
	if (tracefs_instance_exists(fr->name)) {
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, fr->name);

		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	errno = 0;
	fr->inst = tracefs_instance_create(fr->name);
	if (!fr->inst) {
		ret = errno ? -errno : -ENOMEM;
		log_msg(LOG_ERR, "cannot create the tracefs instance %s: %s", fr->name,
			strerror(-ret));
		return ret;
	}
	fr->created = true;
	ret = ftrace_write(fr, "tracing_on", "0");
	if (!ret)
		ret = ftrace_write(fr, "trace_clock", "mono");
	if (ret) {
		log_msg(LOG_ERR, "cannot set the clock of tracefs instance %s to mono: %s",
			fr->name, strerror(-ret));
		return ret;
	}
	/* Drop new events when full, as perf does, and count them: never overwrite what is unread. */
	tracefs_option_disable(fr->inst, TRACEFS_OPTION_OVERWRITE);
	if (buffer_kb && tracefs_instance_set_buffer_size(fr->inst, buffer_kb, -1) < 0) {
		ret = errno ? -errno : -ENOMEM;
		log_msg(LOG_ERR, "cannot size the ftrace buffer to %zu KiB per CPU: %s",
			buffer_kb, strerror(-ret));
		return ret;
	}
	/* Wake the reader at a quarter full, like the perf rings' watermark (4.20+). */
	ftrace_write(fr, "buffer_percent", "25");
	ftrace_subbuf_grow(fr, buffer_kb);
	hp = tracefs_instance_file_read(fr->inst, "events/header_page", &len);
	if (!hp)
		hp = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!hp) {
		log_msg(LOG_ERR, "cannot read events/header_page of instance %s", fr->name);
		return -ENOENT;
	}
	ret = ftrace_ring_set_header_page(fr, hp, len);
	free(hp);
	if (ret) {
		log_msg(LOG_ERR, "cannot parse the ftrace sub-buffer header: %s", strerror(-ret));
		return ret;
	}
	if (buffer_kb && buffer_kb * 1024 / (size_t)fr->subbuf_size > 0)
		fr->round_subbufs = buffer_kb * 1024 / (size_t)fr->subbuf_size;
	/*
	 * With early events, only they trace at first (ftrace_ring_track); the
	 * others all at once otherwise, when tracing_on turns 1.
	 */
	ret = ftrace_events_enable(fr, true);
	if (!ret && !ftrace_has_early(fr)) {
		ret = ftrace_events_enable(fr, false);
		fr->all_enabled = true;
	}
	if (ret)
		return ret;
	fr->cpu = calloc(nr_cpus, sizeof(*fr->cpu));
	if (!fr->cpu)
		return -ENOMEM;
	for (int i = 0; i < nr_cpus; i++) {
		fr->cpu[i].cpu = cpus[i];
		fr->cpu[i].fd = -1;
		fr->cpu[i].stats_fd = -1;
	}
	fr->nr_cpus = nr_cpus;
	for (int i = 0; i < nr_cpus; i++) {
		ret = ftrace_cpu_open(fr, &fr->cpu[i]);
		if (ret) {
			log_msg(LOG_ERR, "cannot open the ftrace buffer of CPU %d: %s", cpus[i],
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* ftrace_ring_enable - start recording in the instance */
int ftrace_ring_enable(struct ftrace_ring *fr)
{
	int ret;

	/* Never the top instance's tracing_on: without an instance there is nothing to start. */
	if (!fr->inst)
		return -EINVAL;
	if (!fr->all_enabled) {
		ret = ftrace_events_enable(fr, false);
		if (ret)
			return ret;
		fr->all_enabled = true;
	}
	return ftrace_write(fr, "tracing_on", "1");
}

/* ftrace_ring_track - start recording the early events alone (ftrace.h) */
int ftrace_ring_track(struct ftrace_ring *fr)
{
	if (!fr->inst)
		return -EINVAL;
	return ftrace_has_early(fr) ? ftrace_write(fr, "tracing_on", "1") : 0;
}

/* ftrace_ring_disable - stop recording; what is in the buffers can still be read */
int ftrace_ring_disable(struct ftrace_ring *fr)
{
	return fr->inst ? ftrace_write(fr, "tracing_on", "0") : 0;
}

/*
 * ftrace_ring_check - whether the instance still traces all it was set up to
 *
 * Another root process can turn the instance's tracing_on off or disable one
 * of its events (a reset script, trace-cmd reset -a): the buffers then fall
 * silent and every count would come out short with nothing said. 0 while
 * intact (or before ftrace_ring_open); -ECANCELED with one LOG_ERR line
 * naming what changed otherwise.
 */
int ftrace_ring_check(struct ftrace_ring *fr)
{
	char rel[512], *text;
	int len;

	if (!fr->inst)
		return 0;
	text = tracefs_instance_file_read(fr->inst, "tracing_on", &len);
	if (!text) {
		log_msg(LOG_ERR, "tracefs instance %s was removed by another process: stopping",
			fr->name);
		return -ECANCELED;
	}
	if (text[0] != '1') {
		free(text);
		log_msg(LOG_ERR, "another process turned tracing off in tracefs instance %s: stopping, the counts would be short",
			fr->name);
		return -ECANCELED;
	}
	free(text);
	for (size_t i = 0; i < fr->nr_ev; i++) {
		if (!fr->ev[i].early && !fr->all_enabled)
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", fr->ev[i].sys, fr->ev[i].name);
		text = tracefs_instance_file_read(fr->inst, rel, &len);
		/* "1" traces, "1*" too (soft mode, not soft-disabled); "0" and "0*" do not. */
		if (!text || text[0] != '1') {
			free(text);
			log_msg(LOG_ERR, "another process disabled %s:%s in tracefs instance %s: stopping, the counts would be short",
				fr->ev[i].sys, fr->ev[i].name, fr->name);
			return -ECANCELED;
		}
		free(text);
	}
	return 0;
}

/* ftrace_read_errno - a read's result: bytes, 0 for nothing now, or -errno */
static int ftrace_read_errno(int n)
{
	if (n >= 0)
		return n;
	return errno == EAGAIN || errno == EINTR || errno == 0 ? 0 : -errno;
}

/*
 * How one drain hands its events on: to fn as perf samples, or queued in
 * the merge m where they lie, read into its own room (into).
 */
struct ftrace_sink {
	ftrace_record_fn fn;
	void *arg;
	struct merge *m;
};

/* One sub-buffer's events queued in the merge where they lie. */
struct ftrace_queued {
	struct merge *m;
	const char *buf;
	uint32_t tag;
	size_t end;		/* past the last event queued */
};

/* ftrace_queue_entry - an event of the sub-buffer into the merge, copied nowhere */
static int ftrace_queue_entry(void *arg, uint64_t time, const void *entry, uint32_t size)
{
	struct ftrace_queued *q = arg;

	q->end = (size_t)((const char *)entry - q->buf) + size;
	return merge_push_at(q->m, time, entry, size, q->tag);
}

/*
 * ftrace_cpu_room - where c's next sub-buffer is read: the store's room, the
 * merge's, or the ring's page; NULL (ENOMEM) when the merge has no room
 */
static void *ftrace_cpu_room(struct ftrace_ring *fr, struct ftrace_cpu *c,
			     const struct ftrace_sink *k)
{
	void *room;

	if (fr->store.room) {
		room = fr->store.room(fr->store.arg, c->cpu, fr->subbuf_size);
		return room ? room : fr->page;
	}
	return k->m ? merge_take(k->m, fr->subbuf_size) : fr->page;
}

/*
 * ftrace_cpu_decode - decode the sub-buffer just read from c into buf (n
 * bytes, 0: nothing was read); a store keeps what of it decoding again needs,
 * the merge the bytes of the events queued in its room
 */
static int ftrace_cpu_decode(struct ftrace_ring *fr, struct ftrace_cpu *c, void *buf, int n,
			     const struct ftrace_sink *k)
{
	struct ftrace_queued q = { k->m, buf, ftrace_entry_tag(c->cpu), 0 };
	bool in_merge = k->m && buf != fr->page && !fr->store.room;
	struct subbuf_span span;
	int ret;

	if (n <= 0) {
		if (in_merge)
			merge_give_back(k->m, buf, 0);
		return 0;
	}
	if (in_merge) {
		ret = subbuf_entries(fr->dec, buf, &c->st, &span, ftrace_queue_entry, &q);
		merge_give_back(k->m, buf, q.end);
	} else {
		ret = subbuf_decode(fr->dec, c->cpu, buf, &c->st, &span, k->fn, k->arg);
	}
	if (span.last > c->t_read)
		c->t_read = span.last;
	if (!ret && buf != fr->page && !in_merge && fr->store.keep && span.last)
		ret = fr->store.keep(fr->store.arg, c->cpu, buf, subbuf_used(fr->dec, buf), &span);
	return ret;
}

enum ftrace_how {
	FTRACE_SPLICE,		/* a full sub-buffer through the splice pipe */
	FTRACE_READ,		/* read(2): the sub-buffer the kernel is writing too */
	FTRACE_FLUSH,		/* after disabling: whatever is left */
};

/*
 * ftrace_cpu_read_one - read one sub-buffer of c and decode it: *n gets the
 * read's bytes (0: nothing there now, or -errno); returns the decode's result
 */
static int ftrace_cpu_read_one(struct ftrace_ring *fr, struct ftrace_cpu *c, enum ftrace_how how,
			       const struct ftrace_sink *k, int *n)
{
	void *buf = ftrace_cpu_room(fr, c, k);

	if (!buf) {
		*n = -ENOMEM;
		return 0;
	}
	switch (how) {
	case FTRACE_SPLICE:
		*n = tracefs_cpu_buffered_read(c->tcpu, buf, true);
		break;
	case FTRACE_READ:
		*n = tracefs_cpu_read(c->tcpu, buf, true);
		break;
	default:
		*n = tracefs_cpu_flush(c->tcpu, buf);
		break;
	}
	*n = ftrace_read_errno(*n);
	return ftrace_cpu_decode(fr, c, buf, *n, k);
}

/*
 * ftrace_cpu_drain - decode what one CPU's buffer holds, its partly written
 * sub-buffer too; at most a buffer's worth of full sub-buffers a round, or a
 * reader slower than the kernel writes would never end its round, and the
 * merge would hold all it read meanwhile (the rest is left for the next
 * round: ftrace_ring_horizon)
 */
static int ftrace_cpu_drain(struct ftrace_ring *fr, struct ftrace_cpu *c, bool flush,
			    const struct ftrace_sink *k)
{
	size_t nr = 0;
	int n = 0, ret = 0;

	c->behind = false;
	/* Full sub-buffers through the splice pipe: no copy while the kernel fills the next. */
	while (!flush) {
		ret = ftrace_cpu_read_one(fr, c, FTRACE_SPLICE, k, &n);
		if (ret || n <= 0)
			break;
		if (++nr >= fr->round_subbufs) {
			c->behind = true;
			return 0;
		}
	}
	if (ret || n < 0)
		return ret ? ret : n;
	/*
	 * Then read(2), which also takes the sub-buffer the kernel is writing: an
	 * idle CPU's last events must not wait for a full page, or the merge would
	 * see them after newer ones, and the end of a run would lose them. Once a
	 * round, until the flush: what was written since is newer than all this
	 * round read, so the next round takes it in order; and a reader that
	 * chased it would never stop where another tracer of syscalls sees its
	 * reads (iotap fileio beside iotap record): each read(2) writes the events
	 * the other reads, whose read(2) writes the events this one reads.
	 */
	do {
		ret = ftrace_cpu_read_one(fr, c, flush ? FTRACE_FLUSH : FTRACE_READ, k, &n);
	} while (!ret && n > 0 && flush);
	return ret ? ret : (n < 0 ? n : 0);
}

/* ftrace_ring_drain - every CPU's buffer once, through sink k */
static int ftrace_ring_drain(struct ftrace_ring *fr, bool flush, const struct ftrace_sink *k)
{
	for (int i = 0; i < fr->nr_cpus; i++) {
		int ret = ftrace_cpu_drain(fr, &fr->cpu[i], flush, k);

		if (ret)
			return ret;
	}
	return 0;
}

/* ftrace_ring_read - drain every CPU's buffer once; flush at the end, after disabling */
int ftrace_ring_read(struct ftrace_ring *fr, bool flush, ftrace_record_fn fn, void *arg)
{
	struct ftrace_sink k = { .fn = fn, .arg = arg };

	return ftrace_ring_drain(fr, flush, &k);
}

/* ftrace_ring_read_into - drain every CPU's buffer once, each event queued in m where it lies */
int ftrace_ring_read_into(struct ftrace_ring *fr, bool flush, struct merge *m)
{
	struct ftrace_sink k = { .m = m };

	return ftrace_ring_drain(fr, flush, &k);
}

/* ftrace_ring_horizon - every record not newer than this has been read: the oldest CPU left behind */
uint64_t ftrace_ring_horizon(const struct ftrace_ring *fr)
{
	uint64_t h = UINT64_MAX;

	for (int i = 0; i < fr->nr_cpus; i++)
		if (fr->cpu[i].behind && fr->cpu[i].t_read < h)
			h = fr->cpu[i].t_read;
	return h;
}

/* ftrace_ring_fd - CPU i's trace_pipe_raw, to poll (readable at buffer_percent) */
int ftrace_ring_fd(const struct ftrace_ring *fr, int i)
{
	return i < fr->nr_cpus ? fr->cpu[i].fd : -1;
}

/* ftrace_stat_field - the number after "key: " at a line start of a stats text */
static bool ftrace_stat_field(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, key, klen) && l[klen] == ':') {
			*v = strtoull(l + klen + 1, NULL, 10);
			return true;
		}
	}
	return false;
}

/* ftrace_ring_unread_cpu - see ftrace.h */
int ftrace_ring_unread_cpu(struct ftrace_ring *fr, int cpu, uint64_t *n)
{
	uint64_t entries = 0, overrun = 0, dropped = 0;
	char rel[64], *text;
	int len;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	if (!fr->inst || !tracefs_file_exists(fr->inst, rel))
		return -ENOENT;
	text = tracefs_instance_file_read(fr->inst, rel, &len);
	if (!text)
		return -EIO;
	ftrace_stat_field(text, "entries", &entries);
	ftrace_stat_field(text, "overrun", &overrun);
	ftrace_stat_field(text, "dropped events", &dropped);
	free(text);
	*n = entries + overrun + dropped;
	return 0;
}

/*
 * ftrace_ring_stats_update - read each CPU's overrun and dropped-event
 * counters (the kernel writes the whole text at every read from offset 0)
 */
int ftrace_ring_stats_update(struct ftrace_ring *fr)
{
	int ret = 0;

	for (int i = 0; i < fr->nr_cpus; i++) {
		struct ftrace_cpu *c = &fr->cpu[i];
		char text[1024];
		ssize_t n = c->stats_fd < 0 ? -1 : pread(c->stats_fd, text, sizeof(text) - 1, 0);

		if (n <= 0) {
			ret = -EIO;
			continue;
		}
		text[n] = '\0';
		ftrace_stat_field(text, "overrun", &c->st.overrun);
		ftrace_stat_field(text, "dropped events", &c->st.dropped);
	}
	return ret;
}

/* ftrace_ring_stats - what CPU i's buffer delivered and lost */
const struct ftrace_stats *ftrace_ring_stats(const struct ftrace_ring *fr, int i)
{
	return i < fr->nr_cpus ? &fr->cpu[i].st : NULL;
}

/* ftrace_stats_lost - events one CPU's buffer lost: overwritten or dropped */
uint64_t ftrace_stats_lost(const struct ftrace_stats *st)
{
	uint64_t counters = st->overrun + st->dropped;

	/*
	 * The counters are the kernel's totals. A sub-buffer flagged as following
	 * lost events tells of the same losses (one each when the kernel had no
	 * room to store how many): they only matter when the counters are unread.
	 */
	return counters > st->missed ? counters : st->missed;
}

/* ftrace_instance_remove_stale - remove iotap_<pid> instances whose run is dead; how many */
int ftrace_instance_remove_stale(void)
{
	char **names;
	int removed = 0, ret;

	ret = tfs_libtracefs_sync();
	if (ret)
		return ret;
	/* Every instance, matched here: libtracefs 1.6 never frees the regex it is given. */
	names = tracefs_instances(NULL);
	if (!names)
		return 0;
	for (size_t i = 0; names[i]; i++) {
		const char *digits = names[i] + strlen(FTRACE_PREFIX);
		struct tracefs_instance *inst;
		char *end;
		long pid;

		if (strncmp(names[i], FTRACE_PREFIX, strlen(FTRACE_PREFIX)) || *digits < '0' ||
		    *digits > '9')
			continue;
		pid = strtol(digits, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst)
			continue;
		if (tracefs_instance_destroy(inst) == 0)
			removed++;
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	return removed;
}
