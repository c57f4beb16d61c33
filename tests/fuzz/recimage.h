/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RECIMAGE_H
#define IOTAP_RECIMAGE_H

/*
 * Shared by the fuzz harnesses: turn an arbitrary input into a recording
 * image whose CRCs agree with its bytes, so the fuzzer reaches the length,
 * zlib and END checks (and everything after them) behind the CRCs.
 */
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* le32_put - store v little-endian */
static inline void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* le32_get - load a little-endian u32 */
static inline uint32_t le32_get(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* fix_crcs - make every CRC in a file image (header, chunk headers, payloads) agree with its bytes */
static inline void fix_crcs(uint8_t *p, size_t len)
{
	size_t off = 20;

	if (len < 20)
		return;
	le32_put(p + 16, crc32(0, p, 16));
	while (len - off >= 24) {
		uint32_t clen = le32_get(p + off + 12);
		size_t avail = len - off - 24;

		if (clen > avail)
			clen = avail;
		le32_put(p + off + 16, crc32(0, p + off + 24, clen));
		le32_put(p + off + 20, crc32(0, p + off, 20));
		off += 24 + clen;
	}
}

#endif
