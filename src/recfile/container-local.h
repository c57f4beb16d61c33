/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CONTAINER_LOCAL_H
#define IOTAP_CONTAINER_LOCAL_H

/*
 * What the container's files share and nobody else sees: the byte layout of
 * headers and chunks, little-endian loads and stores, the CRC, and the
 * reader's inflater for the read-ahead (prefetch.c) while no worker runs.
 * container-write.c writes, container-read.c reads and checks, inflate.c
 * inflates, prefetch.c reads ahead in threads; all of them implement container.h.
 */
#include <stdlib.h>

#define ZLIB_CONST
#include <zlib.h>

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
/* A stored sink chunk: its payload raw, in memory only (never in a file). */
#define CHUNK_MAGIC_STORED "CHNR"

/* comp_max - largest compressed length the format allows for raw bytes */
static inline size_t comp_max(size_t raw)
{
	return raw + raw / 256 + 64;
}

/* put_le16 - store v little-endian at p */
static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

/* put_le32 - store v little-endian at p */
static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* put_le64 - store v little-endian at p */
static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, v);
	put_le32(p + 4, v >> 32);
}

/* get_le16 - load a little-endian u16 from p */
static inline uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* get_le32 - load a little-endian u32 from p */
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* get_le64 - load a little-endian u64 from p */
static inline uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* crc_of - CRC-32 (zlib, ISO-HDLC) of len bytes */
static inline uint32_t crc_of(const void *p, size_t len)
{
	return crc32(0, p, len);
}

/* buf_reserve - grow *buf to at least need bytes; 0 or -ENOMEM */
static inline int buf_reserve(uint8_t **buf, size_t *cap, size_t need)
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

/* The reader's own inflater, for whoever holds the reader (prefetch.c). */
struct rec_inflater *rec_reader_inflater(struct rec_reader *r);

#endif
