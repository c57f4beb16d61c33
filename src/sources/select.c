// SPDX-License-Identifier: GPL-2.0-or-later
/* select.c - which source reads a session's input: a file by its first bytes, else live */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "source-perfdata.h"
#include "source-recording.h"
#include "session.h"
#include "stacks.h"

/* source_input - what reads the input: perf.data by its magic, else an iotap recording */
static const struct source_ops *source_input(const struct session_opts *opts)
{
	char magic[8];
	ssize_t n = 0;
	int fd;

	if (!opts->input)
		return source_perf.claims(opts->input_buf, opts->input_len) ? &source_perf : &source_file;
	/* The recording source says why a file cannot be read; a pipe is not read twice. */
	fd = open(opts->input, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			n = read(fd, magic, sizeof(magic));
		close(fd);
	}
	return n == sizeof(magic) && source_perf.claims(magic, sizeof(magic)) ? &source_perf : &source_file;
}

/* session_init - a session over the source opts names (a recording, perf.data or the kernel), for tool */
int session_init(struct session *s, const struct tool *tool, void *params,
		 const struct session_opts *opts)
{
	const struct source_ops *src = opts->input || opts->input_buf ? source_input(opts) :
		&source_live;
	int ret = session_open(s, src, opts);

	s->stacks_want = stacks_session_want;
	if (!ret && tool)
		ret = tool_consumer_add(s, &s->ctx, tool, params, stdout);
	return ret;
}
