/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FIELD_H
#define IOTAP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tep_event;
struct tep_handle;

/*
 * A field located once per event type by name in the kernel's format, so
 * that decoding a record is a bounds-checked read at a known offset.
 */
struct field {
	struct tep_handle *tep;
	int offset;
	int size;
	bool present;
	bool dynamic;		/* __data_loc: offset/length word */
	bool is_signed;
	bool swap;		/* the trace's byte order is not this host's */
};

/* field_init - locate name in ev's format: 0, or -ENOENT (the field left absent) */
int field_init(struct field *f, struct tep_event *ev, const char *name);
/*
 * field_init_any - the first of several names a field has had across kernels: 0, or -ENOENT
 * for none
 */
int field_init_any(struct field *f, struct tep_event *ev, const char *const *names);
/* field_read_other - a number of a width other than 1, 2, 4 or 8 bytes at p (tep_read_number) */
uint64_t field_read_other(const struct field *f, const char *p, int size);

/*
 * field_read - an unsigned number of size bytes at p, in the trace's byte
 * order: a plain load where it is this host's (every live trace). Inline, as
 * field_u64 and field_s64 are: this is most of what decoding an event costs,
 * and a call per field cost more than the load.
 */
static inline uint64_t field_read(const struct field *f, const char *p, int size)
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
		return field_read_other(f, p, size);
	}
}

/* field_u64 - the field as an unsigned number; 0 when absent or out of the record */
static inline uint64_t field_u64(const struct field *f, const void *raw, uint32_t size)
{
	if (!f->present || f->dynamic || f->size > 8 || (uint32_t)f->offset + f->size > size)
		return 0;
	return field_read(f, (const char *)raw + f->offset, f->size);
}

/* field_s64 - the field sign-extended from its own width */
static inline int64_t field_s64(const struct field *f, const void *raw, uint32_t size)
{
	uint64_t v = field_u64(f, raw, size);
	int bits = f->size * 8;

	if (f->is_signed && bits > 0 && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return (int64_t)v;
}

size_t field_str(const struct field *f, const void *raw, uint32_t size, char *out, size_t outlen);

#endif
