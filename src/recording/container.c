// SPDX-License-Identifier: GPL-2.0-or-later
/* container.c - chunked, compressed, CRC-checked recording container */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZLIB_CONST
#include <zlib.h>

#include "outfile.h"
#include "container.h"

/*
 * Byte layout (iotap-recording(5)); every integer is little-endian.
 *   file header  0: magic "IOTAPREC"  8: u16 major  10: u16 minor
 *               12: u32 flags  16: u32 CRC32 of bytes 0..15
 *   chunk header 0: "CHNK"  4: u32 type  8: u32 raw length
 *               12: u32 compressed length  16: u32 CRC32 of the payload
 *               20: u32 CRC32 of bytes 0..19
 *   END payload  0: u64 chunks before END  8: u64 their raw bytes
 */
#define HDR_SIZE 20
#define CHUNK_HDR_SIZE 24
#define END_RAW_SIZE 16
#define MAGIC "IOTAPREC"
#define MAGIC_LEN 8
#define CHUNK_MAGIC "CHNK"

/*
 * Level 1: recording must keep up with the event rate, and higher levels
 * cost several times the CPU for a few percent of size on trace records.
 */
#define ZLEVEL 1

/* comp_max - largest compressed length the format allows for raw bytes */
static size_t comp_max(size_t raw)
{
	return raw + raw / 256 + 64;
}

/* put_le16 - store v little-endian at p */
static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

/* put_le32 - store v little-endian at p */
static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* put_le64 - store v little-endian at p */
static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, v);
	put_le32(p + 4, v >> 32);
}

/* get_le16 - load a little-endian u16 from p */
static uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* get_le32 - load a little-endian u32 from p */
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* get_le64 - load a little-endian u64 from p */
static uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* crc_of - CRC-32 (zlib, ISO-HDLC) of len bytes */
static uint32_t crc_of(const void *p, size_t len)
{
	return crc32(0, p, len);
}

/* rec_strerror - one line describing a -REC_* or other -errno code */
const char *rec_strerror(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case 0:
		return "success";
	case REC_ENOTREC:
		return "not an iotap recording";
	case REC_EVERSION:
		return "recording uses a newer format version; a newer iotap is needed";
	case REC_EBADHDR:
		return "recording header is corrupt (checksum mismatch)";
	case REC_ECORRUPT:
		return "recording is corrupt (bad checksum, length or compressed data)";
	case REC_ETRUNC:
		return "recording is truncated (it ends before its END marker)";
	default:
		return strerror(code);
	}
}

/* buf_reserve - grow *buf to at least need bytes; 0 or -ENOMEM */
static int buf_reserve(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

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

/* fd_read_full - read up to len bytes, stopping only at EOF; count or -errno */
static ssize_t fd_read_full(int fd, uint8_t *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += n;
	}
	return got;
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
	size_t slen;
	uint32_t stype;
	rec_chunk_fn sink;	/* a writer to memory: chunks go here, not to fd */
	void *sink_arg;
};

/* rec_writer_emit - compress and write one chunk; 0 or -errno (sticky) */
static int rec_writer_emit(struct rec_writer *w, uint32_t type, const void *data, size_t len)
{
	uint8_t *h;
	size_t clen;
	int ret;

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

/* rec_writer_put_chunk - a whole chunk that a sink writer made, written as it is */
int rec_writer_put_chunk(struct rec_writer *w, const void *chunk, size_t len)
{
	const uint8_t *h = chunk;
	int ret = rec_writer_check(w, REC_TYPE_MIN, chunk, len);

	if (ret)
		return ret;
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
		w->sbuf = malloc(REC_STREAM_CHUNK);
		if (!w->sbuf)
			return -ENOMEM;
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
	free(w->sbuf);
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

struct rec_reader {
	int fd;			/* -1 when reading memory */
	const uint8_t *mem;
	size_t mem_len;
	uint64_t pos;		/* offset of the next unread byte */
	uint64_t chunk_off;
	uint32_t chunk_crc;	/* the stored payload CRC of the chunk last returned */
	uint16_t major, minor;
	int state;		/* 0 reading, 1 END seen, or the sticky error */
	uint64_t nr_chunks;
	uint64_t raw_bytes;
	z_stream zs;
	bool zs_ready;
	uint8_t hdr[CHUNK_HDR_SIZE];
	uint8_t *cbuf;		/* compressed payload (file readers only) */
	size_t ccap;
	uint8_t *rbuf;		/* raw bytes handed to the caller */
	size_t rcap;
};

/*
 * rec_reader_fetch - the next len bytes: from memory in place, or read from
 * the file into dst.  0, -REC_ETRUNC at a short end, or -errno.
 */
static int rec_reader_fetch(struct rec_reader *r, uint8_t *dst, size_t len, const uint8_t **out)
{
	ssize_t got;

	if (r->fd < 0) {
		if (r->mem_len - r->pos < len)
			return -REC_ETRUNC;
		*out = r->mem + r->pos;
	} else {
		got = fd_read_full(r->fd, dst, len);
		if (got < 0)
			return got;
		if ((size_t)got < len)
			return -REC_ETRUNC;
		*out = dst;
	}
	r->pos += len;
	return 0;
}

/* rec_reader_at_eof - 1 if nothing follows, 0 if something does, or -errno */
static int rec_reader_at_eof(struct rec_reader *r)
{
	uint8_t c;
	ssize_t got;

	if (r->fd < 0)
		return r->pos == r->mem_len;
	got = fd_read_full(r->fd, &c, 1);
	return got < 0 ? got : got == 0;
}

/* rec_reader_header - read and check the file header; 0 or -code */
static int rec_reader_header(struct rec_reader *r)
{
	uint8_t buf[HDR_SIZE];
	const uint8_t *h;
	ssize_t got;
	size_t cmp;

	if (r->fd < 0) {
		got = r->mem_len < HDR_SIZE ? r->mem_len : HDR_SIZE;
		h = r->mem;
	} else {
		got = fd_read_full(r->fd, buf, HDR_SIZE);
		if (got < 0)
			return got;
		h = buf;
	}
	/* A short file that starts like a recording was cut; others are not ours. */
	cmp = got < MAGIC_LEN ? got : MAGIC_LEN;
	if (got == 0 || memcmp(h, MAGIC, cmp))
		return -REC_ENOTREC;
	if (got < HDR_SIZE)
		return -REC_ETRUNC;
	if (get_le32(h + 16) != crc_of(h, 16))
		return -REC_EBADHDR;
	r->major = get_le16(h + 8);
	r->minor = get_le16(h + 10);
	/* Flags are defined by minor versions, so unknown ones are safe to ignore. */
	if (r->major != REC_VERSION_MAJOR)
		return -REC_EVERSION;
	r->pos = HDR_SIZE;
	return 0;
}

/* rec_reader_start - finish opening r (fd or mem already set); NULL on error */
static struct rec_reader *rec_reader_start(struct rec_reader *r, int *err)
{
	int ret;

	/* Raw deflate: rec_reader_inflate() takes the zlib wrapper off itself. */
	if (inflateInit2(&r->zs, -MAX_WBITS) != Z_OK) {
		ret = -ENOMEM;
		goto free_reader;
	}
	r->zs_ready = true;
	ret = rec_reader_header(r);
	if (ret)
		goto free_reader;
	if (err)
		*err = 0;
	return r;

free_reader:
	rec_reader_free(r);
	if (err)
		*err = ret;
	errno = -ret;
	return NULL;
}

/* rec_reader_open - open a recording file and check its header */
struct rec_reader *rec_reader_open(const char *path, int *err)
{
	struct rec_reader *r;
	int ret;

	if (!path) {
		ret = -EINVAL;
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto fail;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		free(r);
		goto fail;
	}
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return rec_reader_start(r, err);

fail:
	if (err)
		*err = ret;
	errno = -ret;
	return NULL;
}

/* rec_reader_open_mem - open a recording held in memory */
struct rec_reader *rec_reader_open_mem(const void *buf, size_t len, int *err)
{
	struct rec_reader *r;
	int ret;

	if (!buf && len) {
		ret = -EINVAL;
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto fail;
	}
	r->fd = -1;
	r->mem = buf;
	r->mem_len = len;
	return rec_reader_start(r, err);

fail:
	if (err)
		*err = ret;
	errno = -ret;
	return NULL;
}

/*
 * zs_inflate - decompress exactly raw bytes of payload into out (room for
 * raw + 1: a stream longer than announced is caught)
 *
 * The payload is a zlib stream: a 2-byte header, raw deflate data and the
 * Adler-32 of the raw bytes. The chunk's CRC-32 already covers every
 * payload byte, so the deflate data is inflated raw and the Adler-32 is
 * only required to be there: computing it took a third of a report's
 * decompression time.
 */
static int zs_inflate(z_stream *zs, const uint8_t *payload, size_t clen, uint8_t *out, size_t raw)
{
	int zret;

	/* Deflate with a window of at most 32 KiB, no preset dictionary (RFC 1950). */
	if (clen < 6 || (payload[0] & 0x0f) != Z_DEFLATED || (payload[0] >> 4) > 7 ||
	    (payload[1] & 0x20) || (payload[0] << 8 | payload[1]) % 31)
		return -REC_ECORRUPT;
	if (inflateReset(zs) != Z_OK)
		return -REC_ECORRUPT;
	zs->next_in = payload + 2;
	zs->avail_in = clen - 2;
	zs->next_out = out;
	zs->avail_out = raw + 1;
	zret = inflate(zs, Z_FINISH);
	if (zret == Z_MEM_ERROR)
		return -ENOMEM;
	if (zret != Z_STREAM_END || zs->total_out != raw || zs->avail_in != 4)
		return -REC_ECORRUPT;
	return 0;
}

/* rec_reader_inflate - decompress exactly raw bytes of payload into rbuf */
static int rec_reader_inflate(struct rec_reader *r, const uint8_t *payload, size_t clen,
			      size_t raw)
{
	if (buf_reserve(&r->rbuf, &r->rcap, raw + 1))
		return -ENOMEM;
	return zs_inflate(&r->zs, payload, clen, r->rbuf, raw);
}

/*
 * rec_reader_packed - read and check one chunk (a section's payload against its
 * CRC only if check); 1 section (its payload still compressed in c), 2 skipped,
 * 0 END, or -code
 */
static int rec_reader_packed(struct rec_reader *r, struct rec_packed *c, bool check)
{
	const uint8_t *h = NULL, *payload = NULL;
	uint32_t raw, clen;
	int ret;

	r->chunk_off = r->pos;
	ret = rec_reader_fetch(r, r->hdr, CHUNK_HDR_SIZE, &h);
	if (ret)
		return ret;
	if (memcmp(h, CHUNK_MAGIC, 4) || get_le32(h + 20) != crc_of(h, 20))
		return -REC_ECORRUPT;
	c->type = get_le32(h + 4);
	raw = get_le32(h + 8);
	clen = get_le32(h + 12);
	if (raw > REC_CHUNK_MAX || clen > comp_max(raw))
		return -REC_ECORRUPT;

	if (r->fd >= 0 && buf_reserve(&r->cbuf, &r->ccap, clen ? clen : 1))
		return -ENOMEM;
	ret = rec_reader_fetch(r, r->cbuf, clen, &payload);
	if (ret)
		return ret;
	r->chunk_crc = get_le32(h + 16);
	if ((check || c->type == REC_TYPE_END) && r->chunk_crc != crc_of(payload, clen))
		return -REC_ECORRUPT;

	if (c->type > REC_TYPE_END && c->type < REC_TYPE_MIN) {
		/* A container chunk from a later minor version: not ours to read. */
		r->nr_chunks++;
		r->raw_bytes += raw;
		return 2;
	}
	if (c->type == REC_TYPE_END) {
		ret = rec_reader_inflate(r, payload, clen, raw);
		if (ret)
			return ret;
		/* Later minors may append fields; the two totals come first. */
		if (raw < END_RAW_SIZE || get_le64(r->rbuf) != r->nr_chunks ||
		    get_le64(r->rbuf + 8) != r->raw_bytes)
			return -REC_ECORRUPT;
		ret = rec_reader_at_eof(r);
		if (ret < 0)
			return ret;
		return ret ? 0 : -REC_ECORRUPT;
	}
	r->nr_chunks++;
	r->raw_bytes += raw;
	c->raw_len = raw;
	c->payload = payload;
	c->len = clen;
	c->offset = r->chunk_off;
	return 1;
}

/* reader_next_packed - the next section chunk, not inflated, its payload checked if check */
static int reader_next_packed(struct rec_reader *r, struct rec_packed *c, bool check)
{
	int ret;

	if (!r || !c)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	if (r->state)
		return r->state > 0 ? 0 : r->state;
	do
		ret = rec_reader_packed(r, c, check);
	while (ret == 2);
	if (ret <= 0)
		r->state = ret ? ret : 1;
	return ret;
}

/* rec_reader_next_packed - the next section chunk, not inflated (see container.h) */
int rec_reader_next_packed(struct rec_reader *r, struct rec_packed *c)
{
	return reader_next_packed(r, c, true);
}

/* rec_reader_skim_packed - the next section chunk, its payload unchecked (see container.h) */
int rec_reader_skim_packed(struct rec_reader *r, struct rec_packed *c)
{
	return reader_next_packed(r, c, false);
}

/* rec_reader_check_packed - c's payload against the CRC its header states (see container.h) */
int rec_reader_check_packed(struct rec_reader *r, const struct rec_packed *c)
{
	if (!r || !c || !c->payload)
		return -EINVAL;
	if (r->state)
		return r->state > 0 ? -EINVAL : r->state;
	if (crc_of(c->payload, c->len) != r->chunk_crc)
		r->state = -REC_ECORRUPT;
	return r->state;
}

/* rec_reader_next - the next section chunk, 0 at END, or a negative code */
int rec_reader_next(struct rec_reader *r, uint32_t *type, const void **data, size_t *len)
{
	struct rec_packed c;
	int ret;

	if (!r || !type || !data || !len)
		return -EINVAL;
	*data = NULL;
	*len = 0;
	ret = rec_reader_next_packed(r, &c);
	if (ret <= 0)
		return ret;
	ret = rec_reader_inflate(r, c.payload, c.len, c.raw_len);
	if (ret) {
		r->state = ret;
		return ret;
	}
	*type = c.type;
	*data = r->rbuf;
	*len = c.raw_len;
	return 1;
}

/* A zlib stream of its own, for inflating packed chunks in any thread. */
struct rec_inflater {
	z_stream zs;
};

/* rec_inflater_new - see container.h */
struct rec_inflater *rec_inflater_new(void)
{
	struct rec_inflater *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	if (inflateInit2(&z->zs, -MAX_WBITS) != Z_OK) {
		free(z);
		errno = ENOMEM;
		return NULL;
	}
	return z;
}

/* rec_inflate - see container.h */
int rec_inflate(struct rec_inflater *z, const struct rec_packed *c, void *out)
{
	return zs_inflate(&z->zs, c->payload, c->len, out, c->raw_len);
}

/* rec_inflater_free - see container.h */
void rec_inflater_free(struct rec_inflater *z)
{
	if (!z)
		return;
	inflateEnd(&z->zs);
	free(z);
}

/* rec_reader_offset - file offset of the last chunk returned or failed */
uint64_t rec_reader_offset(const struct rec_reader *r)
{
	return r ? r->chunk_off : 0;
}

/* rec_reader_crc - the stored payload CRC of the chunk last returned */
uint32_t rec_reader_crc(const struct rec_reader *r)
{
	return r ? r->chunk_crc : 0;
}

/* rec_reader_version - format version of the open file */
void rec_reader_version(const struct rec_reader *r, uint16_t *major, uint16_t *minor)
{
	if (major)
		*major = r ? r->major : 0;
	if (minor)
		*minor = r ? r->minor : 0;
}

/* rec_reader_free - release a reader and close its file */
void rec_reader_free(struct rec_reader *r)
{
	if (!r)
		return;
	if (r->zs_ready)
		inflateEnd(&r->zs);
	if (r->fd >= 0)
		close(r->fd);
	free(r->cbuf);
	free(r->rbuf);
	free(r);
}

/* Chunks decompressed ahead of the replay: one being replayed, the others ready. */
/* Inflating threads at most (see prefetch_workers()), and chunks in flight. */
#define PREFETCH_WORKERS 3
#define PREFETCH_SLOTS 8
/* Chunks smaller than this are inflated by the caller until a larger one comes. */
#define PREFETCH_INLINE_MAX (64u << 10)

/* One chunk, inflated by a worker for the reader. */
struct chunk_slot {
	uint8_t *data;
	size_t len, cap;
	uint32_t type;
	uint64_t seq;			/* the chunk's place in the file */
	bool ready;			/* inflated (or failed: err) */
	int err;
	uint64_t offset;		/* of the chunk in the file */
};

/*
 * Chunks after the first records are read and inflated by worker threads,
 * a few ahead of the replay: chunks are independent, so workers inflate
 * them side by side while the replay consumes them in file order.
 * Decompression then costs the replay nothing when other CPUs are free.
 * Workers take the reader in turn (under the lock) to read the next
 * compressed chunk, then inflate it outside the lock into the slot of its
 * sequence number, which nobody else touches until it is ready.
 */
struct rec_prefetch {
	pthread_t thread[PREFETCH_WORKERS];
	int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk_slot slot[PREFETCH_SLOTS];
	uint64_t head, tail;		/* chunks taken from the reader, chunks given back */
	bool holding;			/* the caller is using slot[tail] */
	struct rec_reader *r;
	bool begun;			/* the workers were started */
	int end;			/* 0: more to come; 1: END; else the reader's error */
	uint64_t end_at;		/* file offset of that error */
	bool stop;
};

/* slot_reserve - room for n bytes (and the one inflating needs spare) in a slot */
static int slot_reserve(struct chunk_slot *sl, size_t n)
{
	uint8_t *p;

	if (n + 1 <= sl->cap)
		return 0;
	p = realloc(sl->data, n + 1);
	if (!p)
		return -ENOMEM;
	sl->data = p;
	sl->cap = n + 1;
	return 0;
}

/* prefetch_main - a worker: take the next chunk from the reader, inflate it into its slot */
static void *prefetch_main(void *arg)
{
	struct rec_prefetch *pf = arg;
	struct rec_inflater *z = rec_inflater_new();
	struct rec_packed c;
	struct chunk_slot *sl;
	uint8_t *copy = NULL;
	size_t copy_cap = 0;
	int ret;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (pf->head - pf->tail >= PREFETCH_SLOTS && !pf->stop && !pf->end)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop || pf->end)
			break;
		ret = z ? rec_reader_next_packed(pf->r, &c) : -ENOMEM;
		if (ret <= 0) {
			pf->end = ret ? ret : 1;
			pf->end_at = rec_reader_offset(pf->r);
			pthread_cond_broadcast(&pf->cond);
			break;
		}
		/* The payload lasts until the reader's next call: keep a copy. */
		if (c.len > copy_cap) {
			uint8_t *p = realloc(copy, c.len);

			if (!p) {
				pf->end = -ENOMEM;
				pthread_cond_broadcast(&pf->cond);
				break;
			}
			copy = p;
			copy_cap = c.len;
		}
		memcpy(copy, c.payload, c.len);
		c.payload = copy;
		sl = &pf->slot[pf->head % PREFETCH_SLOTS];
		sl->seq = pf->head++;
		sl->ready = false;
		pthread_mutex_unlock(&pf->lock);

		ret = slot_reserve(sl, c.raw_len);
		if (!ret)
			ret = rec_inflate(z, &c, sl->data);
		sl->type = c.type;
		sl->len = c.raw_len;
		sl->offset = c.offset;

		pthread_mutex_lock(&pf->lock);
		sl->err = ret;
		sl->ready = true;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	free(copy);
	rec_inflater_free(z);
	return NULL;
}

/*
 * prefetch_workers - how many threads inflate: one per CPU we may use, up
 * to PREFETCH_WORKERS (on two CPUs, two workers and the replay beat one
 * worker by a quarter: inflating is the larger half of a report's work)
 */
static int prefetch_workers(void)
{
	cpu_set_t set;
	int cpus;

	/* The affinity mask, not /sys: a report reads nothing of the machine it runs on. */
	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	return cpus < 1 ? 1 : cpus < PREFETCH_WORKERS ? cpus : PREFETCH_WORKERS;
}

/* rec_prefetch_start - see container.h */
struct rec_prefetch *rec_prefetch_start(struct rec_reader *r, uint32_t type, const void *data,
					size_t len, const uint8_t **first, int *err)
{
	struct rec_prefetch *pf = calloc(1, sizeof(*pf));
	struct chunk_slot *sl;
	int ret;

	if (!pf) {
		*err = -ENOMEM;
		return NULL;
	}
	pf->r = r;
	sl = &pf->slot[0];
	ret = slot_reserve(sl, len);
	if (ret)
		goto out_free;
	memcpy(sl->data, data, len);
	sl->len = len;
	sl->type = type;
	sl->seq = 0;
	sl->ready = true;
	pf->head = 1;
	pf->holding = true;
	*first = sl->data;
	ret = -ENOMEM;
	if (pthread_mutex_init(&pf->lock, NULL))
		goto out_free;
	if (pthread_cond_init(&pf->cond, NULL)) {
		pthread_mutex_destroy(&pf->lock);
		goto out_free;
	}
	return pf;
out_free:
	free(sl->data);
	free(pf);
	*err = ret;
	return NULL;
}

/*
 * prefetch_inline - the next chunk, read and inflated by the caller while
 * the chunks are small (STAT, END, a short recording's only records): the
 * workers start at the first large one, so a short report starts no thread
 */
static void prefetch_inline(struct rec_prefetch *pf)
{
	struct chunk_slot *sl = &pf->slot[pf->head % PREFETCH_SLOTS];
	struct rec_packed c;
	int ret = rec_reader_next_packed(pf->r, &c), want;

	if (ret <= 0) {
		pf->end = ret ? ret : 1;
		pf->end_at = rec_reader_offset(pf->r);
		return;
	}
	ret = slot_reserve(sl, c.raw_len);
	if (!ret)
		ret = zs_inflate(&pf->r->zs, c.payload, c.len, sl->data, c.raw_len);
	sl->seq = pf->head++;
	sl->type = c.type;
	sl->len = c.raw_len;
	sl->offset = c.offset;
	sl->err = ret;
	sl->ready = true;
	if (ret) {
		pf->end = ret;
		pf->end_at = c.offset;
		return;
	}
	if (c.raw_len < PREFETCH_INLINE_MAX)
		return;
	pf->begun = true;
	/* Asked only now: a short recording makes no system call for its workers. */
	want = prefetch_workers();
	for (int i = 0; i < want; i++) {
		ret = -pthread_create(&pf->thread[i], NULL, prefetch_main, pf);
		if (ret)
			break;
		pf->nr_workers++;
	}
	/* Without a worker nothing reads on: the replay gets the error after this chunk. */
	if (!pf->nr_workers) {
		pf->end = ret;
		pf->end_at = c.offset;
	}
}

/* rec_prefetch_free - end the workers and free the slots; accepts NULL */
void rec_prefetch_free(struct rec_prefetch *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	for (int i = 0; i < pf->nr_workers; i++)
		pthread_join(pf->thread[i], NULL);
	pthread_cond_destroy(&pf->cond);
	pthread_mutex_destroy(&pf->lock);
	for (int i = 0; i < PREFETCH_SLOTS; i++)
		free(pf->slot[i].data);
	free(pf);
}

/* rec_prefetch_next - see container.h */
int rec_prefetch_next(struct rec_prefetch *pf, uint32_t *type, const uint8_t **data, size_t *len,
		      uint64_t *end_at)
{
	struct chunk_slot *sl;
	int ret;

	if (!pf->begun && !pf->end)
		prefetch_inline(pf);
	pthread_mutex_lock(&pf->lock);
	if (pf->holding)
		pf->tail++;
	pf->holding = false;
	pthread_cond_broadcast(&pf->cond);
	sl = &pf->slot[pf->tail % PREFETCH_SLOTS];
	while (!(pf->head > pf->tail && sl->ready && sl->seq == pf->tail) &&
	       !(pf->end && pf->head == pf->tail))
		pthread_cond_wait(&pf->cond, &pf->lock);
	if (pf->head > pf->tail && sl->err) {
		/* Damaged in the middle: cut there, as a reader that stopped at it would. */
		ret = sl->err;
		*end_at = sl->offset;
	} else if (pf->head > pf->tail) {
		*type = sl->type;
		*data = sl->data;
		*len = sl->len;
		pf->holding = true;
		ret = 1;
	} else {
		ret = pf->end == 1 ? 0 : pf->end;
		*end_at = pf->end_at;
	}
	pthread_mutex_unlock(&pf->lock);
	return ret;
}
