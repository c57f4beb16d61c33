// SPDX-License-Identifier: GPL-2.0-or-later
/* container-read.c - the recording reader: the header, each chunk checked, END's totals */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "container-local.h"

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
	struct rec_inflater *z;	/* END's, rec_reader_next()'s and the first records' */
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

/* rec_reader_start - finish opening r (fd or mem already set); NULL with errno */
static struct rec_reader *rec_reader_start(struct rec_reader *r)
{
	int ret;

	r->z = rec_inflater_new();
	if (!r->z) {
		ret = -ENOMEM;
		goto free_reader;
	}
	ret = rec_reader_header(r);
	if (ret)
		goto free_reader;
	return r;

free_reader:
	rec_reader_free(r);
	errno = -ret;
	return NULL;
}

/* rec_reader_open - open a recording file and check its header */
struct rec_reader *rec_reader_open(const char *path)
{
	struct rec_reader *r;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = errno;
		free(r);
		errno = err;
		return NULL;
	}
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return rec_reader_start(r);
}

/* rec_reader_open_mem - open a recording held in memory */
struct rec_reader *rec_reader_open_mem(const void *buf, size_t len)
{
	struct rec_reader *r;

	if (!buf && len) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	r->mem = buf;
	r->mem_len = len;
	return rec_reader_start(r);
}

/* rec_reader_inflate - decompress exactly raw bytes of payload into rbuf */
static int rec_reader_inflate(struct rec_reader *r, const uint8_t *payload, size_t clen,
			      size_t raw)
{
	const struct rec_packed c = { .raw_len = raw, .payload = payload, .len = clen };

	if (buf_reserve(&r->rbuf, &r->rcap, raw + 1))
		return -ENOMEM;
	return rec_inflate(r->z, &c, r->rbuf);
}

/* rec_reader_inflater - see container-local.h */
struct rec_inflater *rec_reader_inflater(struct rec_reader *r)
{
	return r->z;
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

/* rec_chunk_unpack - a whole chunk of a sink writer's as a packed chunk (see container.h) */
int rec_chunk_unpack(const void *chunk, size_t len, struct rec_packed *c)
{
	const uint8_t *h = chunk;
	bool stored = h && len >= CHUNK_HDR_SIZE && !memcmp(h, CHUNK_MAGIC_STORED, 4);

	if (!h || len < CHUNK_HDR_SIZE || (!stored && memcmp(h, CHUNK_MAGIC, 4)) ||
	    get_le32(h + 12) != len - CHUNK_HDR_SIZE || get_le32(h + 8) > REC_CHUNK_MAX ||
	    (stored && get_le32(h + 8) != len - CHUNK_HDR_SIZE))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->stored = stored;
	c->type = get_le32(h + 4);
	c->raw_len = get_le32(h + 8);
	c->payload = h + CHUNK_HDR_SIZE;
	c->len = len - CHUNK_HDR_SIZE;
	return 0;
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
	rec_inflater_free(r->z);
	if (r->fd >= 0)
		close(r->fd);
	free(r->cbuf);
	free(r->rbuf);
	free(r);
}
