// SPDX-License-Identifier: GPL-2.0-or-later
/* test_recfile.c - recording container: round trips, damage, limits */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "container.h"
#include "testlib.h"

#define T_META REC_FOURCC('M', 'E', 'T', 'A')
#define T_FMTS REC_FOURCC('F', 'M', 'T', 'S')
#define T_EVTS REC_FOURCC('E', 'V', 'T', 'S')
#define T_SYMS REC_FOURCC('S', 'Y', 'M', 'S')
#define T_NONE REC_FOURCC('N', 'O', 'N', 'E')

static char tmpdir[] = "/tmp/test_recfile.XXXXXX";

struct chunk {
	uint32_t type;
	uint8_t *data;
	size_t len;
};

struct chunks {
	struct chunk *c;
	size_t nr;
	int end;		/* what rec_reader_next() returned last */
};

/* rng_next - xorshift64*: deterministic test data */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* fill_varied - bytes that look like a mix of trace records, text and noise */
static void fill_varied(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t s = seed | 1, ts = 1000000;
	size_t i = 0;

	while (i < len) {
		uint64_t r = rng_next(&s);
		size_t n = 16 + r % 200;

		if (n > len - i)
			n = len - i;
		switch (r >> 60 & 3) {
		case 0:		/* random noise */
			for (size_t k = 0; k < n; k++)
				p[i + k] = rng_next(&s);
			break;
		case 1:		/* a run */
			memset(p + i, (int)(r >> 8), n);
			break;
		default:	/* records: rising timestamps, few sectors */
			for (size_t k = 0; k < n; k++) {
				if (k % 16 == 0)
					ts += r % 5000;
				p[i + k] = k % 16 < 8 ? (uint8_t)(ts >> (k % 8 * 8)) :
						       (uint8_t)(r >> (k % 8));
			}
			break;
		}
		i += n;
	}
}

/* path_in_tmp - a file name inside the test directory */
static const char *path_in_tmp(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* file_store - write len bytes as a new file */
static void file_store(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* chunks_release - free what chunks_read collected */
static void chunks_release(struct chunks *cs)
{
	for (size_t i = 0; i < cs->nr; i++)
		free(cs->c[i].data);
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

/* chunks_read - read every chunk (copied) until END or an error */
static void chunks_read(struct rec_reader *r, struct chunks *cs)
{
	const void *data;
	uint32_t type;
	size_t len;
	int ret;

	memset(cs, 0, sizeof(*cs));
	while ((ret = rec_reader_next(r, &type, &data, &len)) == 1) {
		struct chunk *c;

		cs->c = realloc(cs->c, (cs->nr + 1) * sizeof(*cs->c));
		assert_non_null(cs->c);
		c = &cs->c[cs->nr++];
		c->type = type;
		c->len = len;
		c->data = malloc(len ? len : 1);
		assert_non_null(c->data);
		memcpy(c->data, data, len);
	}
	assert_null(data);
	assert_int_equal(len, 0);
	cs->end = ret;
}

/* chunks_of_mem - open buf and read it all; the open error, or 0 */
static int chunks_of_mem(const void *buf, size_t len, struct chunks *cs)
{
	struct rec_reader *r;

	memset(cs, 0, sizeof(*cs));
	r = rec_reader_open_mem(buf, len);
	if (!r) {
		assert_true(errno > 0);
		return -errno;
	}
	chunks_read(r, cs);
	rec_reader_free(r);
	return 0;
}

/* chunks_of_file - as chunks_of_mem, through the file reader */
static int chunks_of_file(const char *path, struct chunks *cs)
{
	struct rec_reader *r;

	memset(cs, 0, sizeof(*cs));
	r = rec_reader_open(path);
	if (!r) {
		assert_true(errno > 0);
		return -errno;
	}
	chunks_read(r, cs);
	rec_reader_free(r);
	return 0;
}

/* chunks_assert_prefix - the first n chunks of got equal those of want */
static void chunks_assert_prefix(const struct chunks *got, const struct chunks *want, size_t n)
{
	assert_true(n <= want->nr);
	assert_int_equal(got->nr, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got->c[i].type, want->c[i].type);
		assert_int_equal(got->c[i].len, want->c[i].len);
		assert_memory_equal(got->c[i].data, want->c[i].data, want->c[i].len);
	}
}

/* le32_put - test-side little-endian store, independent of the container's own */
static void le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

/* craft_header - a file header as iotap-recording(5) describes it */
static size_t craft_header(uint8_t *p, uint16_t major, uint16_t minor, uint32_t flags)
{
	memcpy(p, "IOTAPREC", 8);
	p[8] = major;
	p[9] = major >> 8;
	p[10] = minor;
	p[11] = minor >> 8;
	le32_put(p + 12, flags);
	le32_put(p + 16, crc32(0, p, 16));
	return 20;
}

/* craft_chunk - a chunk as iotap-recording(5) describes it; its size */
static size_t craft_chunk(uint8_t *p, uint32_t type, const void *raw, size_t len)
{
	uLongf clen = compressBound(len);

	assert_int_equal(compress2(p + 24, &clen, raw, len, 6), Z_OK);
	memcpy(p, "CHNK", 4);
	le32_put(p + 4, type);
	le32_put(p + 8, len);
	le32_put(p + 12, clen);
	le32_put(p + 16, crc32(0, p + 24, clen));
	le32_put(p + 20, crc32(0, p, 20));
	return 24 + clen;
}

/* craft_end - an END chunk with the given totals */
static size_t craft_end(uint8_t *p, uint64_t nr, uint64_t raw)
{
	uint8_t e[16];

	le32_put(e, nr);
	le32_put(e + 4, nr >> 32);
	le32_put(e + 8, raw);
	le32_put(e + 12, raw >> 32);
	return craft_chunk(p, REC_TYPE_END, e, sizeof(e));
}

/* chunk_ends - end offsets of the chunks in a well-formed file image */
static size_t chunk_ends(const uint8_t *p, size_t len, uint64_t *ends, size_t max)
{
	size_t off = 20, nr = 0;

	while (off + 24 <= len && nr < max) {
		uint32_t clen = p[off + 12] | p[off + 13] << 8 | p[off + 14] << 16 |
				(uint32_t)p[off + 15] << 24;

		off += 24 + clen;
		ends[nr++] = off;
	}
	assert_int_equal(off, len);
	return nr;
}

/* write_small - a recording of a few small sections and a short stream */
static void write_small(const char *path)
{
	static const char meta[] = "kernel=6.18 host=test";
	struct rec_writer *w = rec_writer_create(path, true);
	uint8_t ev[300];

	assert_non_null(w);
	fill_varied(ev, sizeof(ev), 7);
	assert_int_equal(rec_writer_put(w, T_META, meta, sizeof(meta)), 0);
	assert_int_equal(rec_writer_put(w, T_NONE, NULL, 0), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, ev, 100), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, ev + 100, 200), 0);
	assert_int_equal(rec_writer_put(w, T_SYMS, "sym", 3), 0);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);
}

/* test_roundtrip - sections and a 10 MiB stream come back equal and in order */
static void test_roundtrip(void **state)
{
	const size_t big = 10u << 20;
	const char *path = path_in_tmp("roundtrip.iotap");
	static const char meta[] = "version=1\nhost=test\n";
	uint8_t *fmts = malloc(200000), *ev = malloc(big), *got = malloc(big);
	size_t *cuts = malloc(big / 16 * sizeof(*cuts)), nr_cuts = 0, off = 0, gotlen = 0;
	uint64_t s = 42;
	struct rec_writer *w;
	struct chunks cs;
	struct stat st;
	size_t i, k;

	(void)state;
	assert_non_null(fmts);
	assert_non_null(ev);
	assert_non_null(got);
	assert_non_null(cuts);
	fill_varied(fmts, 200000, 1);
	fill_varied(ev, big, 2);

	w = rec_writer_create(path, false);
	assert_non_null(w);
	assert_int_equal(rec_writer_bytes(w), 20);
	assert_int_equal(rec_writer_put(w, T_META, meta, sizeof(meta)), 0);
	assert_int_equal(rec_writer_put(w, T_FMTS, fmts, 200000), 0);
	/* Calls of 1 byte to 64 KiB, with a few whole-chunk-sized ones. */
	while (off < big) {
		size_t n = 1 + rng_next(&s) % 65536;

		if (nr_cuts % 50 == 49)
			n = REC_STREAM_CHUNK + rng_next(&s) % 3000;
		if (n > big - off)
			n = big - off;
		assert_int_equal(rec_writer_stream(w, T_EVTS, ev + off, n), 0);
		off += n;
		cuts[nr_cuts++] = off;
	}
	/* No flush: put must write the pending stream chunk first. */
	assert_int_equal(rec_writer_put(w, T_SYMS, "syms", 4), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, "ab", 2), 0);
	assert_int_equal(rec_writer_stream(w, T_FMTS, "cd", 2), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, "ef", 2), 0);
	assert_int_equal(rec_writer_flush(w), 0);
	assert_int_equal(rec_writer_flush(w), 0);
	assert_int_equal(rec_writer_put(w, T_NONE, NULL, 0), 0);
	assert_int_equal(rec_writer_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(rec_writer_bytes(w), (uint64_t)st.st_size);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);

	assert_int_equal(chunks_of_file(path, &cs), 0);
	assert_int_equal(cs.end, 0);
	assert_true(cs.nr >= 2 + 10 + 5);
	assert_int_equal(cs.c[0].type, T_META);
	assert_int_equal(cs.c[0].len, sizeof(meta));
	assert_memory_equal(cs.c[0].data, meta, sizeof(meta));
	assert_int_equal(cs.c[1].type, T_FMTS);
	assert_int_equal(cs.c[1].len, 200000);
	assert_memory_equal(cs.c[1].data, fmts, 200000);
	/* The stream: bounded chunks, whole calls, the same bytes in order. */
	for (i = 2, k = 0; i < cs.nr && cs.c[i].type == T_EVTS; i++) {
		assert_true(cs.c[i].len > 0 && cs.c[i].len <= REC_STREAM_CHUNK);
		memcpy(got + gotlen, cs.c[i].data, cs.c[i].len);
		gotlen += cs.c[i].len;
		/* A call of at most one chunk never straddles two. */
		while (k < nr_cuts && cuts[k] < gotlen)
			k++;
		assert_true(k == nr_cuts || cuts[k] == gotlen ||
			    cuts[k] - (k ? cuts[k - 1] : 0) > REC_STREAM_CHUNK);
	}
	assert_int_equal(gotlen, big);
	assert_memory_equal(got, ev, big);
	assert_int_equal(cs.nr, i + 5);
	assert_int_equal(cs.c[i].type, T_SYMS);
	assert_memory_equal(cs.c[i].data, "syms", 4);
	assert_int_equal(cs.c[i + 1].type, T_EVTS);
	assert_memory_equal(cs.c[i + 1].data, "ab", 2);
	assert_int_equal(cs.c[i + 2].type, T_FMTS);
	assert_memory_equal(cs.c[i + 2].data, "cd", 2);
	assert_int_equal(cs.c[i + 3].type, T_EVTS);
	assert_memory_equal(cs.c[i + 3].data, "ef", 2);
	assert_int_equal(cs.c[i + 4].type, T_NONE);
	assert_int_equal(cs.c[i + 4].len, 0);
	chunks_release(&cs);

	free(fmts);
	free(ev);
	free(got);
	free(cuts);
}

/* test_mem_equals_file - both readers see the same chunks */
static void test_mem_equals_file(void **state)
{
	const char *path = path_in_tmp("small.iotap");
	struct chunks a, b;
	uint8_t *img;
	size_t len;

	(void)state;
	write_small(path);
	img = testlib_file_load(path, &len);
	assert_int_equal(chunks_of_file(path, &a), 0);
	assert_int_equal(chunks_of_mem(img, len, &b), 0);
	assert_int_equal(a.end, 0);
	assert_int_equal(b.end, 0);
	assert_int_equal(a.nr, 4);
	chunks_assert_prefix(&b, &a, a.nr);
	assert_int_equal(a.c[1].type, T_NONE);
	assert_int_equal(a.c[1].len, 0);
	assert_int_equal(a.c[2].len, 300);
	chunks_release(&a);
	chunks_release(&b);
	free(img);
}

/* test_end_sticks - after END every call returns 0 again */
static void test_end_sticks(void **state)
{
	const char *path = path_in_tmp("sticky.iotap");
	struct rec_reader *r;
	const void *data;
	uint16_t major, minor;
	uint64_t ends[8];
	uint32_t type;
	uint8_t *img;
	size_t len;

	(void)state;
	write_small(path);
	img = testlib_file_load(path, &len);
	assert_int_equal(chunk_ends(img, len, ends, 8), 5);
	free(img);
	r = rec_reader_open(path);
	assert_non_null(r);
	rec_reader_version(r, &major, &minor);
	assert_int_equal(major, REC_VERSION_MAJOR);
	assert_int_equal(minor, REC_VERSION_MINOR);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rec_reader_next(r, &type, &data, &len), 1);
		assert_non_null(data);
		assert_int_equal(rec_reader_offset(r), i ? ends[i - 1] : 20);
	}
	assert_int_equal(rec_reader_next(r, &type, &data, &len), 0);
	assert_int_equal(rec_reader_offset(r), ends[3]);
	assert_int_equal(rec_reader_next(r, &type, &data, &len), 0);
	assert_int_equal(rec_reader_next(r, NULL, &data, &len), -EINVAL);
	rec_reader_free(r);
	rec_reader_free(NULL);
}

/* test_exclusive - without force an existing file is kept and EEXIST returned */
static void test_exclusive(void **state)
{
	const char *path = path_in_tmp("excl.iotap");
	struct rec_writer *w;
	struct chunks cs;
	struct stat st;

	(void)state;
	file_store(path, "keep me", 7);
	errno = 0;
	assert_null(rec_writer_create(path, false));
	assert_int_equal(errno, EEXIST);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 7);

	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);
	assert_int_equal(chunks_of_file(path, &cs), 0);
	assert_int_equal(cs.nr, 0);
	assert_int_equal(cs.end, 0);
	chunks_release(&cs);
}

/* test_mode - new files are 0600, and so are forced ones that were not */
static void test_mode(void **state)
{
	const char *path = path_in_tmp("mode.iotap");
	struct rec_writer *w;
	struct stat st;
	mode_t old = umask(022);

	(void)state;
	w = rec_writer_create(path, false);
	assert_non_null(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	rec_writer_free(w);

	assert_int_equal(chmod(path, 0644), 0);
	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	rec_writer_free(w);
	umask(old);
}

/* test_free_without_close - an abandoned writer leaves a truncated file */
static void test_free_without_close(void **state)
{
	const char *path = path_in_tmp("abandoned.iotap");
	struct rec_writer *w;
	struct chunks cs;

	(void)state;
	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(rec_writer_put(w, T_META, "m", 1), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, "pending", 7), 0);
	rec_writer_free(w);
	assert_int_equal(chunks_of_file(path, &cs), 0);
	assert_int_equal(cs.nr, 1);
	assert_int_equal(cs.end, -REC_ETRUNC);
	chunks_release(&cs);
}

/* test_bad_args - misuse fails with an errno and changes nothing */
static void test_bad_args(void **state)
{
	const char *path = path_in_tmp("args.iotap");
	static uint8_t huge[REC_CHUNK_MAX + 1];
	struct rec_writer *w;

	(void)state;
	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(rec_writer_put(w, REC_TYPE_END, "x", 1), -EINVAL);
	assert_int_equal(rec_writer_put(w, REC_TYPE_MIN - 1, "x", 1), -EINVAL);
	assert_int_equal(rec_writer_stream(w, 5, "x", 1), -EINVAL);
	assert_int_equal(rec_writer_put(w, T_META, NULL, 1), -EINVAL);
	assert_int_equal(rec_writer_put(w, T_META, huge, sizeof(huge)), -EMSGSIZE);
	assert_int_equal(rec_writer_put(w, T_META, huge, REC_CHUNK_MAX), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, huge, 0), 0);
	assert_int_equal(rec_writer_close(w), 0);
	assert_int_equal(rec_writer_put(w, T_META, "x", 1), -EBADF);
	assert_int_equal(rec_writer_stream(w, T_META, "x", 1), -EBADF);
	assert_int_equal(rec_writer_flush(w), -EBADF);
	rec_writer_free(w);
	rec_writer_free(NULL);
	assert_int_equal(rec_writer_close(NULL), -EINVAL);
	assert_int_equal(rec_writer_bytes(NULL), 0);

	assert_null(rec_reader_open(path_in_tmp("missing")));
	assert_int_equal(errno, ENOENT);
	assert_null(rec_reader_open(NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(rec_reader_open_mem(NULL, 5));
	assert_int_equal(errno, EINVAL);
}

/* test_truncation - every cut yields the whole chunks before it, then TRUNC */
static void test_truncation(void **state)
{
	const char *path = path_in_tmp("trunc.iotap");
	const char *cut = path_in_tmp("trunc-cut.iotap");
	const size_t evlen = 2 * REC_STREAM_CHUNK + 12345;
	uint8_t *ev = malloc(evlen), *img;
	uint64_t ends[64], s = 99;
	struct rec_writer *w;
	struct chunks full, cs;
	size_t len, nr_ends, offs[260], nr_offs = 0;

	(void)state;
	assert_non_null(ev);
	fill_varied(ev, evlen, 3);
	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(rec_writer_put(w, T_META, "a", 1), 0);
	assert_int_equal(rec_writer_put(w, T_FMTS, "bb", 2), 0);
	assert_int_equal(rec_writer_put(w, T_SYMS, "ccc", 3), 0);
	assert_int_equal(rec_writer_put(w, T_NONE, NULL, 0), 0);
	assert_int_equal(rec_writer_stream(w, T_EVTS, ev, evlen), 0);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);

	img = testlib_file_load(path, &len);
	nr_ends = chunk_ends(img, len, ends, 64);
	assert_true(ends[3] < 200);	/* the small chunks all fall in the first 200 bytes */
	assert_int_equal(chunks_of_mem(img, len, &full), 0);
	assert_int_equal(full.end, 0);
	assert_int_equal(full.nr, nr_ends - 1);

	for (size_t t = 0; t < 200; t++)
		offs[nr_offs++] = t;
	for (int i = 0; i < 50; i++)
		offs[nr_offs++] = 200 + rng_next(&s) % (len - 200);
	for (size_t i = 0; i < nr_ends; i++)
		offs[nr_offs++] = ends[i] - 1;

	for (size_t i = 0; i < nr_offs; i++) {
		size_t t = offs[i], whole = 0;
		int ret;

		while (whole < nr_ends && ends[whole] <= t)
			whole++;
		ret = chunks_of_mem(img, t, &cs);
		if (t == 0) {
			assert_int_equal(ret, -REC_ENOTREC);
		} else if (t < 20) {
			assert_int_equal(ret, -REC_ETRUNC);
		} else {
			assert_int_equal(ret, 0);
			assert_int_equal(cs.end, -REC_ETRUNC);
			chunks_assert_prefix(&cs, &full, whole);
		}
		chunks_release(&cs);
		/* The file reader on a subset: it reads differently at the tail. */
		if (i % 8 == 0 || t >= 200) {
			file_store(cut, img, t);
			assert_int_equal(chunks_of_file(cut, &cs), ret);
			if (!ret) {
				assert_int_equal(cs.end, -REC_ETRUNC);
				chunks_assert_prefix(&cs, &full, whole);
			}
			chunks_release(&cs);
		}
	}
	chunks_release(&full);
	free(img);
	free(ev);
}

/* test_bit_flips - no single flipped bit reads back as a good file */
static void test_bit_flips(void **state)
{
	const char *path = path_in_tmp("flip.iotap");
	struct chunks full, cs;
	uint8_t *img;
	size_t len;
	int nr_corrupt = 0;

	(void)state;
	write_small(path);
	img = testlib_file_load(path, &len);
	assert_true(len < 1024);
	assert_int_equal(chunks_of_mem(img, len, &full), 0);
	assert_int_equal(full.end, 0);

	for (size_t bit = 0; bit < len * 8; bit++) {
		size_t byte = bit / 8;
		int ret;

		img[byte] ^= 1u << (bit % 8);
		ret = chunks_of_mem(img, len, &cs);
		if (ret) {
			assert_true(byte < 20);
			assert_true(ret == -REC_ENOTREC || ret == -REC_EBADHDR);
		} else {
			assert_true(cs.end == -REC_ECORRUPT || cs.end == -REC_ETRUNC);
			nr_corrupt += cs.end == -REC_ECORRUPT;
			/* Chunks before the damage are still whole and right. */
			chunks_assert_prefix(&cs, &full, cs.nr);
		}
		chunks_release(&cs);
		img[byte] ^= 1u << (bit % 8);
	}
	assert_true(nr_corrupt > 0);
	chunks_release(&full);
	free(img);
}

/*
 * test_skim - skimming reads the chunks next_packed reads, with the CRCs their
 * headers state, without checking payloads; check_packed checks them after all
 */
static void test_skim(void **state)
{
	const char *path = path_in_tmp("skim.iotap");
	struct rec_packed c, k;
	struct rec_reader *r, *s;
	uint8_t *img;
	size_t len;
	int ret, n = 0;

	(void)state;
	write_small(path);
	img = testlib_file_load(path, &len);
	r = rec_reader_open_mem(img, len);
	s = rec_reader_open_mem(img, len);
	assert_non_null(r);
	assert_non_null(s);
	while ((ret = rec_reader_next_packed(r, &c)) == 1) {
		assert_int_equal(rec_reader_skim_packed(s, &k), 1);
		assert_int_equal(k.type, c.type);
		assert_int_equal(k.raw_len, c.raw_len);
		assert_int_equal(rec_reader_crc(s), rec_reader_crc(r));
		assert_int_equal(rec_reader_check_packed(s, &k), 0);
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(rec_reader_skim_packed(s, &k), 0);
	assert_int_equal(rec_reader_check_packed(s, &k), -EINVAL);
	assert_true(n >= 4);
	rec_reader_free(r);
	rec_reader_free(s);

	/* The first chunk's payload damaged: read, it is corrupt; skimmed, only when checked. */
	img[20 + 24] ^= 0x10;
	r = rec_reader_open_mem(img, len);
	s = rec_reader_open_mem(img, len);
	assert_int_equal(rec_reader_next_packed(r, &c), -REC_ECORRUPT);
	assert_int_equal(rec_reader_skim_packed(s, &k), 1);
	assert_int_equal(rec_reader_check_packed(s, &k), -REC_ECORRUPT);
	assert_int_equal(rec_reader_skim_packed(s, &k), -REC_ECORRUPT);
	rec_reader_free(r);
	rec_reader_free(s);
	free(img);
}

/* test_empty - an empty file is not a recording; a bare header is truncated */
static void test_empty(void **state)
{
	const char *path = path_in_tmp("empty.iotap");
	uint8_t hdr[20];
	struct chunks cs;

	(void)state;
	file_store(path, "", 0);
	assert_int_equal(chunks_of_file(path, &cs), -REC_ENOTREC);
	assert_int_equal(chunks_of_mem("", 0, &cs), -REC_ENOTREC);

	craft_header(hdr, 1, 0, 0);
	file_store(path, hdr, sizeof(hdr));
	assert_int_equal(chunks_of_file(path, &cs), 0);
	assert_int_equal(cs.nr, 0);
	assert_int_equal(cs.end, -REC_ETRUNC);
	chunks_release(&cs);
}

/* test_wrong_magic - other files are told apart from damaged recordings */
static void test_wrong_magic(void **state)
{
	static const char text[] = "#!/bin/sh\necho this is not a recording\n";
	const char *path = path_in_tmp("magic.iotap");
	uint8_t img[256];
	struct chunks cs;
	size_t len;

	(void)state;
	file_store(path, text, sizeof(text) - 1);
	assert_int_equal(chunks_of_file(path, &cs), -REC_ENOTREC);
	assert_int_equal(chunks_of_mem("IOTAP", 5, &cs), -REC_ETRUNC);
	assert_int_equal(chunks_of_mem("IOTAx", 5, &cs), -REC_ENOTREC);

	len = craft_header(img, 1, 0, 0);
	len += craft_end(img + len, 0, 0);
	assert_int_equal(chunks_of_mem(img, len, &cs), 0);
	assert_int_equal(cs.end, 0);
	img[7] = 'X';
	assert_int_equal(chunks_of_mem(img, len, &cs), -REC_ENOTREC);
	img[7] = 'C';
	img[12] ^= 0x10;	/* flags changed, CRC not */
	assert_int_equal(chunks_of_mem(img, len, &cs), -REC_EBADHDR);
}

/* test_versions - a newer major is refused, a newer minor read */
static void test_versions(void **state)
{
	const char *path = path_in_tmp("version.iotap");
	uint8_t img[512];
	struct rec_reader *r;
	struct chunks cs;
	uint16_t major, minor;
	size_t len;

	(void)state;
	len = craft_header(img, 2, 0, 0);
	len += craft_end(img + len, 0, 0);
	file_store(path, img, len);
	assert_null(rec_reader_open(path));
	assert_int_equal(errno, REC_EVERSION);
	assert_int_equal(chunks_of_mem(img, len, &cs), -REC_EVERSION);

	/* Minor 9 with unknown flags and a container chunk type we lack. */
	len = craft_header(img, 1, 9, 0x80000001u);
	len += craft_chunk(img + len, T_META, "hello", 5);
	len += craft_chunk(img + len, 17, "future index", 12);
	len += craft_chunk(img + len, REC_FOURCC('N', 'E', 'W', '!'), "x", 1);
	len += craft_end(img + len, 3, 5 + 12 + 1);
	r = rec_reader_open_mem(img, len);
	assert_non_null(r);
	rec_reader_version(r, &major, &minor);
	assert_int_equal(major, 1);
	assert_int_equal(minor, 9);
	chunks_read(r, &cs);
	rec_reader_free(r);
	assert_int_equal(cs.end, 0);
	assert_int_equal(cs.nr, 2);
	assert_int_equal(cs.c[0].type, T_META);
	assert_memory_equal(cs.c[0].data, "hello", 5);
	assert_int_equal(cs.c[1].type, REC_FOURCC('N', 'E', 'W', '!'));
	chunks_release(&cs);
}

/* test_structure - damage that every CRC still agrees with is caught too */
static void test_structure(void **state)
{
	uint8_t *img = malloc(3 * REC_CHUNK_MAX), *raw = calloc(1, REC_CHUNK_MAX + 1);
	struct chunks cs;
	size_t len, a, b;

	(void)state;
	assert_non_null(img);
	assert_non_null(raw);
	/* A chunk dropped as a whole: END's totals disagree. */
	len = craft_header(img, 1, 0, 0);
	len += craft_chunk(img + len, T_META, "one", 3);
	len += craft_end(img + len, 2, 6);
	assert_int_equal(chunks_of_mem(img, len, &cs), 0);
	assert_int_equal(cs.nr, 1);
	assert_int_equal(cs.end, -REC_ECORRUPT);
	chunks_release(&cs);

	/* Bytes after END. */
	len = craft_header(img, 1, 0, 0);
	len += craft_chunk(img + len, T_META, "one", 3);
	len += craft_end(img + len, 1, 3);
	assert_int_equal(chunks_of_mem(img, len, &cs), 0);
	assert_int_equal(cs.end, 0);
	chunks_release(&cs);
	img[len] = 0;
	assert_int_equal(chunks_of_mem(img, len + 1, &cs), 0);
	assert_int_equal(cs.end, -REC_ECORRUPT);
	chunks_release(&cs);

	/* A raw length over the limit, with correct CRCs. */
	len = craft_header(img, 1, 0, 0);
	a = craft_chunk(img + len, T_META, raw, REC_CHUNK_MAX + 1);
	len += a;
	len += craft_end(img + len, 1, REC_CHUNK_MAX + 1);
	assert_int_equal(chunks_of_mem(img, len, &cs), 0);
	assert_int_equal(cs.nr, 0);
	assert_int_equal(cs.end, -REC_ECORRUPT);
	chunks_release(&cs);

	/* Raw length announced smaller, then larger, than the data. */
	for (int delta = -1; delta <= 1; delta += 2) {
		len = craft_header(img, 1, 0, 0);
		a = len;
		b = craft_chunk(img + len, T_META, "twelve bytes", 12);
		le32_put(img + a + 8, 12 + delta);
		le32_put(img + a + 20, crc32(0, img + a, 20));
		len += b;
		len += craft_end(img + len, 1, 12 + delta);
		assert_int_equal(chunks_of_mem(img, len, &cs), 0);
		assert_int_equal(cs.nr, 0);
		assert_int_equal(cs.end, -REC_ECORRUPT);
		chunks_release(&cs);
	}

	/* A payload that is not zlib, with a matching CRC. */
	len = craft_header(img, 1, 0, 0);
	a = len;
	len += craft_chunk(img + len, T_META, "abc", 3);
	img[a + 24] ^= 0xff;
	le32_put(img + a + 16, crc32(0, img + a + 24, len - a - 24));
	le32_put(img + a + 20, crc32(0, img + a, 20));
	len += craft_end(img + len, 1, 3);
	assert_int_equal(chunks_of_mem(img, len, &cs), 0);
	assert_int_equal(cs.end, -REC_ECORRUPT);
	chunks_release(&cs);
	free(img);
	free(raw);
}

/* test_no_space - write errors come back as -errno and stick */
static void test_no_space(void **state)
{
	const char *path = path_in_tmp("fsize.iotap");
	uint8_t *ev = malloc(REC_STREAM_CHUNK);
	struct rec_writer *w;
	struct rlimit old, lim;
	struct chunks cs;
	uint64_t s = 5;
	int ret = 0;

	(void)state;
	assert_non_null(ev);
	/* A device under the name is refused, never removed nor written through. */
	errno = 0;
	assert_null(rec_writer_create("/dev/full", true));
	assert_int_equal(errno, ENOTSUP);

	/* A file size limit: writes past it fail with EFBIG, as ENOSPC would. */
	for (size_t i = 0; i < REC_STREAM_CHUNK; i++)
		ev[i] = rng_next(&s);	/* incompressible: the chunk exceeds the limit */
	w = rec_writer_create(path, true);
	assert_non_null(w);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 64 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 40 && !ret; i++)
		ret = rec_writer_stream(w, T_EVTS, ev, 100000);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(ret, -EFBIG);
	assert_true(rec_writer_bytes(w) <= 64 * 1024);
	assert_int_equal(rec_writer_put(w, T_META, "x", 1), -EFBIG);
	assert_int_equal(rec_writer_flush(w), -EFBIG);
	assert_int_equal(rec_writer_close(w), -EFBIG);
	assert_int_equal(rec_writer_close(w), -EFBIG);
	rec_writer_free(w);
	assert_int_equal(chunks_of_file(path, &cs), 0);
	assert_int_equal(cs.end, -REC_ETRUNC);
	chunks_release(&cs);
	free(ev);
}

/* test_strerror - each code has its own line; errno values pass through */
static void test_strerror(void **state)
{
	static const int codes[] = { REC_ENOTREC, REC_EVERSION, REC_EBADHDR,
				     REC_ECORRUPT, REC_ETRUNC, ENOSPC };

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *m = rec_strerror(-codes[i]);

		assert_non_null(m);
		assert_true(strlen(m) > 5);
		assert_null(strchr(m, '\n'));
		assert_string_equal(m, rec_strerror(codes[i]));
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(m, rec_strerror(-codes[k]));
	}
	assert_string_equal(rec_strerror(-ENOSPC), strerror(ENOSPC));
}

/* setup_dir - a private directory for the test files */
static int setup_dir(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* teardown_dir - remove the test files and their directory */
static int teardown_dir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The chunks in flight of prefetch.c (PREFETCH_SLOTS): twice as many follow the large one. */
#define PREFETCH_SLOTS_TEST 8

/* tasks - the threads of this process now */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * tasks_once_joined - the threads of this process once those just joined have left
 * /proc/self/task. pthread_join returns when the kernel clears the thread's tid, early
 * in its exit; the kernel lists the thread until it is released, a little later: a
 * thread that exits at once was still listed after 25 of 20,000 joins here, and this
 * test once counted one too many. Waits up to 2 s for want.
 */
static int tasks_once_joined(int want)
{
	int n = tasks();

	for (int i = 0; i < 2000 && n != want; i++) {
		usleep(1000);
		n = tasks();
	}
	return n;
}

/* prefetch_expect - the next chunk from pf is type with len bytes equal to want */
static void prefetch_expect(struct rec_prefetch *pf, uint32_t type, const void *want, size_t len)
{
	const uint8_t *data;
	uint32_t t;
	size_t n;
	uint64_t at;

	assert_int_equal(rec_prefetch_next(pf, &t, &data, &n, &at), 1);
	assert_int_equal(t, type);
	assert_int_equal(n, len);
	assert_memory_equal(data, want, len);
}

/*
 * test_prefetch_threads - the chunks after the first come back in order; small ones are
 * inflated by the caller (a short recording starts no thread), the workers start at the
 * first large one and are gone after rec_prefetch_free. More chunks follow the large one
 * than the workers may hold unread, so they are still there to be counted: a worker that
 * reaches the end exits.
 */
static void test_prefetch_threads(void **state)
{
	const char *path = path_in_tmp("prefetch.iotap");
	const size_t big = 100000;
	uint8_t *ev = malloc(big), small[300];
	struct rec_writer *w = rec_writer_create(path, true);
	const uint8_t *first, *data;
	struct rec_prefetch *pf;
	struct rec_reader *r;
	const void *d;
	int before = tasks();
	uint64_t at;
	uint32_t t;
	size_t n;

	(void)state;
	assert_non_null(ev);
	assert_non_null(w);
	fill_varied(ev, big, 3);
	fill_varied(small, sizeof(small), 4);
	assert_int_equal(rec_writer_put(w, T_META, "m", 1), 0);
	assert_int_equal(rec_writer_put(w, T_EVTS, small, sizeof(small)), 0);
	assert_int_equal(rec_writer_put(w, T_SYMS, "sym", 3), 0);
	assert_int_equal(rec_writer_put(w, T_EVTS, ev, big), 0);
	for (int i = 0; i < 2 * PREFETCH_SLOTS_TEST; i++)
		assert_int_equal(rec_writer_put(w, T_SYMS, &i, sizeof(i)), 0);
	assert_int_equal(rec_writer_put(w, T_SYMS, "end", 3), 0);
	assert_int_equal(rec_writer_close(w), 0);
	rec_writer_free(w);

	r = rec_reader_open(path);
	assert_non_null(r);
	assert_int_equal(rec_reader_next(r, &t, &d, &n), 1);
	assert_int_equal(rec_reader_next(r, &t, &d, &n), 1);
	assert_int_equal(t, T_EVTS);
	pf = rec_prefetch_start(r, t, d, n, &first);
	assert_non_null(pf);
	assert_memory_equal(first, small, sizeof(small));
	prefetch_expect(pf, T_SYMS, "sym", 3);
	assert_int_equal(tasks(), before);
	prefetch_expect(pf, T_EVTS, ev, big);
	assert_true(tasks() > before);
	for (int i = 0; i < 2 * PREFETCH_SLOTS_TEST; i++)
		prefetch_expect(pf, T_SYMS, &i, sizeof(i));
	prefetch_expect(pf, T_SYMS, "end", 3);
	assert_int_equal(rec_prefetch_next(pf, &t, &data, &n, &at), 0);
	rec_prefetch_free(pf);
	assert_int_equal(tasks_once_joined(before), before);
	rec_reader_free(r);
	free(ev);
}

/* main - run the recfile tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_mem_equals_file),
		cmocka_unit_test(test_end_sticks),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_free_without_close),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_skim),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_wrong_magic),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_no_space),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_prefetch_threads),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
