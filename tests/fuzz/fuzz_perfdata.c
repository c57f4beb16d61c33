// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_perfdata.c - libFuzzer harness for the perf.data reader: the input,
 * opened from memory as a perf.data (the magic is put in front when it is
 * missing, so the fuzzer never wastes its time on the recording reader),
 * its header, attributes, features and tracing data read, its records
 * ordered and rewritten, and dispatched to biolatency -D and to iostack -K
 * -f (callchains, folded; no user symbols, which would open files named by
 * the input), then described as report --info does. The seeds in corpus-perfdata are small real perf.data files
 * (tests/data/perf/make-perfdata).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opt.h"
#include "source-perfdata.h"
#include "source-recording.h"

/* run_tool - one tool with its arguments over the image, output thrown away */
static void run_tool(const uint8_t *img, size_t len, FILE *out, int argc, char **argv)
{
	const struct tool *tool = tool_find(argv[0]);
	struct session_opts so = { .mmap_pages = 128, .input_buf = img, .input_len = len };
	void *params = calloc(1, tool->params_size);
	struct cli_args ca;
	struct session s;
	char err[256];

	if (!params || opt_parse(tool, argc, argv, params, &so, &ca, err, sizeof(err)))
		abort();
	if (!session_init(&s, tool, params, &so)) {
		if (s.src != &source_perf)
			abort();
		s.ctx.out = out;
		session_run(&s, 0, 0, 0);
	}
	session_release(&s);
	free(params);
}

/* LLVMFuzzerTestOneInput - one perf.data image */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *bio[] = { "biolatency", "-D", NULL }, *stk[] = { "iostack", "-K", "-f", NULL };
	FILE *out = fopen("/dev/null", "w");
	struct recording_info info;
	struct session_opts so = { 0 };
	struct session s;
	uint8_t *img;
	size_t len = size;

	if (!out)
		abort();
	log_set(NULL);
	if (perfdata_magic(data, size)) {
		img = malloc(size);
		if (!img)
			abort();
		memcpy(img, data, size);
	} else {
		len = size + 8;
		img = malloc(len);
		if (!img)
			abort();
		memcpy(img, PERFDATA_MAGIC, 8);
		memcpy(img + 8, data, size);
	}
	run_tool(img, len, out, 2, bio);
	run_tool(img, len, out, 3, stk);
	so.input_buf = img;
	so.input_len = len;
	if (!session_init(&s, NULL, NULL, &so))
		recording_info(&s, &info);
	session_release(&s);
	free(img);
	fclose(out);
	return 0;
}
