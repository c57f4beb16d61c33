// SPDX-License-Identifier: GPL-2.0-or-later
/* shared.c - what several tools share: a report's beginning, output files, the --prom file (shared.h) */
#include <errno.h>
#include <string.h>

#include "hist.h"
#include "outfile.h"
#include "prom.h"
#include "shared.h"

/* tool_report_begin - JSON's timestamp, or the interval header */
void tool_report_begin(struct iotap_ctx *ctx, bool json, bool timestamp, char *ts, size_t len)
{
	ts[0] = 0;
	if (json)
		iotap_strftime(ctx, iotap_now(ctx), "%Y-%m-%d %H:%M:%S", ts, len);
	else
		iotap_interval_header(ctx, timestamp);
}

/* tool_file_write - the file whole, or not at all */
int tool_file_write(struct iotap_ctx *ctx, const char *path, int (*write)(FILE *f, void *arg),
		    void *arg)
{
	struct outfile of;
	int ret = outfile_open(&of, path, 0644);

	if (!ret) {
		ret = write(of.f, arg);
		if (ret)
			outfile_abort(&of);
		else
			ret = outfile_commit(&of);
	}
	if (ret)
		iotap_err(ctx, "cannot write %s: %s", path, strerror(-ret));
	return ret;
}

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

/* tool_cmd_report - see shared.h */
int tool_cmd_report(struct iotap_ctx *ctx, const struct tool_cmd_part *parts, size_t n, bool msecs,
		    bool json, bool timestamp, bool percentiles)
{
	const char *label = msecs ? "msecs" : "usecs";
	char ts[32];
	int ret = 0;

	tool_report_begin(ctx, json, timestamp, ts, sizeof(ts));
	for (size_t i = 0; i < n && !ret; i++)
		ret = parts[i].count ?
		      hist_set_print_counts(parts[i].set, ctx->out, parts[i].count, json) :
		      hist_set_print_bt(parts[i].set, ctx->out, label, json, percentiles, ts);
	for (size_t i = 0; i < n; i++)
		hist_set_reset(parts[i].set);
	return ret;
}
