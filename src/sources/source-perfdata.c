// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source-perfdata.c - the session source that reads a perf.data file (source-perfdata.h):
 * its records, through the reader (perfdata-read.h), rewritten and delivered in time order
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "block.h"
#include "field.h"
#include "log.h"
#include "merge.h"
#include "perfdata-local.h"
#include "session.h"
#include "source-perfdata.h"

/* Disks named by number only, at most (more only happens in a damaged file). */
#define PD_DISKS_MAX 1024

/*
 * pd_sample_rewrite - a sample of the file in iotap's layout (the attribute's
 * out_type) into f->rec: its size, 0 for a sample no tool takes, -EINVAL when
 * it does not decode
 */
static int pd_sample_rewrite(struct perf_src *f, const struct perf_event_header *h)
{
	struct perf_sample smp;
	const struct pd_use *u;
	struct pd_attr *a;
	int ret = perfdata_sample_decode(&f->pd, h, &smp, &a);

	if (ret)
		return ret;
	u = &f->use[a - f->pd.attrs];
	if (!u->ev)
		return 0;
	if (!(u->out_type & PERF_SAMPLE_CALLCHAIN))
		smp.nr_ips = 0;
	ret = perf_sample_write(&smp, u->out_type, h->misc, f->rec, PERF_RECORD_MAX);
	return ret < 0 ? -EINVAL : ret;
}

/* pd_disk_seen - a block event's disk, named by its numbers unless the table knows it */
static int pd_disk_seen(struct session *s, struct perf_src *f, const struct perf_event_header *h,
			size_t *added)
{
	const struct field *fd;
	struct perf_sample smp;
	struct pd_attr *a;
	char name[32];
	uint32_t dev;

	if (perfdata_sample_decode(&f->pd, h, &smp, &a))
		return 0;
	fd = &f->use[a - f->pd.attrs].dev;
	if (!fd->present)
		return 0;
	dev = (uint32_t)field_u64(fd, smp.raw, smp.raw_size);
	if (disk_table_by_dev(&s->disks, dev) || *added == PD_DISKS_MAX)
		return 0;
	(*added)++;
	snprintf(name, sizeof(name), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
	return disk_table_add(&s->disks, dev, name, "");
}

/*
 * pd_scan - check every record's framing; the span of the samples' times; the
 * disks of block events (perf.data names none: -d MAJ:MIN finds them)
 */
static int pd_scan(struct session *s, struct perf_src *f)
{
	const struct perf_event_header *h;
	uint64_t pos = f->pd.data, t;
	size_t added = 0;
	bool any = false;
	int ret;

	while (pos < f->pd.data_end) {
		struct pd_attr *a;

		ret = perfdata_record_at(&f->pd, &pos, &h);
		if (ret)
			return ret;
		if (h->type != PERF_RECORD_SAMPLE || perfdata_sample_time(&f->pd, h, &t, &a) || a->type != PERF_TYPE_TRACEPOINT)
			continue;
		ret = pd_disk_seen(s, f, h, &added);
		if (ret)
			return ret;
		if (!any || t < f->t_first)
			f->t_first = t;
		if (!any || t > f->t_last)
			f->t_last = t;
		any = true;
	}
	return 0;
}

/* pd_map - the whole file in memory: mapped from the path, or the caller's buffer */
static int pd_map(struct session *s, struct perf_src *f)
{
	struct stat st;
	int fd;

	if (!s->opts.input) {
		f->pd.img = s->opts.input_buf;
		f->pd.len = s->opts.input_len;
		return 0;
	}
	fd = open(s->opts.input, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int ret = -errno;

		log_msg(LOG_ERR, "cannot read '%s': %s", f->pd.path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (st.st_size < PD_HEADER_SIZE) {
		close(fd);
		return perfdata_bad(&f->pd, "the file has %lld bytes, less than its header", (long long)st.st_size);
	}
	f->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		log_msg(LOG_ERR, "cannot map '%s': %s", f->pd.path, strerror(errno));
		return -ENOMEM;
	}
	f->pd.img = f->map;
	f->pd.len = st.st_size;
	/* Without CLOCK_DATA, the file was last written about when the last event happened. */
	s->wall_offset = (int64_t)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
	return 0;
}

/* pd_same_host - whether the file was recorded on this machine, running this kernel */
static bool pd_same_host(const struct perf_src *f)
{
	struct utsname u;

	return !uname(&u) && f->pd.hostname[0] && !strcmp(u.nodename, f->pd.hostname) &&
		!strcmp(u.release, f->pd.release);
}

/* pd_open - read the header, the attributes and the features; check the records */
static int pd_open(struct session *s)
{
	struct perf_src *f = calloc(1, sizeof(*f));
	int64_t mtime_ns;
	int ret;

	if (!f)
		return -ENOMEM;
	s->src_priv = f;
	f->pd.path = s->opts.input ? s->opts.input : "(memory)";
	ret = pd_map(s, f);
	if (ret)
		return ret;
	mtime_ns = s->wall_offset;
	s->wall_offset = 0;
	ret = perfdata_read(&f->pd, &s->fs);
	if (ret)
		return ret;
	s->wall_offset = f->pd.wall_offset;
	f->pos = f->pd.data;
	f->use = calloc(f->pd.nr_attrs, sizeof(*f->use));
	if (!f->use)
		return -ENOMEM;
	for (size_t i = 0; i < f->pd.nr_attrs; i++) {
		const struct pd_attr *a = &f->pd.attrs[i];

		if (a->tep && !strcmp(a->sys, "block"))
			field_init(&f->use[i].dev, a->tep, "dev");
	}
	if (s->opts.input && pd_same_host(f)) {
		/* perf.data names no disks: this machine's are the best guess when it recorded the file. */
		disk_table_scan(&s->disks, "/sys/class/block");
	}
	ret = pd_scan(s, f);
	if (ret)
		return ret;
	f->m = merge_alloc();
	f->rec = malloc(PERF_RECORD_MAX);
	if (!f->m || !f->rec)
		return -ENOMEM;
	if (!s->wall_offset && mtime_ns)
		s->wall_offset = mtime_ns - (int64_t)f->t_last;
	s->t_start = f->t_first;
	s->now = s->t_start;
	f->last_time = 0;
	return 0;
}

/* pd_bind - give the tool's events the layout their samples are rewritten to (run(0)) */
static int pd_bind(struct session *s, struct perf_src *f)
{
	for (size_t k = 0; k < s->nr_ev; k++) {
		struct iotap_event *ev = s->ev[k];
		bool chains = true, any = false;

		for (size_t i = 0; i < f->pd.nr_attrs; i++) {
			struct pd_attr *a = &f->pd.attrs[i];

			if (!a->sys || strcmp(a->sys, ev->sys) || strcmp(a->name, ev->name))
				continue;
			if ((a->sample_type & (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)) !=
			    (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)) {
				log_msg(LOG_ERR, "'%s': the samples of %s:%s carry no %s", f->pd.path, ev->sys,
					ev->name, a->sample_type & PERF_SAMPLE_TIME ? "raw data" : "timestamps");
				return -EINVAL;
			}
			chains &= !!(a->sample_type & PERF_SAMPLE_CALLCHAIN);
			any = true;
		}
		if (!any)
			continue;
		if ((ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) && !chains) {
			log_msg(LOG_ERR, "'%s' has no stacks for %s:%s (perf record -g)", f->pd.path, ev->sys,
				ev->name);
			return -EINVAL;
		}
		ev->sample_type = IOTAP_SAMPLE_BASE | (chains ? PERF_SAMPLE_CALLCHAIN : 0);
		ev->regs_mask = 0;
		ev->chain_ids = false;
		for (size_t i = 0; i < f->pd.nr_attrs; i++) {
			struct pd_attr *a = &f->pd.attrs[i];

			if (a->sys && !strcmp(a->sys, ev->sys) && !strcmp(a->name, ev->name)) {
				f->use[i].ev = ev;
				f->use[i].out_type = ev->sample_type;
			}
		}
	}
	return 0;
}

/* pd_ready_add - the merge releases a record: keep it for delivery */
static int pd_ready_add(void *arg, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	struct perf_src *f = arg;

	if (f->ready_len + size > f->ready_cap) {
		size_t cap = f->ready_cap ? f->ready_cap : 1 << 16;
		uint8_t *p;

		while (cap < f->ready_len + size)
			cap *= 2;
		p = realloc(f->ready, cap);
		if (!p)
			return -ENOMEM;
		f->ready = p;
		f->ready_cap = cap;
	}
	memcpy(f->ready + f->ready_len, rec, size);
	f->ready_len += size;
	return 0;
}

/* pd_fill - read one round of records (up to FINISHED_ROUND) and release what it makes safe */
static int pd_fill(struct session *s, struct perf_src *f)
{
	const struct perf_event_header *h;
	uint64_t t;
	int ret;

	while (f->pos < f->pd.data_end) {
		ret = perfdata_record_at(&f->pd, &f->pos, &h);
		if (ret)
			return ret;
		if (h->type == PD_REC_FINISHED_ROUND)
			return merge_round_end(f->m, UINT64_MAX, pd_ready_add, f);
		if (h->type >= PD_REC_USER_MIN)
			continue;
		ret = h->type == PERF_RECORD_SAMPLE ? pd_sample_rewrite(f, h) :
			perfdata_side_rewrite(&f->pd, h, f->last_time, f->rec);
		if (ret == 0) {
			s->dropped++;
			continue;
		}
		if (ret < 0) {
			s->dropped++;
			s->malformed++;
			continue;
		}
		if (perf_record_time((const void *)f->rec, &t))
			t = f->last_time;
		if (t > f->last_time)
			f->last_time = t;
		ret = merge_push(f->m, t, f->rec, ret);
		if (ret)
			return ret;
	}
	f->ended = true;
	return merge_flush(f->m, UINT64_MAX, pd_ready_add, f);
}

/* pd_run - deliver the records in time order up to deadline; 1 at the deadline, 0 at the end */
static int pd_run(struct session *s, uint64_t deadline)
{
	struct perf_src *f = s->src_priv;
	int ret;

	while (!session_stopped(s)) {
		if (f->ready_pos < f->ready_len) {
			const struct perf_event_header *h = (const void *)(f->ready + f->ready_pos);
			uint64_t t;

			if (perf_record_time(h, &t) == 0) {
				if (t > deadline)
					return 1;
				if (t > f->last_time)
					f->last_time = t;
			}
			f->ready_pos += h->size;
			if (h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES)
				lost_cpus_add(&f->lost, h, PD_LOST_CPUS_MAX);
			ret = session_dispatch(s, h);
			if (ret)
				return ret;
			continue;
		}
		f->ready_pos = f->ready_len = 0;
		if (f->ended) {
			/* Empty intervals up to the last sample, as perf saw them. */
			if (f->t_last > deadline)
				return 1;
			s->now = f->last_time;
			return 0;
		}
		ret = pd_fill(s, f);
		if (ret)
			return ret;
	}
	s->now = f->last_time;
	return 0;
}

/* pd_start - the layouts the tool's events are rewritten to; the clock starts at the first sample */
static int pd_start(struct session *s)
{
	struct perf_src *f = s->src_priv;

	s->t_start = f->t_first;
	s->now = s->t_start;
	f->last_time = f->t_first;
	return pd_bind(s, f);
}

/* pd_event_available - whether the file holds the format of sys:name */
static bool pd_event_available(struct session *s, const char *sys, const char *name)
{
	return fmt_set_find(&s->fs, sys, name) != NULL;
}

/* pd_event_stacks - whether every sample of sys:name perf recorded carries its callchain */
static bool pd_event_stacks(struct session *s, const char *sys, const char *name)
{
	const struct perf_src *f = s->src_priv;
	bool chains = true, any = false;

	for (size_t i = 0; i < f->pd.nr_attrs; i++) {
		const struct pd_attr *a = &f->pd.attrs[i];

		if (!a->sys || strcmp(a->sys, sys) || strcmp(a->name, name))
			continue;
		chains &= !!(a->sample_type & PERF_SAMPLE_CALLCHAIN);
		any = true;
	}
	return any && chains;
}

/* pd_event_attach - the format of ev, from the tracing data; its layout comes with start */
static int pd_event_attach(struct session *s, struct iotap_event *ev)
{
	const struct perf_src *f = s->src_priv;

	ev->tep = fmt_set_find(&s->fs, ev->sys, ev->name);
	if (!ev->tep) {
		log_msg(LOG_ERR, "'%s' has no %s:%s events (perf record -e %s:%s)", f->pd.path, ev->sys,
			ev->name, ev->sys, ev->name);
		return -ENOENT;
	}
	return 0;
}

/* pd_nr_cpus - the CPUs online when perf recorded */
static int pd_nr_cpus(const struct session *s)
{
	const struct perf_src *f = s->src_priv;

	return perfdata_nr_cpus(&f->pd);
}

/* pd_find - the session event of a rewritten id (the attribute's index + 1) */
static struct iotap_event *pd_find(struct session *s, uint64_t id)
{
	struct perf_src *f = s->src_priv;

	return id && id <= f->pd.nr_attrs ? f->use[id - 1].ev : NULL;
}

/* pd_lost - the lost counts of the CPUs seen losing events so far */
static int pd_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct perf_src *f = s->src_priv;

	return f ? lost_cpus_get(&f->lost, i, cpu, lost) : -ENOENT;
}

/* pd_close - unmap and free everything */
static void pd_close(struct session *s)
{
	struct perf_src *f = s->src_priv;

	if (!f)
		return;
	if (f->map)
		munmap(f->map, f->pd.len);
	perfdata_release(&f->pd);
	free(f->use);
	merge_free(f->m);
	free(f->rec);
	free(f->ready);
	lost_cpus_release(&f->lost);
	free(f->info_ev);
	free(f);
	s->src_priv = NULL;
}

const struct source_ops source_perf = {
	.name = "perf.data",
	.claims = perfdata_magic,
	.open = pd_open,
	.event_available = pd_event_available,
	.event_stacks = pd_event_stacks,
	.event_attach = pd_event_attach,
	.start = pd_start,
	.run = pd_run,
	.find = pd_find,
	.lost = pd_lost,
	.nr_cpus = pd_nr_cpus,
	.close = pd_close,
	.host = &host_perfdata,
};
