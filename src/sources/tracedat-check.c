// SPDX-License-Identifier: GPL-2.0-or-later
/* tracedat-check.c - a trace.dat's sizes against its length, before libtracecmd (tracedat-check.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracedat-check.h"

/* A cursor over the file: every read and skip is checked against its size. */
struct td_cur {
	int fd;
	uint64_t off, size;
	bool swap;		/* the file's byte order is not this host's */
	const char *why;
};

/* cur_read - n bytes at the cursor: 0, -EINVAL past the end, or -errno */
static int cur_read(struct td_cur *c, void *buf, size_t n, const char *what)
{
	ssize_t r;

	if (n > c->size - c->off) {
		c->why = what;
		return -EINVAL;
	}
	r = pread(c->fd, buf, n, (off_t)c->off);
	if (r < 0)
		return -errno;
	if ((size_t)r != n) {
		c->why = what;
		return -EINVAL;
	}
	c->off += n;
	return 0;
}

/* cur_skip - n bytes on, which must be in the file */
static int cur_skip(struct td_cur *c, uint64_t n, const char *what)
{
	if (n > c->size - c->off) {
		c->why = what;
		return -EINVAL;
	}
	c->off += n;
	return 0;
}

static int cur_u16(struct td_cur *c, uint16_t *v, const char *what)
{
	int ret = cur_read(c, v, 2, what);

	if (!ret && c->swap)
		*v = __builtin_bswap16(*v);
	return ret;
}

static int cur_u32(struct td_cur *c, uint32_t *v, const char *what)
{
	int ret = cur_read(c, v, 4, what);

	if (!ret && c->swap)
		*v = __builtin_bswap32(*v);
	return ret;
}

static int cur_u64(struct td_cur *c, uint64_t *v, const char *what)
{
	int ret = cur_read(c, v, 8, what);

	if (!ret && c->swap)
		*v = __builtin_bswap64(*v);
	return ret;
}

/* cur_str - a NUL-terminated string of under len bytes into buf */
static int cur_str(struct td_cur *c, char *buf, size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		int ret = cur_read(c, &buf[i], 1, what);

		if (ret)
			return ret;
		if (!buf[i])
			return 0;
	}
	c->why = what;
	return -EINVAL;
}

/* cur_sized - a u32 (wide false) or u64 size, then that many bytes, all in the file */
static int cur_sized(struct td_cur *c, bool wide, const char *what)
{
	uint32_t n32;
	uint64_t n;
	int ret;

	if (wide) {
		ret = cur_u64(c, &n, what);
	} else {
		ret = cur_u32(c, &n32, what);
		n = n32;
	}
	return ret ? ret : cur_skip(c, n, what);
}

/* v6_formats - the header files, ftrace's and the systems' event formats */
static int v6_formats(struct td_cur *c)
{
	char name[64];
	uint32_t n, m;
	int ret;

	for (int i = 0; i < 2; i++) {
		ret = cur_str(c, name, sizeof(name), "the header files' names");
		if (!ret)
			ret = cur_sized(c, true, "a header file's size");
		if (ret)
			return ret;
	}
	ret = cur_u32(c, &n, "ftrace's format count");
	for (uint32_t i = 0; !ret && i < n; i++)
		ret = cur_sized(c, true, "an ftrace format's size");
	if (!ret)
		ret = cur_u32(c, &n, "the event systems' count");
	for (uint32_t i = 0; !ret && i < n; i++) {
		ret = cur_str(c, name, sizeof(name), "an event system's name");
		if (!ret)
			ret = cur_u32(c, &m, "an event system's format count");
		for (uint32_t j = 0; !ret && j < m; j++)
			ret = cur_sized(c, true, "an event format's size");
	}
	return ret;
}

/* v6_data - the options, then where each CPU's data is: within the file */
static int v6_data(struct td_cur *c)
{
	char tag[10];
	uint64_t off, len;
	uint32_t cpus;
	uint16_t id;
	int ret;

	ret = cur_u32(c, &cpus, "the CPU count");
	if (!ret)
		ret = cur_read(c, tag, sizeof(tag), "the options or data tag");
	if (!ret && !memcmp(tag, "options  ", sizeof(tag))) {
		for (;;) {
			ret = cur_u16(c, &id, "an option's id");
			if (ret || !id)
				break;
			ret = cur_sized(c, false, "an option's size");
			if (ret)
				return ret;
		}
		if (!ret)
			ret = cur_read(c, tag, sizeof(tag), "the data tag");
	}
	if (ret || memcmp(tag, "flyrecord", sizeof(tag)))
		return ret;	/* latency data is text to the end, read as it comes */
	for (uint32_t i = 0; i < cpus; i++) {
		ret = cur_u64(c, &off, "a CPU's data offset");
		if (!ret)
			ret = cur_u64(c, &len, "a CPU's data size");
		if (ret)
			return ret;
		if (off > c->size || len > c->size - off) {
			c->why = "a CPU's data, which ends past the file";
			return -EINVAL;
		}
	}
	return 0;
}

/* tracedat_check - see tracedat-check.h */
int tracedat_check(int fd, unsigned long long size, char *why, size_t whylen)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct td_cur c = { .fd = fd, .size = size, .why = "" };
	uint8_t head[10], endian, lsize;
	char version[16];
	uint32_t page;
	int ret;

	ret = cur_read(&c, head, sizeof(head), "the magic");
	if (!ret && memcmp(head, magic, sizeof(magic))) {
		c.why = "the magic";
		ret = -EINVAL;
	}
	if (!ret)
		ret = cur_str(&c, version, sizeof(version), "the version");
	if (!ret)
		ret = cur_read(&c, &endian, 1, "the byte order");
	if (!ret) {
		c.swap = (endian != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		ret = cur_read(&c, &lsize, 1, "the long size");
	}
	if (!ret)
		ret = cur_u32(&c, &page, "the page size");
	/* Version 7 (and any other): what follows is libtracecmd's to judge. */
	if (!ret && !strcmp(version, "6")) {
		ret = v6_formats(&c);
		if (!ret)
			ret = cur_sized(&c, false, "the kallsyms size");
		if (!ret)
			ret = cur_sized(&c, false, "the printk formats' size");
		if (!ret)
			ret = cur_sized(&c, true, "the cmdlines' size");
		if (!ret)
			ret = v6_data(&c);
	}
	if (ret == -EINVAL)
		snprintf(why, whylen, "%s", c.why);
	return ret;
}
