/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HIST_H
#define IOTAP_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_LOG2_SLOTS 65
#define HIST_FINE_SUB 64			/* sub-buckets per power of two: 1.6% error */
#define HIST_FINE_SLOTS (HIST_FINE_SUB + 58 * HIST_FINE_SUB)

/*
 * A histogram as BCC prints it (slot i holds [2^(i-1), 2^i - 1], 0 and 1 in
 * slot 1), plus exact count/sum/min/max and a fine log-linear copy that
 * gives percentiles within 1.6%. le[i] counts the same values by Prometheus'
 * inclusive bounds, (2^(i-1), 2^i] (0 and 1 in le[0]): BCC's slots put a
 * value of exactly 2^i above the bound le="2^i", which must count it.
 */
struct hist {
	uint64_t slot[HIST_LOG2_SLOTS];
	uint64_t le[HIST_LOG2_SLOTS];
	uint64_t count, sum, min, max;
	uint32_t *fine;			/* allocated on first add */
};

/*
 * Log2 buckets alone, with their count and sum: what a Prometheus histogram
 * publishes, at a fraction of hist_add's cost and none of its fine buckets'
 * memory (the exporter's series). slot[i] counts as struct hist's slot[i]
 * (hist_buckets_add) or as its le[i] (hist_buckets_add_le): one or the other
 * for all of a histogram's values, as its publisher reads them.
 */
struct hist_buckets {
	uint64_t slot[HIST_LOG2_SLOTS];
	uint64_t count, sum;
};

/*
 * A histogram as bpftrace's hist() prints it: buckets [0], [1], [2, 4), ...
 * [2^63, 2^64), and only the rows from the lowest to the highest used one,
 * with '@' bars 52 wide.
 */
#define HIST_BT_SLOTS 65
#define HIST_BT_BAR 52

struct hist_bt {
	uint64_t slot[HIST_BT_SLOTS];
	uint64_t count, sum;
};

/* Histograms by section name ("disk = sda", "flags = Read"), printed sorted. */
struct hist_set {
	char **keys;
	struct hist *h;
	size_t nr, cap;
};

/* hist_log2_slot - BCC's bpf_log2l(v) + 1 slot: 0 and 1 share slot 1 */
static inline unsigned int hist_log2_slot(uint64_t v)
{
	return v < 2 ? 1 : 64 - __builtin_clzll(v);
}

/* hist_le_slot - the smallest i with v <= 2^i: Prometheus' bucket le="2^i" */
static inline unsigned int hist_le_slot(uint64_t v)
{
	return v < 2 ? 0 : 64 - __builtin_clzll(v - 1);
}

/* hist_buckets_add - count v in its slot as struct hist's slot[] counts */
static inline void hist_buckets_add(struct hist_buckets *b, uint64_t v)
{
	b->slot[hist_log2_slot(v)]++;
	b->count++;
	b->sum += v;
}

/* hist_buckets_add_le - count v in its slot as struct hist's le[] counts */
static inline void hist_buckets_add_le(struct hist_buckets *b, uint64_t v)
{
	b->slot[hist_le_slot(v)]++;
	b->count++;
	b->sum += v;
}
/* hist_add - count one value: 0 or -ENOMEM */
int hist_add(struct hist *h, uint64_t v);
void hist_reset(struct hist *h);
void hist_release(struct hist *h);
uint64_t hist_percentile(const struct hist *h, double p);
/*
 * hist_print_log2 - BCC's print_log2_hist layout, byte for byte: 0, or -EIO when out has an
 * error
 */
int hist_print_log2(const struct hist *h, FILE *out, const char *val_type);
/* hist_print_json - one JSON object per histogram, the keys of BCC's print_json_hist: 0 or -EIO */
int hist_print_json(const struct hist *h, FILE *out, const char *val_type, const char *ts,
		    const char *section, const char *section_val);
/* hist_print_percentiles - the line iotap prints under a histogram: 0 or -EIO */
int hist_print_percentiles(const struct hist *h, FILE *out, const char *unit);
void hist_stars(char *buf, uint64_t val, uint64_t val_max, int width);
void json_str(FILE *out, const char *s);

/*
 * hist_set_get - the histogram of section key, created empty on first use; NULL with errno
 * ENOMEM
 */
struct hist *hist_set_get(struct hist_set *hs, const char *key);
void hist_set_sort(struct hist_set *hs);
/*
 * hist_set_print_log2 - every section, sorted, as BCC's "\n<section> = <key>" and histogram: 0
 * or -EIO
 */
int hist_set_print_log2(struct hist_set *hs, FILE *out, const char *section,
			const char *val_type);
/* each histogram as bpftrace prints a map, "@label[key]:" (percentiles under it), or JSON
 * lines: 0 or -EIO */
int hist_set_print_bt(struct hist_set *hs, FILE *out, const char *label, bool json,
		      bool percentiles, const char *ts);
/* "@name[key]: count" lines, bpftrace's count() maps, or {"name": key, "count": n} JSON
 * lines: 0 or -EIO */
int hist_set_print_counts(struct hist_set *hs, FILE *out, const char *name, bool json);
void hist_set_reset(struct hist_set *hs);
void hist_set_release(struct hist_set *hs);

void hist_bt_add(struct hist_bt *h, uint64_t v);
void hist_bt_merge(struct hist_bt *dst, const struct hist_bt *src);
/* hist_bt_print - the rows of a histogram, bpftrace's hist() layout: 0 or -EIO */
int hist_bt_print(const struct hist_bt *h, FILE *out);
/* a struct hist in bpftrace's layout: its fine copy tells [0] from [1]; 0 or -EIO */
int hist_print_bt(const struct hist *h, FILE *out);

#endif
