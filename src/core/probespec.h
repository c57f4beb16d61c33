/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PROBESPEC_H
#define IOTAP_PROBESPEC_H

/*
 * The text that names a probe (the probe tool's PROBE argument), parsed once
 * for the tool that traces it and for the session that checks the tool uses
 * only what it names: an existing tracepoint, "[t:]SYS:EVENT [FILTER]" with
 * EVENT a glob, or a dynamic event made for the run,
 * "p|r:[/path/binary:]SYMBOL[+OFFSET] [FETCHARGS]".
 */
#include <stdbool.h>

#include "iotap.h"

struct probespec {
	bool tracepoint;
	/* A tracepoint: its system, its name (a glob) and its filter or NULL. */
	const char *sys, *name, *filter;
	/* A dynamic event: where it goes, its fetchargs and its name (p_SYMBOL, r_SYMBOL). */
	struct probe_spec probe;
	char probe_name[128];
	char *text;			/* the copy the strings above point into */
};

/*
 * probespec_parse - parse text into *ps
 *
 * Returns 0; -EINVAL when text is neither form, *why then saying what was expected
 * ("expected [t:]system:event [filter]"); -ENOMEM. Free *ps with probespec_release
 * either way.
 */
int probespec_parse(const char *text, struct probespec *ps, const char **why);

/* probespec_names - whether ps is a tracepoint that names sys:name */
bool probespec_names(const struct probespec *ps, const char *sys, const char *name);

/* probespec_release - free what ps holds; safe on a zeroed or released one */
void probespec_release(struct probespec *ps);

#endif
