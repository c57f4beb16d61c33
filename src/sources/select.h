/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SELECT_H
#define IOTAP_SELECT_H

/* Which source reads a session's input; the sources' one entry for whoever opens a session. */
#include "session.h"

/*
 * session_init - session_open of the source that reads what opts names (a
 * recording, perf.data or trace.dat: opts->input, input_buf; else the running
 * kernel), with tool (NULL: none yet) as its first consumer, its ctx s->ctx
 * (out: stdout); stacks are named as session_stacks_set says. It is the
 * sources' since it names them: the core, below them, names none.
 * Return: 0 or -errno; session_release s either way.
 */
int session_init(struct session *s, const struct tool *tool, void *params,
		 const struct session_opts *opts);

#endif
