// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_recfile.c - libFuzzer harness for the recording reader */
#ifndef _GNU_SOURCE		/* run.sh defines it for the core's sources too */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "recimage.h"

#include "container.h"

#define MAX_CHUNKS 4096

struct outcome {
	int open_err;
	int end;
	size_t nr;
	uint32_t types[MAX_CHUNKS];
	uint32_t crcs[MAX_CHUNKS];	/* of each chunk's raw bytes */
};

/* outcome_take - read everything r gives, touching every returned byte */
static void outcome_take(struct rec_reader *r, struct outcome *o)
{
	const void *data;
	uint32_t type;
	size_t len;
	int ret;

	while ((ret = rec_reader_next(r, &type, &data, &len)) == 1) {
		if (o->nr < MAX_CHUNKS) {
			o->types[o->nr] = type;
			o->crcs[o->nr] = crc32(0, data, len);
		}
		o->nr++;
	}
	o->end = ret;
	/* Errors and END stick. */
	if (rec_reader_next(r, &type, &data, &len) != ret)
		abort();
	if (!rec_strerror(ret))
		abort();
}

/* outcome_of_mem - what the memory reader makes of buf */
static void outcome_of_mem(const uint8_t *buf, size_t len, struct outcome *o)
{
	struct rec_reader *r = rec_reader_open_mem(buf, len);

	o->open_err = r ? 0 : -errno;
	o->nr = 0;
	o->end = 0;
	if (!r)
		return;
	outcome_take(r, o);
	rec_reader_free(r);
}

/* outcome_of_file - what the file reader makes of buf, through a memfd */
static void outcome_of_file(const uint8_t *buf, size_t len, struct outcome *o)
{
	static int fd = -1;
	static char path[64];
	struct rec_reader *r;

	if (fd < 0) {
		fd = memfd_create("fuzz_recfile", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		abort();
	o->nr = 0;
	o->end = 0;
	r = rec_reader_open(path);
	o->open_err = r ? 0 : -errno;
	if (!r)
		return;
	outcome_take(r, o);
	rec_reader_free(r);
}

/* LLVMFuzzerTestOneInput - the input as given, then with CRCs repaired */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome a, b;
	uint8_t *copy;

	outcome_of_mem(data, size, &a);

	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	outcome_of_mem(copy, size, &a);
	/* The two readers must agree on every input. */
	outcome_of_file(copy, size, &b);
	if (a.open_err != b.open_err || a.end != b.end || a.nr != b.nr ||
	    memcmp(a.types, b.types, sizeof(a.types[0]) * (a.nr < MAX_CHUNKS ? a.nr : MAX_CHUNKS)) ||
	    memcmp(a.crcs, b.crcs, sizeof(a.crcs[0]) * (a.nr < MAX_CHUNKS ? a.nr : MAX_CHUNKS)))
		abort();
	free(copy);
	return 0;
}
