/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FIELD_H
#define IOTAP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
uint64_t field_u64(const struct field *f, const void *raw, uint32_t size);
int64_t field_s64(const struct field *f, const void *raw, uint32_t size);
size_t field_str(const struct field *f, const void *raw, uint32_t size, char *out, size_t outlen);

#endif
