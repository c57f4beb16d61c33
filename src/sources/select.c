// SPDX-License-Identifier: GPL-2.0-or-later
/* select.c - which source reads a session's input: a file by its first bytes, else live */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "source-perfdata.h"
#include "source-recording.h"
#include "source-tracedat.h"
#include "select.h"

/* The sources of other tracers' files, each claiming a file by its first bytes. */
static const struct source_ops *const source_foreign[] = { &source_perf, &source_tracedat };
#define SOURCE_MAGIC_MAX 10		/* the longest magic a claims looks at (trace.dat's) */

/* source_claimant - the foreign source whose magic head starts with, else an iotap recording's */
static const struct source_ops *source_claimant(const void *head, size_t len)
{
	for (size_t i = 0; i < sizeof(source_foreign) / sizeof(source_foreign[0]); i++)
		if (source_foreign[i]->claims(head, len))
			return source_foreign[i];
	return &source_file;
}

/* source_input - what reads the input: perf.data or trace.dat by its magic, else an iotap recording */
static const struct source_ops *source_input(const struct session_opts *opts)
{
	char magic[SOURCE_MAGIC_MAX];
	ssize_t n = 0;
	int fd;

	if (!opts->input)
		return source_claimant(opts->input_buf, opts->input_len);
	/* The recording source says why a file cannot be read; a pipe is not read twice. */
	fd = open(opts->input, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			n = read(fd, magic, sizeof(magic));
		close(fd);
	}
	return source_claimant(magic, n > 0 ? (size_t)n : 0);
}

/* session_init - a session over the source opts names (a recording, perf.data or the kernel), for tool */
int session_init(struct session *s, const struct tool *tool, void *params,
		 const struct session_opts *opts)
{
	const struct source_ops *src = opts->input || opts->input_buf ? source_input(opts) :
		&source_live;
	int ret = session_open(s, src, opts);

	if (!ret && tool)
		ret = tool_consumer_add(s, &s->ctx, tool, params, stdout);
	return ret;
}
