// SPDX-License-Identifier: GPL-2.0-or-later
/* keyhist.c - block tools with one log2 histogram per key (keyhist.h) */
#include <errno.h>

#include "keyhist.h"
#include "prom.h"

/* keyhist_init - the --prom file first, so a bad path fails before any event is subscribed */
int keyhist_init(struct keyhist *kh, struct iotap_ctx *ctx, struct blktrack_cfg *cfg,
		 const char *disk, int pid, const char *prom)
{
	int ret = tool_prom_open(ctx, prom, &kh->prom);

	kh->prom_path = prom;
	if (!ret)
		ret = blktrack_cfg_select(cfg, ctx, disk, pid);
	return ret ? ret : blktrack_create(&kh->bt, ctx, cfg);
}

/* keyhist_add - one value into its key's histogram */
int keyhist_add(struct keyhist *kh, const char *key, uint64_t v)
{
	struct hist *h = hist_set_get(&kh->hs, key);

	if (!h || hist_add(h, v))
		return -ENOMEM;
	return 0;
}

/* keyhist_report - print and reset the histograms, BCC's layout */
int keyhist_report(struct keyhist *kh, struct iotap_ctx *ctx, bool timestamp,
		   const struct keyhist_out *o)
{
	int ret;

	iotap_interval_header(ctx, timestamp);
	ret = hist_set_print_log2(&kh->hs, ctx->out, o->key, o->unit);
	if (!ret && kh->prom)
		ret = tool_prom_write(ctx, kh->prom, kh->prom_path,
				      prom_hist_set_add(kh->prom, o->prom_name, o->prom_help,
							o->prom_label, &kh->hs, o->prom_unit,
							o->prom_top, o->prom_exact));
	if (ctx->final)
		blktrack_warn_stats(kh->bt, ctx);
	hist_set_reset(&kh->hs);
	return ret;
}

/* keyhist_release - free the tracker, the histograms and the --prom writer */
void keyhist_release(struct keyhist *kh)
{
	blktrack_free(kh->bt);
	hist_set_release(&kh->hs);
	prom_free(kh->prom);
}
