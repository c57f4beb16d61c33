// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringread.c - what reading a tracefs instance's ring buffer costs its reader
 * per event, read one of three ways while a command (the workload) runs:
 *
 *   splice        each full sub-buffer spliced to a pipe and read from it into a
 *                 round buffer, the one the kernel is still writing read(2) once
 *                 a drain: what iotap does today
 *   mmap-copy     the ring mapped (6.10+); the new bytes of each reader
 *                 sub-buffer copied into the round buffer before the next
 *                 TRACE_MMAP_IOCTL_GET_READER, as a reader that keeps events past
 *                 the swap must (iotap's merge holds them across a round)
 *   mmap-inplace  the ring mapped, the events walked where they lie: the floor
 *
 * One thread polls every CPU's trace_pipe_raw (readable at the instance's
 * buffer_percent, 100 ms at most) and drains them all, as iotap does; every
 * mode walks each sub-buffer's events. When the command has exited the reader
 * takes what is left, and one line goes to stdout, tab-separated:
 *
 *   MODE SUBBUF_BYTES EVENTS KERNEL_EVENTS LOST_KERNEL LOST_READER CPU_NS DRAINS SUBBUFS CALLS CALL_NS
 *
 * KERNEL_EVENTS is what the instance wrote meanwhile (per_cpu/cpuN/stats:
 * entries + overrun + read events, after less before), LOST_KERNEL its
 * overrun and dropped events, LOST_READER what the sub-buffers (and, mapped,
 * the meta page's reader.lost_events) said was lost. CPU_NS is the reader
 * thread's own CPU (its schedstat) from before the command starts until all
 * is read; SUBBUFS the reads that brought events, CALLS the system calls on
 * the ring (splice, the pipe's read, read, ioctl; not poll), CALL_NS the time
 * inside them (the kernel's share of the reader's work).
 *
 * Usage: ringread-reader INSTANCE_DIR MODE -- COMMAND [ARG...]
 *        ringread-reader INSTANCE_DIR probe
 * probe exits 0 when the ring can be mapped here, and 3 with one line saying
 * why not otherwise (as a mapped mode does).
 */
/* Built alone too (cc -O2 -pthread): the build's config.h defines it already. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

/* The meta page of a mapped ring (Documentation/trace/ring-buffer-map.rst): no uapi header here. */
struct trace_buffer_meta {
	__u32 meta_page_size;
	__u32 meta_struct_len;
	__u32 subbuf_size;
	__u32 nr_subbufs;
	struct {
		__u64 lost_events;
		__u32 id;
		__u32 read;
	} reader;
	__u64 flags;
	__u64 entries;
	__u64 overrun;
	__u64 read;
	__u64 Reserved1;
	__u64 Reserved2;
};

#define TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)

/*
 * A sub-buffer: a u64 time stamp, an 8-byte commit (the bytes of events,
 * flags on top), the events. An event: a u32 of 5 bits type_len and 27 bits
 * time delta, then (type_len 0 and the types above 28) a u32 argument.
 */
#define SB_HDR 16
#define SB_COMMIT_MASK ((1u << 27) - 1)
#define SB_MISSED_EVENTS (1ull << 31)
#define SB_MISSED_STORED (1ull << 30)
#define EV_PADDING 29
#define EV_TIME_EXTEND 30
#define EV_TIME_STAMP 31
#define EV_TS_SHIFT 27

#define DRAIN_MS 100		/* iotap's drain timer */
#define EXIT_NO_MAP 3

enum mode { MODE_SPLICE, MODE_MMAP_COPY, MODE_MMAP_INPLACE, MODE_PROBE };

static const char *const mode_names[] = { "splice", "mmap-copy", "mmap-inplace", "probe" };

/* What the walks saw. */
struct walk {
	uint64_t events;	/* data events */
	uint64_t lost;		/* events the sub-buffers said were lost before them */
	uint64_t types;		/* the sum of their common_type: each event's first field read */
};

/* A CPU's per_cpu/cpuN/stats. */
struct kstats {
	uint64_t entries, overrun, dropped, read;
};

struct cpu {
	int cpu;
	int fd;				/* trace_pipe_raw, non-blocking */
	int stats_fd;
	int pipe[2];			/* splice's */
	const struct trace_buffer_meta *meta;
	size_t meta_len;
	const uint8_t *data;		/* the mapped sub-buffers, by id */
	size_t data_len;
	uint32_t id;			/* mapped: the reader sub-buffer walked last */
	uint32_t pos;			/* its bytes of events walked */
	uint64_t ts;			/* the time of its last event walked */
	struct kstats before, after;
};

struct reader {
	enum mode mode;
	struct cpu *cpu;
	int nr_cpus;
	uint32_t subbuf;		/* bytes of a sub-buffer */
	uint8_t *room;			/* the round buffer: what a drain reads is kept there */
	size_t room_len, room_used;
	int wake;			/* eventfd: the command has exited */
	int stop;
	struct walk w;
	uint64_t drains, subbufs, calls, cpu_ns;
	uint64_t call_ns;		/* time inside those calls */
	int err;
};

/* now_ns - CLOCK_MONOTONIC in ns (the vDSO's: no system call of its own) */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* walk_events - len bytes of events at ev, time ts on: 0, or -EINVAL for one past the end */
static int walk_events(const uint8_t *ev, uint32_t len, uint64_t *ts, struct walk *w)
{
	uint32_t off = 0;

	while (len - off >= 4) {
		uint32_t hdr, arg = 0, type, delta, payload;
		uint64_t size;
		uint16_t common_type;

		memcpy(&hdr, ev + off, 4);
		type = hdr & 31;
		delta = hdr >> 5;
		if (type == EV_PADDING && !delta)
			return 0;	/* the rest of the sub-buffer is empty */
		if (type == 0 || type >= EV_PADDING) {
			if (len - off < 8)
				return -EINVAL;
			memcpy(&arg, ev + off + 4, 4);
		}
		switch (type) {
		case EV_PADDING:	/* a discarded event */
			size = 4 + (uint64_t)arg;
			break;
		case EV_TIME_EXTEND:
			size = 8;
			*ts += ((uint64_t)arg << EV_TS_SHIFT) + delta;
			break;
		case EV_TIME_STAMP:
			size = 8;
			*ts = ((uint64_t)arg << EV_TS_SHIFT) | delta;
			break;
		default:
			size = type ? 4 + 4 * (uint64_t)type : 4 + (uint64_t)arg;
			payload = type ? 4 : 8;
			if (size > len - off || size < payload + sizeof(common_type))
				return -EINVAL;
			memcpy(&common_type, ev + off + payload, sizeof(common_type));
			w->types += common_type;
			w->events++;
			*ts += delta;
			break;
		}
		if (size > len - off)
			return -EINVAL;
		off += (uint32_t)size;
	}
	return 0;
}

/* note_missed - the events a sub-buffer of size bytes says were lost before it */
static void note_missed(const uint8_t *sb, uint64_t commit, uint32_t size, struct walk *w)
{
	uint32_t len = commit & SB_COMMIT_MASK;
	uint64_t n = 1;		/* some, not said how many */

	if (!(commit & SB_MISSED_EVENTS))
		return;
	if ((commit & SB_MISSED_STORED) && SB_HDR + len + sizeof(n) <= size)
		memcpy(&n, sb + SB_HDR + len, sizeof(n));
	w->lost += n;
}

/* walk_subbuf - a whole sub-buffer of size bytes: 0, or -EINVAL when malformed */
static int walk_subbuf(const uint8_t *sb, uint32_t size, struct walk *w)
{
	uint64_t ts, commit;
	uint32_t len;

	if (size < SB_HDR)
		return -EINVAL;
	memcpy(&ts, sb, sizeof(ts));
	memcpy(&commit, sb + 8, sizeof(commit));
	len = commit & SB_COMMIT_MASK;
	if (len > size - SB_HDR)
		return -EINVAL;
	note_missed(sb, commit, size, w);
	return walk_events(sb + SB_HDR, len, &ts, w);
}

/* room_take - len bytes of the round buffer, 8-byte aligned; from its start again when full */
static uint8_t *room_take(struct reader *r, size_t len)
{
	size_t at = (r->room_used + 7) & ~(size_t)7;

	if (at + len > r->room_len)
		at = 0;
	r->room_used = at + len;
	return r->room + at;
}

/* read_errno - a read's result: bytes, 0 for nothing there now, or -errno */
static ssize_t read_errno(ssize_t n)
{
	if (n >= 0)
		return n;
	return errno == EAGAIN || errno == EINTR ? 0 : -errno;
}

/* splice_one - one full sub-buffer of c through its pipe into the room: 1, 0 for none, -errno */
static int splice_one(struct reader *r, struct cpu *c)
{
	ssize_t n, got = 0;
	uint8_t *dst;
	int ret;

	uint64_t t0 = now_ns();

	n = read_errno(splice(c->fd, NULL, c->pipe[1], NULL, r->subbuf,
			      SPLICE_F_MOVE | SPLICE_F_NONBLOCK));
	r->calls++;
	if (n <= 0) {
		r->call_ns += now_ns() - t0;
		return (int)n;
	}
	dst = room_take(r, (size_t)n);
	while (got < n) {
		ssize_t m = read(c->pipe[0], dst + got, (size_t)(n - got));

		r->calls++;
		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		got += m;
	}
	r->call_ns += now_ns() - t0;
	r->subbufs++;
	ret = walk_subbuf(dst, (uint32_t)n, &r->w);
	return ret ? ret : 1;
}

/* read_one - c's sub-buffer by read(2), the one the kernel writes too: 1, 0 for none, -errno */
static int read_one(struct reader *r, struct cpu *c)
{
	size_t mark = r->room_used;
	uint8_t *dst = room_take(r, r->subbuf);
	uint64_t t0 = now_ns();
	ssize_t n = read_errno(read(c->fd, dst, r->subbuf));
	int ret;

	r->call_ns += now_ns() - t0;
	r->calls++;
	if (n <= 0) {
		r->room_used = mark;
		return (int)n;
	}
	r->subbufs++;
	ret = walk_subbuf(dst, (uint32_t)n, &r->w);
	return ret ? ret : 1;
}

/* drain_splice - c's full sub-buffers, then its partial one once (to the last one when final) */
static int drain_splice(struct reader *r, struct cpu *c, bool final)
{
	int ret;

	while ((ret = splice_one(r, c)) > 0)
		;
	if (ret < 0)
		return ret;
	do
		ret = read_one(r, c);
	while (final && ret > 0);
	return ret < 0 ? ret : 0;
}

/* mapped_commit - the bytes of events of a mapped sub-buffer, which the kernel may be writing */
static uint64_t mapped_commit(const uint8_t *sb)
{
	return __atomic_load_n((const uint64_t *)(sb + 8), __ATOMIC_ACQUIRE);
}

/* mapped_walk - the events of c's reader sub-buffer sb from c->pos to len, copied first or not */
static int mapped_walk(struct reader *r, struct cpu *c, const uint8_t *sb, uint32_t len)
{
	uint32_t n = len - c->pos;
	uint64_t hdr[2] = { c->ts, n };
	uint8_t *dst;

	if (r->mode == MODE_MMAP_INPLACE)
		return walk_events(sb + SB_HDR + c->pos, n, &c->ts, &r->w);
	/* A sub-buffer of its own in the room, as a read would have made it. */
	dst = room_take(r, SB_HDR + (size_t)n);
	memcpy(dst, hdr, SB_HDR);
	memcpy(dst + SB_HDR, sb + SB_HDR + c->pos, n);
	return walk_events(dst + SB_HDR, n, &c->ts, &r->w);
}

/*
 * drain_mapped - take c's reader sub-buffers while the kernel has more: the
 * one it is still writing once a drain, as splice mode reads it (final: until
 * a GET_READER brings nothing new, so that the kernel counts all walked read)
 */
static int drain_mapped(struct reader *r, struct cpu *c, bool final)
{
	int tail = 0;

	for (;;) {
		uint64_t commit, t0 = now_ns();
		const struct trace_buffer_meta *m = c->meta;
		bool swapped, walked = false;
		const uint8_t *sb;
		uint32_t id, len;
		int ret;

		r->calls++;
		ret = ioctl(c->fd, TRACE_MMAP_IOCTL_GET_READER);
		r->call_ns += now_ns() - t0;
		if (ret < 0)
			return errno == EINTR ? 0 : -errno;
		id = __atomic_load_n(&m->reader.id, __ATOMIC_ACQUIRE);
		if (id >= m->nr_subbufs)
			return -EINVAL;
		sb = c->data + (size_t)id * r->subbuf;
		swapped = id != c->id;
		if (swapped) {
			/* Another sub-buffer: the old one is the writer's again, this one is new. */
			c->id = id;
			c->pos = 0;
			memcpy(&c->ts, sb, sizeof(c->ts));
			r->w.lost += m->reader.lost_events;
			note_missed(sb, mapped_commit(sb), r->subbuf, &r->w);
		}
		commit = mapped_commit(sb);
		len = commit & SB_COMMIT_MASK;
		if (len > r->subbuf - SB_HDR)
			return -EINVAL;
		if (len > c->pos) {
			r->subbufs++;
			ret = mapped_walk(r, c, sb, len);
			if (ret)
				return ret;
			c->pos = len;
			walked = true;
		}
		if (swapped)
			continue;
		/*
		 * The same sub-buffer again: the kernel still had events of it to
		 * count read. Nothing new: the ring has nothing more now. New events
		 * when nothing else was unread, or a second time in a drain: the
		 * writer is on it, read once a drain as splice mode's read(2) is.
		 * Never the counters alone: after a change of buffer_subbuf_size_kb
		 * they still count the events that went with the old sub-buffers.
		 */
		if (!walked || (!final && (m->entries - m->overrun <= m->read || tail++)))
			return 0;
	}
}

/* thread_cpu_ns - the calling thread's CPU time so far (schedstat), 0 when unreadable */
static uint64_t thread_cpu_ns(void)
{
	char text[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	return strtoull(text, NULL, 10);
}

/* drain_all - every CPU once; final: all that is left */
static int drain_all(struct reader *r, bool final)
{
	r->drains++;
	/* A round's events are kept until it ends; the next reuses the round buffer. */
	r->room_used = 0;
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu *c = &r->cpu[i];
		int ret = r->mode == MODE_SPLICE ? drain_splice(r, c, final) :
			  drain_mapped(r, c, final);

		if (ret)
			return ret;
	}
	return 0;
}

/* reader_main - poll and drain until the command has exited, then take the rest */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd *pfd = calloc((size_t)r->nr_cpus + 1, sizeof(*pfd));
	uint64_t t0 = thread_cpu_ns();

	if (!pfd) {
		r->err = -ENOMEM;
		return NULL;
	}
	for (int i = 0; i < r->nr_cpus; i++)
		pfd[i] = (struct pollfd){ .fd = r->cpu[i].fd, .events = POLLIN };
	pfd[r->nr_cpus] = (struct pollfd){ .fd = r->wake, .events = POLLIN };
	for (;;) {
		bool final;

		if (poll(pfd, r->nr_cpus + 1, DRAIN_MS) < 0 && errno != EINTR) {
			r->err = -errno;
			break;
		}
		final = __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
		r->err = drain_all(r, final);
		if (r->err || final)
			break;
	}
	r->cpu_ns = thread_cpu_ns() - t0;
	free(pfd);
	return NULL;
}

/* stat_field - the number after "key:" at a line start of a stats text, 0 when absent */
static uint64_t stat_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, klen) && l[klen] == ':')
			return strtoull(l + klen + 1, NULL, 10);
	return 0;
}

/* kstats_read - c's stats now: 0 or -errno */
static int kstats_read(const struct cpu *c, struct kstats *k)
{
	char text[1024];
	ssize_t n = pread(c->stats_fd, text, sizeof(text) - 1, 0);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	text[n] = '\0';
	k->entries = stat_field(text, "entries");
	k->overrun = stat_field(text, "overrun");
	k->dropped = stat_field(text, "dropped events");
	k->read = stat_field(text, "read events");
	return 0;
}

/* header_subbuf - the bytes of the instance's sub-buffers from events/header_page: 0 or -errno */
static int header_subbuf(const char *inst, uint32_t *subbuf)
{
	char path[4096], text[1024], *data, *commit;
	unsigned long off, size;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/header_page", inst);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	text[n] = '\0';
	/* The layout walked here: the commit an 8-byte word at 8, the events from 16 on. */
	commit = strstr(text, "commit;");
	data = strstr(text, "char data;");
	if (!commit || !data || strncmp(commit + strlen("commit;"), "\toffset:8;\tsize:8;", 18) ||
	    sscanf(strstr(data, "offset:"), "offset:%lu;\tsize:%lu;", &off, &size) != 2 ||
	    off != SB_HDR || size > SB_COMMIT_MASK)
		return -ENOTSUP;
	*subbuf = (uint32_t)(off + size);
	return 0;
}

/* cpu_open - c's trace_pipe_raw and stats in the instance: 0 or -errno */
static int cpu_open(const char *inst, struct cpu *c)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", inst, c->cpu);
	c->stats_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->stats_fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, c->cpu);
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

/* cpu_online - whether CPU i is online */
static bool cpu_online(int i)
{
	char path[64], v = '1';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", i);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;	/* cpu0 has no such file: always online */
	if (read(fd, &v, 1) != 1)
		v = '0';
	close(fd);
	return v == '1';
}

/* cpus_open - every online CPU's files in the instance: 0 or -errno */
static int cpus_open(struct reader *r, const char *inst)
{
	long nr = sysconf(_SC_NPROCESSORS_CONF);

	r->cpu = calloc(nr > 0 ? (size_t)nr : 1, sizeof(*r->cpu));
	if (!r->cpu)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		struct cpu *c = &r->cpu[r->nr_cpus];
		int ret;

		if (!cpu_online(i))
			continue;
		*c = (struct cpu){ .cpu = i, .fd = -1, .stats_fd = -1, .pipe = { -1, -1 } };
		r->nr_cpus++;
		ret = cpu_open(inst, c);
		if (ret)
			return ret;
	}
	return r->nr_cpus ? 0 : -ENODEV;
}

/* cpu_map - map c's ring: the meta page, then the sub-buffers after it; 0 or -errno */
static int cpu_map(struct reader *r, struct cpu *c)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, c->fd, 0);
	uint32_t meta_len;
	struct walk skip = { 0 };

	if (m == MAP_FAILED)
		return -errno;
	c->meta = m;
	c->meta_len = (size_t)page;
	meta_len = c->meta->meta_page_size;
	if (meta_len > (size_t)page) {
		munmap(m, (size_t)page);
		m = mmap(NULL, meta_len, PROT_READ, MAP_SHARED, c->fd, 0);
		if (m == MAP_FAILED) {
			c->meta = NULL;
			return -errno;
		}
		c->meta = m;
		c->meta_len = meta_len;
	}
	if (c->meta->subbuf_size != r->subbuf || !c->meta->nr_subbufs)
		return -EPROTO;
	c->data_len = (size_t)c->meta->nr_subbufs * c->meta->subbuf_size;
	m = mmap(NULL, c->data_len, PROT_READ, MAP_SHARED, c->fd, meta_len);
	if (m == MAP_FAILED)
		return -errno;
	c->data = m;
	/* What was consumed of the reader sub-buffer before the mapping is not this run's. */
	c->id = c->meta->reader.id;
	c->pos = c->meta->reader.read;
	if (c->id >= c->meta->nr_subbufs || c->pos > r->subbuf - SB_HDR)
		return -EPROTO;
	memcpy(&c->ts, c->data + (size_t)c->id * r->subbuf, sizeof(c->ts));
	return walk_events(c->data + (size_t)c->id * r->subbuf + SB_HDR, c->pos, &c->ts, &skip);
}

/* cpus_prepare - per CPU what the mode reads with: a splice pipe, or the mapping; 0 or -errno */
static int cpus_prepare(struct reader *r)
{
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu *c = &r->cpu[i];
		int ret;

		if (r->mode != MODE_SPLICE) {
			ret = cpu_map(r, c);
			if (ret) {
				fprintf(stderr, "ringread: the ring cannot be mapped here (CPU %d: %s): splice only\n",
					c->cpu, strerror(-ret));
				return ret;
			}
			if (r->mode == MODE_PROBE)
				return 0;
			continue;
		}
		if (pipe2(c->pipe, O_CLOEXEC))
			return -errno;
		if (r->subbuf > 65536 && fcntl(c->pipe[1], F_SETPIPE_SZ, (int)r->subbuf) < 0)
			return -errno;
	}
	return 0;
}

/* cpus_close - undo cpus_open and cpus_prepare; safe after a partial one */
static void cpus_close(struct reader *r)
{
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu *c = &r->cpu[i];

		if (c->data)
			munmap((void *)c->data, c->data_len);
		if (c->meta)
			munmap((void *)c->meta, c->meta_len);
		for (int k = 0; k < 2; k++)
			if (c->pipe[k] >= 0)
				close(c->pipe[k]);
		if (c->fd >= 0)
			close(c->fd);
		if (c->stats_fd >= 0)
			close(c->stats_fd);
	}
	free(r->cpu);
}

/*
 * room_alloc - the round buffer, the same for every mode: twice what the
 * rings hold (buffer_size_kb a CPU), written once so that no first touch of
 * it is measured (iotap's round buffers are reused the same way)
 */
static int room_alloc(struct reader *r, const char *inst)
{
	char path[4096], text[64];
	unsigned long kb = 0;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	text[n] = '\0';
	if (sscanf(text, "%lu", &kb) != 1 || !kb)
		return -EIO;
	r->room_len = 2 * (size_t)r->nr_cpus * (kb * 1024 + 2 * (size_t)r->subbuf);
	r->room = malloc(r->room_len);
	if (!r->room)
		return -ENOMEM;
	memset(r->room, 0, r->room_len);
	return 0;
}

/* kstats_all - every CPU's stats into before or after: 0 or -errno */
static int kstats_all(struct reader *r, bool after)
{
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu *c = &r->cpu[i];
		int ret = kstats_read(c, after ? &c->after : &c->before);

		if (ret)
			return ret;
	}
	return 0;
}

/* run - the command under the reader: its exit status, or -errno */
static int run(struct reader *r, char **cmd)
{
	pthread_t t;
	int status = 0, ret;
	uint64_t one = 1;
	pid_t pid;

	ret = pthread_create(&t, NULL, reader_main, r);
	if (ret)
		return -ret;
	ret = posix_spawnp(&pid, cmd[0], NULL, NULL, cmd, environ);
	if (!ret && waitpid(pid, &status, 0) < 0)
		ret = errno;
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	if (write(r->wake, &one, sizeof(one)) != sizeof(one))
		ret = ret ? ret : errno;
	pthread_join(t, NULL);
	if (ret) {
		fprintf(stderr, "ringread: cannot run %s: %s\n", cmd[0], strerror(ret));
		return -ret;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* report - the line of this run */
static void report(const struct reader *r)
{
	uint64_t kernel = 0, lost = 0;

	for (int i = 0; i < r->nr_cpus; i++) {
		const struct kstats *b = &r->cpu[i].before, *a = &r->cpu[i].after;

		kernel += (a->entries + a->overrun + a->read) - (b->entries + b->overrun + b->read);
		lost += (a->overrun - b->overrun) + (a->dropped - b->dropped);
	}
	printf("%s\t%u\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", mode_names[r->mode],
	       r->subbuf, (unsigned long long)r->w.events, (unsigned long long)kernel,
	       (unsigned long long)lost, (unsigned long long)r->w.lost,
	       (unsigned long long)r->cpu_ns, (unsigned long long)r->drains,
	       (unsigned long long)r->subbufs, (unsigned long long)r->calls,
	       (unsigned long long)r->call_ns);
}

/* parse_mode - a mode's name, or -1 */
static int parse_mode(const char *s)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i]))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	struct reader r = { .wake = -1 };
	int mode = argc > 2 ? parse_mode(argv[2]) : -1;
	int ret, status = 1;

	if (mode < 0 || (mode != MODE_PROBE && (argc < 5 || strcmp(argv[3], "--")))) {
		fprintf(stderr, "usage: ringread-reader INSTANCE_DIR splice|mmap-copy|mmap-inplace -- COMMAND [ARG...]\n"
				"       ringread-reader INSTANCE_DIR probe\n");
		return 2;
	}
	r.mode = (enum mode)mode;
	ret = header_subbuf(argv[1], &r.subbuf);
	if (ret) {
		fprintf(stderr, "ringread: cannot read the sub-buffer layout of %s: %s\n", argv[1],
			strerror(-ret));
		return 1;
	}
	ret = cpus_open(&r, argv[1]);
	if (ret) {
		fprintf(stderr, "ringread: cannot open the per-CPU files of %s: %s\n", argv[1],
			strerror(-ret));
		goto out_cpus;
	}
	ret = cpus_prepare(&r);
	if (ret) {
		status = r.mode == MODE_SPLICE ? 1 : EXIT_NO_MAP;
		goto out_cpus;
	}
	if (r.mode == MODE_PROBE) {
		status = 0;
		goto out_cpus;
	}
	ret = room_alloc(&r, argv[1]);
	if (!ret)
		ret = kstats_all(&r, false);
	if (!ret) {
		r.wake = eventfd(0, EFD_CLOEXEC);
		ret = r.wake < 0 ? -errno : 0;
	}
	if (ret) {
		fprintf(stderr, "ringread: cannot set up the reader: %s\n", strerror(-ret));
		goto out_room;
	}
	ret = run(&r, argv + 4);
	if (ret < 0)
		goto out_wake;
	status = ret;
	if (r.err) {
		fprintf(stderr, "ringread: reading the ring failed: %s\n", strerror(-r.err));
		status = 1;
	}
	ret = kstats_all(&r, true);
	if (ret) {
		fprintf(stderr, "ringread: cannot read the buffer's stats: %s\n", strerror(-ret));
		status = 1;
	}
	if (!status)
		report(&r);
out_wake:
	close(r.wake);
out_room:
	free(r.room);
out_cpus:
	cpus_close(&r);
	return status;
}
