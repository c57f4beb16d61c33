// SPDX-License-Identifier: GPL-2.0-or-later
/* container-write.c - the recording writer: file header, compressed chunks, END */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container-local.h"
#include "outfile.h"

/*
 * Level 1: recording must keep up with the event rate, and higher levels
 * cost several times the CPU for a few percent of size on trace records.
 */
#define ZLEVEL 1

/* fd_write_all - write len bytes, retrying short writes; 0 or -errno */
static int fd_write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

struct rec_writer {
	int fd;
	int err;		/* first write error: every later call fails */
	bool closed;
	int close_ret;
	uint64_t bytes;
	uint64_t nr_chunks;	/* END carries both totals */
	uint64_t raw_bytes;
	z_stream zs;
	bool zs_ready;
	uint8_t *out;		/* chunk header followed by the payload */
	size_t out_cap;
	uint8_t *sbuf;		/* pending streamed bytes */
	uint8_t *sbuf_mem;	/* its allocation: a chunk header's room before sbuf */
	size_t slen;
	uint32_t stype;
	rec_chunk_fn sink;	/* a writer to memory: chunks go here, not to fd */
	void *sink_arg;
	bool stored;		/* a sink's chunks raw: compressed only when written out */
};

/* rec_writer_emit_stored - one stored chunk to the sink: the payload as it is, no CRCs */
static int rec_writer_emit_stored(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	uint8_t *h;
	int ret = 0;

	/* Streamed bytes have the header's room before them: no copy. */
	if (data == w->sbuf && len) {
		h = w->sbuf - CHUNK_HDR_SIZE;
	} else {
		ret = buf_reserve(&w->out, &w->out_cap, CHUNK_HDR_SIZE + len);
		if (ret)
			return ret;
		h = w->out;
		if (len)
			memcpy(h + CHUNK_HDR_SIZE, data, len);
	}
	memset(h, 0, CHUNK_HDR_SIZE);
	memcpy(h, CHUNK_MAGIC_STORED, 4);
	put_le32(h + 4, type);
	put_le32(h + 8, len);
	put_le32(h + 12, len);
	ret = w->sink(w->sink_arg, h, CHUNK_HDR_SIZE + len);
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->bytes += CHUNK_HDR_SIZE + len;
	w->nr_chunks++;
	w->raw_bytes += len;
	return 0;
}

/* rec_writer_emit - compress and write one chunk; 0 or -errno (sticky) */
static int rec_writer_emit(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	uint8_t *h;
	size_t clen;
	int ret;

	if (w->stored)
		return rec_writer_emit_stored(w, type, data, len);
	ret = buf_reserve(&w->out, &w->out_cap,
			  CHUNK_HDR_SIZE + deflateBound(&w->zs, len));
	if (ret)
		return ret;
	if (deflateReset(&w->zs) != Z_OK)
		return -EIO;
	w->zs.next_in = len ? data : (const Bytef *)"";
	w->zs.avail_in = len;
	w->zs.next_out = w->out + CHUNK_HDR_SIZE;
	w->zs.avail_out = w->out_cap - CHUNK_HDR_SIZE;
	if (deflate(&w->zs, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	clen = w->zs.total_out;
	if (clen > comp_max(len))
		return -EIO;

	h = w->out;
	memcpy(h, CHUNK_MAGIC, 4);
	put_le32(h + 4, type);
	put_le32(h + 8, len);
	put_le32(h + 12, clen);
	put_le32(h + 16, crc_of(h + CHUNK_HDR_SIZE, clen));
	put_le32(h + 20, crc_of(h, 20));

	ret = w->sink ? w->sink(w->sink_arg, h, CHUNK_HDR_SIZE + clen) :
			fd_write_all(w->fd, h, CHUNK_HDR_SIZE + clen);
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->bytes += CHUNK_HDR_SIZE + clen;
	w->nr_chunks++;
	w->raw_bytes += len;
	return 0;
}

/* rec_writer_create - create a recording file and write its header */
struct rec_writer *rec_writer_create(const char *path, bool force)
{
	uint8_t hdr[HDR_SIZE];
	struct rec_writer *w;
	struct stat st;
	int ret;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (deflateInit(&w->zs, ZLEVEL) != Z_OK) {
		ret = -ENOMEM;
		goto free_writer;
	}
	w->zs_ready = true;

	/*
	 * The trace names files and processes: private (0600). Created exclusively and
	 * without following a symlink; force replaces the old name rather than writing
	 * through it (outfile.h).
	 */
	w->fd = outfile_create(path, force, 0600);
	if (w->fd < 0) {
		ret = w->fd;
		goto end_zlib;
	}

	memcpy(hdr, MAGIC, MAGIC_LEN);
	put_le16(hdr + 8, REC_VERSION_MAJOR);
	put_le16(hdr + 10, REC_VERSION_MINOR);
	put_le32(hdr + 12, 0);
	put_le32(hdr + 16, crc_of(hdr, 16));
	ret = fd_write_all(w->fd, hdr, HDR_SIZE);
	if (ret)
		goto remove_file;
	w->bytes = HDR_SIZE;
	return w;

remove_file:
	if (fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
	close(w->fd);
end_zlib:
	deflateEnd(&w->zs);
free_writer:
	free(w);
	errno = -ret;
	return NULL;
}

/* rec_writer_check - common argument and state checks; 0 or -errno */
static int rec_writer_check(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	if (!w || type < REC_TYPE_MIN || (!data && len))
		return -EINVAL;
	if (w->closed)
		return -EBADF;
	return w->err;
}

/* rec_writer_create_sink - a writer of chunks to a callback, with no file and no header */
struct rec_writer *rec_writer_create_sink(rec_chunk_fn sink, void *arg)
{
	struct rec_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (deflateInit(&w->zs, ZLEVEL) != Z_OK) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->zs_ready = true;
	w->fd = -1;
	w->sink = sink;
	w->sink_arg = arg;
	return w;
}

/* rec_writer_create_sink_stored - a sink writer whose chunks stay raw (see container.h) */
struct rec_writer *rec_writer_create_sink_stored(rec_chunk_fn sink, void *arg)
{
	struct rec_writer *w = rec_writer_create_sink(sink, arg);

	if (w)
		w->stored = true;
	return w;
}

/* rec_writer_put_chunk - a whole chunk that a sink writer made, written as it is */
int rec_writer_put_chunk(struct rec_writer *w, const void *chunk, size_t len)
{
	const uint8_t *h = chunk;
	int ret = rec_writer_check(w, REC_TYPE_MIN, chunk, len);

	if (ret)
		return ret;
	if (len >= CHUNK_HDR_SIZE && !memcmp(h, CHUNK_MAGIC_STORED, 4)) {
		/* Compressed now, as the file stores it: only what is written costs deflate. */
		if (get_le32(h + 8) != len - CHUNK_HDR_SIZE || get_le32(h + 12) != len - CHUNK_HDR_SIZE)
			return -EINVAL;
		ret = rec_writer_flush(w);
		return ret ? ret : rec_writer_emit(w, get_le32(h + 4), h + CHUNK_HDR_SIZE,
						   len - CHUNK_HDR_SIZE);
	}
	if (len < CHUNK_HDR_SIZE || memcmp(h, CHUNK_MAGIC, 4) ||
	    get_le32(h + 12) != len - CHUNK_HDR_SIZE)
		return -EINVAL;
	ret = rec_writer_flush(w);
	if (ret)
		return ret;
	ret = w->sink ? w->sink(w->sink_arg, chunk, len) : fd_write_all(w->fd, chunk, len);
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->bytes += len;
	w->nr_chunks++;
	w->raw_bytes += get_le32(h + 8);
	return 0;
}

/* rec_writer_pending - streamed bytes not yet written as a chunk */
size_t rec_writer_pending(const struct rec_writer *w)
{
	return w ? w->slen : 0;
}

/* rec_writer_flush - write pending streamed bytes as a chunk */
int rec_writer_flush(struct rec_writer *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (w->closed)
		return -EBADF;
	if (w->err)
		return w->err;
	if (!w->slen)
		return 0;
	ret = rec_writer_emit(w, w->stype, w->sbuf, w->slen);
	if (ret)
		return ret;
	w->slen = 0;
	return 0;
}

/* rec_writer_put - write one whole section as a single chunk */
int rec_writer_put(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	int ret = rec_writer_check(w, type, data, len);

	if (ret)
		return ret;
	if (len > REC_CHUNK_MAX)
		return -EMSGSIZE;
	ret = rec_writer_flush(w);
	if (ret)
		return ret;
	return rec_writer_emit(w, type, data, len);
}

/* rec_writer_stream - append bytes to a streamed section, chunk by chunk */
int rec_writer_stream(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	const uint8_t *p = data;
	int ret = rec_writer_check(w, type, data, len);

	if (ret || !len)
		return ret;
	if (w->slen && (w->stype != type || w->slen + len > REC_STREAM_CHUNK)) {
		ret = rec_writer_flush(w);
		if (ret)
			return ret;
	}
	/* Whole chunks go straight from the caller's buffer. */
	while (!w->slen && len >= REC_STREAM_CHUNK) {
		ret = rec_writer_emit(w, type, p, REC_STREAM_CHUNK);
		if (ret)
			return ret;
		p += REC_STREAM_CHUNK;
		len -= REC_STREAM_CHUNK;
	}
	if (!len)
		return 0;
	if (!w->sbuf) {
		w->sbuf_mem = malloc(CHUNK_HDR_SIZE + REC_STREAM_CHUNK);
		if (!w->sbuf_mem)
			return -ENOMEM;
		w->sbuf = w->sbuf_mem + CHUNK_HDR_SIZE;
	}
	memcpy(w->sbuf + w->slen, p, len);
	w->slen += len;
	w->stype = type;
	return 0;
}

/* rec_writer_bytes - bytes written to the file so far */
uint64_t rec_writer_bytes(const struct rec_writer *w)
{
	return w ? w->bytes : 0;
}

/* rec_writer_release - drop the compressor and buffers */
static void rec_writer_release(struct rec_writer *w)
{
	if (w->zs_ready)
		deflateEnd(&w->zs);
	w->zs_ready = false;
	free(w->out);
	w->out = NULL;
	w->out_cap = 0;
	free(w->sbuf_mem);
	w->sbuf_mem = NULL;
	w->sbuf = NULL;
	w->slen = 0;
}

/* rec_writer_close - flush, write END and close the file */
int rec_writer_close(struct rec_writer *w)
{
	uint8_t end[END_RAW_SIZE];
	int ret;

	if (!w)
		return -EINVAL;
	if (w->closed)
		return w->close_ret;
	ret = rec_writer_flush(w);
	if (!ret) {
		put_le64(end, w->nr_chunks);
		put_le64(end + 8, w->raw_bytes);
		ret = rec_writer_emit(w, REC_TYPE_END, end, sizeof(end));
	}
	/* A recording is kept for later: on disk before the command says it is done. */
	if (!ret && w->fd >= 0 && fsync(w->fd) < 0)
		ret = -errno;
	if (w->fd >= 0 && close(w->fd) < 0 && !ret)
		ret = -errno;
	w->fd = -1;
	w->closed = true;
	w->close_ret = ret;
	rec_writer_release(w);
	return ret;
}

/* rec_writer_free - release a writer, closing its file without END if open */
void rec_writer_free(struct rec_writer *w)
{
	if (!w)
		return;
	if (!w->closed && w->fd >= 0)
		close(w->fd);
	rec_writer_release(w);
	free(w);
}
