// SPDX-License-Identifier: GPL-2.0-or-later
/* inflate.c - a chunk's payload back to its raw bytes, in any thread */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "container-local.h"

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
	if (c->stored) {
		memcpy(out, c->payload, c->raw_len);
		return 0;
	}
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
