// SPDX-License-Identifier: GPL-2.0-or-later
/* source-perfdata.c - the session source that reads a perf.data file (source-perfdata.h) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>

#include "block.h"
#include "cursor.h"
#include "field.h"
#include "fmtcheck.h"
#include "ksyms.h"
#include "log.h"
#include "merge.h"
#include "session.h"
#include "source-perfdata.h"
#include "source-recording.h"

/* The perf_file_header: magic, size, attr_size, three sections, the feature bitmap. */
#define PD_HEADER_SIZE 104
#define PD_FEAT_BITS 256
/* Feature numbers (tools/perf/util/header.h), fixed by the file format. */
#define PD_FEAT_TRACING_DATA 1
#define PD_FEAT_BUILD_ID 2
#define PD_FEAT_HOSTNAME 3
#define PD_FEAT_OSRELEASE 4
#define PD_FEAT_VERSION 5
#define PD_FEAT_ARCH 6
#define PD_FEAT_NRCPUS 7
#define PD_FEAT_CMDLINE 11
/* Arguments of the perf command line kept for --info. */
#define PD_CMDLINE_MAX 4096
#define PD_FEAT_CLOCK_DATA 29
/* Records perf writes itself (tools/lib/perf/include/perf/event.h). */
#define PD_REC_USER_MIN 64
#define PD_REC_FINISHED_ROUND 68
#define PD_REC_AUXTRACE 71
#define PD_REC_COMPRESSED 81
/* perf_event_attr sizes: the first published one, and what this reader takes. */
#define PD_ATTR_SIZE_VER0 64
#define PD_ATTRS_MAX 4096
#define PD_IDS_MAX (1u << 20)
/* Largest kallsyms text read from perf's build-id cache: real ones are 5 to 20 MiB. */
#define PD_KSYM_MAX (64u << 20)
/* Disks named by number only, at most (more only happens in a damaged file). */
#define PD_DISKS_MAX 1024
/* Distinct CPUs whose lost counts are kept; more only happens in a damaged file. */
#define PD_LOST_CPUS_MAX 4096
/* The sample_id trailer iotap writes: TID, TIME, CPU, IDENTIFIER. */
#define PD_TRAILER 32
/* The fields of a non-sample record's sample_id trailer, in the order they come. */
#define PD_ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* One perf_event_attr of the file, and what iotap makes of it. */
struct pd_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
	uint32_t trailer;		/* bytes of its sample_id trailer */
	const char *sys, *name;		/* the fmt_set's, for a tracepoint with a format */
	struct field dev;		/* a block event's disk */
	struct iotap_event *ev;		/* the session's, when a tool uses it */
	uint64_t out_type;		/* the layout its samples are rewritten to */
};

struct pd_id {
	uint64_t id;
	uint32_t idx;			/* into attrs */
};

struct perf_src {
	const char *path;
	const uint8_t *img;
	size_t len;
	void *map;			/* img, when mapped from the file */
	struct pd_attr *attrs;
	size_t nr_attrs;
	struct pd_id *ids;
	size_t nr_ids;
	bool by_identifier;		/* every attribute samples PERF_SAMPLE_IDENTIFIER */
	uint64_t data, data_end, pos;	/* the records, and the next one to read */
	char hostname[65], release[65], version[65], arch[65];
	char writer[96];
	char cmdline[PD_CMDLINE_MAX];
	struct recording_event *info_ev;
	uint32_t nr_cpus;		/* online when recorded (HEADER_NRCPUS); 0: unknown */
	uint8_t kernel_bid[20];
	size_t kernel_bid_len;
	const char *ksym_trace;		/* kallsyms of the tracing data, into img */
	size_t ksym_trace_len;
	struct merge *m;
	uint8_t *rec;			/* one rewritten record */
	uint8_t *ready;			/* records the merge released, in time order */
	size_t ready_len, ready_cap, ready_pos;
	uint64_t t_first, t_last;	/* of the samples */
	uint64_t last_time;		/* newest time read (file order) or delivered (run) */
	bool ended;
	struct lost_cpus lost;
};

/* pd_bad - say what is wrong with the file; returns -EINVAL */
static int __attribute__((format(printf, 2, 3)))
pd_bad(const struct perf_src *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "cannot read '%s': invalid perf.data: %s", f->path, msg);
	return -EINVAL;
}

/* pd_unsupported - a valid file iotap does not read; returns -ENOTSUP */
static int __attribute__((format(printf, 2, 3)))
pd_unsupported(const struct perf_src *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "cannot read '%s': %s", f->path, msg);
	return -ENOTSUP;
}

/* cur_str - a NUL-terminated string of at most max bytes before the NUL */
static const char *cur_str(struct cursor *c, size_t max)
{
	size_t room = c->end - c->p;
	const uint8_t *nul = memchr(c->p, 0, room < max + 1 ? room : max + 1);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

/* cur_sized - a u64 length (u32 with small) and that many bytes */
static const uint8_t *cur_sized(struct cursor *c, bool small, uint64_t *len)
{
	uint32_t n32;

	if (small) {
		if (cursor_u32(c, &n32))
			return NULL;
		*len = n32;
	} else if (cursor_u64(c, len)) {
		return NULL;
	}
	return cursor_take(c, *len);
}

/* pd_section - a file section {u64 offset, u64 size} that lies within the file */
static int pd_section(const struct perf_src *f, struct cursor *c, const char *what,
		      uint64_t *off, uint64_t *size)
{
	if (cursor_u64(c, off) || cursor_u64(c, size))
		return pd_bad(f, "the file ends inside the %s section entry", what);
	if (*off > f->len || *size > f->len - *off)
		return pd_bad(f, "the %s section (%" PRIu64 " bytes at %" PRIu64 ") lies beyond the file's %zu bytes",
			      what, *size, *off, f->len);
	return 0;
}

/* perfdata_magic - see source-perfdata.h */
bool perfdata_magic(const void *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, PERFDATA_MAGIC, 8) || !memcmp(buf, "2ELIFREP", 8));
}

/* pd_trailer_size - bytes of the sample_id trailer an attribute appends to non-sample records */
static uint32_t pd_trailer_size(uint64_t sample_type, bool sample_id_all)
{
	return sample_id_all ? 8u * __builtin_popcountll(sample_type & PD_ID_FIELDS) : 0;
}

/* pd_attr_read - one perf_event_attr (attr_size bytes at p) */
static int pd_attr_read(struct perf_src *f, struct pd_attr *a, const uint8_t *p, uint64_t room)
{
	struct perf_event_attr attr;
	uint32_t size;

	memcpy(&size, p + 4, 4);
	if (size < PD_ATTR_SIZE_VER0 || size > room)
		return pd_bad(f, "an attribute says it has %u bytes (%" PRIu64 " available)", size, room);
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, p, size < sizeof(attr) ? size : sizeof(attr));
	a->type = attr.type;
	a->config = attr.config;
	a->sample_type = attr.sample_type;
	a->read_format = attr.read_format;
	a->sample_id_all = attr.sample_id_all;
	a->trailer = pd_trailer_size(a->sample_type, a->sample_id_all);
	return 0;
}

/* pd_id_cmp - order the id map for bsearch */
static int pd_id_cmp(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* pd_attrs_read - the attribute section: each attribute and the ids of its instances */
static int pd_attrs_read(struct perf_src *f, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t nr = size / attr_size;
	size_t with_identifier = 0;
	int ret;

	if (!nr || size % attr_size || nr > PD_ATTRS_MAX)
		return pd_bad(f, "the attribute section has %" PRIu64 " bytes, not a multiple of %" PRIu64,
			      size, attr_size);
	f->attrs = calloc(nr, sizeof(*f->attrs));
	if (!f->attrs)
		return -ENOMEM;
	f->nr_attrs = nr;
	for (uint64_t i = 0; i < nr; i++) {
		struct cursor c = { f->img + off + i * attr_size, f->img + off + (i + 1) * attr_size };
		uint64_t ids_off, ids_size;
		struct pd_id *ids;

		ret = pd_attr_read(f, &f->attrs[i], c.p, attr_size - 16);
		if (ret)
			return ret;
		c.p += attr_size - 16;
		ret = pd_section(f, &c, "attribute ids", &ids_off, &ids_size);
		if (ret)
			return ret;
		if (ids_size % 8 || f->nr_ids + ids_size / 8 > PD_IDS_MAX)
			return pd_bad(f, "an attribute has %" PRIu64 " bytes of ids", ids_size);
		ids = realloc(f->ids, (f->nr_ids + ids_size / 8 + 1) * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		f->ids = ids;
		for (uint64_t k = 0; k < ids_size / 8; k++) {
			memcpy(&f->ids[f->nr_ids].id, f->img + ids_off + k * 8, 8);
			f->ids[f->nr_ids++].idx = (uint32_t)i;
		}
		with_identifier += !!(f->attrs[i].sample_type & PERF_SAMPLE_IDENTIFIER);
	}
	qsort(f->ids, f->nr_ids, sizeof(*f->ids), pd_id_cmp);
	for (size_t i = 1; i < f->nr_ids; i++)
		if (f->ids[i].id == f->ids[i - 1].id && f->ids[i].idx != f->ids[i - 1].idx)
			return pd_bad(f, "id %" PRIu64 " belongs to two attributes", f->ids[i].id);
	/* perf samples IDENTIFIER whenever there is more than one event: records say whose they are. */
	f->by_identifier = with_identifier == nr;
	if (nr > 1 && !f->by_identifier)
		return pd_unsupported(f, "its %" PRIu64 " events do not all sample an identifier: cannot tell their records apart",
				      nr);
	return 0;
}

/* pd_attr_of - the attribute an id belongs to, or NULL */
static struct pd_attr *pd_attr_of(struct perf_src *f, uint64_t id)
{
	struct pd_id key = { .id = id }, *e;

	if (!f->by_identifier)
		return &f->attrs[0];
	e = bsearch(&key, f->ids, f->nr_ids, sizeof(key), pd_id_cmp);
	return e ? &f->attrs[e->idx] : NULL;
}

/* pd_format_add - one event format text of the tracing data into the session's fmt_set */
static int pd_format_add(struct session *s, struct perf_src *f, const char *sys,
			 const uint8_t *text, uint64_t len)
{
	const char *t = (const char *)text, *nl;
	struct tep_event *tev;
	char name[65];
	size_t nlen;

	nl = len > 6 && !memcmp(t, "name: ", 6) ? memchr(t + 6, '\n', len - 6) : NULL;
	nlen = nl ? (size_t)(nl - t - 6) : 0;
	if (!nl || !fmt_name_ok(t + 6, nlen))
		return pd_bad(f, "a format text of %s does not start with a valid name", sys);
	memcpy(name, t + 6, nlen);
	name[nlen] = 0;
	if (fmt_set_find(&s->fs, sys, name))
		return pd_bad(f, "%s:%s has two formats", sys, name);
	if (!fmt_text_ok(t, len))
		return pd_bad(f, "the format text of %s:%s is not one the kernel writes", sys, name);
	tev = fmt_set_add(&s->fs, sys, name, t, len);
	if (!tev)
		return errno == ENOMEM ? -ENOMEM : pd_bad(f, "the format of %s:%s cannot be parsed", sys, name);
	if (tep_find_event(s->fs.tep, tev->id) != tev)
		return pd_bad(f, "%s:%s has the id of another event", sys, name);
	return 0;
}

/*
 * pd_tracing_data - the HEADER_TRACING_DATA feature, as perf's trace-event-info
 * writes it: magic, version, byte order, long and page size, header_page,
 * header_event, the ftrace formats, the event formats per system, kallsyms,
 * printk formats and (version 0.6) saved_cmdlines
 */
static int pd_tracing_data(struct session *s, struct perf_src *f, const uint8_t *p, uint64_t len)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cursor c = { p, p + len };
	const uint8_t *b, *hp, *at;
	const char *version, *sys;
	uint64_t n, hp_len;
	uint32_t page_size, nr, nr_sys;
	uint8_t big, long_size;
	int ret;

	if (!(b = cursor_take(&c, sizeof(magic))) || memcmp(b, magic, sizeof(magic)))
		return pd_bad(f, "the tracing data does not start with its magic");
	version = cur_str(&c, 15);
	if (!version || (strcmp(version, "0.5") && strcmp(version, "0.6")))
		return pd_unsupported(f, "its tracing data has version '%s'; iotap reads 0.5 and 0.6",
				      version ? version : "?");
	if (!(b = cursor_take(&c, 2)) || cursor_u32(&c, &page_size))
		return pd_bad(f, "the tracing data ends in its header");
	big = b[0];
	long_size = b[1];
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return pd_unsupported(f, "its tracing data is %s-endian; this machine is not",
				      big ? "big" : "little");
	if ((long_size != 4 && long_size != 8) || page_size < 512 || page_size > (1u << 20) ||
	    (page_size & (page_size - 1)))
		return pd_bad(f, "the tracing data says long size %u, page size %u", long_size, page_size);
	if (!(b = cursor_take(&c, 12)) || memcmp(b, "header_page", 12) || !(hp = cur_sized(&c, false, &hp_len)))
		return pd_bad(f, "the tracing data has no header_page");
	if (!(b = cursor_take(&c, 13)) || memcmp(b, "header_event", 13) || !cur_sized(&c, false, &n))
		return pd_bad(f, "the tracing data has no header_event");
	ret = fmt_set_init(&s->fs, (const char *)hp, hp_len, long_size, page_size);
	if (ret)
		return ret;
	/* The ftrace formats (function, print, ...): iotap opens none of them. */
	if (cursor_u32(&c, &nr))
		return pd_bad(f, "the tracing data ends before its ftrace formats");
	for (uint32_t i = 0; i < nr; i++)
		if (!cur_sized(&c, false, &n))
			return pd_bad(f, "ftrace format %u of %u lies beyond the tracing data", i + 1, nr);
	if (cursor_u32(&c, &nr_sys))
		return pd_bad(f, "the tracing data ends before its event formats");
	for (uint32_t i = 0; i < nr_sys; i++) {
		sys = cur_str(&c, 64);
		if (!sys || !fmt_name_ok(sys, strlen(sys)) || cursor_u32(&c, &nr))
			return pd_bad(f, "system %u of %u of the tracing data has no valid name", i + 1, nr_sys);
		for (uint32_t k = 0; k < nr; k++) {
			if (!(at = cur_sized(&c, false, &n)))
				return pd_bad(f, "format %u of %s lies beyond the tracing data", k + 1, sys);
			ret = pd_format_add(s, f, sys, at, n);
			if (ret)
				return ret;
		}
	}
	/* Recent perf leaves kallsyms empty and caches them by build-id instead (pd_kallsyms). */
	if (!(at = cur_sized(&c, true, &n)))
		return pd_bad(f, "the tracing data ends inside its kallsyms");
	f->ksym_trace = (const char *)at;
	f->ksym_trace_len = n;
	if (!cur_sized(&c, true, &n))
		return pd_bad(f, "the tracing data ends inside its printk formats");
	return 0;
}

/* pd_string - a perf header string: u32 length, then that many bytes holding a NUL */
static void pd_string(const uint8_t *p, uint64_t len, char *out, size_t outlen)
{
	struct cursor c = { p, p + len };
	const uint8_t *b;
	uint32_t n;

	out[0] = 0;
	if (cursor_u32(&c, &n) || !(b = cursor_take(&c, n)) || !memchr(b, 0, n))
		return;
	snprintf(out, outlen, "%s", (const char *)b);
}

/* pd_cmdline - HEADER_CMDLINE: u32 count, then that many header strings, joined with spaces */
static void pd_cmdline(struct perf_src *f, const uint8_t *p, uint64_t len)
{
	struct cursor c = { p, p + len };
	size_t at = 0;
	uint32_t nr, n;

	f->cmdline[0] = 0;
	if (cursor_u32(&c, &nr))
		return;
	for (uint32_t i = 0; i < nr && i < 256; i++) {
		const uint8_t *s = c.p;
		char arg[PD_CMDLINE_MAX];

		if (cursor_u32(&c, &n) || !cursor_take(&c, n))
			return;
		pd_string(s, 4 + (uint64_t)n, arg, sizeof(arg));
		at += snprintf(f->cmdline + at, sizeof(f->cmdline) - at, "%s%s", i ? " " : "", arg);
		if (at >= sizeof(f->cmdline))
			return;
	}
}

/* pd_build_ids - the kernel's build-id among the HEADER_BUILD_ID entries */
static void pd_build_ids(struct perf_src *f, const uint8_t *p, uint64_t len)
{
	struct cursor c = { p, p + len };

	/* Each: a perf_event_header, s32 pid, 24 bytes of build-id, a NUL-terminated name. */
	while (c.end - c.p >= 36) {
		struct perf_event_header h;
		const uint8_t *e = c.p;
		const char *name;

		memcpy(&h, e, sizeof(h));
		if (h.size < 36 || !cursor_take(&c, h.size))
			return;
		name = (const char *)e + 36;
		if (memchr(name, 0, h.size - 36) && !strcmp(name, "[kernel.kallsyms]") &&
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
			/* PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 of the id says how many are used. */
			f->kernel_bid_len = h.misc & (1u << 15) ? e[12 + 20] : 20;
			if (f->kernel_bid_len > 20)
				f->kernel_bid_len = 20;
			memcpy(f->kernel_bid, e + 12, f->kernel_bid_len);
		}
	}
}

/* pd_features - the feature sections that follow the records */
static int pd_features(struct session *s, struct perf_src *f, const uint8_t *bitmap,
		       uint64_t at)
{
	struct cursor c = { f->img + at, f->img + f->len };
	bool tracing = false;
	int ret;

	for (int bit = 0; bit < PD_FEAT_BITS; bit++) {
		uint64_t off, size;

		if (!(bitmap[bit / 8] & (1u << (bit % 8))))
			continue;
		ret = pd_section(f, &c, "feature", &off, &size);
		if (ret)
			return ret;
		switch (bit) {
		case PD_FEAT_TRACING_DATA:
			ret = pd_tracing_data(s, f, f->img + off, size);
			if (ret)
				return ret;
			tracing = true;
			break;
		case PD_FEAT_BUILD_ID:
			pd_build_ids(f, f->img + off, size);
			break;
		case PD_FEAT_HOSTNAME:
			pd_string(f->img + off, size, f->hostname, sizeof(f->hostname));
			break;
		case PD_FEAT_OSRELEASE:
			pd_string(f->img + off, size, f->release, sizeof(f->release));
			break;
		case PD_FEAT_VERSION:
			pd_string(f->img + off, size, f->version, sizeof(f->version));
			break;
		case PD_FEAT_ARCH:
			pd_string(f->img + off, size, f->arch, sizeof(f->arch));
			break;
		case PD_FEAT_CMDLINE:
			pd_cmdline(f, f->img + off, size);
			break;
		case PD_FEAT_NRCPUS:
			/* u32 available, u32 online */
			if (size >= 8)
				memcpy(&f->nr_cpus, f->img + off + 4, 4);
			break;
		case PD_FEAT_CLOCK_DATA: {
			struct cursor cd = { f->img + off, f->img + off + size };
			uint32_t version, clockid;
			uint64_t wall, clk;

			/* The wall clock against the events' clock (perf record -k). */
			if (!cursor_u32(&cd, &version) && !cursor_u32(&cd, &clockid) && !cursor_u64(&cd, &wall) &&
			    !cursor_u64(&cd, &clk) && version == 1)
				s->wall_offset = (int64_t)(wall - clk);
			break;
		}
		default:
			break;
		}
	}
	if (!tracing)
		return pd_unsupported(f, "it has no tracing data: record tracepoints (perf record -e block:...)");
	return 0;
}

/* pd_record_at - the record at *pos of the data section, framing checked; advances *pos */
static int pd_record_at(const struct perf_src *f, uint64_t *pos, const struct perf_event_header **out)
{
	struct perf_event_header h;
	uint64_t left = f->data_end - *pos, extra = 0;

	if (left < sizeof(h))
		return pd_bad(f, "the records end in a record header at byte %" PRIu64, *pos);
	memcpy(&h, f->img + *pos, sizeof(h));
	/* perf pads every record to 8 bytes, as the kernel does: they are read in place. */
	if (h.size < sizeof(h) || h.size > left || h.size % 8)
		return pd_bad(f, "a record at byte %" PRIu64 " has size %u (%" PRIu64 " left)", *pos, h.size, left);
	/* AUX area data follows its record, outside its size. */
	if (h.type == PD_REC_AUXTRACE) {
		if (h.size < 16)
			return pd_bad(f, "an AUXTRACE record at byte %" PRIu64 " has size %u", *pos, h.size);
		memcpy(&extra, f->img + *pos + 8, 8);
		if (extra > left - h.size || extra % 8)
			return pd_bad(f, "the AUX data at byte %" PRIu64 " lies beyond the records", *pos);
	}
	if (h.type == PD_REC_COMPRESSED)
		return pd_unsupported(f, "its records are compressed (perf record -z); record without -z");
	*out = (const void *)(f->img + *pos);
	*pos += h.size + extra;
	return 0;
}

/* pd_sample_time - the time of a sample in the file's layout, and its attribute; -EINVAL: none */
static int pd_sample_time(struct perf_src *f, const struct perf_event_header *h, uint64_t *t,
			  struct pd_attr **attr)
{
	struct cursor c = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size };
	struct pd_attr *a;
	uint64_t id = 0;

	if (f->by_identifier && cursor_u64(&c, &id))
		return -EINVAL;
	a = pd_attr_of(f, id);
	if (!a || !(a->sample_type & PERF_SAMPLE_TIME))
		return -EINVAL;
	/* TIME comes after IDENTIFIER, IP and TID. */
	c.p = (const uint8_t *)(h + 1);
	if (!cursor_take(&c, 8ull * __builtin_popcountll(a->sample_type & (PERF_SAMPLE_IDENTIFIER |
									 PERF_SAMPLE_IP | PERF_SAMPLE_TID))))
		return -EINVAL;
	*attr = a;
	return cursor_u64(&c, t);
}

/* pd_read_size - bytes of a PERF_SAMPLE_READ value for read_format */
static uint64_t pd_read_size(struct cursor *c, uint64_t rf)
{
	uint64_t per = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0);
	uint64_t head = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		(rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0), nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return head + per;
	if (c->end - c->p < 8)
		return UINT64_MAX;
	memcpy(&nr, c->p, 8);
	return nr > 0xffff ? UINT64_MAX : 8 + head + nr * per;
}

/* pd_sample_decode - a sample in the file's layout, up to its raw data; its attribute in *attr */
static int pd_sample_decode(struct perf_src *f, const struct perf_event_header *h,
			    struct perf_sample *smp, struct pd_attr **attr)
{
	struct cursor c = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size };
	struct pd_attr *a;
	uint64_t st, v, id = 0;
	uint32_t raw_size;

	if (f->by_identifier && cursor_u64(&c, &id))
		return -EINVAL;
	a = pd_attr_of(f, id);
	if (!a)
		return -EINVAL;
	st = a->sample_type;
	memset(smp, 0, sizeof(*smp));
	smp->id = (uint64_t)(a - f->attrs) + 1;
	if ((st & PERF_SAMPLE_IP) && cursor_u64(&c, &v))
		return -EINVAL;
	if (st & PERF_SAMPLE_TID) {
		if (cursor_u64(&c, &v))
			return -EINVAL;
		smp->pid = (uint32_t)v;
		smp->tid = (uint32_t)(v >> 32);
	}
	if ((st & PERF_SAMPLE_TIME) && cursor_u64(&c, &smp->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ADDR) && cursor_u64(&c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ID) && cursor_u64(&c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && cursor_u64(&c, &v))
		return -EINVAL;
	if (st & PERF_SAMPLE_CPU) {
		if (cursor_u64(&c, &v))
			return -EINVAL;
		smp->cpu = (uint32_t)v;
	}
	if ((st & PERF_SAMPLE_PERIOD) && cursor_u64(&c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_READ) && !cursor_take(&c, pd_read_size(&c, a->read_format)))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CALLCHAIN) &&
	    (cursor_u64(&c, &smp->nr_ips) || smp->nr_ips > 0xffff ||
	     !(smp->ips = cursor_take(&c, smp->nr_ips * 8))))
		return -EINVAL;
	if (!(st & PERF_SAMPLE_RAW) || cursor_u32(&c, &raw_size) ||
	    !(smp->raw = cursor_take(&c, raw_size)))
		return -EINVAL;
	smp->raw_size = raw_size;
	/* What follows RAW (branch stack, user registers and stack, ...) iotap does not use. */
	*attr = a;
	return 0;
}

/*
 * pd_sample_rewrite - a sample of the file in iotap's layout (the attribute's
 * out_type) into f->rec: its size, 0 for a sample no tool takes, -EINVAL when
 * it does not decode
 */
static int pd_sample_rewrite(struct perf_src *f, const struct perf_event_header *h)
{
	struct perf_sample smp;
	struct pd_attr *a;
	int ret = pd_sample_decode(f, h, &smp, &a);

	if (ret)
		return ret;
	if (!a->ev)
		return 0;
	if (!(a->out_type & PERF_SAMPLE_CALLCHAIN))
		smp.nr_ips = 0;
	ret = perf_sample_write(&smp, a->out_type, h->misc, f->rec, PERF_RECORD_MAX);
	return ret < 0 ? -EINVAL : ret;
}

/*
 * pd_other_rewrite - a kernel side-band record (COMM, FORK, MMAP2, LOST...)
 * with its sample_id trailer in iotap's layout into f->rec: its size, or
 * -EINVAL when it is too short for its trailer
 */
static int pd_other_rewrite(struct perf_src *f, const struct perf_event_header *h)
{
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pd_attr *a = &f->attrs[0];
	uint64_t trailer[4] = { 0, f->last_time, 0, 0 }, v, body;
	struct perf_event_header out = *h;
	struct cursor c;

	/* IDENTIFIER is the last u64 of the trailer; perf's synthesized records have id 0. */
	if (a->sample_id_all && f->by_identifier && h->size >= sizeof(*h) + 8) {
		struct pd_attr *of;

		memcpy(&v, end - 8, 8);
		of = pd_attr_of(f, v);
		if (of)
			a = of;
	}
	if (h->size - sizeof(*h) < a->trailer)
		return -EINVAL;
	body = h->size - sizeof(*h) - a->trailer;
	c.p = end - a->trailer;
	c.end = end;
	if (a->sample_id_all) {
		trailer[1] = 0;
		if (a->sample_type & PERF_SAMPLE_TID)
			cursor_u64(&c, &trailer[0]);
		if (a->sample_type & PERF_SAMPLE_TIME)
			cursor_u64(&c, &trailer[1]);
		if (a->sample_type & PERF_SAMPLE_ID)
			cursor_u64(&c, &v);
		if (a->sample_type & PERF_SAMPLE_STREAM_ID)
			cursor_u64(&c, &v);
		if (a->sample_type & PERF_SAMPLE_CPU)
			cursor_u64(&c, &trailer[2]);
		trailer[2] &= UINT32_MAX;
	}
	trailer[3] = (uint64_t)(a - f->attrs) + 1;
	if (sizeof(out) + (body + 7) / 8 * 8 + sizeof(trailer) > UINT16_MAX)
		return -EINVAL;
	out.size = sizeof(out) + (body + 7) / 8 * 8 + sizeof(trailer);
	memcpy(f->rec, &out, sizeof(out));
	memset(f->rec + sizeof(out), 0, out.size - sizeof(out));
	memcpy(f->rec + sizeof(out), h + 1, body);
	memcpy(f->rec + out.size - sizeof(trailer), trailer, sizeof(trailer));
	return out.size;
}

/* pd_disk_seen - a block event's disk, named by its numbers unless the table knows it */
static int pd_disk_seen(struct session *s, struct perf_src *f, const struct perf_event_header *h,
			size_t *added)
{
	struct perf_sample smp;
	struct pd_attr *a;
	char name[32];
	uint32_t dev;

	if (pd_sample_decode(f, h, &smp, &a) || !a->dev.present)
		return 0;
	dev = (uint32_t)field_u64(&a->dev, smp.raw, smp.raw_size);
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
	uint64_t pos = f->data, t;
	size_t added = 0;
	bool any = false;
	int ret;

	while (pos < f->data_end) {
		struct pd_attr *a;

		ret = pd_record_at(f, &pos, &h);
		if (ret)
			return ret;
		if (h->type != PERF_RECORD_SAMPLE || pd_sample_time(f, h, &t, &a) || a->type != PERF_TYPE_TRACEPOINT)
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
		f->img = s->opts.input_buf;
		f->len = s->opts.input_len;
		return 0;
	}
	fd = open(s->opts.input, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int ret = -errno;

		log_msg(LOG_ERR, "cannot read '%s': %s", f->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (st.st_size < PD_HEADER_SIZE) {
		close(fd);
		return pd_bad(f, "the file has %lld bytes, less than its header", (long long)st.st_size);
	}
	f->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		log_msg(LOG_ERR, "cannot map '%s': %s", f->path, strerror(errno));
		return -ENOMEM;
	}
	f->img = f->map;
	f->len = st.st_size;
	/* Without CLOCK_DATA, the file was last written about when the last event happened. */
	s->wall_offset = (int64_t)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
	return 0;
}

/* pd_same_host - whether the file was recorded on this machine, running this kernel */
static bool pd_same_host(const struct perf_src *f)
{
	struct utsname u;

	return !uname(&u) && f->hostname[0] && !strcmp(u.nodename, f->hostname) &&
		!strcmp(u.release, f->release);
}

/* pd_open - read the header, the attributes and the features; check the records */
static int pd_open(struct session *s)
{
	struct perf_src *f = calloc(1, sizeof(*f));
	uint64_t hsize, attr_size, off, size, data_off, data_size;
	int64_t mtime_ns;
	struct cursor c;
	int ret;

	if (!f)
		return -ENOMEM;
	s->src_priv = f;
	f->path = s->opts.input ? s->opts.input : "(memory)";
	ret = pd_map(s, f);
	if (ret)
		return ret;
	mtime_ns = s->wall_offset;
	s->wall_offset = 0;
	if (f->len < 16 || !perfdata_magic(f->img, f->len))
		return pd_bad(f, "no PERFILE2 magic");
	if (memcmp(f->img, PERFDATA_MAGIC, 8))
		return pd_unsupported(f, "it was recorded on a machine of the other byte order");
	memcpy(&hsize, f->img + 8, 8);
	if (hsize == 16)
		return pd_unsupported(f, "it is a pipe-mode perf.data (perf record -o -): record to a file");
	if (hsize < PD_HEADER_SIZE || f->len < PD_HEADER_SIZE)
		return pd_bad(f, "its header has %" PRIu64 " bytes", hsize);
	c.p = f->img + 16;
	c.end = f->img + PD_HEADER_SIZE;
	cursor_u64(&c, &attr_size);
	if (attr_size < PD_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return pd_bad(f, "attributes of %" PRIu64 " bytes", attr_size);
	ret = pd_section(f, &c, "attributes", &off, &size);
	if (!ret)
		ret = pd_section(f, &c, "data", &data_off, &data_size);
	if (!ret)
		ret = pd_attrs_read(f, attr_size, off, size);
	if (ret)
		return ret;
	if (!data_size)
		return pd_bad(f, "it holds no records (was perf record killed before it finished?)");
	if (data_off % 8)
		return pd_bad(f, "its records start at byte %" PRIu64 ", not a multiple of 8", data_off);
	f->data = f->pos = data_off;
	f->data_end = data_off + data_size;
	ret = pd_features(s, f, f->img + 72, data_off + data_size);
	if (ret)
		return ret;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		struct pd_attr *a = &f->attrs[i];
		struct tep_event *tev;

		if (a->type != PERF_TYPE_TRACEPOINT || a->config > INT32_MAX)
			continue;
		tev = tep_find_event(s->fs.tep, (int)a->config);
		if (tev) {
			/* The fmt_set's copies of the names, which live as long as the session. */
			struct tep_event *mine = fmt_set_find(&s->fs, tev->system, tev->name);

			a->sys = mine->system;
			a->name = mine->name;
			if (!strcmp(a->sys, "block"))
				field_init(&a->dev, mine, "dev");
		}
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

		for (size_t i = 0; i < f->nr_attrs; i++) {
			struct pd_attr *a = &f->attrs[i];

			if (!a->sys || strcmp(a->sys, ev->sys) || strcmp(a->name, ev->name))
				continue;
			if ((a->sample_type & (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)) !=
			    (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)) {
				log_msg(LOG_ERR, "'%s': the samples of %s:%s carry no %s", f->path, ev->sys,
					ev->name, a->sample_type & PERF_SAMPLE_TIME ? "raw data" : "timestamps");
				return -EINVAL;
			}
			chains &= !!(a->sample_type & PERF_SAMPLE_CALLCHAIN);
			any = true;
		}
		if (!any)
			continue;
		if ((ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) && !chains) {
			log_msg(LOG_ERR, "'%s' has no stacks for %s:%s (perf record -g)", f->path, ev->sys,
				ev->name);
			return -EINVAL;
		}
		ev->sample_type = IOTAP_SAMPLE_BASE | (chains ? PERF_SAMPLE_CALLCHAIN : 0);
		ev->regs_mask = 0;
		ev->chain_ids = false;
		for (size_t i = 0; i < f->nr_attrs; i++) {
			struct pd_attr *a = &f->attrs[i];

			if (a->sys && !strcmp(a->sys, ev->sys) && !strcmp(a->name, ev->name)) {
				a->ev = ev;
				a->out_type = ev->sample_type;
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

	while (f->pos < f->data_end) {
		ret = pd_record_at(f, &f->pos, &h);
		if (ret)
			return ret;
		if (h->type == PD_REC_FINISHED_ROUND)
			return merge_round_end(f->m, UINT64_MAX, pd_ready_add, f);
		if (h->type >= PD_REC_USER_MIN)
			continue;
		ret = h->type == PERF_RECORD_SAMPLE ? pd_sample_rewrite(f, h) : pd_other_rewrite(f, h);
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

	for (size_t i = 0; i < f->nr_attrs; i++) {
		const struct pd_attr *a = &f->attrs[i];

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
		log_msg(LOG_ERR, "'%s' has no %s:%s events (perf record -e %s:%s)", f->path, ev->sys,
			ev->name, ev->sys, ev->name);
		return -ENOENT;
	}
	return 0;
}

/* pd_nr_cpus - the CPUs online when perf recorded */
static int pd_nr_cpus(const struct session *s)
{
	const struct perf_src *f = s->src_priv;

	return f->nr_cpus ? (int)f->nr_cpus : 1;
}

/* pd_find - the session event of a rewritten id (the attribute's index + 1) */
static struct iotap_event *pd_find(struct session *s, uint64_t id)
{
	struct perf_src *f = s->src_priv;

	return id && id <= f->nr_attrs ? f->attrs[id - 1].ev : NULL;
}

/* pd_lost - the lost counts of the CPUs seen losing events so far */
static int pd_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct perf_src *f = s->src_priv;

	return f ? lost_cpus_get(&f->lost, i, cpu, lost) : -ENOENT;
}

/* pd_bid_hex - the kernel build-id as perf names its cache directories */
static void pd_bid_hex(const struct perf_src *f, char *out)
{
	for (size_t i = 0; i < f->kernel_bid_len; i++)
		sprintf(out + 2 * i, "%02x", f->kernel_bid[i]);
	out[2 * f->kernel_bid_len] = 0;
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

	if (f->ksym_trace_len) {
		ks = ksyms_parse(f->ksym_trace, f->ksym_trace_len);
		if (!ks)
			log_msg(LOG_WARN, "cannot parse the kernel symbols of '%s': %s", f->path, strerror(errno));
		return ks;
	}
	/* A file in memory (tests, fuzzing) is read alone: no other file is looked up for it. */
	if (!s->opts.input || !f->kernel_bid_len) {
		log_msg(LOG_WARN, "'%s' names no kernel build-id (perf record -B?): kernel frames print as addresses",
			f->path);
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
			"kernel frames print as addresses", f->path, path);
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
	uint64_t pos = f->data, records = 0, t;
	size_t *row, nr = 0;
	int ret;

	/* One row per tracepoint attribute; perf's dummy and other events are left out. */
	f->info_ev = calloc(f->nr_attrs, sizeof(*f->info_ev));
	row = calloc(f->nr_attrs, sizeof(*row));
	if (!f->info_ev || !row) {
		free(row);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nr_attrs; i++) {
		if (!f->attrs[i].sys)
			continue;
		row[i] = ++nr;
		f->info_ev[nr - 1].sys = f->attrs[i].sys;
		f->info_ev[nr - 1].name = f->attrs[i].name;
		f->info_ev[nr - 1].sample_type = f->attrs[i].sample_type;
	}
	while (pos < f->data_end) {
		struct pd_attr *a;

		ret = pd_record_at(f, &pos, &h);
		if (ret) {
			free(row);
			return ret;
		}
		if (h->type >= PD_REC_USER_MIN)
			continue;
		records++;
		if (h->type == PERF_RECORD_SAMPLE && !pd_sample_time(f, h, &t, &a) && row[a - f->attrs])
			f->info_ev[row[a - f->attrs] - 1].count++;
		else if ((h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES) &&
			 pd_other_rewrite(f, h) > 0)
			lost_cpus_add(&f->lost, (const void *)f->rec, PD_LOST_CPUS_MAX);
	}
	free(row);
	snprintf(f->writer, sizeof(f->writer), "perf.data, perf %s", f->version[0] ? f->version : "?");
	memset(info, 0, sizeof(*info));
	info->path = f->path;
	info->writer = f->writer;
	info->host = f->hostname[0] ? f->hostname : NULL;
	info->sysname = "Linux";
	info->release = f->release[0] ? f->release : NULL;
	info->machine = f->arch;
	info->command = f->cmdline[0] ? f->cmdline : NULL;
	info->nr_cpus = pd_nr_cpus(s);
	info->t_start = f->t_first;
	info->t_end = f->t_last;
	info->wall_offset = s->wall_offset;
	info->records = records;
	info->ev = f->info_ev;
	info->nr_ev = nr;
	info->kallsyms = f->ksym_trace_len || f->kernel_bid_len;
	return 0;
}

/* pd_close - unmap and free everything */
static void pd_close(struct session *s)
{
	struct perf_src *f = s->src_priv;

	if (!f)
		return;
	if (f->map)
		munmap(f->map, f->len);
	free(f->attrs);
	free(f->ids);
	merge_free(f->m);
	free(f->rec);
	free(f->ready);
	lost_cpus_release(&f->lost);
	free(f->info_ev);
	free(f);
	s->src_priv = NULL;
}

/* What the file's feature sections say about the host perf ran on. */
static const struct host_ops pd_host = {
	.ksyms_load = pd_ksyms_load,
	.info = pd_info,
};

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
	.host = &pd_host,
};
