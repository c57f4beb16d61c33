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

#include "fuzztool.h"
#include "log.h"
#include "opt.h"
#include "perfdata-read.h"
#include "source-perfdata.h"
#include "source-recording.h"

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
	fuzz_run_tool(&source_perf, img, len, out, 2, bio);
	fuzz_run_tool(&source_perf, img, len, out, 3, stk);
	so.input_buf = img;
	so.input_len = len;
	if (!session_init(&s, NULL, NULL, &so))
		recording_info(&s, &info);
	session_release(&s);
	free(img);
	fclose(out);
	return 0;
}
