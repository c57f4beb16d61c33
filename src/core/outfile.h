/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OUTFILE_H
#define IOTAP_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Output files that are safe to write as root into a directory others can
 * write (/tmp, a shared textfile-collector directory). Nothing here follows a
 * symlink another user planted at the last component of a name:
 *
 * - whole files (outfile_open/commit) are written to a temporary created with
 *   O_EXCL (mkostemp: an unpredictable name, .NAME.XXXXXX beside the target,
 *   so it is created in the target's directory and never exists before), then
 *   fsync'd and renamed over the target. rename() replaces whatever entry the
 *   target name has, a symlink included, and never writes through it; a reader
 *   sees the old file or the new one, never half of one.
 * - files written as they grow (outfile_create, recordings) are created with
 *   O_EXCL|O_NOFOLLOW under the final name; with replace, an existing entry of
 *   that name (a symlink itself, not its target) is unlinked first, and one
 *   planted again between the unlink and the create makes it fail with EEXIST.
 *
 * The mode is set as stated (fchmod), whatever the umask.
 */
struct outfile {
	FILE *f;		/* write the content here between open and commit */
	char *path;		/* the target name */
	char *tmp;		/* the temporary's name while it exists, else NULL */
};

/*
 * Create the temporary for path with the given mode and open of->f on it.
 * 0, or -errno: EINVAL (empty path), EISDIR (path is a directory), ENOMEM,
 * or the error creating the temporary (EACCES, ENOENT for a missing
 * directory, EROFS...). On error of is left empty (outfile_abort is a no-op).
 */
int outfile_open(struct outfile *of, const char *path, mode_t mode);

/*
 * Flush, fsync and close of->f, then rename the temporary over the target.
 * 0 or -errno (EIO for a stream error); on error the temporary is removed and
 * the target is as it was. of is empty afterwards either way.
 */
int outfile_commit(struct outfile *of);

/* Close and remove the temporary; of may be empty (zeroed) or already committed. */
void outfile_abort(struct outfile *of);

/*
 * Check now, before tracing, that path could be written later: the temporary
 * is created and removed. 0 or -errno as outfile_open.
 */
int outfile_check(const char *path);

/*
 * Create path for writing as it grows: O_EXCL|O_NOFOLLOW, the given mode.
 * With replace an existing regular file or symlink of that name is unlinked
 * first. Returns the descriptor (O_CLOEXEC), or -errno: EEXIST (it exists and
 * replace is false, or one appeared after the unlink), EISDIR, ENOTSUP (replace
 * of a device, FIFO or socket, which is never removed), or the error of
 * unlink, open or fchmod.
 */
int outfile_create(const char *path, bool replace, mode_t mode);

#endif
