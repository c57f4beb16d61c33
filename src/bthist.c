// SPDX-License-Identifier: GPL-2.0-or-later
/* bthist.c - print a histogram as bpftrace's hist() does */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "bthist.h"

#define BTHIST_BAR 52

/* bthist_label - a bucket bound as bpftrace writes it: 512, 1K, 2M */
static void bthist_label(char *buf, size_t len, unsigned int power)
{
	static const char suffix[] = " KMGTPE";
	unsigned int k = power / 10;

	if (k)
		snprintf(buf, len, "%llu%c", 1ull << (power - 10 * k), suffix[k]);
	else
		snprintf(buf, len, "%llu", 1ull << power);
}

/* bthist_count - bpftrace row i: [0], [1], then [2^(i-1), 2^i), which is hist slot i */
static uint64_t bthist_count(const struct hist *h, int i)
{
	/* The fine copy is exact below 64: it tells 0 from 1, which slot 1 holds together. */
	if (i < 2)
		return h->fine ? h->fine[i] : 0;
	return h->slot[i];
}

/* bthist_print - the rows of h; -EIO when out fails */
int bthist_print(const struct hist *h, FILE *out)
{
	uint64_t max = 0;
	int lo = -1, hi = -1;

	for (int i = 0; i < HIST_LOG2_SLOTS; i++) {
		uint64_t c = bthist_count(h, i);

		if (!c)
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (c > max)
			max = c;
	}
	for (int i = lo; i >= 0 && i <= hi; i++) {
		char label[64], a[24], b[24], bar[BTHIST_BAR + 1];
		uint64_t c = bthist_count(h, i);
		int w = (int)(c / (double)max * BTHIST_BAR);

		if (i < 2) {
			snprintf(label, sizeof(label), "[%d]", i);
		} else {
			bthist_label(a, sizeof(a), i - 1);
			bthist_label(b, sizeof(b), i);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		memset(bar, '@', w);
		bar[w] = 0;
		fprintf(out, "%-16s%8" PRIu64 " |%-*s|\n", label, c, BTHIST_BAR, bar);
	}
	return ferror(out) ? -EIO : 0;
}
