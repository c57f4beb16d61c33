// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_stream.c - libFuzzer harness for what follows a recording's head: the
 * record stream (EVTS) replayed by the recording source and dispatched to the
 * tools' callbacks. fuzz_report fuzzes the head (container, sections,
 * formats) and pays for parsing every format on every input; here the head
 * is fixed, so it is parsed once and the fuzzer's time goes to the records.
 *
 * Input: one byte that picks a (head, tool) pair of the table below, then the
 * records. The head is a real recording's bytes up to its first EVTS chunk
 * (file header, META, FMTH, EVNT, DISK, COMM, KSYM, MAPS, CGRP, FDTB), read
 * once at start; each input becomes that head, one EVTS chunk holding the
 * records and an END chunk, and goes through session_init/session_run as
 * 'iotap TOOL -i FILE' would.
 *
 * The formats are parsed once per head: the fmt_set_* calls are wrapped at
 * link time (FUZZ_LDFLAGS below, which run.sh passes) so that a session over
 * a head whose formats were parsed already gets that tep handle, with its own
 * list of the events it added, as a fresh parse would give it.
 * tests/fuzz/corpus-stream holds each pair's byte and its head's own records.
 *
 * FUZZ_LDFLAGS: -Wl,--wrap=fmt_set_init,--wrap=fmt_set_add,--wrap=fmt_set_find,--wrap=fmt_set_release
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzztool.h"
#include "log.h"
#include "recimage.h"
#include "source-recording.h"
#include "tfs.h"

#define ARGS_MAX 6

/* The recordings whose heads the records follow (paths from the source tree). */
static const char *const head_path[] = {
	"tests/golden/mixed.iotap",			/* 6.18 loop disks: block events */
	"tests/golden/devices.iotap",			/* 6.12 VM: nvme, scsi, md */
	"tests/golden/files.iotap",			/* 6.12 VM: syscalls, ext4, FDTB */
	"tests/fuzz/corpus-report/stacky-12-reads-g.iotap",	/* -g: KSYM, MAPS */
	"tests/fuzz/corpus-report/cgroups-6.18.iotap",	/* --cgroups: CGRP */
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
};
#define NR_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

/* A head: its bytes, and the END totals of its chunks. */
static struct head {
	uint8_t *img;
	size_t len;
	uint64_t chunks, raw;
} heads[NR_HEADS];

/*
 * The parsed formats of each head, lent to its sessions, with each event's
 * tep_event; cur is the head being read, added what its session added so far.
 */
static struct fmt_set parsed[NR_HEADS];
static struct tep_event **parsed_ev[NR_HEADS];
static bool *added;
static int cur = -1;

int __real_fmt_set_init(struct fmt_set *fs, const char *header_page, size_t len, int long_size,
			int page_size);
void __real_fmt_set_release(struct fmt_set *fs);
struct tep_event *__real_fmt_set_add(struct fmt_set *fs, const char *sys, const char *name,
				     const char *text, size_t len);
struct tep_event *__real_fmt_set_find(const struct fmt_set *fs, const char *sys,
				      const char *name);

/* lent - whether fs holds the parsed formats of the head being read */
static bool lent(const struct fmt_set *fs)
{
	return cur >= 0 && fs->tep && fs->tep == parsed[cur].tep;
}

/* __wrap_fmt_set_init - a head parsed already: its tep handle, and no events yet */
int __wrap_fmt_set_init(struct fmt_set *fs, const char *header_page, size_t len, int long_size,
			int page_size)
{
	const struct fmt_set *p;

	if (cur < 0 || !parsed[cur].tep)
		return __real_fmt_set_init(fs, header_page, len, long_size, page_size);
	p = &parsed[cur];
	if (len != p->header_page_len || memcmp(header_page, p->header_page, len) ||
	    long_size != p->long_size || page_size != p->page_size)
		abort();	/* the head is fixed: anything else is a harness bug */
	memset(fs, 0, sizeof(*fs));
	fs->header_page = malloc(len + 1);
	if (!fs->header_page)
		return -ENOMEM;
	memcpy(fs->header_page, header_page, len);
	fs->header_page[len] = 0;
	fs->header_page_len = len;
	fs->long_size = long_size;
	fs->page_size = page_size;
	fs->tep = p->tep;
	memset(added, 0, p->nr * sizeof(*added));
	return 0;
}

/* lent_index - where a lent set's event is in its head's list; -1 when not there */
static int lent_index(const struct tep_event *tev)
{
	for (size_t i = 0; tev && i < parsed[cur].nr; i++)
		if (parsed_ev[cur][i] == tev)
			return i;
	return -1;
}

/* __wrap_fmt_set_find - in a lent set, only the events this session added */
struct tep_event *__wrap_fmt_set_find(const struct fmt_set *fs, const char *sys, const char *name)
{
	struct tep_event *tev = __real_fmt_set_find(fs, sys, name);
	int i;

	if (!lent(fs))
		return tev;
	i = lent_index(tev);
	return i >= 0 && added[i] ? tev : NULL;
}

/* __wrap_fmt_set_add - in a lent set, the event parsed before, from the same text */
struct tep_event *__wrap_fmt_set_add(struct fmt_set *fs, const char *sys, const char *name,
				     const char *text, size_t len)
{
	struct tep_event *tev;
	struct fmt_event *arr, *ev;
	const struct fmt_event *p;
	int i;

	if (!lent(fs))
		return __real_fmt_set_add(fs, sys, name, text, len);
	tev = __real_fmt_set_find(fs, sys, name);
	i = lent_index(tev);
	if (i < 0)
		abort();	/* not in the head: a harness bug */
	if (added[i])
		return tev;
	p = &parsed[cur].ev[i];
	if (p->len != len || memcmp(p->text, text, len))
		abort();
	arr = realloc(fs->ev, (fs->nr + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	fs->ev = arr;
	ev = &fs->ev[fs->nr];
	ev->sys = strdup(sys);
	ev->name = strdup(name);
	ev->text = strdup(p->text);
	ev->len = len;
	if (!ev->sys || !ev->name || !ev->text) {
		free(ev->sys);
		free(ev->name);
		free(ev->text);
		errno = ENOMEM;
		return NULL;
	}
	fs->nr++;
	added[i] = true;
	return tev;
}

/* __wrap_fmt_set_release - a lent set frees its copies, not the tep handle */
void __wrap_fmt_set_release(struct fmt_set *fs)
{
	if (!lent(fs)) {
		__real_fmt_set_release(fs);
		return;
	}
	fs->tep = NULL;
	__real_fmt_set_release(fs);
}

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

/* run - pair p over the image; its output thrown away */
static void run(const struct pair *p, const uint8_t *img, size_t len)
{
	char *argv[ARGS_MAX + 1] = { NULL };
	struct session_opts so = { .mmap_pages = 128, .input_buf = img, .input_len = len };
	struct recording_info info;
	FILE *out = fopen("/dev/null", "w");
	struct session s;
	int argc = 0;

	if (!out)
		abort();
	cur = p->head;
	if (p->argv[0]) {
		while (argc < ARGS_MAX && p->argv[argc]) {
			argv[argc] = (char *)p->argv[argc];
			argc++;
		}
		fuzz_run_tool(&source_file, img, len, out, argc, argv);
	} else {
		if (!session_init(&s, NULL, NULL, &so))
			recording_info(&s, &info);
		session_release(&s);
	}
	cur = -1;
	fclose(out);
}

/* LLVMFuzzerInitialize - load the heads and parse each one's formats, once */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t nr_max = 0;

	(void)argc;
	(void)argv;
	log_set(NULL);
	for (size_t i = 0; i < NR_HEADS; i++) {
		struct session_opts so = { .mmap_pages = 128 };
		struct session s;
		uint8_t *img;

		head_load(&heads[i], head_path[i]);
		img = image(&heads[i], NULL, 0, &so.input_len);
		so.input_buf = img;
		cur = i;
		/* A session over the bare head parses its formats: keep them, not the session's. */
		if (session_init(&s, NULL, NULL, &so) || !s.fs.tep)
			abort();
		parsed[i] = s.fs;
		memset(&s.fs, 0, sizeof(s.fs));
		session_release(&s);
		free(img);
		if (parsed[i].nr > nr_max)
			nr_max = parsed[i].nr;
		parsed_ev[i] = calloc(parsed[i].nr, sizeof(*parsed_ev[i]));
		added = realloc(added, nr_max * sizeof(*added));
		if (!parsed_ev[i] || !added)
			abort();
		for (size_t k = 0; k < parsed[i].nr; k++)
			parsed_ev[i][k] = __real_fmt_set_find(&parsed[i], parsed[i].ev[k].sys,
							      parsed[i].ev[k].name);
		cur = -1;
	}
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
