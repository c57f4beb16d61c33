// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter-cgroups.c - the exporter's series per cgroup and disk (--cgroups) */
#include <errno.h>

#include "exporter-local.h"

/* The cgroups past --cgroup-series that count as "other", unless the option says. */
#define EXPORTER_CGROUP_SERIES 100

/* exporter_cg_bio - a bio queued or split: io.stat's count, its sender's cgroup's */
static int exporter_cg_bio(void *arg, enum blk_bio_fate fate, const struct block_rq *rq,
			   const struct blk_sender *who)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_state *st = ctx->state;

	if (fate != BLK_BIO_QUEUED && fate != BLK_BIO_SPLIT)
		return 0;
	return cgstat_bio(st->cg.cs, rq, who->cgroup, fate == BLK_BIO_SPLIT);
}

/* exporter_cg_done - a request with data: its cgroup's, then the disk's series */
static int exporter_cg_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_state *st = ctx->state;
	int ret = cgstat_request(st->cg.cs, io);

	return ret ? ret : st->cg_next_done(arg, io);
}

/* exporter_cg_pause - a dirtying task's pause on a disk, its cgroup's then */
static int exporter_cg_pause(void *arg, const struct perf_sample *s, uint32_t dev, uint64_t ns)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_state *st = ctx->state;

	/* A bdi that is no disk's (NFS, FUSE) has no disk series to stand beside. */
	if (!BLOCK_DEV_MAJOR(dev))
		return 0;
	return cgstat_dirty(st->cg.cs, dev, iotap_cgroup_of(ctx, s), ns);
}

/* exporter_cg_follow - every task's cgroup, in the block controller's hierarchy; says which */
static int exporter_cg_follow(struct iotap_ctx *ctx)
{
	char which[4200];
	int ret;

	/* A recording made without record --cgroups still has the disks' series, cgroup "?". */
	if (iotap_input_is_file(ctx) && !iotap_cgroup_filtering(ctx) &&
	    !iotap_event_available(ctx, "cgroup", "cgroup_attach_task")) {
		iotap_info(ctx, "this recording has no cgroups (iotap record --cgroups): every "
			   "series' cgroup is '?'");
		return 0;
	}
	ret = iotap_cgroup_track_io(ctx, which, sizeof(which));
	if (!ret)
		iotap_info(ctx, "--cgroups: the cgroups of %s", which);
	return ret;
}

/* exporter_cgroups - see exporter-local.h */
int exporter_cgroups(struct iotap_ctx *ctx, struct blktrack_cfg *cfg)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	struct dirtytrack_cfg dc = {
		.has_dev = cfg->has_dev,
		.dev = cfg->dev,
		.on_pause = exporter_cg_pause,
		.arg = ctx,
	};
	int ret;

	if (!p->cgroups)
		return 0;
	/* Who sent each bio, when the throttle let it go, its request's allocation. */
	cfg->flags |= BT_START | BT_INSERT | BT_STAGES;
	cfg->on_bio = exporter_cg_bio;
	st->cg_next_done = cfg->on_done;
	cfg->on_done = exporter_cg_done;
	ret = exporter_cg_follow(ctx);
	if (!ret)
		ret = dirtytrack_create(&st->dt, ctx, &dc);
	if (!ret)
		ret = cgmetrics_init(&st->cg, (unsigned int)p->cgroup_depth,
				     p->cgroup_series ? p->cgroup_series : EXPORTER_CGROUP_SERIES,
				     dirtytrack_have(st->dt));
	return ret;
}
