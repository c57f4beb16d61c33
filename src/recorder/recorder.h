/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RECORDER_H
#define IOTAP_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "record-params.h"
#include "session.h"

/* Progress so far, handed to the caller about once a second and at the end. */
struct record_progress {
	uint64_t elapsed_ns;
	uint64_t samples;		/* events written */
	uint64_t bytes;			/* file size so far */
	uint64_t lost;
	uint64_t undelivered;		/* counted by the kernel, never delivered (perf path) */
	bool final;
	int cmd_status;			/* with a command, at the end: its wait status */
};

typedef void (*record_progress_fn)(void *arg, const struct record_progress *p);

/*
 * record_run - record until stopped (iotap record); progress gets the status about once a
 * second. 0, or -errno with what failed said through the log hook (-EINVAL: no output
 * file, or options that do not go together).
 */
int record_run(const struct record_params *p, const struct session_opts *so, char **command,
	       record_progress_fn progress, void *arg);

#endif
