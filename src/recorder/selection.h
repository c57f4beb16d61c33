/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SELECTION_H
#define IOTAP_SELECTION_H

/*
 * Which events a recording takes: those of the tools --tools names (the
 * block tools by default, every tool with --all) that this kernel has, the
 * probes those tools make, stacks where a tool takes them (-g), and the
 * cgroup events (--cgroups). A tool that cannot be recorded is said: an
 * error when --tools names it, else a warning.
 */
#include <stdbool.h>

#include "record-params.h"
#include "sections.h"
#include "session.h"

/*
 * Subscribe s to them (their handlers do nothing: the recorder takes every
 * record raw). names gets the tools recorded for, comma-separated and
 * NUL-terminated; *fds is set when one of them names files. 0 or -errno,
 * said.
 */
int selection_subscribe(struct session *s, const struct record_params *p, struct rec_buf *names,
			bool *fds);

#endif
