// SPDX-License-Identifier: GPL-2.0-or-later
/* perfdata-read.c - the one reader of the perf.data format: header, attributes, features, records (perfdata-read.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "cursor.h"
#include "fmtcheck.h"
#include "log.h"
#include "perfdata-read.h"
#include "sample.h"
#include "tfs.h"

/* The perf_file_header ends in a bitmap of the features that follow the records. */
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
#define PD_FEAT_CLOCK_DATA 29
/* Records perf writes itself (tools/lib/perf/include/perf/event.h). */
#define PD_REC_AUXTRACE 71
#define PD_REC_COMPRESSED 81
/* perf_event_attr sizes: the first published one, and what this reader takes. */
#define PD_ATTR_SIZE_VER0 64
#define PD_ATTRS_MAX 4096
#define PD_IDS_MAX (1u << 20)
/* The fields of a non-sample record's sample_id trailer, in the order they come. */
#define PD_ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* The attribute of each id a record may carry. */
struct pd_id {
	uint64_t id;
	uint32_t idx;			/* into attrs */
};

/* perfdata_bad - see perfdata-read.h */
int perfdata_bad(const struct perfdata *f, const char *fmt, ...)
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
pd_unsupported(const struct perfdata *f, const char *fmt, ...)
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
static int pd_section(const struct perfdata *f, struct cursor *c, const char *what,
		      uint64_t *off, uint64_t *size)
{
	if (cursor_u64(c, off) || cursor_u64(c, size))
		return perfdata_bad(f, "the file ends inside the %s section entry", what);
	if (*off > f->len || *size > f->len - *off)
		return perfdata_bad(f, "the %s section (%" PRIu64 " bytes at %" PRIu64 ") lies beyond the file's %zu bytes",
			      what, *size, *off, f->len);
	return 0;
}

/* perfdata_magic - see perfdata-read.h */
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
static int pd_attr_read(struct perfdata *f, struct pd_attr *a, const uint8_t *p, uint64_t room)
{
	struct perf_event_attr attr;
	uint32_t size;

	memcpy(&size, p + 4, 4);
	if (size < PD_ATTR_SIZE_VER0 || size > room)
		return perfdata_bad(f, "an attribute says it has %u bytes (%" PRIu64 " available)", size, room);
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
static int pd_attrs_read(struct perfdata *f, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t nr = size / attr_size;
	size_t with_identifier = 0;
	int ret;

	if (!nr || size % attr_size || nr > PD_ATTRS_MAX)
		return perfdata_bad(f, "the attribute section has %" PRIu64 " bytes, not a multiple of %" PRIu64,
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
			return perfdata_bad(f, "an attribute has %" PRIu64 " bytes of ids", ids_size);
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
			return perfdata_bad(f, "id %" PRIu64 " belongs to two attributes", f->ids[i].id);
	/* perf samples IDENTIFIER whenever there is more than one event: records say whose they are. */
	f->by_identifier = with_identifier == nr;
	if (nr > 1 && !f->by_identifier)
		return pd_unsupported(f, "its %" PRIu64 " events do not all sample an identifier: cannot tell their records apart",
				      nr);
	return 0;
}

/* pd_attr_of - the attribute an id belongs to, or NULL */
static struct pd_attr *pd_attr_of(struct perfdata *f, uint64_t id)
{
	struct pd_id key = { .id = id }, *e;

	if (!f->by_identifier)
		return &f->attrs[0];
	e = bsearch(&key, f->ids, f->nr_ids, sizeof(key), pd_id_cmp);
	return e ? &f->attrs[e->idx] : NULL;
}

/* pd_format_add - one event format text of the tracing data into fs */
static int pd_format_add(struct fmt_set *fs, struct perfdata *f, const char *sys,
			 const uint8_t *text, uint64_t len)
{
	const char *t = (const char *)text, *nl;
	struct tep_event *tev;
	char name[65];
	size_t nlen;

	nl = len > 6 && !memcmp(t, "name: ", 6) ? memchr(t + 6, '\n', len - 6) : NULL;
	nlen = nl ? (size_t)(nl - t - 6) : 0;
	if (!nl || !fmt_name_ok(t + 6, nlen))
		return perfdata_bad(f, "a format text of %s does not start with a valid name", sys);
	memcpy(name, t + 6, nlen);
	name[nlen] = 0;
	if (fmt_set_find(fs, sys, name))
		return perfdata_bad(f, "%s:%s has two formats", sys, name);
	if (!fmt_text_ok(t, len))
		return perfdata_bad(f, "the format text of %s:%s is not one the kernel writes", sys, name);
	tev = fmt_set_add(fs, sys, name, t, len);
	if (!tev)
		return errno == ENOMEM ? -ENOMEM : perfdata_bad(f, "the format of %s:%s cannot be parsed", sys, name);
	if (tep_find_event(fs->tep, tev->id) != tev)
		return perfdata_bad(f, "%s:%s has the id of another event", sys, name);
	return 0;
}

/*
 * pd_tracing_data - the HEADER_TRACING_DATA feature, as perf's trace-event-info
 * writes it: magic, version, byte order, long and page size, header_page,
 * header_event, the ftrace formats, the event formats per system, kallsyms,
 * printk formats and (version 0.6) saved_cmdlines
 */
static int pd_tracing_data(struct fmt_set *fs, struct perfdata *f, const uint8_t *p, uint64_t len)
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
		return perfdata_bad(f, "the tracing data does not start with its magic");
	version = cur_str(&c, 15);
	if (!version || (strcmp(version, "0.5") && strcmp(version, "0.6")))
		return pd_unsupported(f, "its tracing data has version '%s'; iotap reads 0.5 and 0.6",
				      version ? version : "?");
	if (!(b = cursor_take(&c, 2)) || cursor_u32(&c, &page_size))
		return perfdata_bad(f, "the tracing data ends in its header");
	big = b[0];
	long_size = b[1];
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return pd_unsupported(f, "its tracing data is %s-endian; this machine is not",
				      big ? "big" : "little");
	if ((long_size != 4 && long_size != 8) || page_size < 512 || page_size > (1u << 20) ||
	    (page_size & (page_size - 1)))
		return perfdata_bad(f, "the tracing data says long size %u, page size %u", long_size, page_size);
	if (!(b = cursor_take(&c, 12)) || memcmp(b, "header_page", 12) || !(hp = cur_sized(&c, false, &hp_len)))
		return perfdata_bad(f, "the tracing data has no header_page");
	if (!(b = cursor_take(&c, 13)) || memcmp(b, "header_event", 13) || !cur_sized(&c, false, &n))
		return perfdata_bad(f, "the tracing data has no header_event");
	ret = fmt_set_init(fs, (const char *)hp, hp_len, long_size, page_size);
	if (ret)
		return ret;
	/* The ftrace formats (function, print, ...): iotap opens none of them. */
	if (cursor_u32(&c, &nr))
		return perfdata_bad(f, "the tracing data ends before its ftrace formats");
	for (uint32_t i = 0; i < nr; i++)
		if (!cur_sized(&c, false, &n))
			return perfdata_bad(f, "ftrace format %u of %u lies beyond the tracing data", i + 1, nr);
	if (cursor_u32(&c, &nr_sys))
		return perfdata_bad(f, "the tracing data ends before its event formats");
	for (uint32_t i = 0; i < nr_sys; i++) {
		sys = cur_str(&c, 64);
		if (!sys || !fmt_name_ok(sys, strlen(sys)) || cursor_u32(&c, &nr))
			return perfdata_bad(f, "system %u of %u of the tracing data has no valid name", i + 1, nr_sys);
		for (uint32_t k = 0; k < nr; k++) {
			if (!(at = cur_sized(&c, false, &n)))
				return perfdata_bad(f, "format %u of %s lies beyond the tracing data", k + 1, sys);
			ret = pd_format_add(fs, f, sys, at, n);
			if (ret)
				return ret;
		}
	}
	/* Recent perf leaves kallsyms empty and caches them by build-id instead (pd_kallsyms). */
	if (!(at = cur_sized(&c, true, &n)))
		return perfdata_bad(f, "the tracing data ends inside its kallsyms");
	f->ksym_trace = (const char *)at;
	f->ksym_trace_len = n;
	if (!cur_sized(&c, true, &n))
		return perfdata_bad(f, "the tracing data ends inside its printk formats");
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
static void pd_cmdline(struct perfdata *f, const uint8_t *p, uint64_t len)
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
static void pd_build_ids(struct perfdata *f, const uint8_t *p, uint64_t len)
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
static int pd_features(struct fmt_set *fs, struct perfdata *f, const uint8_t *bitmap,
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
			ret = pd_tracing_data(fs, f, f->img + off, size);
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
				f->wall_offset = (int64_t)(wall - clk);
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

/* perfdata_read - see perfdata-read.h */
int perfdata_read(struct perfdata *f, struct fmt_set *fs)
{
	uint64_t hsize, attr_size, off, size, data_off, data_size;
	struct cursor c;
	int ret;

	if (f->len < 16 || !perfdata_magic(f->img, f->len))
		return perfdata_bad(f, "no PERFILE2 magic");
	if (memcmp(f->img, PERFDATA_MAGIC, 8))
		return pd_unsupported(f, "it was recorded on a machine of the other byte order");
	memcpy(&hsize, f->img + 8, 8);
	if (hsize == 16)
		return pd_unsupported(f, "it is a pipe-mode perf.data (perf record -o -): record to a file");
	if (hsize < PD_HEADER_SIZE || f->len < PD_HEADER_SIZE)
		return perfdata_bad(f, "its header has %" PRIu64 " bytes", hsize);
	c.p = f->img + 16;
	c.end = f->img + PD_HEADER_SIZE;
	cursor_u64(&c, &attr_size);
	if (attr_size < PD_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return perfdata_bad(f, "attributes of %" PRIu64 " bytes", attr_size);
	ret = pd_section(f, &c, "attributes", &off, &size);
	if (!ret)
		ret = pd_section(f, &c, "data", &data_off, &data_size);
	if (!ret)
		ret = pd_attrs_read(f, attr_size, off, size);
	if (ret)
		return ret;
	if (!data_size)
		return perfdata_bad(f, "it holds no records (was perf record killed before it finished?)");
	if (data_off % 8)
		return perfdata_bad(f, "its records start at byte %" PRIu64 ", not a multiple of 8", data_off);
	f->data = data_off;
	f->data_end = data_off + data_size;
	ret = pd_features(fs, f, f->img + 72, data_off + data_size);
	if (ret)
		return ret;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		struct pd_attr *a = &f->attrs[i];
		struct tep_event *tev;

		if (a->type != PERF_TYPE_TRACEPOINT || a->config > INT32_MAX)
			continue;
		tev = tep_find_event(fs->tep, (int)a->config);
		if (tev) {
			/* The fmt_set's copies of the names, which live as long as it does. */
			a->tep = fmt_set_find(fs, tev->system, tev->name);
			a->sys = a->tep->system;
			a->name = a->tep->name;
		}
	}
	return 0;
}

/* perfdata_release - see perfdata-read.h */
void perfdata_release(struct perfdata *f)
{
	free(f->attrs);
	f->attrs = NULL;
	f->nr_attrs = 0;
	free(f->ids);
	f->ids = NULL;
	f->nr_ids = 0;
}

/* perfdata_nr_cpus - see perfdata-read.h */
int perfdata_nr_cpus(const struct perfdata *f)
{
	return f->nr_cpus ? (int)f->nr_cpus : 1;
}

/* perfdata_record_at - see perfdata-read.h */
int perfdata_record_at(const struct perfdata *f, uint64_t *pos, const struct perf_event_header **out)
{
	struct perf_event_header h;
	uint64_t left = f->data_end - *pos, extra = 0;

	if (left < sizeof(h))
		return perfdata_bad(f, "the records end in a record header at byte %" PRIu64, *pos);
	memcpy(&h, f->img + *pos, sizeof(h));
	/* perf pads every record to 8 bytes, as the kernel does: they are read in place. */
	if (h.size < sizeof(h) || h.size > left || h.size % 8)
		return perfdata_bad(f, "a record at byte %" PRIu64 " has size %u (%" PRIu64 " left)", *pos, h.size, left);
	/* AUX area data follows its record, outside its size. */
	if (h.type == PD_REC_AUXTRACE) {
		if (h.size < 16)
			return perfdata_bad(f, "an AUXTRACE record at byte %" PRIu64 " has size %u", *pos, h.size);
		memcpy(&extra, f->img + *pos + 8, 8);
		if (extra > left - h.size || extra % 8)
			return perfdata_bad(f, "the AUX data at byte %" PRIu64 " lies beyond the records", *pos);
	}
	if (h.type == PD_REC_COMPRESSED)
		return pd_unsupported(f, "its records are compressed (perf record -z); record without -z");
	*out = (const void *)(f->img + *pos);
	*pos += h.size + extra;
	return 0;
}

/* perfdata_sample_time - see perfdata-read.h */
int perfdata_sample_time(struct perfdata *f, const struct perf_event_header *h, uint64_t *t,
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

/* perfdata_sample_decode - see perfdata-read.h */
int perfdata_sample_decode(struct perfdata *f, const struct perf_event_header *h,
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

/* perfdata_side_rewrite - see perfdata-read.h */
int perfdata_side_rewrite(struct perfdata *f, const struct perf_event_header *h, uint64_t time,
			  uint8_t *rec)
{
	const uint8_t *end = (const uint8_t *)h + h->size;
	struct pd_attr *a = &f->attrs[0];
	uint64_t trailer[4] = { 0, time, 0, 0 }, v, body;
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
	memcpy(rec, &out, sizeof(out));
	memset(rec + sizeof(out), 0, out.size - sizeof(out));
	memcpy(rec + sizeof(out), h + 1, body);
	memcpy(rec + out.size - sizeof(trailer), trailer, sizeof(trailer));
	return out.size;
}
