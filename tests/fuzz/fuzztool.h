/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FUZZTOOL_H
#define IOTAP_FUZZTOOL_H

/* One tool over a file image in memory, for the harnesses of the file sources. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "opt.h"
#include "select.h"
#include "session.h"
#include "stacks.h"

/*
 * fuzz_run_tool - argv's tool over the image, its output to out; aborts (a finding)
 * when the options do not parse or a source other than want (NULL: any) took the image
 */
static inline void fuzz_run_tool(const struct source_ops *want, const uint8_t *img, size_t len,
				 FILE *out, int argc, char **argv)
{
	const struct tool *tool = tool_find(argv[0]);
	struct session_opts so = { .mmap_pages = 128, .input_buf = img, .input_len = len };
	void *params = calloc(1, tool->params_size);
	struct cli_args ca;
	struct session s;
	char err[256];

	if (!params || opt_parse(&tool->cmd, argc, argv, params, &so, &ca, err, sizeof(err)))
		abort();
	session_stacks_set(stacks_session_want);
	if (!session_init(&s, tool, params, &so)) {
		if (want && s.src != want)
			abort();
		s.ctx.out = out;
		session_run(&s, 0, 0, 0);
	}
	session_release(&s);
	free(params);
}

#endif
