/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BLKTRACK_H
#define IOTAP_BLKTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"
#include "iotap.h"
#include "reqtab.h"

/*
 * Block request life cycle shared by the block tools: start (submitter's
 * context), insert (scheduler), issue (driver), complete. Requests are
 * counted at the request level (after bio merges and splits). Requests that
 * carry no sector (flushes) have no key: they are paired per device in issue
 * order, take the submitter of the oldest sectorless start waiting on the
 * device, and go to on_nodata with sector and bytes 0. A flush the kernel's
 * flush machinery sends for a write with PREFLUSH or FUA (no sectorless start
 * waiting) is that write's submitter's, the oldest one's within 1 s, never the
 * kworker's that issues it; under -d PARTITION a flush is kept only when a
 * request of the partition asked for it (its PREFLUSH/FUA write, or a thread
 * that submitted data to it). A tool with on_nodata and no start event of its
 * own gets block_io_start filtered to those requests, to know who asked.
 */
/* blktrack_complete sets every field one by one (no zeroing initializer): a new one goes there too. */
struct blk_io {
	uint32_t dev;
	uint64_t sector;
	uint32_t nr_sector;
	uint32_t bytes;
	uint8_t op, flags;
	char rwbs[12];
	int32_t error;
	uint64_t t_start, t_insert, t_issue, t_done;	/* 0: not seen */
	/*
	 * When its submitter sent its first bio, where an event in the submitter's
	 * context says so before blk-throttle can hold it (a partition's remap,
	 * the probe of blk-throttle's entry): 0 where none did
	 */
	uint64_t t_submit;
	uint32_t pid;					/* submitter when known */
	uint32_t tid;					/* its thread (0: not known) */
	const char *cgroup;				/* its cgroup then ("?": unknown), or NULL */
	char comm[16];
	uint64_t user;
	/* BT_STAGES */
	uint64_t t_queue, t_getrq;			/* 0: not seen */
	uint32_t bios;					/* 0: not known */
	uint16_t requeues;
};

/*
 * Where a completed request's time went, in ns, each from the first event
 * that shows its stage (0 where the events to tell it are missing):
 * - throttle: from its submitter's send (t_submit) to its first bio queued
 *   (block_bio_queue), which blk-throttle holds in between;
 * - rqos: from that to its request's allocation (block_getrq): rq-qos's waits
 *   (wbt, iolatency, iocost's throttling in submission) and waits for a tag;
 * - queue: from its allocation (or its start) to its issue to the driver;
 * - device: from its issue to its completion.
 * They add up to the time from the first of those events to the completion.
 * Not in them: iocost's debt and iolatency's delay, which the kernel has
 * the task pay on its way back to user space, after the request.
 */
enum blk_wait { BLK_WAIT_THROTTLE, BLK_WAIT_RQOS, BLK_WAIT_QUEUE, BLK_WAIT_DEVICE, BLK_WAITS };

/* blk_io_waits - io's time by stage into w[BLK_WAITS] (see enum blk_wait) */
void blk_io_waits(const struct blk_io *io, uint64_t w[BLK_WAITS]);
/* blk_io_first - the first time io was seen: its send, queue, allocation, start or issue */
uint64_t blk_io_first(const struct blk_io *io);

/*
 * Who sent a bio (blktrack_cfg's on_bio, for BLK_BIO_QUEUED and BLK_BIO_SPLIT):
 * the submitter whose context an event before blk-throttle saw it in, else
 * the task that queued it.
 */
struct blk_sender {
	uint32_t pid;
	const char *cgroup;		/* iotap_cgroup_of, NULL: not followed */
	char comm[16];
	uint64_t t_submit;		/* when it sent it, 0: not seen before its queue */
};

/* BT_STAGES: what became of the bios (nr_sector > 0) a disk was sent. */
enum blk_bio_fate {
	BLK_BIO_QUEUED,		/* block_bio_queue */
	BLK_BIO_BACKMERGE,	/* joined the end of a request */
	BLK_BIO_FRONTMERGE,	/* joined the start of a request */
	BLK_RQ_MERGE,		/* a request joined the one before it (block_rq_merge) */
	BLK_RQ_REQUEUE,		/* the driver gave a request back */
	BLK_BIO_SPLIT,		/* a bio was split: its remainder makes a request of its own */
};

#define BT_START	(1u << 0)	/* submitter: block_io_start, else block_rq_insert */
#define BT_INSERT	(1u << 1)	/* scheduler insert time */
#define BT_START_STACK	(1u << 2)	/* callchain on the start event */
#define BT_PID_STRICT	(1u << 3)	/* with pid: only requests whose start we saw */
#define BT_ISSUE_ALL	(1u << 4)	/* with pid: report every request, the PID's with t_start */
#define BT_BIO		(1u << 5)	/* bios, block_bio_queue -> block_bio_complete (md, dm) */
#define BT_BIO_DISKS	(1u << 6)	/* with BT_BIO: only the bios of md and dm disks */
/*
 * btt's stages: each request's first bio's queue (block_bio_queue), its
 * allocation (block_getrq), the bios that joined it (back and front merges,
 * block_rq_merge) and its requeues, into blk_io's t_queue, t_getrq, bios and
 * requeues; on_bio sees each bio's fate. Events a kernel lacks leave their
 * times 0. Not with BT_BIO.
 */
#define BT_STAGES	(1u << 7)
/*
 * With BT_START: a source that has neither submitter event (a recording made
 * without them, as an exporter's dump without --queue-time) is read with
 * issue and completion alone, said in one info line: each request then
 * carries the task that issued it, and no queue time. Not with a pid or
 * cgroup filter, nor with BT_START_STACK, which need the submitter.
 */
#define BT_START_OPTIONAL (1u << 8)

struct blktrack_cfg {
	unsigned int flags;
	bool has_dev;
	uint32_t dev;			/* kernel dev_t, with has_dev */
	uint64_t part_start, part_end;	/* -d partition: its sectors on dev; end 0: the whole disk */
	int pid;			/* 0: every process */
	unsigned int stack_flags;	/* IOTAP_EV_* for BT_START_STACK */
	int (*on_start)(void *arg, struct blkreq *r, const struct perf_sample *s);
	int (*on_insert)(void *arg, const struct blkreq *r, const struct perf_sample *s);	/* BT_INSERT */
	/* r->user is the tool's to tag, as at on_start: a request may be first seen here */
	int (*on_issue)(void *arg, struct blkreq *r, const struct perf_sample *s);
	int (*on_done)(void *arg, const struct blk_io *io);
	int (*on_nodata)(void *arg, const struct blk_io *io);	/* issued, then completed */
	/*
	 * A bio at (dev, sector) seen in its sender's context s before blk-throttle
	 * can hold it (a partition's remap, blk-throttle's entry), to send_arg
	 * (wbtrack_blktrack sets both)
	 */
	int (*on_send)(void *send_arg, const struct perf_sample *s, uint32_t dev, uint64_t sector);
	void *send_arg;
	/*
	 * BT_STAGES: a bio's or request's fate, rq as its event decoded; who its
	 * sender for a bio queued or split, NULL for the others
	 */
	int (*on_bio)(void *arg, enum blk_bio_fate fate, const struct block_rq *rq,
		      const struct blk_sender *who);
	void *arg;
};

struct blktrack_stats {
	uint64_t completed;
	uint64_t nodata;		/* flushes and other sectorless requests */
	uint64_t unmatched;		/* completions whose issue was not seen */
	uint64_t flushes;		/* sectorless requests timed and handed to on_nodata */
	uint64_t joined;		/* started by another task (blk-throttle's worker): the sender's */
	/*
	 * Started by a per-CPU kernel worker, where blk-throttle releases the
	 * bios it held, with no probe of its entry to name who sent them: the
	 * worker's (counted only without that probe)
	 */
	uint64_t worker;
	/* BT_STAGES */
	uint64_t merge_unmatched;	/* merges whose request was not in flight (or not seen made) */
};

/* BT_STAGES: the stage events this session has, so a tool can say why a stage is missing. */
struct blktrack_stage_events {
	bool queue, getrq, insert, backmerge, frontmerge, rq_merge, requeue, split;
};

struct blktrack;

/* Where the last request on each disk ended: seek distances, sequential runs. */
struct blk_pos {
	uint32_t dev;
	uint64_t end;			/* sector after the last request */
};

struct blk_lastpos {
	struct blk_pos *d;
	size_t nr;
	size_t last;			/* d[last]: the disk of the last request, looked at first */
};

/*
 * The probes blktrack makes where the kernel has kprobes and BTF (blk-throttle's
 * entry, which names the task that sent a bio it holds), ended by one without a name:
 * for the .probes of a tool that attributes requests, so `iotap record` makes them too.
 */
extern const struct probe_spec blktrack_probes[];
/*
 * blktrack_bio_dev_args - kprobe fetchargs of the device of the bio in bio (a fetcharg:
 * "$arg1"), read through BTF offsets: "dev=..." (bi_bdev->bd_dev), or before 5.12, whose
 * bio has no bi_bdev, "major=... minor=..." of its gendisk, and " partno=..." with
 * partno (a bio not yet remapped from its partition). Into buf: the length written,
 * -ENOENT where BTF lacks the members, -ENODATA over a recording (its probe was made
 * with its kernel's offsets), or -ENOSPC.
 */
int blktrack_bio_dev_args(struct iotap_ctx *ctx, const char *bio, bool partno, char *buf,
			  size_t len);

/*
 * blktrack_cfg_select - -d DISK and -p PID into cfg, checked, each failure with its one error
 * line: 0, or -errno (-ENOENT: no such disk, -ENODATA: a partition a recording cannot place,
 * -ESRCH: no such process)
 */
int blktrack_cfg_select(struct blktrack_cfg *cfg, struct iotap_ctx *ctx, const char *disk,
			int pid);
/*
 * blktrack_cfg_bio - a tool's --bio into cfg, once blktrack_cfg_select chose its disk: bios
 * traced for --bio and for a bio-based disk (md, dm). 0, or -EINVAL with its error line:
 * --bio of a disk that completes requests
 */
int blktrack_cfg_bio(struct blktrack_cfg *cfg, struct iotap_ctx *ctx, const char *disk, bool bio);
/*
 * blktrack_create - subscribe to the events the configuration needs: 0, or -errno (an event
 * that cannot be had, its format's missing fields: -ENOENT with an error line; -ENOMEM)
 */
int blktrack_create(struct blktrack **out, struct iotap_ctx *ctx, const struct blktrack_cfg *cfg);
void blktrack_free(struct blktrack *bt);
const struct blktrack_stats *blktrack_stats(const struct blktrack *bt);
bool blktrack_has_start(const struct blktrack *bt);
/* blktrack_stage_events - which stage events are traced (BT_STAGES) */
const struct blktrack_stage_events *blktrack_stage_events(const struct blktrack *bt);
bool blktrack_dev_bio_based(struct iotap_ctx *ctx, uint32_t dev);
/*
 * blktrack_warn_stats - say what was not paired (warnings, and with -v the counts), so nothing
 * is dropped silently; always 0
 */
int blktrack_warn_stats(struct blktrack *bt, struct iotap_ctx *ctx);

/*
 * blk_lastpos_seek - distance from the disk's last request end into *dist: 1, or 0 on the
 * disk's first request (no distance), or -ENOMEM
 */
int blk_lastpos_seek(struct blk_lastpos *lp, uint32_t dev, uint64_t sector, uint32_t nr_sector,
		     uint64_t *dist);
/*
 * blk_lastpos_sequential - whether io starts where its disk's last request ended (biopattern's
 * sequential; a disk's first request is random): 1, 0, or -ENOMEM. Inline for a request of
 * the last request's disk, as most are: the exporter asks of every one.
 */
static inline int blk_lastpos_sequential(struct blk_lastpos *lp, const struct blk_io *io)
{
	uint64_t dist;
	int ret;

	if (lp->last < lp->nr && lp->d[lp->last].dev == io->dev) {
		struct blk_pos *d = &lp->d[lp->last];

		ret = io->sector == d->end;
		d->end = io->sector + io->nr_sector;
		return ret;
	}
	ret = blk_lastpos_seek(lp, io->dev, io->sector, io->nr_sector, &dist);
	return ret < 0 ? ret : ret && !dist;
}
void blk_lastpos_release(struct blk_lastpos *lp);
/* blk_io_type - biosnoop's T column: "W", "R", "F" for flushes, "D" for discards */
const char *blk_io_type(const struct blk_io *io);

#endif
