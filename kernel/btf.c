// SPDX-License-Identifier: GPL-2.0-or-later
/* btf.c - member offsets of kernel structures from the kernel's BTF */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf.h"

#define BTF_MAGIC 0xeb9f
#define BTF_KIND_STRUCT 4
#define BTF_KIND_UNION 5

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len;
	uint32_t type_off, type_len, str_off, str_len;
};

struct btf_type {
	uint32_t name_off;
	uint32_t info;			/* vlen: bits 0-15, kind: 24-28, kind_flag: 31 */
	uint32_t size_or_type;
};

struct btf_member {
	uint32_t name_off;
	uint32_t type;
	uint32_t offset;		/* bits; with kind_flag, bitfield size in the top 8 */
};

/* btf_extra - bytes that follow a type record of kind with vlen entries; -EINVAL: unknown kind */
static long btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case 1: case 14: case 17:	/* int, var, decl_tag */
		return 4;
	case 3:				/* array */
		return 12;
	case 4: case 5: case 15: case 19:	/* struct, union, datasec, enum64 */
		return 12l * vlen;
	case 6: case 13:		/* enum, func_proto */
		return 8l * vlen;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18:
		return 0;
	default:
		return -EINVAL;
	}
}

/* btf_str - the string at off, or NULL when outside the string section */
static const char *btf_str(const char *strs, uint32_t len, uint32_t off)
{
	if (off >= len || !memchr(strs + off, 0, len - off))
		return NULL;
	return strs + off;
}

/* btf_member_offset - byte offset of member in the first struct/union named strct */
int btf_member_offset(const void *data, size_t len, const char *strct, const char *member,
		      uint32_t *offset)
{
	const struct btf_hdr *h = data;
	const char *base = data, *types, *strs, *end;
	const char *p;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > len ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > len)
		return -EINVAL;
	types = base + h->hdr_len + h->type_off;
	end = types + h->type_len;
	strs = base + h->hdr_len + h->str_off;
	for (p = types; p + sizeof(struct btf_type) <= end;) {
		const struct btf_type *t = (const void *)p;
		unsigned int kind = (t->info >> 24) & 0x1f, vlen = t->info & 0xffff;
		long extra = btf_extra(kind, vlen);
		const char *name;

		if (extra < 0 || p + sizeof(*t) + extra > end)
			return -EINVAL;
		name = btf_str(strs, h->str_len, t->name_off);
		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) && name &&
		    !strcmp(name, strct)) {
			const struct btf_member *m = (const void *)(p + sizeof(*t));
			bool bitfields = t->info >> 31;

			for (unsigned int i = 0; i < vlen; i++) {
				const char *mn = btf_str(strs, h->str_len, m[i].name_off);
				uint32_t bits = bitfields ? m[i].offset & 0xffffff : m[i].offset;

				if (mn && !strcmp(mn, member)) {
					if (bits % 8)
						return -ENOTSUP;
					*offset = bits / 8;
					return 0;
				}
			}
			return -ENOENT;
		}
		p += sizeof(*t) + extra;
	}
	return -ENOENT;
}

/* btf_vmlinux_member_offset - the same from the running kernel's BTF; -ENOENT without it */
int btf_vmlinux_member_offset(const char *strct, const char *member, uint32_t *offset)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	size_t cap = 8 << 20, len = 0;
	char *buf;
	int ret;

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	/* sysfs gives no useful size: read until the end, growing the buffer. */
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	ret = btf_member_offset(buf, len, strct, member, offset);
out:
	free(buf);
	close(fd);
	return ret;
}
