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

/* field_read_other - a number of an unusual width, through libtraceevent */
uint64_t field_read_other(const struct field *f, const char *p, int size)
{
	return tep_read_number(f->tep, p, size);
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
	/* One pass that copies and finds the end: the arrays are a few bytes (rwbs, comm). */
	if (len > outlen - 1)
		len = (uint32_t)(outlen - 1);
	for (n = 0; n < len && ((const char *)raw)[off + n]; n++)
		out[n] = ((const char *)raw)[off + n];
	out[n] = 0;
	return n;
}
