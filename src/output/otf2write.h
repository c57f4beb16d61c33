/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OTF2WRITE_H
#define IOTAP_OTF2WRITE_H

/*
 * An OTF2 archive, written with libotf2 (otf2write.c; otf2write-absent.c in
 * a build without it, where otf2w_create says so). The archive is written in
 * DIR/.iotap-partial and moved into DIR, anchor file last, by otf2w_commit: one
 * that failed or was interrupted is removed by otf2w_free, leaving DIR as it
 * was (absent or empty), so nothing half-written passes for an archive.
 * Events go to their location's writer as they come, in the locations'
 * time order (otf2defs.h keeps it); the definitions, built up in
 * otf2w_defs as the events name them, are written by otf2w_finish.
 * Functions return 0 or -errno; what libotf2 said is in otf2w_why.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otf2defs.h"

struct otf2w;

enum otf2w_mode {
	OTF2W_READ,
	OTF2W_WRITE,
};

/* What the definitions say about the machine and the time span; "" where unknown. */
struct otf2w_meta {
	const char *host, *sysname, *release, *version, *arch;
	const char *description;	/* the archive's: what it was made from */
	uint64_t t_start, t_end;	/* the input's span, in its timestamps (ns) */
	bool have_wall;
	int64_t wall_offset;		/* a timestamp + this: ns since the epoch */
};

/*
 * otf2w_create - a new archive for dir, which must be absent (then made) or an empty
 * directory: 0, -ENOTSUP (no libotf2 in this build), -EEXIST (dir has something in it),
 * -ENOTDIR, the errno of making it (-EACCES, -EROFS, -ENOENT: no parent), or -EIO (libotf2
 * refused); why says which in words
 */
int otf2w_create(struct otf2w **out, const char *dir, char *why, size_t whylen);
/* otf2w_free - close it; what was not committed is removed. NULL is fine. */
void otf2w_free(struct otf2w *w);
/* otf2w_defs - the definitions the events use, filled by the caller before each event */
struct otf2_defs *otf2w_defs(struct otf2w *w);
/* otf2w_why - what failed last, in words ("" when nothing did) */
const char *otf2w_why(const struct otf2w *w);
/*
 * otf2w_begin - an operation of location loc on handle h begins at t: IoOperationBegin,
 * non-blocking (it will be issued) or blocking; its matching id into *id
 */
int otf2w_begin(struct otf2w *w, uint32_t loc, uint32_t h, uint64_t t, enum otf2w_mode mode,
		bool nonblocking, uint64_t bytes, uint64_t *id);
/* otf2w_issued - operation id was issued at t (IoOperationIssued); -ENOENT: not open */
int otf2w_issued(struct otf2w *w, uint64_t id, uint64_t t);
/*
 * otf2w_complete - operation id ended at t having moved bytes (IoOperationComplete), with
 * error (-errno) as the attribute "error" when it failed; -ENOENT: not open
 */
int otf2w_complete(struct otf2w *w, uint64_t id, uint64_t t, uint64_t bytes, int error);
/* otf2w_cancel - operation id ended at t without a result (IoOperationCancelled); -ENOENT: not open */
int otf2w_cancel(struct otf2w *w, uint64_t id, uint64_t t);
/*
 * otf2w_finish - the operations still open cancelled at the end (how many into *cancelled),
 * the definitions written, the archive closed; it is still not under dir's name
 */
int otf2w_finish(struct otf2w *w, const struct otf2w_meta *m, uint64_t *cancelled);
/* otf2w_commit - the finished archive into dir: dir/traces.otf2 is its anchor file */
int otf2w_commit(struct otf2w *w);

#endif
