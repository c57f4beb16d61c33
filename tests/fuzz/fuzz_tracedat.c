// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_tracedat.c - libFuzzer harness for the trace.dat source: the input,
 * opened from memory as a trace.dat (trace-cmd's magic is put in front when
 * it is missing, so the fuzzer never wastes its time on the recording
 * reader), read by libtracecmd, its CPUs' records merged and rewritten, then
 * one of three uses, by the sum of the input's bytes (so that a mutant of a
 * valid file has an even chance of each): biolatency -D, biosnoop, or a
 * description as report --info gives. The seeds in corpus-tracedat are small
 * real trace.dat files (trace-cmd record --file-version 6, shrunk by
 * shrink-tracedat.py).
 *
 * Each open is first made in a forked child (td_open_survives), and libtracecmd
 * parses the file's formats and symbols with thousands of small mallocs: an input
 * costs 0.1 to 0.5 CPU-second under ASan (whole files the most), so each goes
 * through one use rather than all three.
 * A hang is still caught; a slow damaged header is not a finding:
 * FUZZ_TIMEOUT: 60
 * FUZZ_LDFLAGS: -Wl,--wrap=tracecmd_open -Wl,--wrap=tracecmd_buffer_instance_handle -Wl,--wrap=tracecmd_close
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/lsan_interface.h>

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
 * NULL, and everything iotap does with the file, is what gets fuzzed. Past 2 GiB it
 * fails too: libFuzzer takes a malloc of its -rss_limit_mb (2048) or more for an
 * out-of-memory finding, and in the forked child of the source's guard that only wrote
 * an oom- file and killed the child, not the run.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=2047";
}

/*
 * libtracecmd 3.1.6 loses small allocations of its own when a damaged trace.dat fails
 * part way through tracecmd_open (three callocs under tracecmd_init_data, in static
 * functions that have no symbol). Naming them to LSan took unwinding every malloc's
 * stack in full, which cost half of each input: what the library allocates while it
 * opens is left out of leak checking instead, and the handles iotap gets are counted,
 * so that one it forgets to close is still a finding.
 */
struct tracecmd_input;
struct tracecmd_input *__real_tracecmd_open(const char *file, int flags);
struct tracecmd_input *__wrap_tracecmd_open(const char *file, int flags);
struct tracecmd_input *__real_tracecmd_buffer_instance_handle(struct tracecmd_input *h, int i);
struct tracecmd_input *__wrap_tracecmd_buffer_instance_handle(struct tracecmd_input *h, int i);
void __real_tracecmd_close(struct tracecmd_input *h);
void __wrap_tracecmd_close(struct tracecmd_input *h);

static long handles_open;

struct tracecmd_input *__wrap_tracecmd_open(const char *file, int flags)
{
	struct tracecmd_input *h;

	__lsan_disable();
	h = __real_tracecmd_open(file, flags);
	__lsan_enable();
	handles_open += !!h;
	return h;
}

struct tracecmd_input *__wrap_tracecmd_buffer_instance_handle(struct tracecmd_input *top, int i)
{
	struct tracecmd_input *h;

	__lsan_disable();
	h = __real_tracecmd_buffer_instance_handle(top, i);
	__lsan_enable();
	handles_open += !!h;
	return h;
}

void __wrap_tracecmd_close(struct tracecmd_input *h)
{
	handles_open -= !!h;
	__real_tracecmd_close(h);
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
	unsigned int sum = 0;

	if (!out || !img)
		abort();
	log_set(NULL);
	if (!has)
		memcpy(img, magic, sizeof(magic));
	memcpy(img + (len - size), data, size);
	for (size_t i = 0; i < size; i++)
		sum += data[i];
	if (sum % 3 == 0) {
		fuzz_run_tool(&source_tracedat, img, len, out, 2, bio);
	} else if (sum % 3 == 1) {
		fuzz_run_tool(&source_tracedat, img, len, out, 1, snoop);
	} else {
		so.input_buf = img;
		so.input_len = len;
		if (!session_init(&s, NULL, NULL, &so))
			recording_info(&s, &info);
		session_release(&s);
	}
	if (handles_open)
		abort();	/* a libtracecmd handle the source did not close */
	free(img);
	fclose(out);
	return 0;
}
