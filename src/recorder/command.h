/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_COMMAND_H
#define IOTAP_COMMAND_H

/*
 * The command 'iotap record -- CMD' traces: forked at once, held before exec
 * until tracing runs, so that none of its I/O goes unrecorded.
 */
#include <sys/types.h>

struct command {
	pid_t pid;			/* -1: none */
	int go;				/* a byte here lets it exec */
	int err;			/* errno of a failed exec comes back here */
};

#define COMMAND_NONE { .pid = -1, .go = -1, .err = -1 }

/* Fork argv[0] with argv, held before exec: 0 or -errno. */
int command_spawn(char **argv, struct command *c);
/* Let it exec: 0, or -errno when it could not (the exec's own, or -EPIPE). */
int command_release(struct command *c);
/*
 * End it if it is still running (tracing stopped first: SIGTERM, status 0),
 * close the pipes; the wait status of one that ended by itself. Safe twice.
 * Never an error: a command that cannot be waited for reads as status 0.
 */
int command_reap(struct command *c);

#endif
