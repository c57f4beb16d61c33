// SPDX-License-Identifier: GPL-2.0-or-later
/* evlist.c - tracepoints opened with perf_event_open, one mmap'd ring per CPU */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "evlist.h"
#include "merge.h"
#include "log.h"
#include "restrict.h"
#include "sample.h"

struct ring {
	void *base;
	size_t data_size;	/* bytes of ring data, power of two */
	size_t page;
	int fd;			/* the fd the ring is mmap'd on */
	int track_fd;		/* side-band dummy event, or -1 */
	struct ring_stats st;
	char *bounce;		/* a record that wraps the ring end is copied here */
};

struct idmap_ent {
	uint64_t id;
	struct evsel *sel;
};

struct evlist {
	struct evsel **sel;
	size_t nr;
	int *cpus;
	int nr_cpus;
	struct ring *rings;
	struct pollfd *pfd;
	struct idmap_ent *ids;
	size_t nr_ids;
	bool opened;
	bool disabled;
	bool counted_elsewhere;	/* every event's count comes from another ring */
	evlist_compact_fn compact;
	void *compact_arg;
};

/* cpus_online - the online CPU numbers from sysfs; returns how many or -errno */
int cpus_online(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int *arr = NULL, n = 0, lo, hi;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &lo) == 1) {
		hi = lo;
		sep = fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%d", &hi) != 1)
				break;
			sep = fgetc(f);
		}
		for (int c = lo; c <= hi; c++) {
			int *tmp = realloc(arr, (n + 1) * sizeof(*arr));

			if (!tmp) {
				free(arr);
				fclose(f);
				return -ENOMEM;
			}
			arr = tmp;
			arr[n++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (!n) {
		free(arr);
		return -ENOENT;
	}
	*cpus = arr;
	return n;
}

/* evlist_alloc - an empty event list */
struct evlist *evlist_alloc(void)
{
	struct evlist *el = calloc(1, sizeof(*el));

	if (!el)
		return NULL;
	return el;
}

/* evsel_free - close and free one event */
static void evsel_free(struct evsel *sel, int nr_cpus)
{
	if (!sel)
		return;
	if (sel->fds)
		for (int c = 0; c < nr_cpus; c++)
			if (sel->fds[c] >= 0)
				close(sel->fds[c]);
	free(sel->fds);
	free(sel->ids);
	free(sel->filter);
	free(sel->sys);
	free(sel->name);
	free(sel);
}

/* evlist_free - close every event, unmap the rings; accepts NULL */
void evlist_free(struct evlist *el)
{
	if (!el)
		return;
	for (size_t i = 0; i < el->nr; i++)
		evsel_free(el->sel[i], el->nr_cpus);
	if (el->rings) {
		for (int c = 0; c < el->nr_cpus; c++) {
			struct ring *r = &el->rings[c];

			if (r->base)
				munmap(r->base, r->page + r->data_size);
			if (r->track_fd >= 0)
				close(r->track_fd);
			free(r->bounce);
		}
	}
	free(el->rings);
	free(el->pfd);
	free(el->ids);
	free(el->sel);
	free(el->cpus);
	free(el);
}

/* evlist_add - declare a tracepoint to open; sample_type extras beyond the base set */
struct evsel *evlist_add(struct evlist *el, const char *sys, const char *name, int tp_id,
			 uint64_t sample_type)
{
	struct evsel **arr, *sel;

	if (el->opened) {
		errno = EBUSY;
		return NULL;
	}
	arr = realloc(el->sel, (el->nr + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	el->sel = arr;
	sel = calloc(1, sizeof(*sel));
	if (!sel)
		return NULL;
	sel->sys = strdup(sys);
	sel->name = strdup(name);
	if (!sel->sys || !sel->name) {
		evsel_free(sel, 0);
		errno = ENOMEM;
		return NULL;
	}
	sel->tp_id = tp_id;
	sel->sample_type = IOTAP_SAMPLE_BASE | sample_type;
	sel->user_callchain = true;
	sel->idx = el->nr;
	el->sel[el->nr++] = sel;
	return sel;
}

/* evsel_filter_add - AND a tracepoint filter clause onto the event's filter */
int evsel_filter_add(struct evsel *sel, const char *clause)
{
	char *f;

	if (sel->filter) {
		if (asprintf(&f, "(%s) && (%s)", sel->filter, clause) < 0)
			return -ENOMEM;
	} else {
		f = strdup(clause);
		if (!f)
			return -ENOMEM;
	}
	free(sel->filter);
	sel->filter = f;
	return 0;
}

/* sys_perf_event_open - the raw system call, which glibc does not wrap */
static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* evlist_open_error - say why perf_event_open failed (err) for what on cpu: a refusal, what to change */
static void evlist_open_error(int err, const char *what, int cpu)
{
	char why[512];

	if (err != -EACCES && err != -EPERM) {
		log_msg(LOG_ERR, "perf_event_open %s on CPU %d: %s", what, cpu, strerror(-err));
		return;
	}
	perf_refusal_explain(err, why, sizeof(why));
	log_msg(LOG_ERR, "%s (%s)", why, what);
}

/* evlist_raise_nofile - events x CPUs fds can exceed the default soft limit */
static void evlist_raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need + 64) {
		rl.rlim_cur = rl.rlim_max < need + 64 ? rl.rlim_max : need + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* evlist_attr_init - the attributes shared by everything iotap opens */
static void evlist_attr_init(struct perf_event_attr *attr, size_t wakeup_bytes)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = wakeup_bytes;
}

/* ring_map - mmap the ring of one CPU on fd */
static int ring_map(struct ring *r, int fd, size_t pages)
{
	r->page = sysconf(_SC_PAGESIZE);
	r->data_size = pages * r->page;
	r->base = mmap(NULL, r->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->bounce = malloc(1 << 16);
	if (!r->bounce)
		return -ENOMEM;
	r->fd = fd;
	return 0;
}

/* evlist_id_cmp - order the id map for bsearch */
static int evlist_id_cmp(const void *a, const void *b)
{
	const struct idmap_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* evlist_open_one - open sel on ring c, redirecting to the ring if one exists */
static int evlist_open_one(struct evlist *el, struct evsel *sel, int c,
			   const struct evlist_opts *opts, size_t wakeup)
{
	struct perf_event_attr attr;
	struct ring *r = &el->rings[c];
	int fd, ret;

	evlist_attr_init(&attr, wakeup);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = sel->tp_id;
	attr.sample_type = sel->sample_type;
	if (sel->sample_type & PERF_SAMPLE_CALLCHAIN) {
		attr.sample_max_stack = opts->max_stack;
		attr.exclude_callchain_user = !sel->user_callchain;
	}
	if (sel->sample_type & PERF_SAMPLE_REGS_USER)
		attr.sample_regs_user = sel->regs_mask;
	if (sel->sample_type & PERF_SAMPLE_STACK_USER)
		attr.sample_stack_user = sel->stack_size;
	fd = sys_perf_event_open(&attr, el->cpus[c], -1);
	if (fd < 0) {
		char what[256];

		ret = -errno;
		snprintf(what, sizeof(what), "%s:%s", sel->sys, sel->name);
		evlist_open_error(ret, what, el->cpus[c]);
		return ret;
	}
	sel->fds[c] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &sel->ids[c])) {
		ret = -errno;
		log_msg(LOG_ERR, "PERF_EVENT_IOC_ID: %s", strerror(errno));
		return ret;
	}
	if (sel->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, sel->filter)) {
		ret = -errno;
		log_msg(LOG_ERR, "filter '%s' refused by %s:%s: %s", sel->filter, sel->sys,
			sel->name, strerror(errno));
		return ret;
	}
	if (!r->base) {
		ret = ring_map(r, fd, opts->mmap_pages);
		if (ret) {
			log_msg(LOG_ERR,
				ret == -EPERM ?
				"cannot map a %zu KiB ring per CPU: over perf_event_mlock_kb or RLIMIT_MEMLOCK; lower --mmap-pages" :
				"mmap of the %zu KiB ring failed: %s",
				opts->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, strerror(-ret));
			return ret;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
		ret = -errno;
		log_msg(LOG_ERR, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
		return ret;
	}
	return 0;
}

/* evlist_open_track - a dummy software event carrying COMM/FORK/EXIT/MMAP2 side-band */
static int evlist_open_track(struct evlist *el, int c, const struct evlist_opts *opts,
			     size_t wakeup)
{
	struct perf_event_attr attr;
	struct ring *r = &el->rings[c];
	int fd;

	evlist_attr_init(&attr, wakeup);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = IOTAP_SAMPLE_BASE & ~PERF_SAMPLE_RAW;
	attr.comm = opts->track_comm;
	attr.comm_exec = opts->track_comm;
	attr.task = opts->track_comm;
	attr.mmap = opts->track_mmap;
	attr.mmap2 = opts->track_mmap;
	attr.build_id = opts->track_mmap && opts->build_id;
	fd = sys_perf_event_open(&attr, el->cpus[c], -1);
	if (fd < 0) {
		int ret = -errno;

		evlist_open_error(ret, "side-band event", el->cpus[c]);
		return ret;
	}
	if (r->base && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
		int ret = -errno;

		log_msg(LOG_ERR, "side-band event on CPU %d: %s", el->cpus[c], strerror(-ret));
		close(fd);
		return ret;
	}
	r->track_fd = fd;
	/* No tracepoint is read from perf (another backend has them): the side-band has the ring. */
	if (!r->base) {
		int ret = ring_map(r, fd, opts->mmap_pages);

		if (ret) {
			log_msg(LOG_ERR, "mmap of the side-band ring failed: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* evlist_open - open every event on every online CPU and map the rings */
int evlist_open(struct evlist *el, const struct evlist_opts *opts)
{
	size_t wakeup, k = 0;
	int ret;

	if ((!el->nr && !opts->track_comm) || opts->mmap_pages == 0 || (opts->mmap_pages & (opts->mmap_pages - 1))) {
		log_msg(LOG_ERR, "ring size must be a power of two number of pages");
		return -EINVAL;
	}
	ret = cpus_online(&el->cpus);
	if (ret < 0) {
		log_msg(LOG_ERR, "cannot read the online CPUs: %s", strerror(-ret));
		return ret;
	}
	el->nr_cpus = ret;
	evlist_raise_nofile(el->nr * el->nr_cpus + el->nr_cpus);
	el->rings = calloc(el->nr_cpus, sizeof(*el->rings));
	el->pfd = calloc(el->nr_cpus, sizeof(*el->pfd));
	el->ids = calloc(el->nr * el->nr_cpus, sizeof(*el->ids));
	if (!el->rings || !el->pfd || !el->ids)
		return -ENOMEM;
	for (int c = 0; c < el->nr_cpus; c++)
		el->rings[c].track_fd = -1;
	for (size_t i = 0; i < el->nr; i++) {
		struct evsel *sel = el->sel[i];

		sel->fds = malloc(el->nr_cpus * sizeof(int));
		sel->ids = calloc(el->nr_cpus, sizeof(uint64_t));
		if (!sel->fds || !sel->ids)
			return -ENOMEM;
		for (int c = 0; c < el->nr_cpus; c++)
			sel->fds[c] = -1;
	}
	el->opened = true;
	el->counted_elsewhere = true;
	for (size_t i = 0; i < el->nr; i++)
		el->counted_elsewhere &= el->sel[i]->unaccounted;
	/* Wake at a quarter full: room for three more quarters while we drain. */
	wakeup = opts->mmap_pages * sysconf(_SC_PAGESIZE) / 4;
	for (int c = 0; c < el->nr_cpus; c++) {
		for (size_t i = 0; i < el->nr; i++) {
			ret = evlist_open_one(el, el->sel[i], c, opts, wakeup);
			if (ret)
				return ret;
			el->ids[k].id = el->sel[i]->ids[c];
			el->ids[k++].sel = el->sel[i];
		}
		if (opts->track_comm || opts->track_mmap) {
			ret = evlist_open_track(el, c, opts, wakeup);
			if (ret)
				return ret;
		}
		el->pfd[c].fd = el->rings[c].fd;
		el->pfd[c].events = POLLIN;
	}
	el->nr_ids = k;
	qsort(el->ids, k, sizeof(*el->ids), evlist_id_cmp);
	return 0;
}

/* evlist_ioctl_all - apply an ioctl to every fd */
static int evlist_ioctl_all(struct evlist *el, unsigned long req)
{
	for (int c = 0; c < el->nr_cpus; c++) {
		for (size_t i = 0; i < el->nr; i++)
			if (el->sel[i]->fds[c] >= 0 && ioctl(el->sel[i]->fds[c], req, 0))
				return -errno;
		if (el->rings[c].track_fd >= 0 && ioctl(el->rings[c].track_fd, req, 0))
			return -errno;
	}
	return 0;
}

/* evlist_track_enable - start the side-band alone; see evlist.h */
int evlist_track_enable(struct evlist *el)
{
	for (int c = 0; c < el->nr_cpus; c++)
		if (el->rings[c].track_fd >= 0 &&
		    ioctl(el->rings[c].track_fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	return 0;
}

/* evlist_enable - start sampling */
int evlist_enable(struct evlist *el)
{
	return evlist_ioctl_all(el, PERF_EVENT_IOC_ENABLE);
}

/* evlist_disable - stop sampling; what is in the rings can still be read */
int evlist_disable(struct evlist *el)
{
	/* From now on the counts are final: evlist_account() compares them as they are. */
	el->disabled = true;
	return evlist_ioctl_all(el, PERF_EVENT_IOC_DISABLE);
}

/* evlist_set_compact - have every sample pass through fn before the merge copies it */
void evlist_set_compact(struct evlist *el, evlist_compact_fn fn, void *arg)
{
	el->compact = fn;
	el->compact_arg = arg;
}

/* ring_read - hand every complete record of one ring to push, which copies it */
static int ring_read(struct evlist *el, struct ring *r, evlist_push_fn push, void *arg)
{
	struct perf_event_mmap_page *pc = r->base;
	const char *data = (const char *)r->base + r->page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	size_t mask = r->data_size - 1;
	int ret = 0;

	while (tail < head) {
		const struct perf_event_header *hdr = (const void *)(data + (tail & mask));
		size_t off = tail & mask, size;
		uint64_t time = 0;

		/* The header itself is 8-byte aligned and never split. */
		size = hdr->size;
		if (size < sizeof(*hdr) || tail + size > head)
			break;
		if (off + size > r->data_size) {
			size_t first = r->data_size - off;

			memcpy(r->bounce, data + off, first);
			memcpy(r->bounce + first, data, size - first);
			hdr = (const void *)r->bounce;
		}
		if (hdr->type == PERF_RECORD_LOST) {
			uint64_t lost;

			memcpy(&lost, (const char *)(hdr + 1) + 8, 8);
			r->st.lost += lost;
		} else if (hdr->type == PERF_RECORD_LOST_SAMPLES) {
			uint64_t lost;

			memcpy(&lost, hdr + 1, 8);
			r->st.lost += lost;
		} else {
			r->st.records++;
			if (hdr->type == PERF_RECORD_SAMPLE) {
				struct evsel *sel = evlist_find_id(el, perf_record_id(hdr));

				if (sel)
					sel->delivered++;
			}
		}
		/*
		 * A ring without tracepoints carries side-band only, and one whose
		 * events another ring counts loses stacks: either way its losses are
		 * no events, and must not read as event losses in a recording.
		 */
		if (el->counted_elsewhere &&
		    (hdr->type == PERF_RECORD_LOST || hdr->type == PERF_RECORD_LOST_SAMPLES)) {
			tail += size;
			continue;
		}
		/* size stays the ring's: the record queued may be a smaller rewrite. */
		if (hdr->type == PERF_RECORD_SAMPLE && el->compact)
			hdr = el->compact(el->compact_arg, hdr);
		perf_record_time(hdr, &time);
		ret = push(arg, time, hdr);
		if (ret)
			break;
		tail += size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

/* evlist_read - every ring's complete records to push, in each ring's order */
int evlist_read(struct evlist *el, evlist_push_fn push, void *arg)
{
	int ret;

	for (int c = 0; c < el->nr_cpus; c++) {
		ret = ring_read(el, &el->rings[c], push, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* evlist_pollfds - the rings' descriptors, up to max into pfd; returns how many */
int evlist_pollfds(const struct evlist *el, struct pollfd *pfd, int max)
{
	int n = el->nr_cpus < max ? el->nr_cpus : max;

	memcpy(pfd, el->pfd, n * sizeof(*pfd));
	return n;
}

/* evsel_count_read - the event's count in the kernel, summed over its CPUs' fds */
int evsel_count_read(const struct evsel *sel, int nr_cpus, uint64_t *count)
{
	*count = 0;
	for (int c = 0; c < nr_cpus; c++) {
		uint64_t v;

		if (sel->fds[c] < 0)
			continue;
		if (read(sel->fds[c], &v, sizeof(v)) != sizeof(v))
			return errno ? -errno : -EIO;
		*count += v;
	}
	return 0;
}

/*
 * evlist_account - push an IOTAP_RECORD_UNDELIVERED stamped time into m for
 * each event whose kernel count outran the samples read from its rings
 *
 * Exact once the events are disabled and the rings drained. Before that a
 * sample may still be on its way, so the count read at the previous call is
 * compared with the samples read since: the gap can come out too low, never
 * too high, and the end of the run makes it exact.
 */
int evlist_account(struct evlist *el, struct merge *m, uint64_t time)
{
	if (!el->opened)
		return 0;
	for (size_t i = 0; i < el->nr; i++) {
		struct evsel *sel = el->sel[i];
		uint64_t now, basis, gap;
		char rec[IOTAP_UNDELIVERED_SIZE];
		int ret;

		if (!sel->fds || sel->unaccounted)
			continue;
		ret = evsel_count_read(sel, el->nr_cpus, &now);
		if (ret)
			return ret;
		basis = el->disabled ? now : sel->counted;
		sel->counted = now;
		gap = basis > sel->delivered ? basis - sel->delivered : 0;
		if (gap <= sel->undelivered)
			continue;
		sel->undelivered = gap;
		iotap_count_record_write(rec, IOTAP_RECORD_UNDELIVERED, gap, now, time,
					 (uint32_t)el->cpus[0], sel->ids[0]);
		ret = merge_push(m, time, rec, sizeof(rec));
		if (ret)
			return ret;
	}
	return 0;
}

/* evlist_find_id - the event a sample id belongs to */
struct evsel *evlist_find_id(const struct evlist *el, uint64_t id)
{
	struct idmap_ent key = { .id = id }, *e;

	e = bsearch(&key, el->ids, el->nr_ids, sizeof(key), evlist_id_cmp);
	return e ? e->sel : NULL;
}

/* evlist_nr - how many events are declared */
size_t evlist_nr(const struct evlist *el)
{
	return el->nr;
}

/* evlist_nr_cpus - how many CPU rings are open */
int evlist_nr_cpus(const struct evlist *el)
{
	return el->nr_cpus;
}

/* evlist_cpus - the CPU number of each ring */
const int *evlist_cpus(const struct evlist *el)
{
	return el->cpus;
}

/* evlist_ring_stats - records and lost counts of ring i */
const struct ring_stats *evlist_ring_stats(const struct evlist *el, int i)
{
	return &el->rings[i].st;
}

/* evlist_counted_elsewhere - whether the rings' losses are no events (see evsel.unaccounted) */
bool evlist_counted_elsewhere(const struct evlist *el)
{
	return el->counted_elsewhere;
}
