// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_report.c - libFuzzer harness for the whole report path: a recording
 * opened from memory, its sections read, its records replayed in order and
 * dispatched to one of biolatency -D, iostack -K -f, biosnoop --cgroup (v2 or v1),
 * fileio -C and iostackbreakdown, or described as --info does (which one
 * follows from a CRC of the input, so each input is read once). This is
 * the harness of the head: container, sections, formats; every input pays
 * for parsing its formats. fuzz_stream fuzzes the records after a fixed head.
 *
 * An input that starts with the file magic is a recording image; its CRCs
 * are repaired first so that the fuzzer gets past them. Any other input is
 * a list of sections, each a u32 type, a u32 length and that many raw bytes
 * (in this machine's byte order), that the harness writes into a valid
 * container with the real writer (a sink writer, in memory): that lets the
 * fuzzer change what the compressed payloads hold (META, formats, ids,
 * records). Every input has a head of its own, so no session is kept from
 * one input to the next (fuzz_stream keeps them). tests/fuzz/run.sh
 * makes seeds of both kinds from the recordings in corpus-report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzztool.h"
#include "recimage.h"

#include "log.h"
#include "opt.h"
#include "source-recording.h"
#include "stacks.h"

/* An image the writer's chunks are appended to. */
struct image {
	uint8_t *buf;
	size_t len, cap;
};

/* image_put - one chunk of the writer onto the image */
static int image_put(void *arg, const void *chunk, size_t len)
{
	struct image *im = arg;

	if (im->len + len > im->cap) {
		im->cap = 2 * (im->len + len);
		im->buf = realloc(im->buf, im->cap);
		if (!im->buf)
			abort();
	}
	memcpy(im->buf + im->len, chunk, len);
	im->len += len;
	return 0;
}

/* pack_sections - write type/length/bytes entries as a real recording; its image */
static uint8_t *pack_sections(const uint8_t *data, size_t size, size_t *out_len)
{
	struct image im = { NULL, 0, 0 };
	struct rec_writer *w;
	uint8_t hdr[20];

	/* A sink writer makes the chunks a file's writer would, without the file and its fsync. */
	memcpy(hdr, "IOTAPREC", 8);
	hdr[8] = REC_VERSION_MAJOR;
	hdr[9] = 0;
	hdr[10] = REC_VERSION_MINOR;
	hdr[11] = 0;
	le32_put(hdr + 12, 0);
	le32_put(hdr + 16, crc32(0, hdr, 16));
	image_put(&im, hdr, sizeof(hdr));
	w = rec_writer_create_sink(image_put, &im);
	if (!w)
		abort();
	while (size >= 8) {
		uint32_t type, len;

		memcpy(&type, data, 4);
		memcpy(&len, data + 4, 4);
		data += 8;
		size -= 8;
		if (len > size)
			len = size;
		/* Container types and END are the container's business: make them sections. */
		if (type < REC_TYPE_MIN)
			type += REC_TYPE_MIN;
		rec_writer_put(w, type, data, len);
		data += len;
		size -= len;
	}
	/* A writer left open is a cut file; an odd last byte says which to make. */
	if (!(size && (data[0] & 1)) && rec_writer_close(w))
		abort();
	rec_writer_free(w);
	*out_len = im.len;
	return im.buf;
}

/*
 * report - biolatency -D over the image; iostack -K -f (stack records,
 * callchain ids, the recorded kernel symbols: no user symbols, which would
 * open files named by the input); biosnoop with the recorded cgroups (CGRP,
 * fork, attach and birth events, born records; every other input a v1
 * hierarchy's, CGV1); fileio -C and iostackbreakdown (syscall pairing,
 * descriptor tables: FDTB); then --info's reading of it
 */
static void report(const uint8_t *img, size_t len, unsigned int which)
{
	char *bio[] = { "biolatency", "-D", NULL }, *stk[] = { "iostack", "-K", "-f", NULL };
	char *cg[] = { "biosnoop", "--show-cgroup", "--cgroup", "/iotap-rec", NULL };
	char *cg1[] = { "biosnoop", "--show-cgroup", "--cgroup", "/sys/fs/cgroup/blkio/iotap-rec",
			NULL };
	char *fio[] = { "fileio", "-C", NULL }, *brk[] = { "iostackbreakdown", NULL };
	struct session_opts so = { .mmap_pages = 128, .input_buf = img, .input_len = len };
	struct recording_info info;
	FILE *out = fopen("/dev/null", "w");
	struct session s;

	if (!out)
		abort();
	/*
	 * One reader per input, picked by the input's own bytes: each opens the recording
	 * and parses every format in it, which is most of an input's time. Running all six
	 * on every input made each input six times as dear for no more coverage.
	 */
	switch (which % 6) {
	case 0:
		fuzz_run_tool(NULL, img, len, out, 2, bio);
		break;
	case 1:
		fuzz_run_tool(NULL, img, len, out, 3, stk);
		break;
	case 2:
		fuzz_run_tool(NULL, img, len, out, 4, which / 6 % 2 ? cg1 : cg);
		break;
	case 3:
		/* Syscall pairing, descriptor tables (FDTB) and the per-syscall attribution. */
		fuzz_run_tool(NULL, img, len, out, 2, fio);
		break;
	case 4:
		fuzz_run_tool(NULL, img, len, out, 1, brk);
		break;
	default:
		if (!session_init(&s, NULL, NULL, &so))
			recording_info(&s, &info);
		session_release(&s);
	}
	fclose(out);
}

/* LLVMFuzzerTestOneInput - one recording image, or one list of sections */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img;
	size_t len;

	log_set(NULL);
	if (size >= 8 && !memcmp(data, "IOTAPREC", 8)) {
		img = malloc(size);
		if (!img)
			return 0;
		memcpy(img, data, size);
		fix_crcs(img, size);
		len = size;
	} else {
		img = pack_sections(data, size, &len);
	}
	report(img, len, crc32(0, data, size));
	free(img);
	return 0;
}
