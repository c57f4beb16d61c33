// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * otf2write-absent.c - the OTF2 writer of an iotap built without libotf2
 * (configure found none, --without-otf2, or a static binary without a static
 * libotf2): an archive cannot be made, and otf2w_create says why. Nothing
 * else is reached, since no archive exists to write to.
 */
#include <errno.h>
#include <stdio.h>

#include "otf2write.h"

/* otf2w_create - no archive: this build has no libotf2 */
int otf2w_create(struct otf2w **out, const char *dir, char *why, size_t whylen)
{
	*out = NULL;
	snprintf(why, whylen, "this iotap is built without OTF2 output (%s)", IOTAP_OTF2_ABSENT);
	return -ENOTSUP;
}

/* otf2w_free - there is never one to free */
void otf2w_free(struct otf2w *w)
{
}

/* otf2w_defs - no archive, no definitions */
struct otf2_defs *otf2w_defs(struct otf2w *w)
{
	return NULL;
}

/* otf2w_why - nothing failed that an archive could say */
const char *otf2w_why(const struct otf2w *w)
{
	return "";
}

/* otf2w_begin - no archive to write to */
int otf2w_begin(struct otf2w *w, uint32_t loc, uint32_t h, uint64_t t, enum otf2w_mode mode,
		bool nonblocking, uint64_t bytes, uint64_t *id)
{
	return -ENOTSUP;
}

/* otf2w_issued - no archive to write to */
int otf2w_issued(struct otf2w *w, uint64_t id, uint64_t t)
{
	return -ENOTSUP;
}

/* otf2w_complete - no archive to write to */
int otf2w_complete(struct otf2w *w, uint64_t id, uint64_t t, uint64_t bytes, int error)
{
	return -ENOTSUP;
}

/* otf2w_cancel - no archive to write to */
int otf2w_cancel(struct otf2w *w, uint64_t id, uint64_t t)
{
	return -ENOTSUP;
}

/* otf2w_finish - no archive to finish */
int otf2w_finish(struct otf2w *w, const struct otf2w_meta *m, uint64_t *cancelled)
{
	return -ENOTSUP;
}

/* otf2w_commit - no archive to commit */
int otf2w_commit(struct otf2w *w)
{
	return -ENOTSUP;
}
