/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_KEYHIST_H
#define IOTAP_KEYHIST_H

/*
 * The block tools that keep one log2 histogram per key (bitesize: per
 * process, seeksize: per process, iosched: per scheduler): the request
 * tracker, the histograms, the --prom file, and the interval report in BCC's
 * layout. A tool embeds a struct keyhist in its state, fills a blktrack_cfg
 * with its handler, adds values with keyhist_add, and says how to print.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blktrack.h"
#include "hist.h"
#include "shared.h"

struct keyhist {
	struct blktrack *bt;
	struct hist_set hs;
	struct prom *prom;
	const char *prom_path;
};

/* How the histograms are printed and exported. */
struct keyhist_out {
	const char *key;		/* the sections' name: "Process Name" */
	const char *unit;		/* of the values: "Kbytes" */
	const char *prom_name, *prom_help;
	const char *prom_label;		/* the key as a label */
	double prom_unit;		/* one value in the metric's base unit */
	unsigned int prom_top;		/* buckets up to 2^top values */
	bool prom_exact;		/* values are the measure, not cut to a unit (prom.h) */
};

/*
 * keyhist_init - --prom PATH (NULL: none) opened, then cfg's events for disk and pid
 * (blktrack_cfg_select) subscribed. 0 or -errno (logged); keyhist_release in any case.
 */
int keyhist_init(struct keyhist *kh, struct iotap_ctx *ctx, struct blktrack_cfg *cfg,
		 const char *disk, int pid, const char *prom);

/* keyhist_add - v into key's histogram; 0 or -ENOMEM */
int keyhist_add(struct keyhist *kh, const char *key, uint64_t v);

/*
 * keyhist_report - the interval header (with the time when timestamp), every
 * histogram, the --prom file; tracker warnings after the last; then reset.
 * 0 or -errno (logged when the file could not be written).
 */
int keyhist_report(struct keyhist *kh, struct iotap_ctx *ctx, bool timestamp,
		   const struct keyhist_out *o);

/* keyhist_release - free what keyhist_init made */
void keyhist_release(struct keyhist *kh);

#endif
