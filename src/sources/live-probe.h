/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_LIVE_PROBE_H
#define IOTAP_LIVE_PROBE_H

/*
 * Probe placement for the live source: which binary and file offset a
 * uprobe goes to (a named binary, or the C library iotap itself runs with),
 * whether a kprobe's function is one ftrace can hook, and that one place is
 * probed once. The live source owns a struct live_probes (zeroed to begin)
 * and the dynamic-event set the probes are made in; nothing here is freed
 * before live_probes_release.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotap.h"

struct dynevent_set;

struct live_probes {
	/* The uprobes made, by place: one place is probed once (aliases share one). */
	struct live_place { char *path; uint64_t offset; bool ret; } *places;
	size_t nr_places, cap_places;
	/* available_filter_functions, sorted, read at the first kprobe asked about */
	char **ftrace_fns;
	size_t nr_ftrace_fns;
	bool ftrace_fns_read;
};

/* live_probes_available - whether the kernel has p's kind and p's place exists; logs nothing */
bool live_probes_available(struct live_probes *lp, const struct probe_spec *p);
/*
 * live_probes_create - p made in dyn (its group in *sys, a static string);
 * logs why not. Return: 0, -EINVAL (no such function), -EEXIST (a probe is
 * at that place already), or dynevent_create's -errno.
 */
int live_probes_create(struct live_probes *lp, struct dynevent_set *dyn,
		       const struct probe_spec *p, const char **sys);
/* live_probes_release - free what lp remembers; safe twice */
void live_probes_release(struct live_probes *lp);

#endif
