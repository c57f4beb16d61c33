// SPDX-License-Identifier: GPL-2.0-or-later
/* cmdpair.c - NVMe and SCSI commands paired from dispatch to completion */
#include <errno.h>
#include <string.h>

#include "cmdpair.h"

#define NVME_MAX_INFLIGHT (1u << 20)
#define NVME_MAX_AGE_NS (60ull * 1000000000ull)
#define SCSI_MAX_INFLIGHT (1u << 20)
#define SCSI_MAX_AGE_NS (600ull * 1000000000ull)

/*
 * An NVMe command id: since the generation counter (5.15, and stable kernels such as
 * Debian 11's 5.10), its top 4 bits count the tag's uses and the low 12 bits are the
 * tag. Some of those kernels trace the whole id at setup but the bare tag at
 * completion (setup's 4931 completes as 835), until a 2022 fix. So commands are kept
 * under their tag's 12 bits, each with its whole id, and a completion takes the oldest
 * with an equal whole id; failing that, the newest whose tag it carries bare.
 */
#define NVME_TAG_MASK 0xfffu

/* nvme_key - the in-flight key of a command id: its controller, queue and 12-bit tag */
static void nvme_key(const struct nvme_cmd *c, uint32_t *dev, uint64_t *key)
{
	*dev = (uint32_t)c->ctrl_id << 16 | (c->qid & 0xffff);
	*key = c->cid & NVME_TAG_MASK;
}

/*
 * cmdpair_nvme_find - the command that completion c ends, or NULL. *bare: it was found by the
 * bare tag, which only a command whose setup carried a generation count can be.
 */
static struct blkreq *cmdpair_nvme_find(struct cmdpair_nvme *np, const struct nvme_cmd *c, bool *bare)
{
	struct blkreq *r, *tagged = NULL;
	uint64_t key;
	uint32_t dev;

	nvme_key(c, &dev, &key);
	for (r = reqtab_find(np->tab, dev, key); r; r = reqtab_find_next(np->tab, r)) {
		if (r->user == c->cid) {
			*bare = false;
			return r;
		}
		if (c->cid <= NVME_TAG_MASK && r->user > NVME_TAG_MASK)
			tagged = r;
	}
	*bare = tagged != NULL;
	return tagged;
}

/* cmdpair_nvme_on_setup - a command goes to the controller: remember what and when */
static int cmdpair_nvme_on_setup(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_nvme *np = arg;
	struct blkreq *r;
	struct nvme_cmd c;
	uint32_t dev;
	uint64_t key;

	if (nvme_cmd_decode(&np->f_setup, s->raw, s->raw_size, &c))
		return 0;
	if (np->disk && strcmp(c.disk, np->disk))
		return 0;
	np->setups++;
	nvme_key(&c, &dev, &key);
	/* A command id in use again: its first completion was not seen (a retry, or lost). */
	for (r = reqtab_find(np->tab, dev, key); r; r = reqtab_find_next(np->tab, r)) {
		if (r->user == c.cid) {
			reqtab_remove(np->tab, r);
			np->replaced++;
			break;
		}
	}
	r = reqtab_insert(np->tab, dev, key, s->time);
	if (!r)
		return -ENOMEM;
	r->t_issue = s->time;
	r->user = c.cid;
	r->op = c.opcode;
	r->flags = c.fctype;
	return 0;
}

/* cmdpair_nvme_on_done - the command completed: hand it to the tool with its latency */
static int cmdpair_nvme_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_nvme *np = arg;
	struct blkreq *r;
	struct nvme_cmd c;
	uint64_t ns;
	bool bare;

	if (nvme_cmd_decode(&np->f_done, s->raw, s->raw_size, &c))
		return 0;
	if (np->disk && strcmp(c.disk, np->disk))
		return 0;
	r = cmdpair_nvme_find(np, &c, &bare);
	if (!r) {
		np->unmatched++;
		return 0;
	}
	np->paired++;
	np->paired_by_tag += bare;
	ns = s->time > r->t_issue ? s->time - r->t_issue : 0;
	c.cid = r->user;
	c.opcode = r->op;
	c.fctype = r->flags;
	reqtab_remove(np->tab, r);
	return np->done(ctx, &c, ns);
}

/* cmdpair_nvme_event - subscribe to one nvme event and find its fields */
static int cmdpair_nvme_event(struct cmdpair_nvme *np, struct iotap_ctx *ctx, const char *name,
			   iotap_handler_fn fn, struct nvme_fmt *f)
{
	struct iotap_event *ev = iotap_event_use(ctx, "nvme", name, 0, fn, np);
	int ret;

	if (!ev)
		return -errno;
	ret = nvme_fmt_init(f, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "nvme:%s has no ctrl_id/qid/cid fields", name);
		return ret;
	}
	return np->disk ? iotap_event_filter(ev, "disk == \"%s\"", np->disk) : 0;
}

/* cmdpair_nvme_use - see cmdpair.h */
int cmdpair_nvme_use(struct cmdpair_nvme *np, struct iotap_ctx *ctx, const char *disk,
		  cmdpair_nvme_fn done)
{
	int ret;

	np->disk = disk;
	np->done = done;
	np->tab = reqtab_alloc(NVME_MAX_INFLIGHT, NVME_MAX_AGE_NS);
	if (!np->tab)
		return -errno;
	ret = cmdpair_nvme_event(np, ctx, "nvme_setup_cmd", cmdpair_nvme_on_setup, &np->f_setup);
	if (!ret)
		ret = cmdpair_nvme_event(np, ctx, "nvme_complete_rq", cmdpair_nvme_on_done, &np->f_done);
	return ret;
}

/* cmdpair_nvme_say - see cmdpair.h */
void cmdpair_nvme_say(struct cmdpair_nvme *np, struct iotap_ctx *ctx)
{
	const struct reqtab_stats *rs;

	iotap_unpaired_say(ctx, &np->said_unpaired, np->paired, np->unmatched, "NVMe command",
			   "nvme_setup_cmd", np->setups);
	if (!ctx->final || !np->tab)
		return;
	rs = reqtab_stats(np->tab);
	if (rs->evicted_age || rs->evicted_full || np->replaced)
		iotap_warn(ctx, "%llu commands never completed within 60 s, overflowed the in-flight table or were set up again before completing",
			   (unsigned long long)(rs->evicted_age + rs->evicted_full + np->replaced));
	if (!iotap_verbose(ctx))
		return;
	iotap_info(ctx, "%llu commands timed; not timed: %llu completions whose setup was not seen (in flight at start); %zu still in flight",
		   (unsigned long long)np->paired, (unsigned long long)np->unmatched,
		   reqtab_count(np->tab));
	if (np->paired_by_tag)
		iotap_info(ctx, "%llu completions named their command by its bare 12-bit tag where its setup named it with the generation count too: paired by the tag",
			   (unsigned long long)np->paired_by_tag);
}

/* cmdpair_nvme_release - see cmdpair.h */
void cmdpair_nvme_release(struct cmdpair_nvme *np)
{
	reqtab_free(np->tab);
	np->tab = NULL;
	nvme_fmt_release(&np->f_setup);
	nvme_fmt_release(&np->f_done);
}

/*
 * scsi_key - the in-flight key of a command: its device and driver tag. Kernels that
 * do not trace the tag pair a device's commands in dispatch order (the table keeps
 * equal keys oldest first).
 */
static void scsi_key(const struct scsi_cmd *c, uint32_t *dev, uint64_t *tag)
{
	*dev = c->host_no << 16 | (c->channel & 0xff) << 8 | (c->id & 0xff);
	*tag = (uint64_t)c->lun << 32 | (uint32_t)c->driver_tag;
}

/* cmdpair_scsi_mine - decode s with f; false when it is short or of another device */
static bool cmdpair_scsi_mine(const struct cmdpair_scsi *sp, const struct scsi_fmt *f,
			   const struct perf_sample *s, struct scsi_cmd *c)
{
	if (scsi_cmd_decode(f, s->raw, s->raw_size, c))
		return false;
	return !sp->has_dev || (c->host_no == sp->host_no && c->channel == sp->channel &&
				c->id == sp->id && c->lun == sp->lun);
}

/* cmdpair_scsi_on_start - a command is dispatched to the host adapter */
static int cmdpair_scsi_on_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_scsi *sp = arg;
	struct blkreq *r;
	struct scsi_cmd c;
	uint32_t dev;
	uint64_t tag;

	if (!cmdpair_scsi_mine(sp, &sp->f_start, s, &c))
		return 0;
	sp->dispatched++;
	scsi_key(&c, &dev, &tag);
	if (c.driver_tag >= 0 && (r = reqtab_find(sp->tab, dev, tag))) {
		reqtab_remove(sp->tab, r);
		sp->replaced++;
	}
	r = reqtab_insert(sp->tab, dev, tag, s->time);
	if (!r)
		return -ENOMEM;
	r->t_issue = s->time;
	r->user = c.opcode;
	return 0;
}

/* cmdpair_scsi_end - the command left the host: hand it to the tool with its latency */
static int cmdpair_scsi_end(struct iotap_ctx *ctx, struct cmdpair_scsi *sp, const struct perf_sample *s,
			 const struct scsi_fmt *f, enum scsi_end end)
{
	struct blkreq *r;
	struct scsi_cmd c;
	uint64_t tag, ns;
	uint32_t dev;

	if (!cmdpair_scsi_mine(sp, f, s, &c))
		return 0;
	scsi_key(&c, &dev, &tag);
	r = reqtab_find(sp->tab, dev, tag);
	if (!r) {
		if (end == SCSI_END_DONE)
			sp->unmatched++;
		return 0;
	}
	sp->paired++;
	ns = s->time > r->t_issue ? s->time - r->t_issue : 0;
	c.opcode = r->user;
	reqtab_remove(sp->tab, r);
	return sp->done(ctx, &c, end, ns);
}

/* cmdpair_scsi_on_done - a completed command */
static int cmdpair_scsi_on_done(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_scsi *sp = arg;

	return cmdpair_scsi_end(ctx, sp, s, &sp->f_done, SCSI_END_DONE);
}

/* cmdpair_scsi_on_timeout - the midlayer gave up waiting */
static int cmdpair_scsi_on_timeout(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_scsi *sp = arg;

	return cmdpair_scsi_end(ctx, sp, s, &sp->f_timeout, SCSI_END_TIMEOUT);
}

/* cmdpair_scsi_on_error - the host refused the command; it is dispatched again later */
static int cmdpair_scsi_on_error(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct cmdpair_scsi *sp = arg;

	return cmdpair_scsi_end(ctx, sp, s, &sp->f_error, SCSI_END_ERROR);
}

/* cmdpair_scsi_event - subscribe to one scsi event (an optional one only if it exists) */
static int cmdpair_scsi_event(struct cmdpair_scsi *sp, struct iotap_ctx *ctx, const char *name,
			   bool optional, iotap_handler_fn fn, struct scsi_fmt *f)
{
	struct iotap_event *ev;
	int ret;

	if (optional && !iotap_event_available(ctx, "scsi", name))
		return 0;
	ev = iotap_event_use(ctx, "scsi", name, 0, fn, sp);
	if (!ev)
		return -errno;
	ret = scsi_fmt_init(f, iotap_event_format(ev));
	if (ret) {
		iotap_err(ctx, "scsi:%s has no host_no/channel/id/lun/opcode fields", name);
		return ret;
	}
	if (!sp->has_dev)
		return 0;
	return iotap_event_filter(ev, "host_no == %u && channel == %u && id == %u && lun == %u",
				  sp->host_no, sp->channel, sp->id, sp->lun);
}

/* cmdpair_scsi_use - see cmdpair.h */
int cmdpair_scsi_use(struct cmdpair_scsi *sp, struct iotap_ctx *ctx, cmdpair_scsi_fn done)
{
	int ret;

	sp->done = done;
	sp->tab = reqtab_alloc(SCSI_MAX_INFLIGHT, SCSI_MAX_AGE_NS);
	if (!sp->tab)
		return -errno;
	ret = cmdpair_scsi_event(sp, ctx, "scsi_dispatch_cmd_start", false, cmdpair_scsi_on_start,
			      &sp->f_start);
	if (!ret)
		ret = cmdpair_scsi_event(sp, ctx, "scsi_dispatch_cmd_done", false, cmdpair_scsi_on_done,
				      &sp->f_done);
	if (!ret)
		ret = cmdpair_scsi_event(sp, ctx, "scsi_dispatch_cmd_timeout", true,
				      cmdpair_scsi_on_timeout, &sp->f_timeout);
	if (!ret)
		ret = cmdpair_scsi_event(sp, ctx, "scsi_dispatch_cmd_error", true, cmdpair_scsi_on_error,
				      &sp->f_error);
	return ret;
}

/* cmdpair_scsi_say - see cmdpair.h */
void cmdpair_scsi_say(struct cmdpair_scsi *sp, struct iotap_ctx *ctx)
{
	const struct reqtab_stats *rs;

	iotap_unpaired_say(ctx, &sp->said_unpaired, sp->paired, sp->unmatched, "SCSI command",
			   "scsi_dispatch_cmd_start", sp->dispatched);
	if (!ctx->final || !sp->tab)
		return;
	rs = reqtab_stats(sp->tab);
	if (rs->evicted_age || rs->evicted_full || sp->replaced)
		iotap_warn(ctx, "%llu commands never completed within 600 s, overflowed the in-flight table or were dispatched again before completing",
			   (unsigned long long)(rs->evicted_age + rs->evicted_full + sp->replaced));
	if (iotap_verbose(ctx))
		iotap_info(ctx, "%llu commands timed; not timed: %llu completions whose dispatch was not seen (in flight at start); %zu still in flight",
			   (unsigned long long)sp->paired, (unsigned long long)sp->unmatched,
			   reqtab_count(sp->tab));
}

/* cmdpair_scsi_release - see cmdpair.h */
void cmdpair_scsi_release(struct cmdpair_scsi *sp)
{
	reqtab_free(sp->tab);
	sp->tab = NULL;
	scsi_fmt_release(&sp->f_start);
	scsi_fmt_release(&sp->f_done);
	scsi_fmt_release(&sp->f_timeout);
	scsi_fmt_release(&sp->f_error);
}
