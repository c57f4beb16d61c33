// SPDX-License-Identifier: GPL-2.0-or-later
/* trigger.c - the flight recorder's triggers: parsed strictly, matched on completed requests */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trigger.h"

#define NSEC_PER_MSEC 1000000ull
/* A day in ms: beyond it no request is waited for (pairing gives up after 60 s). */
#define LATENCY_MAX_MS 86400000ull

/* trigger_ms - "MS[.frac]" of exactly len bytes into ns: 0 or -EINVAL */
static int trigger_ms(const char *s, size_t len, uint64_t *ns)
{
	uint64_t ms = 0, frac = 0, scale = NSEC_PER_MSEC;
	size_t i = 0, digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		ms = ms * 10 + (uint64_t)(s[i] - '0');
		if (ms > LATENCY_MAX_MS)
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		size_t fd = 0;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, fd++) {
			if (fd == 6)
				return -EINVAL;
			scale /= 10;
			frac += (uint64_t)(s[i] - '0') * scale;
		}
		if (!fd)
			return -EINVAL;
	}
	if (i != len)
		return -EINVAL;
	*ns = ms * NSEC_PER_MSEC + frac;
	return *ns ? 0 : -EINVAL;
}

/* trigger_item - one condition of the list, len bytes at s */
static int trigger_item(const char *s, size_t len, struct trigger *t, char *why, size_t whylen)
{
	static const char lat[] = "latency>";

	if (len == 5 && !memcmp(s, "error", 5)) {
		if (t->error) {
			snprintf(why, whylen, "'error' is given twice");
			return -EINVAL;
		}
		t->error = true;
		return 0;
	}
	if (len >= sizeof(lat) - 1 && !memcmp(s, lat, sizeof(lat) - 1)) {
		if (t->latency_ns) {
			snprintf(why, whylen, "'latency>' is given twice");
			return -EINVAL;
		}
		if (trigger_ms(s + sizeof(lat) - 1, len - (sizeof(lat) - 1), &t->latency_ns)) {
			snprintf(why, whylen,
				 "'%.*s': latency>MS takes milliseconds above 0 and at most %llu, with at most 6 decimals",
				 (int)(len > 64 ? 64 : len), s, LATENCY_MAX_MS);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, whylen, "'%.*s' is not a condition: latency>MS or error",
		 (int)(len > 64 ? 64 : len), s);
	return -EINVAL;
}

/* trigger_parse - a comma-separated list of conditions */
int trigger_parse(const char *s, struct trigger *t, char *why, size_t whylen)
{
	memset(t, 0, sizeof(*t));
	if (!s || !*s) {
		snprintf(why, whylen, "empty trigger: latency>MS or error");
		return -EINVAL;
	}
	/* Refusals quote the list: keep control characters out of the one line they print. */
	for (const char *c = s; *c; c++) {
		if (*c < 0x20 || *c > 0x7e) {
			snprintf(why, whylen, "the trigger holds a character that is not printable ASCII");
			return -EINVAL;
		}
	}
	for (;;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		int ret = trigger_item(s, len, t, why, whylen);

		if (ret)
			return ret;
		if (!end)
			return 0;
		s = end + 1;
	}
}

