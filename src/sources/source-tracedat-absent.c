// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source-tracedat-absent.c - the trace.dat source of an iotap built without
 * libtracecmd (configure --disable-tracedat; the static binary, since Debian
 * ships no static libtracecmd): it claims trace-cmd's files by their magic,
 * as source-tracedat.c does, so that one is refused with one line that says
 * why rather than read as a damaged iotap recording.
 */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "session.h"
#include "source-tracedat.h"

/* tracedat_claims - whether the first bytes of a file are trace-cmd's magic */
static bool tracedat_claims(const void *head, size_t len)
{
	return len >= sizeof(TRACEDAT_MAGIC) - 1 && !memcmp(head, TRACEDAT_MAGIC, sizeof(TRACEDAT_MAGIC) - 1);
}

/* td_refuse - say that this iotap reads no trace.dat */
static int td_refuse(struct session *s)
{
	log_msg(LOG_ERR, "cannot read '%s': trace.dat input is not built into this iotap (%s)",
		s->opts.input ? s->opts.input : "(memory)", IOTAP_TRACEDAT_ABSENT);
	return -ENOTSUP;
}

/* td_close - nothing was opened */
static void td_close(struct session *s)
{
}

const struct source_ops source_tracedat = {
	.name = "trace.dat",
	.claims = tracedat_claims,
	.open = td_refuse,
	.close = td_close,
};
