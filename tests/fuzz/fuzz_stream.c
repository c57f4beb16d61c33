// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_stream.c - libFuzzer harness for what follows a recording's head: the
 * record stream (EVTS) replayed by the recording source and dispatched to the
 * tools' callbacks. fuzz_report fuzzes the head (container, sections,
 * formats) and pays for opening a whole recording on every input; here the
 * head is fixed, so the fuzzer's time goes to the records.
 *
 * Input: one byte that picks a (head, tool) pair of the table below, then the
 * records. The head is a real recording's bytes up to its first EVTS chunk
 * (file header, META, FMTH, EVNT, DISK, COMM, KSYM, MAPS, CGRP, CGV1, FDTB), read
 * at start; each input becomes that head, one EVTS chunk holding the records
 * and an END chunk, and is replayed as 'iotap TOOL -i FILE' would replay it.
 *
 * A session is opened over each head once, at start (over the head and no
 * records); an input is a session_reset of its head's session over the
 * input's image (the source checks the head and replays the new records from
 * the first), the pair's tool added and run, and a session_reset to no input,
 * which lets go of everything the input made (session_reset's test in
 * tests/unit/test_session.c holds a reset session to a fresh one's output):
 * an input frees what it allocated, so that libFuzzer's leak check, which
 * runs an input again when it did not, stays quiet. Every input takes that
 * path, the first one too: an input that fails here fails alone
 * (./fuzz_stream FILE). tests/fuzz/corpus-stream holds each pair's byte and
 * its head's own records (mkseeds-stream.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "log.h"
#include "opt.h"
#include "recimage.h"
#include "select.h"
#include "session.h"
#include "source-recording.h"
#include "stacks.h"

#define ARGS_MAX 6

/* The recordings whose heads the records follow (paths from the source tree). */
static const char *const head_path[] = {
	"tests/golden/mixed.iotap",			/* 6.18 loop disks: block events */
	"tests/golden/devices.iotap",			/* 6.12 VM: nvme, scsi, md */
	"tests/golden/files.iotap",			/* 6.12 VM: syscalls, ext4, FDTB */
	"tests/fuzz/corpus-report/stacky-12-reads-g.iotap",	/* -g: KSYM, MAPS */
	"tests/fuzz/corpus-report/cgroups-6.18.iotap",	/* --cgroups: CGRP */
	"tests/fuzz/corpus-report/cgroups-v1-clone-6.18.iotap",	/* hybrid: CGV1, born records */
};
#define NR_HEADS (sizeof(head_path) / sizeof(head_path[0]))

/* Which tool reads which head; argv[0] NULL is report --info. */
static const struct pair {
	unsigned int head;
	const char *argv[ARGS_MAX];
} pairs[] = {
	{ 0, { "biolatency", "-D", "-Q" } },
	{ 0, { "biosnoop", "-Q" } },
	{ 0, { "iosched" } },
	{ 0, { "biotop", "-C" } },
	{ 0, { NULL } },
	{ 1, { "nvmelatency", "-A" } },
	{ 1, { "scsiresult" } },
	{ 1, { "scsilatency" } },
	{ 1, { "bioerr", "--bio" } },
	{ 1, { "mdflush" } },
	{ 2, { "fileio", "-C" } },
	{ 2, { "iostackbreakdown" } },
	{ 2, { "fileio", "--snoop" } },
	/*
	 * Kernel symbols and folded stacks only: user symbols would open files the head
	 * names (biostacks resolves them: 150 ms an input, so it is left out).
	 */
	{ 3, { "iostack", "-K", "-f" } },
	{ 3, { "biopattern" } },
	{ 4, { "biosnoop", "--show-cgroup", "--cgroup", "/iotap-rec" } },
	{ 5, { "biosnoop", "--cgroup", "/sys/fs/cgroup/blkio/iotap-rec" } },
	{ 5, { "biotop", "-C", "--show-cgroup", "--cgroup", "/iotap-rec/born" } },
};
#define NR_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

/* A head: its bytes, the END totals of its chunks, and the session opened over it. */
static struct head {
	uint8_t *img;
	size_t len;
	uint64_t chunks, raw;
	struct session s;
} heads[NR_HEADS];

/* Each pair's options, parsed once; a run gets a copy (run_params). */
static void *params[NR_PAIRS];
static void *run_params;
static FILE *devnull;
static const struct session_opts opts_base = { .mmap_pages = 128 };

/* z_stored - data as a zlib stream of stored blocks (no compression: cheap); its length */
static size_t z_stored(uint8_t *out, const uint8_t *data, size_t len)
{
	uint32_t adler = adler32(1, data, len);
	size_t o = 0;

	out[o++] = 0x78;
	out[o++] = 0x01;
	do {
		size_t n = len > 65535 ? 65535 : len;

		out[o++] = n == len;	/* BFINAL on the last block, BTYPE 00 */
		out[o++] = n;
		out[o++] = n >> 8;
		out[o++] = ~n;
		out[o++] = ~n >> 8;
		memcpy(out + o, data, n);
		o += n;
		data += n;
		len -= n;
	} while (len);
	out[o++] = adler >> 24;
	out[o++] = adler >> 16;
	out[o++] = adler >> 8;
	out[o++] = adler;
	return o;
}

/* chunk_put - one chunk of raw bytes at p, header and CRCs included; its length */
static size_t chunk_put(uint8_t *p, uint32_t type, const uint8_t *raw, size_t len)
{
	size_t clen = z_stored(p + REC_CHUNK_HDR, raw, len);

	memcpy(p, "CHNK", 4);
	le32_put(p + 4, type);
	le32_put(p + 8, len);
	le32_put(p + 12, clen);
	le32_put(p + 16, crc32(0, p + REC_CHUNK_HDR, clen));
	le32_put(p + 20, crc32(0, p, 20));
	return REC_CHUNK_HDR + clen;
}

/* head_load - a recording's bytes up to its first EVTS chunk */
static void head_load(struct head *h, const char *rel)
{
	char path[4096];
	size_t off = 20;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../../%s", IOTAP_FUZZ_DATA, rel);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 20 || fseek(f, 0, SEEK_SET))
		abort();
	h->img = malloc(len);
	if (!h->img || fread(h->img, 1, len, f) != (size_t)len)
		abort();
	fclose(f);
	while (off + REC_CHUNK_HDR <= (size_t)len && le32_get(h->img + off + 4) != REC_SEC_EVTS) {
		h->chunks++;
		h->raw += le32_get(h->img + off + 8);
		off += REC_CHUNK_HDR + le32_get(h->img + off + 12);
	}
	if (off + REC_CHUNK_HDR > (size_t)len)
		abort();
	h->len = off;
}

/* image - the head of pair p, the records in one EVTS chunk, END; malloc'd, its length */
static uint8_t *image(const struct head *h, const uint8_t *rec, size_t len, size_t *out_len)
{
	size_t raw = REC_STREAM_PREFIX + len, cap = h->len + 2 * (REC_CHUNK_HDR + 64) + raw +
		raw / 65535 * 5 + 16;
	uint8_t *img = malloc(cap), *evts = malloc(raw), end[16];
	size_t o = h->len;

	if (!img || !evts)
		abort();
	memcpy(img, h->img, h->len);
	le32_put(evts, REC_SEC_VERSION);
	le32_put(evts + 4, 0);
	if (len)
		memcpy(evts + REC_STREAM_PREFIX, rec, len);
	o += chunk_put(img + o, REC_SEC_EVTS, evts, raw);
	le32_put(end, h->chunks + 1);
	le32_put(end + 4, 0);
	le32_put(end + 8, h->raw + raw);
	le32_put(end + 12, (h->raw + raw) >> 32);
	o += chunk_put(img + o, REC_TYPE_END, end, sizeof(end));
	free(evts);
	*out_len = o;
	return img;
}

/* run - pair p over the image; its output thrown away; its head's session left with no input */
static void run(const struct pair *p, const uint8_t *img, size_t len)
{
	struct session_opts so = opts_base;
	struct head *h = &heads[p->head];
	struct recording_info info;
	const struct tool *tool;

	so.input_buf = img;
	so.input_len = len;
	if (session_reset(&h->s, &so))
		abort();	/* the head is the session's: anything else is a harness bug */
	if (p->argv[0]) {
		tool = tool_find(p->argv[0]);
		memcpy(run_params, params[p - pairs], tool->params_size);
		if (!tool_consumer_add(&h->s, &h->s.ctx, tool, run_params, devnull))
			session_run(&h->s, 0, 0, 0);
	} else {
		recording_info(&h->s, &info);
	}
	so.input_buf = NULL;
	so.input_len = 0;
	if (session_reset(&h->s, &so))
		abort();
}

/* LLVMFuzzerInitialize - load the heads, open a session over each, parse the pairs' options */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t params_max = 0;

	(void)argc;
	(void)argv;
	log_set(NULL);
	session_stacks_set(stacks_session_want);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	for (size_t i = 0; i < NR_HEADS; i++) {
		struct session_opts so = opts_base;
		struct head *h = &heads[i];
		uint8_t *bare;

		head_load(h, head_path[i]);
		bare = image(h, NULL, 0, &so.input_len);
		so.input_buf = bare;
		if (session_init(&h->s, NULL, NULL, &so))
			abort();
		so.input_buf = NULL;
		so.input_len = 0;
		if (session_reset(&h->s, &so))
			abort();
		free(bare);
	}
	for (size_t i = 0; i < NR_PAIRS; i++) {
		const struct tool *tool;
		struct session_opts so = opts_base;
		char *args[ARGS_MAX + 1] = { NULL }, err[256];
		struct cli_args ca;
		int n = 0;

		if (!pairs[i].argv[0])
			continue;
		while (n < ARGS_MAX && pairs[i].argv[n]) {
			args[n] = (char *)pairs[i].argv[n];
			n++;
		}
		tool = tool_find(args[0]);
		params[i] = calloc(1, tool->params_size);
		if (!params[i] || opt_parse(&tool->cmd, n, args, params[i], &so, &ca, err, sizeof(err)))
			abort();
		if (tool->params_size > params_max)
			params_max = tool->params_size;
	}
	run_params = malloc(params_max);
	if (!run_params)
		abort();
	return 0;
}

/* LLVMFuzzerTestOneInput - a pair's byte, then the records */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pair *p;
	uint8_t *img;
	size_t len;

	if (!size)
		return 0;
	log_set(NULL);
	p = &pairs[data[0] % NR_PAIRS];
	img = image(&heads[p->head], data + 1, size - 1, &len);
	run(p, img, len);
	free(img);
	return 0;
}
