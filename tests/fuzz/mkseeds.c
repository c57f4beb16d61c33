// SPDX-License-Identifier: GPL-2.0-or-later
/* mkseeds.c - write the seed recordings of the recfile fuzzer's corpus */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "container.h"

#define T_META REC_FOURCC('M', 'E', 'T', 'A')
#define T_FMTS REC_FOURCC('F', 'M', 'T', 'S')
#define T_EVTS REC_FOURCC('E', 'V', 'T', 'S')
#define T_SYMS REC_FOURCC('S', 'Y', 'M', 'S')

/* seed_path - dir/name */
static const char *seed_path(const char *dir, const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* seed_write - one recording: nr sections of the given kinds */
static int seed_write(const char *path, int kind)
{
	static const char meta[] = "iotap 0.1.0 kernel=6.18 cpus=2";
	static const char fmts[] = "name: block_rq_issue\nID: 1200\nformat:\n"
				   "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n";
	struct rec_writer *w = rec_writer_create(path, true);
	uint8_t rec[40];
	int ret = 0;

	if (!w)
		return -errno;
	if (kind >= 1)
		ret = rec_writer_put(w, T_META, meta, sizeof(meta) - 1);
	if (!ret && kind >= 2)
		ret = rec_writer_put(w, T_FMTS, fmts, sizeof(fmts) - 1);
	for (int i = 0; !ret && kind >= 2 && i < 24; i++) {
		for (size_t k = 0; k < sizeof(rec); k++)
			rec[k] = (uint8_t)(i * 37 + k * (k < 16 ? 1 : i));
		ret = rec_writer_stream(w, T_EVTS, rec, sizeof(rec));
	}
	if (!ret && kind >= 2)
		ret = rec_writer_put(w, T_SYMS, "ffffffff81000000 T _stext\n", 26);
	if (!ret && kind >= 2)
		ret = rec_writer_put(w, T_META, NULL, 0);
	if (!ret)
		ret = rec_writer_close(w);
	rec_writer_free(w);
	return ret;
}

/* seed_bump_minor - rewrite a seed's header to a later minor version */
static int seed_bump_minor(const char *path)
{
	FILE *f = fopen(path, "r+b");
	uint8_t h[20];
	uLong crc;
	int ret = 0;

	if (!f)
		return -errno;
	if (fread(h, 1, sizeof(h), f) != sizeof(h)) {
		ret = -EIO;
		goto close_file;
	}
	h[10] = 3;
	crc = crc32(0, h, 16);
	for (int i = 0; i < 4; i++)
		h[16 + i] = crc >> (8 * i);
	if (fseek(f, 0, SEEK_SET) || fwrite(h, 1, sizeof(h), f) != sizeof(h))
		ret = -EIO;
close_file:
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* main - mkseeds DIR: write the seeds into DIR */
int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus-recfile";
	int ret;

	ret = seed_write(seed_path(dir, "empty.iotap"), 0);
	if (!ret)
		ret = seed_write(seed_path(dir, "one-section.iotap"), 1);
	if (!ret)
		ret = seed_write(seed_path(dir, "mixed.iotap"), 2);
	if (!ret)
		ret = seed_write(seed_path(dir, "minor3.iotap"), 1);
	if (!ret)
		ret = seed_bump_minor(seed_path(dir, "minor3.iotap"));
	if (ret) {
		fprintf(stderr, "mkseeds: %s: %s\n", dir, rec_strerror(ret));
		return 1;
	}
	return 0;
}
