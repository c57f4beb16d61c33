// SPDX-License-Identifier: GPL-2.0-or-later
/* sections.c - the fixed-layout sections of a recording, each encoder beside its decoder */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cursor.h"
#include "fmtcheck.h"
#include "sections.h"

/* Longest path a MAPS entry keeps. */
#define MAPS_PATH_MAX 4095

/* rec_buf_put - append n bytes; a failure sticks and is reported at the end */
void rec_buf_put(struct rec_buf *b, const void *data, size_t n)
{
	/* n == 0 on an empty buffer would compute NULL + 0 below. */
	if (b->err || !n)
		return;
	if (array_reserve(&b->p, &b->cap, b->len + n, 1, 4096)) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* rec_buf_u32 - append a u32 in the recording's (this machine's) byte order */
void rec_buf_u32(struct rec_buf *b, uint32_t v)
{
	rec_buf_put(b, &v, sizeof(v));
}

/* rec_buf_u64 - append a u64 */
void rec_buf_u64(struct rec_buf *b, uint64_t v)
{
	rec_buf_put(b, &v, sizeof(v));
}

/* rec_buf_str0 - see sections.h */
void rec_buf_str0(struct rec_buf *b, const char *s, size_t n)
{
	char field[64] = "";

	snprintf(field, n, "%s", s);
	rec_buf_put(b, field, n);
}

/* rec_buf_meta - see sections.h */
void rec_buf_meta(struct rec_buf *b, const char *key, const char *fmt, ...)
{
	char val[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	for (char *c = val; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	rec_buf_put(b, key, strlen(key));
	rec_buf_put(b, "=", 1);
	rec_buf_put(b, val, strlen(val));
	rec_buf_put(b, "\n", 1);
}

/* rec_buf_reset - empty the buffer and clear its error */
void rec_buf_reset(struct rec_buf *b)
{
	b->len = 0;
	b->err = 0;
}

/* rec_buf_release - free the buffer; safe twice */
void rec_buf_release(struct rec_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* rec_buf_patch_u32 - overwrite the u32 at off (a count written before the entries) */
static void rec_buf_patch_u32(struct rec_buf *b, size_t off, uint32_t v)
{
	if (!b->err && b->len >= off + 4)
		memcpy(b->p + off, &v, 4);
}

/* rec_sec_version - see sections.h */
uint32_t rec_sec_version(const void *p, size_t len)
{
	struct cursor c = cursor_make(p, len);
	uint32_t v;

	return cursor_u32(&c, &v) ? 0 : v;
}

/* rec_sec_put - see sections.h */
int rec_sec_put(struct rec_writer *w, uint32_t type, const struct rec_buf *b)
{
	return b->err ? b->err : rec_writer_put(w, type, b->p, b->len);
}

/* rec_sec_stream_begin - u32 version, u32 zero: the content after them stays 8-byte aligned */
int rec_sec_stream_begin(struct rec_writer *w, uint32_t type)
{
	static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };

	return rec_writer_stream(w, type, prefix, sizeof(prefix));
}

/* rec_sec_stream_skip - see sections.h */
int rec_sec_stream_skip(const void *p, size_t len, const char *what, char *why, size_t whylen)
{
	if (len < REC_STREAM_PREFIX || rec_sec_version(p, len) != REC_SEC_VERSION) {
		snprintf(why, whylen, "%s stream version %u is not supported", what,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	return REC_STREAM_PREFIX;
}

/* rec_sec_fmth_encode - u32 version, the header_page text */
void rec_sec_fmth_encode(struct rec_buf *b, const char *text, size_t len)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_put(b, text, len);
}

/* rec_sec_fmth_decode - the header_page text */
int rec_sec_fmth_decode(const void *p, size_t len, const char **text, size_t *text_len)
{
	if (len < 4 || rec_sec_version(p, len) != REC_SEC_VERSION)
		return -EINVAL;
	*text = (const char *)p + 4;
	*text_len = len - 4;
	return 0;
}

/* rec_sec_meta_encode - u32 version, then the machine, the clock and what was recorded */
void rec_sec_meta_encode(struct rec_buf *b, const struct rec_sec_meta *m)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_meta(b, "iotap", "%s", m->iotap);
	rec_buf_meta(b, "host", "%s", m->host);
	rec_buf_meta(b, "sysname", "%s", m->sysname);
	rec_buf_meta(b, "release", "%s", m->release);
	rec_buf_meta(b, "kversion", "%s", m->kversion);
	rec_buf_meta(b, "machine", "%s", m->machine);
	rec_buf_meta(b, "cpus", "%d", m->nr_cpus);
	rec_buf_meta(b, "page_size", "%d", m->page_size);
	rec_buf_meta(b, "long_size", "%d", m->long_size);
	rec_buf_meta(b, "byte_order", "%s", __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	rec_buf_meta(b, "clock", REC_META_CLOCK);
	rec_buf_meta(b, "t_start", "%llu", (unsigned long long)m->t_start);
	rec_buf_meta(b, "wall_offset", "%lld", (long long)m->wall_offset);
	rec_buf_meta(b, "callchains", "%d", m->callchains);
	rec_buf_meta(b, "tools", "%s", m->tools);
	if (m->command) {
		rec_buf_meta(b, "command", "%s", m->command);
		rec_buf_meta(b, "command_pid", "%d", m->command_pid);
	}
}

/* meta_int - a decimal META value within [min, max] */
static int meta_int(const char *v, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* meta_line - one key=value line of META into m; -EINVAL when its value is out of range */
static int meta_line(struct rec_sec_meta *m, const char *key, const char *val)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "iotap", offsetof(struct rec_sec_meta, iotap) },
		{ "host", offsetof(struct rec_sec_meta, host) },
		{ "sysname", offsetof(struct rec_sec_meta, sysname) },
		{ "release", offsetof(struct rec_sec_meta, release) },
		{ "kversion", offsetof(struct rec_sec_meta, kversion) },
		{ "machine", offsetof(struct rec_sec_meta, machine) },
		{ "tools", offsetof(struct rec_sec_meta, tools) },
		{ "command", offsetof(struct rec_sec_meta, command) },
		{ "byte_order", offsetof(struct rec_sec_meta, byte_order) },
		{ "clock", offsetof(struct rec_sec_meta, clock) },
	};
	int64_t v = 0;
	bool bad = false;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(key, strs[i].key))
			*(const char **)((char *)m + strs[i].off) = val;
	if (!strcmp(key, "cpus")) {
		bad = meta_int(val, 1, 1 << 20, &v);
		m->nr_cpus = v;
	} else if (!strcmp(key, "command_pid")) {
		bad = meta_int(val, 0, INT32_MAX, &v);
		m->command_pid = v;
	} else if (!strcmp(key, "page_size")) {
		bad = meta_int(val, 512, 1 << 20, &v) || (v & (v - 1));
		m->page_size = v;
	} else if (!strcmp(key, "long_size")) {
		bad = meta_int(val, 4, 8, &v) || (v != 4 && v != 8);
		m->long_size = v;
	} else if (!strcmp(key, "t_start")) {
		bad = meta_int(val, 0, INT64_MAX, &v);
		m->t_start = v;
		m->have_t_start = true;
	} else if (!strcmp(key, "wall_offset")) {
		bad = meta_int(val, INT64_MIN, INT64_MAX, &v);
		m->wall_offset = v;
	}
	return bad ? -EINVAL : 0;
}

/* rec_sec_meta_decode - the key=value lines of META; unknown keys are for later versions */
int rec_sec_meta_decode(const void *p, size_t len, struct rec_sec_meta *m, char *why,
			size_t whylen)
{
	char *line, *save = NULL;

	memset(m, 0, sizeof(*m));
	if (len < 4 || rec_sec_version(p, len) != REC_SEC_VERSION) {
		snprintf(why, whylen, "META version %u is not supported", rec_sec_version(p, len));
		return -EINVAL;
	}
	m->text = malloc(len - 4 + 1);
	if (!m->text)
		return -ENOMEM;
	memcpy(m->text, (const char *)p + 4, len - 4);
	m->text[len - 4] = 0;
	if (strlen(m->text) != len - 4) {
		snprintf(why, whylen, "META holds a NUL byte");
		goto fail;
	}
	for (line = strtok_r(m->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, '=');

		if (!val)
			continue;
		*val++ = 0;
		if (meta_line(m, line, val)) {
			snprintf(why, whylen, "META %s=%s is out of range", line, val);
			goto fail;
		}
	}
	return 0;
fail:
	rec_sec_meta_release(m);
	return -EINVAL;
}

/* rec_sec_meta_check - what replaying needs from META */
int rec_sec_meta_check(const struct rec_sec_meta *m, char *why, size_t whylen)
{
	const char *native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big";

	if (!m->text)
		snprintf(why, whylen, "no META section");
	else if (!m->byte_order || strcmp(m->byte_order, native))
		snprintf(why, whylen, "recorded on a %s-endian machine; this one is %s-endian",
			 m->byte_order ? m->byte_order : "an unknown", native);
	else if (!m->clock || strcmp(m->clock, REC_META_CLOCK))
		snprintf(why, whylen, "events use clock '%s', not monotonic", m->clock ? m->clock : "?");
	else if (!m->page_size || !m->long_size || !m->have_t_start)
		snprintf(why, whylen, "META lacks page_size, long_size or t_start");
	else
		return 0;
	return -EINVAL;
}

/* rec_sec_meta_release - the decoded lines; m is empty after, safe twice */
void rec_sec_meta_release(struct rec_sec_meta *m)
{
	free(m->text);
	memset(m, 0, sizeof(*m));
}

/* rec_sec_evts_record - see sections.h */
int rec_sec_evts_record(const void *chunk, size_t len, size_t pos,
			const struct perf_event_header **h, char *why, size_t whylen)
{
	const struct perf_event_header *r = (const void *)((const uint8_t *)chunk + pos);
	size_t left = len - pos;

	if (pos >= len)
		return 0;
	if (left < sizeof(*r) || r->size < sizeof(*r) || r->size > left || r->size % 8) {
		snprintf(why, whylen, "a record at chunk offset %zu has size %u", pos,
			 left < sizeof(*r) ? 0 : r->size);
		return -EINVAL;
	}
	*h = r;
	return 1;
}

/* rec_sec_stack_encode - header, u64 id, u64 nr, the nr entries */
const struct perf_event_header *rec_sec_stack_encode(void *buf, uint64_t id,
						     const uint64_t *chain, uint32_t nr)
{
	struct perf_event_header *h = buf;
	uint64_t *body = (uint64_t *)(h + 1);

	h->type = REC_RECORD_STACK;
	h->misc = 0;
	h->size = REC_STACK_FIXED + nr * 8;
	body[0] = id;
	body[1] = nr;
	memcpy(body + 2, chain, nr * 8ull);
	return h;
}

/* rec_sec_stack_decode - see sections.h */
int rec_sec_stack_decode(const struct perf_event_header *h, uint64_t *id, const void **chain,
			 uint64_t *nr, char *why, size_t whylen)
{
	struct cursor c = cursor_make(h + 1, h->size < sizeof(*h) ? 0 : h->size - sizeof(*h));

	if (h->size < REC_STACK_FIXED || cursor_u64(&c, id) || cursor_u64(&c, nr)) {
		snprintf(why, whylen, "a stack record of %u bytes", h->size);
		return -EINVAL;
	}
	if (*nr != (h->size - REC_STACK_FIXED) / 8u || !(*chain = cursor_take(&c, *nr * 8))) {
		snprintf(why, whylen, "a stack record of %u bytes says %" PRIu64 " entries", h->size,
			 *nr);
		return -EINVAL;
	}
	return 0;
}

/*
 * rec_sec_evnt_encode - u32 version, u32 nr_ids, u64 sample_type, u64 regs,
 * u32 sys/name/format lengths, u32 flags, the ids, sys, name, format text
 */
void rec_sec_evnt_encode(struct rec_buf *b, const struct rec_sec_evnt *e)
{
	/* Callchain ids need the flags, which version 1 has no room for. */
	rec_buf_u32(b, e->chain_ids ? REC_EVNT_VERSION_FLAGS : REC_SEC_VERSION);
	rec_buf_u32(b, (uint32_t)e->nr_ids);
	rec_buf_u64(b, e->sample_type);
	rec_buf_u64(b, e->regs_mask);
	rec_buf_u32(b, (uint32_t)strlen(e->sys));
	rec_buf_u32(b, (uint32_t)strlen(e->name));
	rec_buf_u32(b, (uint32_t)e->fmt_len);
	rec_buf_u32(b, e->chain_ids ? REC_EVNT_CHAIN_IDS : 0);
	for (size_t c = 0; c < e->nr_ids; c++)
		rec_buf_u64(b, e->ids[c]);
	rec_buf_put(b, e->sys, strlen(e->sys));
	rec_buf_put(b, e->name, strlen(e->name));
	rec_buf_put(b, e->fmt, e->fmt_len);
}

/* rec_sec_evnt_decode - see sections.h */
int rec_sec_evnt_decode(const void *p, size_t len, struct rec_sec_evnt *e, char *why,
		       size_t whylen)
{
	uint32_t ver = 0, nr_ids = 0, sl = 0, nl = 0, fl = 0, flags = 0;
	struct cursor c = cursor_make(p, len);
	const char *q;
	uint64_t need;

	memset(e, 0, sizeof(*e));
	if (len < REC_EVNT_FIXED || cursor_u32(&c, &ver) || cursor_u32(&c, &nr_ids) ||
	    cursor_u64(&c, &e->sample_type) || cursor_u64(&c, &e->regs_mask) ||
	    cursor_u32(&c, &sl) || cursor_u32(&c, &nl) || cursor_u32(&c, &fl) ||
	    cursor_u32(&c, &flags) || (ver != REC_SEC_VERSION && ver != REC_EVNT_VERSION_FLAGS)) {
		snprintf(why, whylen, "EVNT section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	if ((ver == REC_SEC_VERSION && flags) || (flags & ~REC_EVNT_CHAIN_IDS)) {
		snprintf(why, whylen, "EVNT section with unknown flags %#x", flags);
		return -EINVAL;
	}
	need = REC_EVNT_FIXED + (uint64_t)nr_ids * 8 + sl + nl + fl;
	if (nr_ids > 65536 || need != len || !(e->ids_raw = cursor_take(&c, (uint64_t)nr_ids * 8))) {
		snprintf(why, whylen, "EVNT lengths do not add up to its %zu bytes", len);
		return -EINVAL;
	}
	q = cursor_take(&c, (uint64_t)sl + nl + fl);
	if (!q || !fmt_name_ok(q, sl) || !fmt_name_ok(q + sl, nl)) {
		snprintf(why, whylen, "EVNT names an event with an invalid name");
		return -EINVAL;
	}
	memcpy(e->sys_buf, q, sl);
	e->sys_buf[sl] = 0;
	memcpy(e->name_buf, q + sl, nl);
	e->name_buf[nl] = 0;
	e->sys = e->sys_buf;
	e->name = e->name_buf;
	e->fmt = q + sl + nl;
	e->fmt_len = fl;
	e->nr_ids = nr_ids;
	e->chain_ids = flags & REC_EVNT_CHAIN_IDS;
	return 0;
}

/* rec_sec_evnt_id - see sections.h */
uint64_t rec_sec_evnt_id(const struct rec_sec_evnt *e, size_t i)
{
	uint64_t id;

	memcpy(&id, (const uint8_t *)e->ids_raw + i * 8, 8);
	return id;
}

/* rec_sec_disk_encode - u32 version, u32 count, then u32 dev, name[32], sched[32] each */
void rec_sec_disk_encode(struct rec_buf *b, const struct disk_table *t)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, (uint32_t)t->nr);
	for (size_t i = 0; i < t->nr; i++) {
		rec_buf_u32(b, t->d[i].dev);
		rec_buf_str0(b, t->d[i].name, 32);
		rec_buf_str0(b, t->d[i].sched, 32);
	}
}

/* rec_sec_disk_decode - the devices into t */
int rec_sec_disk_decode(const void *p, size_t len, struct disk_table *t, char *why, size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver = 0, n = 0;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &n) || ver != REC_SEC_VERSION) {
		snprintf(why, whylen, "DISK section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	if (cursor_left(&c) / REC_DISK_ENTRY < n) {
		snprintf(why, whylen, "DISK says %u devices in %zu bytes", n, len);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		char name[32], sched[32];
		uint32_t dev;
		int ret;

		if (cursor_u32(&c, &dev) || cursor_copy(&c, name, 32) || cursor_copy(&c, sched, 32))
			return -EINVAL;
		name[31] = 0;
		sched[31] = 0;
		ret = disk_table_add(t, dev, name, sched);
		if (ret)
			return ret;
	}
	return 0;
}

/* rec_sec_cgrp_begin - u32 version, u32 count (patched by rec_sec_cgrp_end) */
void rec_sec_cgrp_begin(struct rec_buf *b)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
}

/* rec_sec_cgrp_add - u32 tid, u32 path length, u64 time, the path; a longer one is left out */
void rec_sec_cgrp_add(struct rec_buf *b, uint32_t tid, const char *path, uint64_t t)
{
	size_t len = strlen(path);

	if (len > REC_CGRP_PATH_MAX)
		return;
	rec_buf_u32(b, tid);
	rec_buf_u32(b, (uint32_t)len);
	rec_buf_u64(b, t);
	rec_buf_put(b, path, len);
}

/* rec_sec_cgrp_end - the count of entries added */
void rec_sec_cgrp_end(struct rec_buf *b, uint32_t n)
{
	rec_buf_patch_u32(b, 4, n);
}

/* cgrp_entries - the n entries of a CGRP or CGV1 section (what) to fn */
static int cgrp_entries(struct cursor *c, uint32_t n, rec_sec_cgrp_fn fn, void *arg,
			const char *what, char *why, size_t whylen)
{
	char path[REC_CGRP_PATH_MAX + 1];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t tid, plen;
		const char *at;
		uint64_t t;

		if (cursor_u32(c, &tid) || cursor_u32(c, &plen) || cursor_u64(c, &t) ||
		    plen > REC_CGRP_PATH_MAX || !(at = cursor_take(c, plen)) || memchr(at, 0, plen)) {
			snprintf(why, whylen, "%s entry %u of %u is damaged", what, i + 1, n);
			return -EINVAL;
		}
		memcpy(path, at, plen);
		path[plen] = 0;
		fn(arg, tid, path, t);
	}
	return 0;
}

/* rec_sec_cgrp_decode - each task's cgroup to fn */
int rec_sec_cgrp_decode(const void *p, size_t len, rec_sec_cgrp_fn fn, void *arg, char *why,
		       size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver = 0, n = 0;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &n) || ver != REC_SEC_VERSION) {
		snprintf(why, whylen, "CGRP section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	return cgrp_entries(&c, n, fn, arg, "CGRP", why, whylen);
}

/* rec_sec_cgid_begin - u32 version, u32 count (patched by rec_sec_cgid_end) */
void rec_sec_cgid_begin(struct rec_buf *b)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
}

/* rec_sec_cgid_add - u64 id, u32 path length, the path; a longer one is left out */
void rec_sec_cgid_add(struct rec_buf *b, uint64_t id, const char *path)
{
	size_t len = strlen(path);

	if (len > REC_CGRP_PATH_MAX)
		return;
	rec_buf_u64(b, id);
	rec_buf_u32(b, (uint32_t)len);
	rec_buf_put(b, path, len);
}

/* rec_sec_cgid_end - the count of entries added */
void rec_sec_cgid_end(struct rec_buf *b, uint32_t n)
{
	rec_buf_patch_u32(b, 4, n);
}

/* rec_sec_cgid_decode - each directory's id and path to fn */
int rec_sec_cgid_decode(const void *p, size_t len, rec_sec_cgid_fn fn, void *arg, char *why,
			size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	char path[REC_CGRP_PATH_MAX + 1];
	uint32_t ver = 0, n = 0;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &n) || ver != REC_SEC_VERSION) {
		snprintf(why, whylen, "CGID section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t plen;
		const char *at;
		uint64_t id;

		if (cursor_u64(&c, &id) || cursor_u32(&c, &plen) || plen > REC_CGRP_PATH_MAX ||
		    !(at = cursor_take(&c, plen)) || memchr(at, 0, plen)) {
			snprintf(why, whylen, "CGID entry %u of %u is damaged", i + 1, n);
			return -EINVAL;
		}
		memcpy(path, at, plen);
		path[plen] = 0;
		fn(arg, id, path);
	}
	return 0;
}

/* rec_sec_cgv1_begin - u32 version, id, count (patched by rec_sec_cgv1_end), the names */
void rec_sec_cgv1_begin(struct rec_buf *b, const struct rec_sec_cgv1 *h)
{
	size_t nc = strnlen(h->controllers, REC_CGV1_NAME_MAX);
	size_t nm = strnlen(h->mount, REC_CGV1_NAME_MAX);

	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, h->id);
	rec_buf_u32(b, 0);
	rec_buf_u32(b, (uint32_t)nc);
	rec_buf_u32(b, (uint32_t)nm);
	rec_buf_put(b, h->controllers, nc);
	rec_buf_put(b, h->mount, nm);
}

/* rec_sec_cgv1_end - the count of entries added */
void rec_sec_cgv1_end(struct rec_buf *b, uint32_t n)
{
	rec_buf_patch_u32(b, 8, n);
}

/* cgv1_name - one of the head's names into out: 0, or -EINVAL */
static int cgv1_name(struct cursor *c, uint32_t n, char *out)
{
	const char *at;

	if (n > REC_CGV1_NAME_MAX || !(at = cursor_take(c, n)) || memchr(at, 0, n))
		return -EINVAL;
	memcpy(out, at, n);
	out[n] = 0;
	return 0;
}

/* rec_sec_cgv1_decode - see sections.h */
int rec_sec_cgv1_decode(const void *p, size_t len, struct rec_sec_cgv1 *h, rec_sec_cgrp_fn fn,
			void *arg, char *why, size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver = 0, n = 0, nc = 0, nm = 0;

	if (cursor_u32(&c, &ver) || ver != REC_SEC_VERSION || cursor_u32(&c, &h->id) ||
	    cursor_u32(&c, &n) || cursor_u32(&c, &nc) || cursor_u32(&c, &nm) ||
	    cgv1_name(&c, nc, h->controllers) || cgv1_name(&c, nm, h->mount) || !h->id ||
	    !h->controllers[0] || h->mount[0] != '/') {
		snprintf(why, whylen, "CGV1 section of %zu bytes, version %u: its head is damaged",
			 len, rec_sec_version(p, len));
		return -EINVAL;
	}
	return fn ? cgrp_entries(&c, n, fn, arg, "CGV1", why, whylen) : 0;
}

/* rec_sec_born_encode - header, u32 tid, u32 length, the path padded to 8, the trailer */
const struct perf_event_header *rec_sec_born_encode(void *buf, uint32_t tid, const char *path,
						    uint64_t time, uint32_t cpu)
{
	struct perf_event_header *h = buf;
	size_t plen = path ? strlen(path) : 0, pad;
	uint8_t *body = (uint8_t *)(h + 1);
	/* The sample_id trailer: pid and tid, time, cpu, id. */
	uint64_t trailer[4] = { (uint64_t)tid << 32 | tid, time, cpu, 0 };
	uint32_t v[2];

	if (plen > REC_CGRP_PATH_MAX)
		plen = 0;
	pad = (plen + 7) / 8 * 8;
	v[0] = tid;
	v[1] = (uint32_t)plen;
	memcpy(body, v, 8);
	memset(body + 8, 0, pad);
	if (plen)
		memcpy(body + 8, path, plen);
	memcpy(body + 8 + pad, trailer, sizeof(trailer));
	h->type = REC_RECORD_BORN;
	h->misc = 0;
	h->size = (uint16_t)(REC_BORN_FIXED + pad);
	return h;
}

/* rec_sec_born_decode - see sections.h */
int rec_sec_born_decode(const struct perf_event_header *h, uint32_t *tid, uint64_t *time,
			char *path, size_t len, char *why, size_t whylen)
{
	struct cursor c = cursor_make(h + 1, h->size < sizeof(*h) ? 0 : h->size - sizeof(*h));
	uint32_t plen = 0, pad;
	const char *at = NULL;
	uint64_t trailer[4];

	if (h->size < REC_BORN_FIXED || cursor_u32(&c, tid) || cursor_u32(&c, &plen) ||
	    plen > REC_CGRP_PATH_MAX || plen >= len)
		plen = UINT32_MAX;
	pad = plen == UINT32_MAX ? 0 : (plen + 7) / 8 * 8;
	if (plen == UINT32_MAX || h->size != REC_BORN_FIXED + pad || !(at = cursor_take(&c, pad)) ||
	    memchr(at, 0, plen) || cursor_copy(&c, trailer, sizeof(trailer))) {
		snprintf(why, whylen, "a born-into-a-cgroup record of %u bytes is damaged", h->size);
		return -EINVAL;
	}
	memcpy(path, at, plen);
	path[plen] = 0;
	*time = trailer[1];
	return 0;
}

/* rec_sec_comm_begin - u32 version, u32 count (patched by rec_sec_comm_end) */
void rec_sec_comm_begin(struct rec_buf *b)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
}

/* rec_sec_comm_add - u32 pid, comm[16] */
void rec_sec_comm_add(struct rec_buf *b, uint32_t pid, const char *comm)
{
	rec_buf_u32(b, pid);
	rec_buf_str0(b, comm, 16);
}

/* rec_sec_comm_end - the count of entries added */
void rec_sec_comm_end(struct rec_buf *b, uint32_t n)
{
	rec_buf_patch_u32(b, 4, n);
}

/* rec_sec_fdtb_begin - u32 version, u32 count (patched by rec_sec_fdtb_end) */
void rec_sec_fdtb_begin(struct rec_buf *b)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
}

/* rec_sec_fdtb_add - u32 pid, s32 fd, u32 path length, the path, zeros to 4 bytes */
void rec_sec_fdtb_add(struct rec_buf *b, uint32_t pid, int fd, const char *path)
{
	static const uint8_t pad[4];
	size_t len = strnlen(path, REC_FDTB_PATH_MAX);

	rec_buf_u32(b, pid);
	rec_buf_u32(b, (uint32_t)fd);
	rec_buf_u32(b, (uint32_t)len);
	rec_buf_put(b, path, len);
	rec_buf_put(b, pad, (4 - len % 4) % 4);
}

/* rec_sec_fdtb_end - the count of entries added */
void rec_sec_fdtb_end(struct rec_buf *b, uint32_t n)
{
	rec_buf_patch_u32(b, 4, n);
}

/* rec_sec_fdtb_decode - each descriptor and its name to fn */
int rec_sec_fdtb_decode(const void *p, size_t len, rec_sec_fdtb_fn fn, void *arg, char *why,
		       size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	char path[REC_FDTB_PATH_MAX + 1];
	uint32_t ver = 0, n = 0;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &n)) {
		snprintf(why, whylen, "FDTB section of %zu bytes", len);
		return -EINVAL;
	}
	if (ver != REC_SEC_VERSION)
		return 0;
	if (cursor_left(&c) / REC_FDTB_ENTRY < n) {
		snprintf(why, whylen, "FDTB says %u descriptors in %zu bytes", n, len);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pid, fd, plen;
		int ret;

		if (cursor_u32(&c, &pid) || cursor_u32(&c, &fd) || cursor_u32(&c, &plen) ||
		    plen > REC_FDTB_PATH_MAX || cursor_copy(&c, path, plen) ||
		    !cursor_take(&c, (4 - plen % 4) % 4) || memchr(path, 0, plen)) {
			snprintf(why, whylen, "FDTB entry %u of %u is damaged", i + 1, n);
			return -EINVAL;
		}
		path[plen] = 0;
		ret = fn(arg, pid, (int)fd, path);
		if (ret)
			return ret;
	}
	return 0;
}

/* rec_sec_comm_decode - each process name to fn */
int rec_sec_comm_decode(const void *p, size_t len, rec_sec_comm_fn fn, void *arg, char *why,
		       size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver = 0, n = 0;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &n) || ver != REC_SEC_VERSION) {
		snprintf(why, whylen, "COMM section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	if (cursor_left(&c) / REC_COMM_ENTRY < n) {
		snprintf(why, whylen, "COMM says %u processes in %zu bytes", n, len);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *comm;
		uint32_t pid;

		if (cursor_u32(&c, &pid) || !(comm = cursor_take(&c, 16)))
			return -EINVAL;
		fn(arg, pid, comm);
	}
	return 0;
}

/* rec_sec_trig_encode - u32 version, then what fired and the window as key=value lines */
void rec_sec_trig_encode(struct rec_buf *b, const struct rec_sec_trig *t)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_meta(b, "what", "%s", t->what);
	rec_buf_meta(b, "reason", "%s", t->reason);
	rec_buf_meta(b, "t_trigger", "%llu", (unsigned long long)t->t_trigger);
	rec_buf_meta(b, "t_from", "%llu", (unsigned long long)t->t_from);
	rec_buf_meta(b, "t_to", "%llu", (unsigned long long)t->t_to);
}

/* rec_sec_trig_u64 - a decimal u64 value: 0 or -EINVAL */
static int rec_sec_trig_u64(const char *v, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* rec_sec_trig_decode - the lines of TRIG, copied to *text and split there */
int rec_sec_trig_decode(const void *p, size_t len, struct rec_sec_trig *t, char **text,
			char *why, size_t whylen)
{
	char *line, *save = NULL;

	memset(t, 0, sizeof(*t));
	*text = NULL;
	if (rec_sec_version(p, len) != REC_SEC_VERSION)
		return 0;	/* a later layout: --info leaves it out */
	*text = malloc(len - 4 + 1);
	if (!*text)
		return -ENOMEM;
	memcpy(*text, (const char *)p + 4, len - 4);
	(*text)[len - 4] = 0;
	if (strlen(*text) != len - 4) {
		snprintf(why, whylen, "TRIG holds a NUL byte");
		return -EINVAL;
	}
	for (line = strtok_r(*text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, '=');
		int bad = 0;

		if (!val)
			continue;
		*val++ = 0;
		if (!strcmp(line, "what"))
			t->what = val;
		else if (!strcmp(line, "reason"))
			t->reason = val;
		else if (!strcmp(line, "t_trigger"))
			bad = rec_sec_trig_u64(val, &t->t_trigger);
		else if (!strcmp(line, "t_from"))
			bad = rec_sec_trig_u64(val, &t->t_from);
		else if (!strcmp(line, "t_to"))
			bad = rec_sec_trig_u64(val, &t->t_to);
		if (bad) {
			snprintf(why, whylen, "TRIG %s=%.32s is not a number", line, val);
			return -EINVAL;
		}
	}
	if (!t->what || !t->reason || t->t_from > t->t_to) {
		snprintf(why, whylen, "TRIG lacks what or reason, or its window ends before it starts");
		return -EINVAL;
	}
	return 0;
}

/* rec_sec_stat_encode - u32 version, u32 zero, u64 end time, u64 records, u64 samples */
void rec_sec_stat_encode(struct rec_buf *b, uint64_t t_end, uint64_t records, uint64_t samples)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
	rec_buf_u64(b, t_end);
	rec_buf_u64(b, records);
	rec_buf_u64(b, samples);
}

/* rec_sec_stat_decode - the end time */
int rec_sec_stat_decode(const void *p, size_t len, uint64_t *t_end, char *why, size_t whylen)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver = 0, zero;

	if (len < REC_STAT_SIZE || cursor_u32(&c, &ver) || ver != REC_SEC_VERSION ||
	    cursor_u32(&c, &zero) || cursor_u64(&c, t_end)) {
		snprintf(why, whylen, "STAT section of %zu bytes, version %u", len,
			 rec_sec_version(p, len));
		return -EINVAL;
	}
	return 0;
}

/* rec_sec_maps_begin - u32 version, u32 count (patched by rec_sec_maps_end) */
void rec_sec_maps_begin(struct rec_buf *b)
{
	rec_buf_u32(b, REC_SEC_VERSION);
	rec_buf_u32(b, 0);
}

/*
 * rec_sec_maps_add - u32 pid, u16 path length, u8 build-id length, u8 0, u64
 * start, u64 len, u64 pgoff, the build-id bytes, the path bytes (no NUL)
 */
int rec_sec_maps_add(struct rec_buf *b, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *path, const uint8_t *build_id, uint8_t build_id_len)
{
	size_t plen = strlen(path);
	uint16_t pl = (uint16_t)plen;
	uint8_t lens[2] = { build_id_len, 0 };

	if (plen > MAPS_PATH_MAX)
		return 0;
	/* One section is one chunk: what does not fit is left to the MMAP2 records. */
	if (b->len + REC_MAPS_FIXED + build_id_len + plen > REC_CHUNK_MAX)
		return -E2BIG;
	rec_buf_u32(b, pid);
	rec_buf_put(b, &pl, sizeof(pl));
	rec_buf_put(b, lens, sizeof(lens));
	rec_buf_u64(b, start);
	rec_buf_u64(b, len);
	rec_buf_u64(b, pgoff);
	rec_buf_put(b, build_id, build_id_len);
	rec_buf_put(b, path, plen);
	return b->err;
}

/* rec_sec_maps_end - the count of mappings added */
void rec_sec_maps_end(struct rec_buf *b, uint32_t count)
{
	rec_buf_patch_u32(b, 4, count);
}

/* rec_sec_maps_decode - each mapping to fn */
int rec_sec_maps_decode(const void *p, size_t len, rec_sec_map_fn fn, void *arg)
{
	struct cursor c = cursor_make(p, len);
	uint32_t ver, count;

	if (cursor_u32(&c, &ver) || cursor_u32(&c, &count))
		return -EINVAL;
	if (ver != REC_SEC_VERSION)
		return 0;
	for (uint32_t k = 0; k < count; k++) {
		uint64_t start, mlen, pgoff;
		const uint8_t *bid;
		char path[MAPS_PATH_MAX + 1];
		uint16_t plen;
		uint32_t pid;
		uint8_t blen;

		if (cursor_u32(&c, &pid) || cursor_u16(&c, &plen) || cursor_u8(&c, &blen) ||
		    !cursor_take(&c, 1) || cursor_u64(&c, &start) || cursor_u64(&c, &mlen) ||
		    cursor_u64(&c, &pgoff))
			return -EINVAL;
		if (blen > REC_MAPS_BUILD_ID_MAX || plen > MAPS_PATH_MAX ||
		    !(bid = cursor_take(&c, blen)) || cursor_copy(&c, path, plen))
			return -EINVAL;
		path[plen] = 0;
		fn(arg, pid, start, mlen, pgoff, path, bid, blen);
	}
	return 0;
}
