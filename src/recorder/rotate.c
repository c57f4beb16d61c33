// SPDX-License-Identifier: GPL-2.0-or-later
/* rotate.c - recordings in parts: when a part is due, its name, the parts kept */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rotate.h"

#define NSEC_PER_SEC 1000000000ull

/* rotate_number - the leading decimal digits of s: 0 with *end after them, or -EINVAL */
static int rotate_number(const char *s, uint64_t *v, const char **end)
{
	uint64_t n = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	*end = s;
	return 0;
}

/* rotate_scale - n times mul without overflow, nonzero: 0 or -EINVAL */
static int rotate_scale(uint64_t n, uint64_t mul, uint64_t *out)
{
	if (!n || n > UINT64_MAX / mul)
		return -EINVAL;
	*out = n * mul;
	return 0;
}

/* rotate_size_unit - what one of unit is in bytes, 0 when unit is no size unit */
static uint64_t rotate_size_unit(const char *unit)
{
	static const char units[] = "BKMG";
	const char *u;

	if (!*unit)
		return 1;
	if (unit[1] || !(u = strchr(units, *unit)))
		return 0;
	return 1ull << (10 * (u - units));
}

/* rotate_parse_size - a byte count with an optional B, K, M or G */
int rotate_parse_size(const char *s, uint64_t *bytes)
{
	const char *unit;
	uint64_t n, mul;

	if (!s || rotate_number(s, &n, &unit))
		return -EINVAL;
	mul = rotate_size_unit(unit);
	return mul ? rotate_scale(n, mul, bytes) : -EINVAL;
}

/* rotate_parse - --switch-output: a size, or a time in s, m, h or d */
int rotate_parse(const char *s, struct rotate_spec *out)
{
	static const struct { char unit; uint64_t secs; } times[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	const char *unit;
	uint64_t n;

	if (!s || rotate_number(s, &n, &unit))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; *unit && !unit[1] && i < sizeof(times) / sizeof(times[0]); i++)
		if (*unit == times[i].unit)
			return rotate_scale(n, times[i].secs * NSEC_PER_SEC, &out->ns);
	return rotate_parse_size(s, &out->bytes);
}

/* rotate_part_name - base.YYYYmmddHHMMSSmmm, the part's start in UTC */
int rotate_part_name(const char *base, uint64_t wall_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_ns / NSEC_PER_SEC);
	struct tm tm;
	int n;

	if (!gmtime_r(&secs, &tm))
		memset(&tm, 0, sizeof(tm));
	n = snprintf(buf, len, "%s.%04d%02d%02d%02d%02d%02d%03u", base, tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (unsigned int)(wall_ns % NSEC_PER_SEC / 1000000));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * rotate_files_add - remember a closed part in the order of the names (the
 * start times: a part held open for its requests closes after later ones);
 * remove the oldest past max
 */
int rotate_files_add(struct rotate_files *f, const char *path)
{
	char **p = realloc(f->path, (f->nr + 1) * sizeof(*p)), *copy;
	size_t i;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	f->path = p;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (i = f->nr; i > 0 && strcmp(f->path[i - 1], copy) > 0; i--)
		f->path[i] = f->path[i - 1];
	f->path[i] = copy;
	f->nr++;
	while (f->max && f->nr > f->max) {
		if (unlink(f->path[0]) && errno != ENOENT && !ret)
			ret = -errno;
		free(f->path[0]);
		memmove(f->path, f->path + 1, --f->nr * sizeof(*f->path));
	}
	return ret;
}

/* rotate_files_release - forget the parts (the files stay); safe twice */
void rotate_files_release(struct rotate_files *f)
{
	for (size_t i = 0; i < f->nr; i++)
		free(f->path[i]);
	free(f->path);
	f->path = NULL;
	f->nr = 0;
}

/* handover_init - one part, open to every time until the first boundary */
void handover_init(struct handover *h)
{
	memset(h, 0, sizeof(*h));
	h->part[0].t1 = UINT64_MAX;
	h->nr = 1;
}

/* handover_find - the open part whose span holds first; -1 when it closed */
int handover_find(const struct handover *h, uint64_t first)
{
	for (size_t i = h->nr; i-- > 0;)
		if (first >= h->part[i].t0 && first < h->part[i].t1)
			return (int)i;
	return -1;
}

/* handover_seen - one more request in flight in the part its first event falls in */
void handover_seen(struct handover *h, uint64_t first)
{
	int i = handover_find(h, first);

	if (i >= 0)
		h->part[i].inflight++;
}

/*
 * handover_done - a request completed; counts never go below zero (evicted,
 * never seen); its part closed while it was in flight: split over two parts
 */
void handover_done(struct handover *h, uint64_t first)
{
	int i = handover_find(h, first);

	if (i < 0)
		h->split++;
	else if (h->part[i].inflight)
		h->part[i].inflight--;
}

/* handover_full - no room for another part until the oldest closes */
bool handover_full(const struct handover *h)
{
	return h->nr == ROTATE_OPEN_MAX;
}

/* handover_boundary - the last part ends at t0, a new one begins there */
int handover_boundary(struct handover *h, uint64_t t0)
{
	if (handover_full(h))
		return -ENOSPC;
	h->part[h->nr - 1].t1 = t0;
	h->part[h->nr++] = (struct handover_part){ .t0 = t0, .t1 = UINT64_MAX };
	return 0;
}

/* handover_due - the oldest part before the last whose requests completed or aged out */
int handover_due(const struct handover *h, uint64_t now)
{
	for (size_t i = 0; i + 1 < h->nr; i++)
		if (!h->part[i].inflight || now >= h->part[i].t1 + ROTATE_HANDOVER_NS)
			return (int)i;
	return -1;
}

/* handover_drop - part i has no file any more: its requests are counted as not written */
void handover_drop(struct handover *h, size_t i)
{
	h->part[i].dropped = true;
}

/* handover_close - forget part i; what it had in flight is given up */
uint64_t handover_close(struct handover *h, size_t i)
{
	uint64_t given_up = h->part[i].dropped ? 0 : h->part[i].inflight;

	memmove(h->part + i, h->part + i + 1, (h->nr - i - 1) * sizeof(*h->part));
	h->nr--;
	return given_up;
}
