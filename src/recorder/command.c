// SPDX-License-Identifier: GPL-2.0-or-later
/* command.c - the command a recording traces, held before exec until tracing runs */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"

/* command_spawn - fork the command, held before exec until tracing runs */
int command_spawn(char **argv, struct command *c)
{
	int go[2], ep[2], e;
	char b;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		e = -errno;
		goto close_go;
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		close(ep[0]);
		close(ep[1]);
		goto close_go;
	}
	if (c->pid == 0) {
		/* Ignored signals stay ignored across exec; the command gets the defaults. */
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go = go[1];
	c->err = ep[0];
	return 0;
close_go:
	close(go[0]);
	close(go[1]);
	return e;
}

/* command_release - let the command exec; -errno when it could not */
int command_release(struct command *c)
{
	int e = 0;
	ssize_t n;

	n = write(c->go, "g", 1);
	close(c->go);
	c->go = -1;
	if (n != 1)
		return -EPIPE;
	/* EOF: exec closed the pipe; an int: exec failed with it. */
	do
		n = read(c->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err);
	c->err = -1;
	return n == sizeof(e) ? -e : 0;
}

/* command_reap - end the command if tracing stopped first; the wait status of one that ended */
int command_reap(struct command *c)
{
	int st = 0;

	if (c->go >= 0)
		close(c->go);
	if (c->err >= 0)
		close(c->err);
	c->go = c->err = -1;
	if (c->pid <= 0)
		return 0;
	if (waitpid(c->pid, &st, WNOHANG) == 0) {
		/* Tracing stopped first (-D, a signal): the command's end is ours, not news. */
		kill(c->pid, SIGTERM);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		st = 0;
	}
	c->pid = -1;
	return st;
}

