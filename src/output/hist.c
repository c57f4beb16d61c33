// SPDX-License-Identifier: GPL-2.0-or-later
/* hist.c - log2 and linear histograms with percentiles, printed as BCC does */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

/* hist_fine_slot - log-linear bucket: exact below 64, then 64 per power of two */
static unsigned int hist_fine_slot(uint64_t v)
{
	unsigned int e;

	if (v < HIST_FINE_SUB)
		return v;
	e = 63 - __builtin_clzll(v);
	return HIST_FINE_SUB + (e - 6) * HIST_FINE_SUB + ((v >> (e - 6)) & (HIST_FINE_SUB - 1));
}

/* hist_fine_top - the largest value that falls in fine bucket i */
static uint64_t hist_fine_top(unsigned int i)
{
	unsigned int e, sub;

	if (i < HIST_FINE_SUB)
		return i;
	e = (i - HIST_FINE_SUB) / HIST_FINE_SUB + 6;
	sub = (i - HIST_FINE_SUB) % HIST_FINE_SUB;
	return ((uint64_t)(HIST_FINE_SUB + sub) << (e - 6)) + ((1ull << (e - 6)) - 1);
}

/* hist_add - count one value */
int hist_add(struct hist *h, uint64_t v)
{
	if (!h->fine) {
		h->fine = calloc(HIST_FINE_SLOTS, sizeof(*h->fine));
		if (!h->fine)
			return -ENOMEM;
	}
	h->slot[hist_log2_slot(v)]++;
	h->le[hist_le_slot(v)]++;
	h->fine[hist_fine_slot(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	return 0;
}

/* hist_reset - forget all values, keeping the allocation */
void hist_reset(struct hist *h)
{
	uint32_t *fine = h->fine;

	memset(h, 0, sizeof(*h));
	if (fine)
		memset(fine, 0, HIST_FINE_SLOTS * sizeof(*fine));
	h->fine = fine;
}

/* hist_release - free the fine buckets; safe twice */
void hist_release(struct hist *h)
{
	free(h->fine);
	memset(h, 0, sizeof(*h));
}

/* hist_percentile - the p-th percentile (0 < p <= 100), within 1.6%, never above max */
uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count || !h->fine)
		return 0;
	if (p >= 100)
		return h->max;
	rank = (uint64_t)(p / 100.0 * h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < HIST_FINE_SLOTS; i++) {
		seen += h->fine[i];
		if (seen >= rank) {
			uint64_t top = hist_fine_top(i);

			return top < h->max ? top : h->max;
		}
	}
	return h->max;
}

/* hist_stars - BCC's bar: floor(width * val / val_max) stars, '+' when over */
void hist_stars(char *buf, uint64_t val, uint64_t val_max, int width)
{
	int n = 0;

	if (val_max) {
		/* Same comparison as BCC's float loop, in exact integers. */
		while (n < width && (uint64_t)(n + 1) * val_max <= (uint64_t)width * val)
			n++;
	}
	memset(buf, '*', n);
	buf[n] = 0;
	if (val > val_max && n > 0)
		buf[n - 1] = '+';
}

/* hist_print_log2 - BCC's print_log2_hist layout, byte for byte */
int hist_print_log2(const struct hist *h, FILE *out, const char *val_type)
{
	int idx_max = -1, stars;
	uint64_t val_max = 0;
	char bar[64];

	for (int i = 0; i < HIST_LOG2_SLOTS; i++) {
		if (h->slot[i] > 0)
			idx_max = i;
		if (h->slot[i] > val_max)
			val_max = h->slot[i];
	}
	stars = idx_max <= 32 ? 40 : 20;
	if (idx_max > 0)
		fprintf(out, idx_max <= 32 ? "     %-19s : count     distribution\n" :
			"               %-29s : count     distribution\n", val_type);
	for (int i = 1; i <= idx_max; i++) {
		uint64_t low = (1ull << i) >> 1, high = (i == 64 ? ~0ull : (1ull << i) - 1);

		if (low == high)
			low--;
		hist_stars(bar, h->slot[i], val_max, stars);
		if (idx_max <= 32)
			fprintf(out, "%10llu -> %-10llu : %-8llu |%-*s|\n", (unsigned long long)low,
				(unsigned long long)high, (unsigned long long)h->slot[i], stars, bar);
		else
			fprintf(out, "%20llu -> %-20llu : %-8llu |%-*s|\n", (unsigned long long)low,
				(unsigned long long)high, (unsigned long long)h->slot[i], stars, bar);
	}
	return ferror(out) ? -EIO : 0;
}

/* json_str - write s as a JSON string */
void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* hist_print_json - one JSON object per histogram, the keys of BCC's print_json_hist */
int hist_print_json(const struct hist *h, FILE *out, const char *val_type, const char *ts,
		    const char *section, const char *section_val)
{
	int idx_max = 0;
	uint64_t prev = 0, index = 1;
	bool first = true;

	for (int i = 0; i < HIST_LOG2_SLOTS; i++)
		if (h->slot[i])
			idx_max = i;
	fputs("{\"ts\": ", out);
	json_str(out, ts);
	fputs(", \"val_type\": ", out);
	json_str(out, val_type);
	fputs(", \"data\": [", out);
	for (int i = 1; i <= idx_max; i++) {
		index *= 2;
		fprintf(out, "%s{\"interval-start\": %llu, \"interval-end\": %llu, \"count\": %llu}",
			first ? "" : ", ", (unsigned long long)prev,
			(unsigned long long)(index - 1), (unsigned long long)h->slot[i]);
		prev = index;
		first = false;
	}
	fputc(']', out);
	if (section) {
		fputs(", ", out);
		json_str(out, section);
		fputs(": ", out);
		json_str(out, section_val);
	}
	fprintf(out, ", \"count\": %llu, \"sum\": %llu", (unsigned long long)h->count,
		(unsigned long long)h->sum);
	if (h->count)
		fprintf(out, ", \"p50\": %llu, \"p90\": %llu, \"p99\": %llu, \"p99.9\": %llu, \"max\": %llu",
			(unsigned long long)hist_percentile(h, 50),
			(unsigned long long)hist_percentile(h, 90),
			(unsigned long long)hist_percentile(h, 99),
			(unsigned long long)hist_percentile(h, 99.9),
			(unsigned long long)h->max);
	fputs("}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* hist_print_percentiles - the line iotap prints under a histogram */
int hist_print_percentiles(const struct hist *h, FILE *out, const char *unit)
{
	if (!h->count)
		return 0;
	fprintf(out, "\n     percentiles (%s): p50 = %llu, p90 = %llu, p99 = %llu, p99.9 = %llu, max = %llu\n",
		unit, (unsigned long long)hist_percentile(h, 50),
		(unsigned long long)hist_percentile(h, 90),
		(unsigned long long)hist_percentile(h, 99),
		(unsigned long long)hist_percentile(h, 99.9), (unsigned long long)h->max);
	return ferror(out) ? -EIO : 0;
}

/* hist_set_get - the histogram of section key, created empty on first use */
struct hist *hist_set_get(struct hist_set *hs, const char *key)
{
	/* A call per request: the first letters tell most keys apart without strcmp. */
	for (size_t i = 0; i < hs->nr; i++)
		if (hs->keys[i][0] == key[0] && (!key[0] || !strcmp(hs->keys[i] + 1, key + 1)))
			return &hs->h[i];
	if (hs->nr == hs->cap) {
		size_t cap = hs->cap ? hs->cap * 2 : 8;
		char **keys = realloc(hs->keys, cap * sizeof(*keys));
		struct hist *h;

		if (!keys)
			return NULL;
		hs->keys = keys;
		h = realloc(hs->h, cap * sizeof(*h));
		if (!h)
			return NULL;
		hs->h = h;
		hs->cap = cap;
	}
	hs->keys[hs->nr] = strdup(key);
	if (!hs->keys[hs->nr])
		return NULL;
	memset(&hs->h[hs->nr], 0, sizeof(struct hist));
	return &hs->h[hs->nr++];
}

/* hist_set_sort - order sections by name for printing */
void hist_set_sort(struct hist_set *hs)
{
	/* Few sections (disks x flags): insertion sort keeps keys and histograms paired. */
	for (size_t i = 1; i < hs->nr; i++) {
		for (size_t j = i; j > 0 && strcmp(hs->keys[j - 1], hs->keys[j]) > 0; j--) {
			char *k = hs->keys[j];
			struct hist h = hs->h[j];

			hs->keys[j] = hs->keys[j - 1];
			hs->h[j] = hs->h[j - 1];
			hs->keys[j - 1] = k;
			hs->h[j - 1] = h;
		}
	}
}

/* hist_set_print_log2 - every section, sorted, as BCC's "\n<section> = <key>" and histogram */
int hist_set_print_log2(struct hist_set *hs, FILE *out, const char *section,
			const char *val_type)
{
	int ret = 0;

	hist_set_sort(hs);
	for (size_t i = 0; i < hs->nr && !ret; i++) {
		fprintf(out, "\n%s = %s\n", section, hs->keys[i]);
		ret = hist_print_log2(&hs->h[i], out, val_type);
	}
	return ret;
}

/* hist_set_reset - drop every section (an interval ended) */
void hist_set_reset(struct hist_set *hs)
{
	for (size_t i = 0; i < hs->nr; i++) {
		free(hs->keys[i]);
		hist_release(&hs->h[i]);
	}
	hs->nr = 0;
}

/* hist_set_release - free everything; safe twice */
void hist_set_release(struct hist_set *hs)
{
	hist_set_reset(hs);
	free(hs->keys);
	free(hs->h);
	memset(hs, 0, sizeof(*hs));
}

/* hist_bt_add - one value into its bpftrace bucket: [0], [1], [2, 4), ... */
void hist_bt_add(struct hist_bt *h, uint64_t v)
{
	h->slot[v ? 64 - __builtin_clzll(v) : 0]++;
	h->count++;
	h->sum += v;
}

/* hist_bt_merge - add src's counts to dst */
void hist_bt_merge(struct hist_bt *dst, const struct hist_bt *src)
{
	for (int k = 0; k < HIST_BT_SLOTS; k++)
		dst->slot[k] += src->slot[k];
	dst->count += src->count;
	dst->sum += src->sum;
}

/* hist_bt_label - a bucket bound as bpftrace writes it: 512, 1K, 2M */
static void hist_bt_label(char *buf, size_t len, unsigned int power)
{
	static const char suffix[] = " KMGT";
	unsigned int k = power >= 40 ? 4 : power / 10;

	if (k)
		snprintf(buf, len, "%llu%c", 1ull << (power - 10 * k), suffix[k]);
	else
		snprintf(buf, len, "%llu", 1ull << power);
}

/* hist_bt_print - the rows of a histogram, bpftrace's hist() layout; 0 or -EIO */
int hist_bt_print(const struct hist_bt *h, FILE *out)
{
	int lo = -1, hi = -1;
	uint64_t max = 0;

	for (int i = 0; i < HIST_BT_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (h->slot[i] > max)
			max = h->slot[i];
	}
	for (int i = lo; i >= 0 && i <= hi; i++) {
		char label[64], a[24], b[24], bar[HIST_BT_BAR + 1];
		int w = (int)(h->slot[i] / (float)max * HIST_BT_BAR);

		if (i < 2) {
			snprintf(label, sizeof(label), "[%d]", i);
		} else {
			hist_bt_label(a, sizeof(a), i - 1);
			if (i == 64)
				snprintf(b, sizeof(b), "16E");
			else
				hist_bt_label(b, sizeof(b), i);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		memset(bar, '@', w);
		bar[w] = 0;
		fprintf(out, "%-16s%8" PRIu64 " |%-*s|\n", label, h->slot[i], HIST_BT_BAR, bar);
	}
	return ferror(out) ? -EIO : 0;
}

/* hist_print_bt - a BCC-slotted histogram in bpftrace's hist() layout; 0 or -EIO */
int hist_print_bt(const struct hist *h, FILE *out)
{
	struct hist_bt bt = { .count = h->count, .sum = h->sum };

	/* Slot 1 holds 0 and 1 together; the fine copy is exact below 64 and tells them apart. */
	for (int i = 0; i < 2; i++)
		bt.slot[i] = h->fine ? h->fine[i] : 0;
	for (int i = 2; i < HIST_LOG2_SLOTS && i < HIST_BT_SLOTS; i++)
		bt.slot[i] = h->slot[i];
	return hist_bt_print(&bt, out);
}

/* hist_set_print_bt - see hist.h; 0 or -EIO */
int hist_set_print_bt(struct hist_set *hs, FILE *out, const char *label, bool json,
		      bool percentiles, const char *ts)
{
	int ret = 0;

	hist_set_sort(hs);
	for (size_t i = 0; i < hs->nr && !ret; i++) {
		if (json) {
			ret = hist_print_json(&hs->h[i], out, label, ts, "key", hs->keys[i]);
			continue;
		}
		fprintf(out, "@%s[%s]:\n", label, hs->keys[i]);
		ret = hist_print_bt(&hs->h[i], out);
		if (!ret && percentiles)
			ret = hist_print_percentiles(&hs->h[i], out, label);
		fputc('\n', out);
	}
	return ret;
}

/* hist_set_print_counts - see hist.h; 0 or -EIO */
int hist_set_print_counts(struct hist_set *hs, FILE *out, const char *name, bool json)
{
	hist_set_sort(hs);
	for (size_t i = 0; i < hs->nr; i++) {
		if (json) {
			fprintf(out, "{\"%s\": ", name);
			json_str(out, hs->keys[i]);
			fprintf(out, ", \"count\": %llu}\n", (unsigned long long)hs->h[i].count);
		} else {
			fprintf(out, "@%s[%s]: %llu\n", name, hs->keys[i],
				(unsigned long long)hs->h[i].count);
		}
	}
	if (hs->nr && !json)
		fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
