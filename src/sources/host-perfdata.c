// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host-perfdata.c - facts about the host perf ran on, for the perf.data source: what the
 * file's feature sections say (--info), its kernel symbols (perfdata-local.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "ksyms.h"
#include "log.h"
#include "perfdata-local.h"
#include "session.h"
#include "source-recording.h"

/* Largest kallsyms text read from perf's build-id cache: real ones are 5 to 20 MiB. */
#define PD_KSYM_MAX (64u << 20)

/* pd_bid_hex - the kernel build-id as perf names its cache directories */
static void pd_bid_hex(const struct perf_src *f, char *out)
{
	for (size_t i = 0; i < f->pd.kernel_bid_len; i++)
		sprintf(out + 2 * i, "%02x", f->pd.kernel_bid[i]);
	out[2 * f->pd.kernel_bid_len] = 0;
}

/* pd_file_read - a whole file of at most max bytes; NULL with errno */
static char *pd_file_read(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *p;
	ssize_t r;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap || !buf) {
			cap = buf ? cap * 2 : cap;
			p = cap > max ? NULL : realloc(buf, cap);
			if (!p) {
				free(buf);
				close(fd);
				errno = cap > max ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/*
 * pd_ksyms_load - the kernel symbols of the recording kernel: the tracing
 * data's copy (older perf), else the copy perf record keeps in its build-id
 * cache ($PERF_BUILDID_DIR or ~/.debug, [kernel.kallsyms]/BUILD-ID/kallsyms);
 * the caller owns them
 */
static struct ksyms *pd_ksyms_load(struct session *s)
{
	struct perf_src *f = s->src_priv;
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char hex[41], path[4096];
	struct ksyms *ks;
	size_t len;
	char *text;

	if (f->pd.ksym_trace_len) {
		ks = ksyms_parse(f->pd.ksym_trace, f->pd.ksym_trace_len);
		if (!ks)
			log_msg(LOG_WARN, "cannot parse the kernel symbols of '%s': %s", f->pd.path, strerror(errno));
		return ks;
	}
	/* A file in memory (tests, fuzzing) is read alone: no other file is looked up for it. */
	if (!s->opts.input || !f->pd.kernel_bid_len) {
		log_msg(LOG_WARN, "'%s' names no kernel build-id (perf record -B?): kernel frames print as addresses",
			f->pd.path);
		return NULL;
	}
	pd_bid_hex(f, hex);
	if (dir)
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
	else
		snprintf(path, sizeof(path), "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home ? home : "", hex);
	text = pd_file_read(path, PD_KSYM_MAX, &len);
	if (!text) {
		log_msg(LOG_WARN, "no kernel symbols for '%s': perf keeps them in %s, which cannot be read "
			"(recorded with --no-buildid-cache, or on another machine: copy that file along); "
			"kernel frames print as addresses", f->pd.path, path);
		return NULL;
	}
	ks = ksyms_parse(text, len);
	if (!ks)
		log_msg(LOG_WARN, "cannot parse %s: %s", path, strerror(errno));
	free(text);
	return ks;
}

/* pd_info - count every record (samples per event, lost per CPU) and describe the file */
static int pd_info(struct session *s, struct recording_info *info)
{
	struct perf_src *f = s->src_priv;
	const struct perf_event_header *h;
	uint64_t pos = f->pd.data, records = 0, t;
	size_t *row, nr = 0;
	int ret;

	/* One row per tracepoint attribute; perf's dummy and other events are left out. */
	f->info_ev = calloc(f->pd.nr_attrs, sizeof(*f->info_ev));
	row = calloc(f->pd.nr_attrs, sizeof(*row));
	if (!f->info_ev || !row) {
		free(row);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->pd.nr_attrs; i++) {
		if (!f->pd.attrs[i].sys)
			continue;
		row[i] = ++nr;
		f->info_ev[nr - 1].sys = f->pd.attrs[i].sys;
		f->info_ev[nr - 1].name = f->pd.attrs[i].name;
		f->info_ev[nr - 1].sample_type = f->pd.attrs[i].sample_type;
	}
	while (pos < f->pd.data_end) {
		struct pd_attr *a;

		ret = perfdata_record_at(&f->pd, &pos, &h);
		if (ret) {
			free(row);
			return ret;
		}
		if (h->type >= PD_REC_USER_MIN)
			continue;
		records++;
		if (h->type == PERF_RECORD_SAMPLE && !perfdata_sample_time(&f->pd, h, &t, &a) && row[a - f->pd.attrs])
			f->info_ev[row[a - f->pd.attrs] - 1].count++;
		else if ((h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES) &&
			 perfdata_side_rewrite(&f->pd, h, f->last_time, f->rec) > 0)
			lost_cpus_add(&f->lost, (const void *)f->rec, PD_LOST_CPUS_MAX);
	}
	free(row);
	snprintf(f->writer, sizeof(f->writer), "perf.data, perf %s", f->pd.version[0] ? f->pd.version : "?");
	memset(info, 0, sizeof(*info));
	info->path = f->pd.path;
	info->writer = f->writer;
	info->host = f->pd.hostname[0] ? f->pd.hostname : NULL;
	info->sysname = "Linux";
	info->release = f->pd.release[0] ? f->pd.release : NULL;
	info->machine = f->pd.arch;
	info->command = f->pd.cmdline[0] ? f->pd.cmdline : NULL;
	info->nr_cpus = perfdata_nr_cpus(&f->pd);
	info->t_start = f->t_first;
	info->t_end = f->t_last;
	info->wall_offset = s->wall_offset;
	info->records = records;
	info->ev = f->info_ev;
	info->nr_ev = nr;
	info->kallsyms = f->pd.ksym_trace_len || f->pd.kernel_bid_len;
	return 0;
}

/* pd_machine - the machine perf's header names (hostname, osrelease, arch; its version is perf's) */
static int pd_machine(struct session *s, struct iotap_machine *m)
{
	struct perf_src *f = s->src_priv;

	if (!f->pd.hostname[0] && !f->pd.release[0])
		return -ENODATA;
	snprintf(m->host, sizeof(m->host), "%s", f->pd.hostname);
	snprintf(m->sysname, sizeof(m->sysname), "Linux");
	snprintf(m->release, sizeof(m->release), "%s", f->pd.release);
	snprintf(m->arch, sizeof(m->arch), "%s", f->pd.arch);
	return 0;
}

const struct host_ops host_perfdata = {
	.ksyms_load = pd_ksyms_load,
	.machine = pd_machine,
	.info = pd_info,
};
