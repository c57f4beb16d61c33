/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PROM_H
#define IOTAP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <stdbool.h>
#include "hist.h"

/*
 * Prometheus metrics in node_exporter's textfile-collector format. Series are
 * cumulative since prom_alloc (Prometheus counters and histograms never go
 * down), however often the tool resets its own per-interval histograms.
 * prom_write writes every series to a temporary beside PATH and renames it
 * over PATH (outfile.h: no planted symlink is followed), so a scrape never
 * reads half a file.
 */
struct prom;

/*
 * A writer for path; checks that the temporary beside it can be created, so a
 * bad path fails before tracing. A NULL path gives series kept in memory only,
 * for prom_print. NULL with errno (EINVAL: empty path, EISDIR, ENOMEM, or the
 * error creating the temporary). The caller frees with prom_free.
 */
struct prom *prom_alloc(const char *path);

/* Release p; p may be NULL. PATH stays as last written. */
void prom_free(struct prom *p);

/*
 * Append name="value" to the label list in buf (len bytes, NUL-terminated,
 * may start empty), with a comma when buf is not empty. The value is escaped
 * as the exposition format asks (\\, \" and \n); bytes that are not valid
 * UTF-8 become '?'. Returns 0, or -ENOSPC when buf is too small (buf is then
 * unchanged).
 */
int prom_label(char *buf, size_t len, const char *name, const char *value);

/*
 * Add an interval's log2 histogram h (BCC slots: slot i counts values below
 * 2^i units) to the series metric{labels}. unit is the size of h's unit in the
 * metric's base unit (1e-6 for microseconds as seconds, 1024 for Kbytes as
 * bytes); buckets run le=2^1..2^top units, then +Inf. exact: h's values are
 * the measure itself (bytes, sectors), and one of 2^i counts under le=2^i, le
 * being inclusive; otherwise each stands for a measure cut down to a whole unit
 * (a time in whole microseconds, a size in whole Kbytes) that may be up to one
 * unit more, and one of 2^i counts under le=2^(i+1), the bound that holds it.
 * The family's help and top come from its first series. Returns 0, -EINVAL (bad
 * metric name, top outside 1..64) or -ENOMEM.
 */
int prom_hist_add(struct prom *p, const char *metric, const char *help, const char *labels,
		  const struct hist *h, double unit, unsigned int top, bool exact);

/*
 * prom_hist_add of buckets alone: exact or not as b was filled (hist_buckets_add_le or
 * hist_buckets_add).
 */
int prom_buckets_add(struct prom *p, const char *metric, const char *help, const char *labels,
		     const struct hist_buckets *b, double unit, unsigned int top);

/*
 * prom_hist_add for every histogram of hs, labelled label="key"; keys that
 * are empty (no -D or -F) give a series without labels. 0 or as prom_hist_add.
 */
int prom_hist_set_add(struct prom *p, const char *metric, const char *help, const char *label,
		      const struct hist_set *hs, double unit, unsigned int top, bool exact);

/* Add v to the counter metric{labels} (metric should end in _total). As prom_hist_add. */
int prom_counter_add(struct prom *p, const char *metric, const char *help, const char *labels,
		     double v);

/* Set the gauge metric{labels} to v. As prom_hist_add. */
int prom_gauge_set(struct prom *p, const char *metric, const char *help, const char *labels,
		   double v);

/*
 * Forget every series that has the label name="value" (a disk that is gone):
 * it is no longer printed, and comes back from zero if it is added again.
 * Returns how many were dropped.
 */
size_t prom_drop(struct prom *p, const char *name, const char *value);

/*
 * Print every series to f in the text exposition format (version 0.0.4),
 * sorted, each family with its HELP and TYPE lines. 0, -EIO when f failed, or
 * -ENOMEM (a histogram keeps its bounds as text from its first print on).
 */
int prom_print(struct prom *p, FILE *f);

/*
 * Write every series, sorted, to a temporary (mode 0644) and rename it over
 * PATH. 0 or -errno (-EINVAL: made without a path).
 */
int prom_write(struct prom *p);

#endif
