/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CURSOR_H
#define IOTAP_CURSOR_H

/*
 * The one reader of binary input (perf records, recording sections): every
 * read is checked against the end, and fails (-EINVAL, or NULL) rather
 * than reading past it. Integers are in host order, as perf and the
 * recording write them (a recording of another byte order is refused
 * before its sections are read).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *p, *end;
};

/* cursor_make - a cursor over len bytes at p */
static inline struct cursor cursor_make(const void *p, size_t len)
{
	return (struct cursor){ p, (const uint8_t *)p + len };
}

/* cursor_left - bytes not read yet */
static inline size_t cursor_left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}

/* cursor_take - n bytes, reserved; NULL (nothing consumed) when fewer are left */
static inline const void *cursor_take(struct cursor *c, uint64_t n)
{
	const void *at = c->p;

	if (cursor_left(c) < n)
		return NULL;
	c->p += n;
	return at;
}

/* cursor_copy - n bytes into out; -EINVAL when fewer are left */
static inline int cursor_copy(struct cursor *c, void *out, size_t n)
{
	const void *at = cursor_take(c, n);

	if (!at)
		return -EINVAL;
	memcpy(out, at, n);
	return 0;
}

/* cursor_u8, cursor_u16, cursor_u32, cursor_u64 - one integer; -EINVAL past the end */
static inline int cursor_u8(struct cursor *c, uint8_t *v)
{
	return cursor_copy(c, v, sizeof(*v));
}

static inline int cursor_u16(struct cursor *c, uint16_t *v)
{
	return cursor_copy(c, v, sizeof(*v));
}

static inline int cursor_u32(struct cursor *c, uint32_t *v)
{
	return cursor_copy(c, v, sizeof(*v));
}

static inline int cursor_u64(struct cursor *c, uint64_t *v)
{
	return cursor_copy(c, v, sizeof(*v));
}

#endif
