// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_tracedat.c - libFuzzer harness for the trace.dat source: the input,
 * opened from memory as a trace.dat (trace-cmd's magic is put in front when
 * it is missing, so the fuzzer never wastes its time on the recording
 * reader), read by libtracecmd, its CPUs' records merged and rewritten,
 * dispatched to biolatency -D and to biosnoop, then described as report
 * --info does. The seeds in corpus-tracedat are small real trace.dat files
 * (trace-cmd record --file-version 6, shrunk by shrink-tracedat.py).
 *
 * Each input is first opened in a forked child (td_open_survives): forking this
 * large ASan process, and libtracecmd's terabyte mallocs failing under ASan, take
 * about a second an input, and more than ten on a loaded host (0.02 s without ASan).
 * A hang is still caught; a slow damaged header is not a finding:
 * FUZZ_TIMEOUT: 60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzztool.h"
#include "log.h"
#include "opt.h"
#include "session.h"
#include "source-recording.h"
#include "source-tracedat.h"

/*
 * libtracecmd sizes some of its buffers from the file and mallocs them before checking
 * them against the file's length: a damaged size asks for terabytes. Without ASan that
 * malloc fails and libtracecmd says the file cannot be read; under ASan the default is to
 * abort on it. Let it fail as it does in use, so that what libtracecmd then does with
 * NULL, and everything iotap does with the file, is what gets fuzzed. Stacks of
 * allocations are unwound in full: libtracecmd has no frame pointers, and the one
 * leak of its own that lsan.supp names (tracecmd_init_data) is only seen that way.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:fast_unwind_on_malloc=0";
}

static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* LLVMFuzzerTestOneInput - one trace.dat image */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *bio[] = { "biolatency", "-D", NULL }, *snoop[] = { "biosnoop", NULL };
	FILE *out = fopen("/dev/null", "w");
	struct recording_info info;
	struct session_opts so = { 0 };
	struct session s;
	bool has = size >= sizeof(magic) && !memcmp(data, magic, sizeof(magic));
	size_t len = has ? size : size + sizeof(magic);
	uint8_t *img = malloc(len ? len : 1);

	if (!out || !img)
		abort();
	log_set(NULL);
	if (!has)
		memcpy(img, magic, sizeof(magic));
	memcpy(img + (len - size), data, size);
	fuzz_run_tool(&source_tracedat, img, len, out, 2, bio);
	fuzz_run_tool(&source_tracedat, img, len, out, 1, snoop);
	so.input_buf = img;
	so.input_len = len;
	if (!session_init(&s, NULL, NULL, &so))
		recording_info(&s, &info);
	session_release(&s);
	free(img);
	fclose(out);
	return 0;
}
