// SPDX-License-Identifier: GPL-2.0-or-later
/* field.c - name-based, offset-cached access to tracepoint fields */
#include <errno.h>
#include <string.h>

#include <event-parse.h>

#include "field.h"

/*
 * field_find - ev's field called name, not a common one (as tep_find_field()),
 * or NULL; first characters compared before names, as a tool's setup looks up
 * hundreds of fields that most events do not have
 */
static struct tep_format_field *field_find(struct tep_event *ev, const char *name)
{
	for (struct tep_format_field *tf = ev->format.fields; tf; tf = tf->next)
		if (tf->name[0] == name[0] && !strcmp(tf->name, name))
			return tf;
	return NULL;
}

/*
 * field_read - an unsigned number of size bytes at p, in the trace's byte
 * order: a plain load where it is this host's (every live trace), which is
 * most of what decoding an event costs
 */
static uint64_t field_read(const struct field *f, const char *p, int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		memcpy(&v2, p, 2);
		return f->swap ? __builtin_bswap16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return f->swap ? __builtin_bswap32(v4) : v4;
	case 8:
		memcpy(&v8, p, 8);
		return f->swap ? __builtin_bswap64(v8) : v8;
	default:
		return tep_read_number(f->tep, p, size);
	}
}

/* field_init - locate name in ev's format; -ENOENT leaves the field absent */
int field_init(struct field *f, struct tep_event *ev, const char *name)
{
	struct tep_format_field *tf = field_find(ev, name);

	memset(f, 0, sizeof(*f));
	if (!tf)
		return -ENOENT;
	f->tep = ev->tep;
	f->offset = tf->offset;
	f->size = tf->size;
	f->dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->swap = tep_is_file_bigendian(ev->tep) != tep_is_local_bigendian(ev->tep);
	f->present = true;
	return 0;
}

/* field_init_any - the first of several names a field has had across kernels */
int field_init_any(struct field *f, struct tep_event *ev, const char *const *names)
{
	for (; *names; names++)
		if (field_init(f, ev, *names) == 0)
			return 0;
	return -ENOENT;
}

/* field_u64 - the field as an unsigned number; 0 when absent or out of the record */
uint64_t field_u64(const struct field *f, const void *raw, uint32_t size)
{
	if (!f->present || f->dynamic || f->size > 8 || (uint32_t)f->offset + f->size > size)
		return 0;
	return field_read(f, (const char *)raw + f->offset, f->size);
}

/* field_s64 - the field sign-extended from its own width */
int64_t field_s64(const struct field *f, const void *raw, uint32_t size)
{
	uint64_t v = field_u64(f, raw, size);
	int bits = f->size * 8;

	if (f->is_signed && bits > 0 && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return (int64_t)v;
}

/* field_str - copy a char array or __data_loc string field, NUL-terminated; returns its length */
size_t field_str(const struct field *f, const void *raw, uint32_t size, char *out, size_t outlen)
{
	uint32_t off = f->offset, len = f->size;
	size_t n;

	if (!outlen)
		return 0;
	out[0] = 0;
	if (!f->present || (uint32_t)f->offset + f->size > size)
		return 0;
	if (f->dynamic) {
		uint32_t loc = (uint32_t)field_read(f, (const char *)raw + f->offset, 4);

		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > size)
			return 0;
	}
	n = strnlen((const char *)raw + off, len);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, (const char *)raw + off, n);
	out[n] = 0;
	return n;
}
