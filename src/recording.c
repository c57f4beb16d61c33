// SPDX-License-Identifier: GPL-2.0-or-later
/* recording.c - the session source that reads an iotap recording */
#include <errno.h>

#include "log.h"
#include "session.h"

/* file_open - open the recording named by the session options */
static int file_open(struct session *s)
{
	log_msg(LOG_ERR, "cannot read '%s': recordings are not supported by this build yet",
		s->opts.input);
	return -ENOTSUP;
}

/* file_run - no records */
static int file_run(struct session *s, uint64_t deadline)
{
	return 0;
}

/* file_find - no events */
static struct iotap_event *file_find(struct session *s, uint64_t id)
{
	return NULL;
}

/* file_close - nothing to close */
static void file_close(struct session *s)
{
}

const struct source_ops source_file = {
	.open = file_open,
	.run = file_run,
	.find = file_find,
	.close = file_close,
};
