/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CONTAINER_H
#define IOTAP_CONTAINER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The recording container: a versioned file of typed sections, each stored
 * as one or more zlib-compressed, CRC-checked chunks, closed by an END chunk.
 * The container knows nothing of what the sections hold (sections.h does);
 * the byte layout is described in iotap-recording(5).
 *
 * src/recfile/ is the format's one home, and rec_ (REC_ for constants) its
 * one prefix: the container's rec_writer_ (container-write.c), rec_reader_
 * (container-read.c), rec_inflater_ (inflate.c) and rec_prefetch_
 * (prefetch.c), sharing container-local.h; the sections' rec_sec_ and the
 * byte buffer they are encoded into, rec_buf_ (sections.h).
 */

#define REC_VERSION_MAJOR 1
#define REC_VERSION_MINOR 0

/* Largest raw (uncompressed) chunk; readers refuse bigger before allocating. */
#define REC_CHUNK_MAX (4u << 20)
/* Bytes of a chunk's header, before its compressed payload. */
#define REC_CHUNK_HDR 24
/* Chunk size rec_writer_stream() fills before it writes a chunk. */
#define REC_STREAM_CHUNK (1u << 20)

/*
 * Section types are u32.  0 is END and 1..255 are kept for the container
 * itself; callers use REC_TYPE_MIN and above.  REC_FOURCC() makes a type whose
 * four bytes, as stored (little-endian), spell its name in a hex dump.
 */
#define REC_TYPE_END 0u
#define REC_TYPE_MIN 256u
#define REC_FOURCC(a, b, c, d)						\
	((uint32_t)(uint8_t)(a) | (uint32_t)(uint8_t)(b) << 8 |	\
	 (uint32_t)(uint8_t)(c) << 16 | (uint32_t)(uint8_t)(d) << 24)

/*
 * What is wrong with a recording comes back as one of these errno values, negated
 * like any other -errno; each failure has its own, none that file I/O returns, so
 * callers can tell them apart, and rec_strerror() words them for recordings.
 */
#define REC_ENOTREC	EPROTO		/* not an iotap recording (wrong magic, empty) */
#define REC_EVERSION	EPROTONOSUPPORT	/* major version newer than this reader */
#define REC_EBADHDR	EBADMSG		/* file header fails its CRC */
#define REC_ECORRUPT	EUCLEAN		/* chunk CRC, length, zlib or END totals wrong */
#define REC_ETRUNC	ENODATA		/* file ends before its END chunk */

/* One line for an error of this module, a REC_* meaning or any errno (sign ignored). */
const char *rec_strerror(int code);

struct rec_writer;

/*
 * Create path (mode 0600) and write the file header.  Created with
 * outfile_create: a symlink is never followed; without force an existing
 * path fails with EEXIST; with force a regular file or symlink of that name
 * is replaced by a new file (ENOTSUP for a device or FIFO).  NULL with errno
 * on failure.
 */
struct rec_writer *rec_writer_create(const char *path, bool force);

/* Where a sink writer's chunks go: one whole chunk, header included; 0 or -errno. */
typedef int (*rec_chunk_fn)(void *arg, const void *chunk, size_t len);

/*
 * A writer that hands each chunk it makes to sink instead of a file (no
 * file header; closing it writes an END chunk to the sink). NULL with errno.
 */
struct rec_writer *rec_writer_create_sink(rec_chunk_fn sink, void *arg);

/*
 * A sink writer whose chunks are stored, not compressed: the payload as it
 * is, under a header of its own that only memory holds (no CRCs: it is our
 * own). rec_writer_put_chunk() compresses such a chunk as it writes it, and
 * rec_chunk_unpack()/rec_inflate() read it, so that a flight recorder pays
 * deflate only for what it dumps. NULL with errno.
 */
struct rec_writer *rec_writer_create_sink_stored(rec_chunk_fn sink, void *arg);

/*
 * Write a whole chunk made by a sink writer, as it is (pending streamed
 * bytes go first); the END totals count it. -EINVAL if it is not one chunk,
 * else 0 or -errno as rec_writer_put().
 */
int rec_writer_put_chunk(struct rec_writer *w, const void *chunk, size_t len);

/* Streamed bytes buffered, not yet in a chunk. */
size_t rec_writer_pending(const struct rec_writer *w);

/*
 * Write one whole section of len <= REC_CHUNK_MAX bytes as a single chunk
 * (-EMSGSIZE if larger).  Data pending from rec_writer_stream() is written
 * first, so chunks appear in the order of the calls.  0, or -errno: write(2)'s
 * or the sink's, -ENOMEM, -EBADF after close; a writer's first error sticks
 * and every later call returns it.
 */
int rec_writer_put(struct rec_writer *w, uint32_t type, const void *data, size_t len);

/*
 * Append len bytes to a streamed section of the given type.  Bytes are
 * buffered and written in chunks of REC_STREAM_CHUNK, so memory stays bounded.
 * A call of at most REC_STREAM_CHUNK bytes is never split across two chunks,
 * so records streamed one per call can be decoded chunk by chunk.  Changing
 * type writes the pending chunk of the previous type first.  0 or -errno, as
 * rec_writer_put().
 */
int rec_writer_stream(struct rec_writer *w, uint32_t type, const void *data, size_t len);

/* Write the pending streamed bytes, if any, as a (short) chunk: 0 or -errno, as rec_writer_put(). */
int rec_writer_flush(struct rec_writer *w);

/* Bytes written to the file so far (not counting buffered stream data). */
uint64_t rec_writer_bytes(const struct rec_writer *w);

/*
 * Finish the file: flush, write the END chunk, fsync, close the descriptor.  The
 * first error of any earlier call is returned here again; a second close
 * returns the first one's result.  The writer must still be freed.
 */
int rec_writer_close(struct rec_writer *w);

/*
 * Release the writer; w may be NULL.  A writer freed without a successful
 * close leaves a file without END, which readers report as truncated.
 */
void rec_writer_free(struct rec_writer *w);

struct rec_reader;

/*
 * Open a recording and check its header.  NULL with errno set on failure:
 * REC_ENOTREC, REC_EVERSION, REC_EBADHDR or REC_ETRUNC (a header cut short)
 * for the file, EINVAL for no path, ENOMEM, or what open(2) or read(2) set.
 */
struct rec_reader *rec_reader_open(const char *path);

/* The same over len bytes at buf, which must outlive the reader (EINVAL: NULL buf, len > 0). */
struct rec_reader *rec_reader_open_mem(const void *buf, size_t len);

/*
 * Next chunk: 1 with its type and raw bytes (valid until the next call or
 * free), 0 at a valid END, or a negative code: -REC_ETRUNC if the file stops
 * before END, -REC_ECORRUPT for a damaged chunk, -errno for I/O.  Errors and
 * the END stick: later calls return the same value.  Container-reserved
 * chunk types unknown to this reader are skipped; section types are all
 * returned, and callers skip the ones they do not know.
 */
int rec_reader_next(struct rec_reader *r, uint32_t *type, const void **data, size_t *len);

/* A chunk read and checked (CRCs, lengths) but not yet inflated. */
struct rec_packed {
	uint32_t type;
	size_t raw_len;			/* its bytes once inflated */
	const void *payload;		/* compressed; valid until the next call or free */
	size_t len;
	uint64_t offset;		/* in the file */
	bool stored;			/* a stored sink chunk's: payload is the raw bytes */
};

/*
 * rec_reader_next() in two halves, so that chunks can be inflated in other
 * threads: the next section chunk read and checked into *c (1), 0 at a
 * valid END, or a negative code, sticky as rec_reader_next()'s. A packed
 * chunk whose payload then fails to inflate is damaged: -REC_ECORRUPT.
 */
int rec_reader_next_packed(struct rec_reader *r, struct rec_packed *c);

/*
 * rec_reader_next_packed() for a reader that only asks which chunks a file
 * holds (type, length, the CRC rec_reader_crc() gives): a section's payload is
 * not checked against its CRC, its header is. Before the payload of the chunk
 * last returned is used, rec_reader_check_packed() checks it: 0, or
 * -REC_ECORRUPT, sticky (-EINVAL: no chunk, or the reader has ended).
 */
int rec_reader_skim_packed(struct rec_reader *r, struct rec_packed *c);
int rec_reader_check_packed(struct rec_reader *r, const struct rec_packed *c);

/*
 * The chunk a sink writer made (header included) as a packed chunk, its
 * payload pointing into chunk: 0, or -EINVAL when it is not one whole chunk
 * of at most REC_CHUNK_MAX raw bytes. No CRC is checked: it is our own.
 */
int rec_chunk_unpack(const void *chunk, size_t len, struct rec_packed *c);

struct rec_inflater;

/* A decompressor of packed chunks, one per thread; NULL with errno ENOMEM. */
struct rec_inflater *rec_inflater_new(void);

/*
 * Inflate c into out, which has room for c->raw_len + 1 bytes: 0,
 * -REC_ECORRUPT when the payload is not exactly raw_len bytes of data, or
 * -ENOMEM.
 */
int rec_inflate(struct rec_inflater *z, const struct rec_packed *c, void *out);

void rec_inflater_free(struct rec_inflater *z);

/* File offset of the chunk last returned, or of the one that failed. */
uint64_t rec_reader_offset(const struct rec_reader *r);

/*
 * The CRC-32 the chunk last returned stores for its payload (checked unless
 * skimmed):
 * with its type and length, what tells two files' chunks apart cheaply.
 */
uint32_t rec_reader_crc(const struct rec_reader *r);

/* Format version in the file header; minor may exceed REC_VERSION_MINOR. */
void rec_reader_version(const struct rec_reader *r, uint16_t *major, uint16_t *minor);

/* Release the reader and close its file; r may be NULL. */
void rec_reader_free(struct rec_reader *r);

/*
 * The chunks after the first records, read and inflated ahead by worker
 * threads (one per usable CPU, up to three) while the caller replays them
 * in file order; the threads start at the first chunk of 64 KiB or more
 * (until then the caller inflates, so a short recording starts none).
 * rec_prefetch_start takes the first chunk (of type, its data copied;
 * *first gets the copy) and the reader, which the workers use from then
 * on; NULL with *err. rec_prefetch_next gives back the chunk handed
 * out last and waits for the next: 1 with its type, data and length (valid
 * until the next call), 0 at END, or the reader's error with the offset of
 * the chunk at *end_at.
 */
struct rec_prefetch;

struct rec_prefetch *rec_prefetch_start(struct rec_reader *r, uint32_t type, const void *data,
					size_t len, const uint8_t **first);
int rec_prefetch_next(struct rec_prefetch *pf, uint32_t *type, const uint8_t **data, size_t *len,
		      uint64_t *end_at);
/* End the workers and free the chunks; pf may be NULL. */
void rec_prefetch_free(struct rec_prefetch *pf);

#endif
