// SPDX-License-Identifier: GPL-2.0-or-later
/* shared.c - the --prom file of the tools that have one (shared.h) */
#include <errno.h>
#include <string.h>

#include "prom.h"
#include "shared.h"

/* tool_prom_open - the writer of --prom PATH, checked before tracing starts */
int tool_prom_open(struct iotap_ctx *ctx, const char *path, struct prom **prom)
{
	*prom = NULL;
	if (!path)
		return 0;
	*prom = prom_alloc(path);
	if (!*prom) {
		iotap_err(ctx, "cannot write %s: %s", path, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

/* tool_prom_write - write the interval's file unless adding to it failed; say why it failed */
int tool_prom_write(struct iotap_ctx *ctx, struct prom *prom, const char *path, int ret)
{
	if (!ret)
		ret = prom_write(prom);
	if (ret)
		iotap_err(ctx, "cannot write %s: %s", path, strerror(-ret));
	return ret;
}
