// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtrack.c - writeback's originators: who dirtied the pages the flusher and jbd2 write (wbtrack.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "block.h"
#include "field.h"
#include "hashtab.h"
#include "wbtrack.h"

#define WB_SECTOR 512
#define WB_PAGE_SECTORS 8		/* a 4 KiB page: bios of whole pages are split by page */
#define WB_WIN_DEPTH 4

/* A process with pages of an inode dirty: now (not yet written back), and ever. */
struct wb_dirtier {
	uint32_t pid;
	uint64_t dirty, ever;
};

struct wb_inode {
	uint32_t dev;			/* its disk, as its bdi names it */
	uint64_t ino;
	char *file;			/* its name, from the write that dirtied it first; NULL: none */
	struct wb_dirtier *d;
	size_t nr, cap;
};

/* A thread writing back: the inodes it is inside of, innermost last. */
struct wb_thread {
	uint32_t tid;
	unsigned int depth;
	struct wb_win {
		uint32_t dev;
		uint64_t ino;
		bool ext4;		/* ext4_writepages, else writeback_single_inode */
	} win[WB_WIN_DEPTH];
};

/* Sectors a bio queued, charged before the request that carries them completes. */
struct wb_range {
	uint32_t dev;
	uint64_t start, end;		/* sectors [start, end) */
	uint64_t t;			/* when queued */
	enum wb_kind kind;
	uint32_t pid;
	uint32_t idev;			/* the inode's disk */
	uint64_t ino;
};

struct wb_comm {
	uint32_t pid;
	char comm[16];
};

struct wbtrack {
	struct iotap_ctx *ctx;
	struct wb_inode *inodes;	/* indexed by inode_ix */
	size_t nr_inodes, cap_inodes;
	struct hashtab inode_ix;
	struct wb_thread *threads;
	size_t nr_threads, cap_threads;
	struct wb_range *ranges;	/* by (dev, start) */
	size_t nr_ranges, cap_ranges;
	struct wb_comm *comms;
	size_t nr_comms, cap_comms;
	struct field f_dirty_name, f_dirty_ino, f_wbs_name, f_wbs_ino, f_wbe_name, f_wbe_ino;
	struct field f_e4_dev, f_e4_ino, f_e4r_dev, f_e4r_ino;
	struct field f_exec_file, f_fork_comm, f_fork_pid;
	struct block_fmt f_bio;
	struct wbtrack_stats stats;
	bool has_dev;
	uint32_t dev;			/* with has_dev: only this disk's bios */
	/*
	 * Write bios sent inside an inode's writeback, by their key (wbtrack_sent),
	 * until queued: pid holds the inode's bdi, user its number. NULL until one.
	 */
	struct reqtab *sent;
	wbtrack_name_fn name_fn;
	void *name_arg;
};

/* wb_kind_label - see wbtrack.h */
const char *wb_kind_label(enum wb_kind kind)
{
	switch (kind) {
	case WB_JOURNAL:
		return "[jbd2 journal]";
	case WB_METADATA:
		return "[metadata]";
	case WB_UNKNOWN:
		return "[no dirtier]";
	default:
		return NULL;
	}
}

/* wb_comm_set - remember pid's name (a prefix of name up to 15 bytes); 0 or -ENOMEM */
static int wb_comm_set(struct wbtrack *wb, uint32_t pid, const char *name)
{
	size_t i;

	for (i = 0; i < wb->nr_comms && wb->comms[i].pid != pid; i++)
		;
	if (i == wb->nr_comms) {
		if (array_reserve(&wb->comms, &wb->cap_comms, i + 1, sizeof(*wb->comms), 64))
			return -ENOMEM;
		wb->nr_comms++;
	}
	wb->comms[i].pid = pid;
	snprintf(wb->comms[i].comm, sizeof(wb->comms[i].comm), "%.15s", name);
	return 0;
}

/* wb_comm_known - whether the stream named pid */
static bool wb_comm_known(const struct wbtrack *wb, uint32_t pid)
{
	for (size_t i = 0; i < wb->nr_comms; i++)
		if (wb->comms[i].pid == pid)
			return true;
	return false;
}

/* wb_comm - pid's name: from its exec or fork as the stream said, else the source's */
static const char *wb_comm(struct wbtrack *wb, uint32_t pid)
{
	for (size_t i = 0; i < wb->nr_comms; i++)
		if (wb->comms[i].pid == pid)
			return wb->comms[i].comm;
	return iotap_comm(wb->ctx, pid);
}

/* wb_kthread - a kernel thread's name: what it dirties is the filesystem's, no program's */
static bool wb_kthread(const char *comm)
{
	static const char *const k[] = { "jbd2/", "kworker/", "xfsaild/", NULL };

	for (const char *const *p = k; *p; p++)
		if (!strncmp(comm, *p, strlen(*p)))
			return true;
	return false;
}

/* wb_bdi_dev - a bdi's name ("7:0") as the kernel dev_t of its disk; 0 when not a block device's */
static uint32_t wb_bdi_dev(const struct field *f, const struct perf_sample *s)
{
	char name[32];
	unsigned int ma, mi;
	char end;

	field_str(f, s->raw, s->raw_size, name, sizeof(name));
	if (sscanf(name, "%u:%u%c", &ma, &mi, &end) != 2)
		return 0;
	return BLOCK_DEV(ma, mi);
}

/* wb_fs_dev - a filesystem's dev_t as its disk's, which names its bdi */
static uint32_t wb_fs_dev(struct wbtrack *wb, uint32_t dev)
{
	uint32_t disk;
	uint64_t start, nr;

	return iotap_disk_partition(wb->ctx, dev, &disk, &start, &nr) ? dev : disk;
}

/* wb_inode_hash - the index's hash of an inode */
static uint32_t wb_inode_hash(uint32_t dev, uint64_t ino)
{
	return hashtab_mix(ino * 0x9e3779b97f4a7c15ULL ^ dev);
}

/* wb_inode_get - the inode's record, made if make; NULL: none (or ENOMEM, with make) */
static struct wb_inode *wb_inode_get(struct wbtrack *wb, uint32_t dev, uint64_t ino, bool make)
{
	struct hashtab_pos pos;
	struct wb_inode *n;

	for (uint32_t *v = hashtab_find(&wb->inode_ix, wb_inode_hash(dev, ino), &pos); v;
	     v = hashtab_find_next(&wb->inode_ix, &pos))
		if (wb->inodes[*v].dev == dev && wb->inodes[*v].ino == ino)
			return &wb->inodes[*v];
	if (!make || array_reserve(&wb->inodes, &wb->cap_inodes, wb->nr_inodes + 1,
				   sizeof(*wb->inodes), 64) ||
	    hashtab_add(&wb->inode_ix, &pos, (uint32_t)wb->nr_inodes))
		return NULL;
	n = &wb->inodes[wb->nr_inodes++];
	memset(n, 0, sizeof(*n));
	n->dev = dev;
	n->ino = ino;
	return n;
}

/* wb_on_dirty - a page (folio) of an inode dirtied, in the task that dirtied it */
static int wb_on_dirty(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;
	uint32_t dev = wb_bdi_dev(&wb->f_dirty_name, s);
	struct wb_inode *n;
	size_t i;

	if (!dev)
		return 0;
	n = wb_inode_get(wb, dev, field_u64(&wb->f_dirty_ino, s->raw, s->raw_size), true);
	if (!n)
		return -ENOMEM;
	wb->stats.dirtied++;
	for (i = 0; i < n->nr && n->d[i].pid != s->pid; i++)
		;
	if (i == n->nr) {
		if (array_reserve(&n->d, &n->cap, i + 1, sizeof(*n->d), 4))
			return -ENOMEM;
		n->d[n->nr++] = (struct wb_dirtier){ .pid = s->pid };
		/* The name now: the process may be gone when its pages are written. */
		if (!wb_comm_known(wb, s->pid) &&
		    wb_comm_set(wb, s->pid, iotap_comm(wb->ctx, s->pid)))
			return -ENOMEM;
	}
	n->d[i].dirty++;
	n->d[i].ever++;
	if (!n->file && wb->name_fn) {
		const char *name = wb->name_fn(wb->name_arg, s->tid);

		if (name && !(n->file = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

/* wb_thread_get - tid's windows, made if make; NULL: none (or ENOMEM, with make) */
static struct wb_thread *wb_thread_get(struct wbtrack *wb, uint32_t tid, bool make)
{
	size_t i;

	for (i = 0; i < wb->nr_threads; i++)
		if (wb->threads[i].tid == tid)
			return &wb->threads[i];
	if (!make || array_reserve(&wb->threads, &wb->cap_threads, i + 1, sizeof(*wb->threads), 8))
		return NULL;
	wb->threads[i] = (struct wb_thread){ .tid = tid };
	return &wb->threads[wb->nr_threads++];
}

/* wb_win_open - tid starts writing back an inode */
static int wb_win_open(struct wbtrack *wb, uint32_t tid, uint32_t dev, uint64_t ino, bool ext4)
{
	struct wb_thread *t = wb_thread_get(wb, tid, true);

	if (!t)
		return -ENOMEM;
	/* Deeper than writeback, fs writepages, and one nested: an end was lost; start over. */
	if (t->depth == WB_WIN_DEPTH)
		t->depth = 0;
	t->win[t->depth++] = (struct wb_win){ dev, ino, ext4 };
	return 0;
}

/* wb_win_close - tid is done with an inode: its window, and any left open inside it, close */
static void wb_win_close(struct wbtrack *wb, uint32_t tid, uint32_t dev, uint64_t ino, bool ext4)
{
	struct wb_thread *t = wb_thread_get(wb, tid, false);

	if (!t)
		return;
	for (unsigned int i = t->depth; i-- > 0;) {
		if (t->win[i].dev == dev && t->win[i].ino == ino && t->win[i].ext4 == ext4) {
			t->depth = i;
			return;
		}
	}
}

/* wb_on_wbs_start - writeback_single_inode_start */
static int wb_on_wbs_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;

	return wb_win_open(wb, s->tid, wb_bdi_dev(&wb->f_wbs_name, s),
			   field_u64(&wb->f_wbs_ino, s->raw, s->raw_size), false);
}

/* wb_on_wbs_end - writeback_single_inode */
static int wb_on_wbs_end(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;

	wb_win_close(wb, s->tid, wb_bdi_dev(&wb->f_wbe_name, s),
		     field_u64(&wb->f_wbe_ino, s->raw, s->raw_size), false);
	return 0;
}

/* wb_on_e4_start - ext4_writepages: the flusher's, fsync's or jbd2's data of one inode */
static int wb_on_e4_start(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;

	return wb_win_open(wb, s->tid,
			   wb_fs_dev(wb, (uint32_t)field_u64(&wb->f_e4_dev, s->raw, s->raw_size)),
			   field_u64(&wb->f_e4_ino, s->raw, s->raw_size), true);
}

/* wb_on_e4_end - ext4_writepages_result */
static int wb_on_e4_end(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;

	wb_win_close(wb, s->tid,
		     wb_fs_dev(wb, (uint32_t)field_u64(&wb->f_e4r_dev, s->raw, s->raw_size)),
		     field_u64(&wb->f_e4r_ino, s->raw, s->raw_size), true);
	return 0;
}

/* wb_on_exec - a process's new name: its program's file name, as the kernel makes comm */
static int wb_on_exec(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;
	char file[256];
	const char *base;

	field_str(&wb->f_exec_file, s->raw, s->raw_size, file, sizeof(file));
	base = strrchr(file, '/');
	return wb_comm_set(wb, s->pid, base ? base + 1 : file);
}

/* wb_on_fork - a child has its parent's name until it execs */
static int wb_on_fork(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;
	char comm[32];

	field_str(&wb->f_fork_comm, s->raw, s->raw_size, comm, sizeof(comm));
	return wb_comm_set(wb, (uint32_t)field_u64(&wb->f_fork_pid, s->raw, s->raw_size), comm);
}

/* wb_range_find - the first range of dev that may end after sector (by start order) */
static size_t wb_range_find(const struct wbtrack *wb, uint32_t dev, uint64_t sector)
{
	size_t lo = 0, hi = wb->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wb_range *r = &wb->ranges[mid];

		if (r->dev < dev || (r->dev == dev && r->start < sector))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The one before may start earlier and still cover sector. */
	if (lo && wb->ranges[lo - 1].dev == dev && wb->ranges[lo - 1].end > sector)
		lo--;
	return lo;
}

/* wb_range_add - charge sectors to an owner; 0 or -ENOMEM */
static int wb_range_add(struct wbtrack *wb, const struct wb_range *r)
{
	size_t i = wb_range_find(wb, r->dev, r->start);

	while (i < wb->nr_ranges && wb->ranges[i].dev == r->dev &&
	       wb->ranges[i].start < r->start)
		i++;
	if (array_reserve(&wb->ranges, &wb->cap_ranges, wb->nr_ranges + 1, sizeof(*wb->ranges), 256))
		return -ENOMEM;
	memmove(&wb->ranges[i + 1], &wb->ranges[i], (wb->nr_ranges - i) * sizeof(*wb->ranges));
	wb->ranges[i] = *r;
	wb->nr_ranges++;
	return 0;
}

/* wbtrack_shares - see wbtrack.h */
void wbtrack_shares(const uint64_t *w, size_t nr, uint64_t units, uint64_t *share, bool *given)
{
	uint64_t sum = 0, total = 0;

	for (size_t i = 0; i < nr; i++)
		sum += w[i];
	for (size_t i = 0; i < nr; i++) {
		share[i] = sum ? (uint64_t)((unsigned __int128)units * w[i] / sum) : 0;
		total += share[i];
		given[i] = false;
	}
	if (!sum) {
		if (nr)
			share[0] = units;
		return;
	}
	/* Fewer than nr are left over, so no one gets two. */
	for (; total < units; total++) {
		size_t best = nr;
		uint64_t best_rem = 0;

		for (size_t i = 0; i < nr; i++) {
			uint64_t rem = (uint64_t)((unsigned __int128)units * w[i] % sum);

			if (!given[i] && (best == nr || rem > best_rem)) {
				best = i;
				best_rem = rem;
			}
		}
		given[best] = true;
		share[best]++;
	}
}

/* wb_charge_inode - a bio written back from inode n: its sectors to n's dirtiers */
static int wb_charge_inode(struct wbtrack *wb, struct wb_range *r, struct wb_inode *n)
{
	uint64_t units, unit, sum = 0, given = 0, end = r->end;
	uint64_t *w, *share;
	bool *scratch, by_dirty;
	int ret = 0;

	if (!n->nr) {
		r->kind = WB_UNKNOWN;
		return wb_range_add(wb, r);
	}
	w = calloc(n->nr, 2 * sizeof(*w) + sizeof(*scratch));
	if (!w)
		return -ENOMEM;
	share = w + n->nr;
	scratch = (bool *)(share + n->nr);
	unit = (r->end - r->start) % WB_PAGE_SECTORS ? 1 : WB_PAGE_SECTORS;
	units = (r->end - r->start) / unit;
	/* Weights: the pages each has dirty now; when none are left, all each ever dirtied. */
	for (size_t i = 0; i < n->nr; i++)
		sum += n->d[i].dirty;
	by_dirty = sum;
	for (size_t i = 0; i < n->nr; i++)
		w[i] = by_dirty ? n->d[i].dirty : n->d[i].ever;
	wbtrack_shares(w, n->nr, units, share, scratch);
	for (size_t i = 0; i < n->nr && !ret; i++) {
		if (!share[i])
			continue;
		given += share[i];
		r->end = given == units ? end : r->start + share[i] * unit;
		r->pid = n->d[i].pid;
		r->kind = wb_kthread(wb_comm(wb, r->pid)) ? WB_METADATA : WB_DIRTIER;
		ret = wb_range_add(wb, r);
		r->start = r->end;
		if (by_dirty) {
			uint64_t pages = (share[i] * unit + WB_PAGE_SECTORS - 1) / WB_PAGE_SECTORS;

			n->d[i].dirty = n->d[i].dirty > pages ? n->d[i].dirty - pages : 0;
		}
	}
	free(w);
	return ret;
}

/* A sent bio not queued within this long was never held: forgotten. */
#define WB_SENT_MAX 65536
#define WB_SENT_AGE_NS (60ull * 1000000000ull)

/* wbtrack_sent - see wbtrack.h */
int wbtrack_sent(struct wbtrack *wb, const struct perf_sample *s, uint32_t dev, uint64_t sector)
{
	struct wb_thread *t = wb_thread_get(wb, s->tid, false);
	const struct wb_win *w;
	struct blkreq *h;

	if (!t || !t->depth)
		return 0;
	if (!wb->sent && !(wb->sent = reqtab_alloc(WB_SENT_MAX, WB_SENT_AGE_NS)))
		return -ENOMEM;
	w = &t->win[t->depth - 1];
	dev = wb_fs_dev(wb, dev);
	h = reqtab_find(wb->sent, dev, sector);
	if (!h)
		h = reqtab_insert(wb->sent, dev, sector, s->time);
	h->pid = w->dev;
	h->user = w->ino;
	return 0;
}

/* wb_on_send - blktrack's on_send: wbtrack_sent */
static int wb_on_send(void *arg, const struct perf_sample *s, uint32_t dev, uint64_t sector)
{
	return wbtrack_sent(arg, s, dev, sector);
}

/* wbtrack_blktrack - see wbtrack.h */
void wbtrack_blktrack(struct wbtrack *wb, struct blktrack_cfg *cfg)
{
	if (!wb)
		return;
	cfg->on_send = wb_on_send;
	cfg->send_arg = wb;
}

/*
 * wb_sent_take - the inode window a bio at r was sent in, taken (*w filled): whether
 * one was; a bio queued by its sender itself just drops its entry
 */
static bool wb_sent_take(struct wbtrack *wb, const struct wb_range *r, struct wb_win *w)
{
	struct blkreq *h = wb->sent ? reqtab_find(wb->sent, r->dev, r->start) : NULL;

	if (!h)
		return false;
	w->dev = h->pid;
	w->ino = h->user;
	reqtab_remove(wb->sent, h);
	return true;
}

/* wb_on_bio - a bio queued: inside an inode's writeback, or by jbd2, its sectors are charged */
static int wb_on_bio(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct wbtrack *wb = arg;
	struct wb_thread *t = wb_thread_get(wb, s->tid, false);
	struct block_rq rq;
	struct wb_range r;
	struct wb_win held = { 0 };

	if (block_rq_decode(&wb->f_bio, s->raw, s->raw_size, &rq) || rq.op != BLOCK_OP_WRITE ||
	    !rq.nr_sector)
		return 0;
	/* A partition's bio has its disk's sectors already; requests name the disk. */
	rq.dev = wb_fs_dev(wb, rq.dev);
	if (wb->has_dev && rq.dev != wb->dev)
		return 0;
	r = (struct wb_range){ .dev = rq.dev, .start = rq.sector, .end = rq.sector + rq.nr_sector,
			       .t = s->time };
	/*
	 * Sent inside a writeback (wbtrack_sent): that inode's, also where blk-throttle's
	 * worker queues it now, outside any.
	 */
	if (wb_sent_take(wb, &r, &held) || (t && t->depth)) {
		const struct wb_win *w = t && t->depth ? &t->win[t->depth - 1] : &held;
		struct wb_inode *n;

		if (!(t && t->depth))
			wb->stats.held++;
		n = wb_inode_get(wb, w->dev, w->ino, true);

		if (!n)
			return -ENOMEM;
		r.idev = w->dev;
		r.ino = w->ino;
		wb->stats.bios++;
		return wb_charge_inode(wb, &r, n);
	}
	if (strncmp(rq.comm, "jbd2/", 5))
		return 0;
	wb->stats.bios++;
	r.kind = WB_JOURNAL;
	return wb_range_add(wb, &r);
}

/* wbtrack_split - see wbtrack.h */
int wbtrack_split(struct wbtrack *wb, const struct blk_io *io,
		  int (*fn)(void *arg, const struct blk_io *io, const struct wb_share *sh),
		  void *arg)
{
	uint64_t a = io->sector, b = io->sector + io->nr_sector, pos = a, covered = 0;
	size_t i = wb_range_find(wb, io->dev, a);
	struct wb_share sh;
	int ret = 0;

	while (i < wb->nr_ranges && wb->ranges[i].dev == io->dev && wb->ranges[i].start < b) {
		struct wb_range r = wb->ranges[i];
		uint64_t from = r.start > pos ? r.start : pos, to = r.end < b ? r.end : b;

		if (to <= from) {
			i++;
			continue;
		}
		sh = (struct wb_share){ .kind = r.kind, .pid = r.pid, .dev = r.idev, .ino = r.ino,
					.bytes = (to - from) * WB_SECTOR };
		sh.comm = r.kind == WB_DIRTIER || r.kind == WB_METADATA ? wb_comm(wb, r.pid) : "";
		if (r.kind != WB_JOURNAL) {
			const struct wb_inode *n = wb_inode_get(wb, r.idev, r.ino, false);

			sh.file = n ? n->file : NULL;
		}
		if (r.kind == WB_UNKNOWN)
			wb->stats.unknown_bytes += sh.bytes;
		if (!ret)
			ret = fn(arg, io, &sh);
		covered += sh.bytes;
		pos = to;
		/* What the request wrote is no one's any more; the rest of the bio waits for its own. */
		if (r.start < a && r.end > b) {
			wb->ranges[i].end = a;
			r.start = b;
			return wb_range_add(wb, &r) ? -ENOMEM : ret;
		} else if (r.start < a) {
			wb->ranges[i++].end = a;
		} else if (r.end > b) {
			wb->ranges[i].start = b;
			break;
		} else {
			memmove(&wb->ranges[i], &wb->ranges[i + 1],
				(wb->nr_ranges - i - 1) * sizeof(*wb->ranges));
			wb->nr_ranges--;
		}
	}
	if (ret || covered >= io->bytes)
		return ret;
	sh = (struct wb_share){ .kind = WB_SUBMITTER, .pid = io->pid, .comm = io->comm,
				.bytes = io->bytes - covered };
	return fn(arg, io, &sh);
}

/* wbtrack_expire - see wbtrack.h */
void wbtrack_expire(struct wbtrack *wb, uint64_t t)
{
	size_t j = 0;

	for (size_t i = 0; i < wb->nr_ranges; i++) {
		if (wb->ranges[i].t < t)
			wb->stats.stale++;
		else
			wb->ranges[j++] = wb->ranges[i];
	}
	wb->nr_ranges = j;
}

/* wbtrack_stats - see wbtrack.h */
const struct wbtrack_stats *wbtrack_stats(const struct wbtrack *wb)
{
	return &wb->stats;
}

/* wbtrack_warn_stats - see wbtrack.h */
void wbtrack_warn_stats(struct wbtrack *wb, struct iotap_ctx *ctx)
{
	if (wb->stats.unknown_bytes)
		iotap_warn(ctx, "%llu bytes were written back from inodes with no dirtying seen since tracing began (shown as [no dirtier])",
			   (unsigned long long)wb->stats.unknown_bytes);
	if (wb->stats.stale)
		iotap_warn(ctx, "%llu written-back bio ranges never saw their request complete",
			   (unsigned long long)wb->stats.stale);
	if (!iotap_verbose(ctx))
		return;
	iotap_info(ctx, "originators: %llu pages dirtied, %llu bios charged to inodes or the journal",
		   (unsigned long long)wb->stats.dirtied, (unsigned long long)wb->stats.bios);
	if (wb->stats.held)
		iotap_info(ctx, "originators: %llu of those bios queued by blk-throttle's worker, "
			   "charged to the inode their flusher sent them for",
			   (unsigned long long)wb->stats.held);
}

/* wb_use - subscribe to an optional event with field f (may be NULL) located by name */
static int wb_use(struct wbtrack *wb, const char *sys, const char *name, iotap_handler_fn fn,
		  struct field *f, const char *field, struct field *g, const char *gfield)
{
	struct iotap_event *ev;

	if (!iotap_event_available(wb->ctx, sys, name))
		return -ENOENT;
	ev = iotap_event_use(wb->ctx, sys, name, 0, fn, wb);
	if (!ev)
		return -errno;
	if ((f && field_init(f, iotap_event_format(ev), field)) ||
	    (g && field_init(g, iotap_event_format(ev), gfield))) {
		iotap_err(wb->ctx, "%s:%s has no '%s' field", sys, name, g ? gfield : field);
		return -ENOENT;
	}
	return 0;
}

/* wbtrack_create - see wbtrack.h */
int wbtrack_create(struct wbtrack **out, struct iotap_ctx *ctx, const uint32_t *dev,
		   wbtrack_name_fn name_fn, void *name_arg)
{
	struct wbtrack *wb = calloc(1, sizeof(*wb));
	struct iotap_event *ev;
	int ret;

	*out = NULL;
	if (!wb)
		return -ENOMEM;
	wb->ctx = ctx;
	wb->has_dev = dev;
	wb->dev = dev ? *dev : 0;
	wb->name_fn = name_fn;
	wb->name_arg = name_arg;
	ret = hashtab_init(&wb->inode_ix, 256);
	if (ret)
		goto free_wb;
	ret = wb_use(wb, "writeback", "writeback_dirty_folio", wb_on_dirty, &wb->f_dirty_name,
		     "name", &wb->f_dirty_ino, "ino");
	if (ret == -ENOENT && !iotap_event_available(ctx, "writeback", "writeback_dirty_folio"))
		ret = wb_use(wb, "writeback", "writeback_dirty_page", wb_on_dirty,
			     &wb->f_dirty_name, "name", &wb->f_dirty_ino, "ino");
	if (ret == -ENOENT && !iotap_event_available(ctx, "writeback", "writeback_dirty_page"))
		iotap_err(ctx, "--originator needs writeback:writeback_dirty_folio (or _page): not in this kernel, or not recorded (record with --tools naming the tool)");
	if (ret)
		goto free_wb;
	ret = wb_use(wb, "writeback", "writeback_single_inode_start", wb_on_wbs_start,
		     &wb->f_wbs_name, "name", &wb->f_wbs_ino, "ino");
	if (!ret)
		ret = wb_use(wb, "writeback", "writeback_single_inode", wb_on_wbs_end,
			     &wb->f_wbe_name, "name", &wb->f_wbe_ino, "ino");
	/* Without them ext4's own events still tie its writeback to inodes. */
	if (ret == -ENOENT)
		iotap_warn(ctx, "no writeback:writeback_single_inode_start/writeback_single_inode: only ext4's writeback (ext4_writepages) is tied to inodes");
	if (ret && ret != -ENOENT)
		goto free_wb;
	/* ext4's own: fsync and jbd2's ordered data pass no writeback_single_inode. */
	ret = wb_use(wb, "ext4", "ext4_writepages", wb_on_e4_start, &wb->f_e4_dev, "dev",
		     &wb->f_e4_ino, "ino");
	if (!ret)
		ret = wb_use(wb, "ext4", "ext4_writepages_result", wb_on_e4_end, &wb->f_e4r_dev,
			     "dev", &wb->f_e4r_ino, "ino");
	if (ret && ret != -ENOENT)
		goto free_wb;
	ret = wb_use(wb, "sched", "sched_process_exec", wb_on_exec, &wb->f_exec_file, "filename",
		     NULL, NULL);
	if (!ret)
		ret = wb_use(wb, "sched", "sched_process_fork", wb_on_fork, &wb->f_fork_comm,
			     "child_comm", &wb->f_fork_pid, "child_pid");
	if (ret && ret != -ENOENT)
		goto free_wb;
	if (!iotap_event_available(ctx, "block", "block_bio_queue")) {
		iotap_err(ctx, "--originator needs block:block_bio_queue");
		ret = -ENOENT;
		goto free_wb;
	}
	ev = iotap_event_use(ctx, "block", "block_bio_queue", 0, wb_on_bio, wb);
	if (!ev) {
		ret = -errno;
		goto free_wb;
	}
	ret = block_fmt_init(&wb->f_bio, iotap_event_format(ev));
	if (ret)
		goto free_wb;
	*out = wb;
	return 0;
free_wb:
	wbtrack_free(wb);
	return ret;
}

/* wbtrack_free - see wbtrack.h */
void wbtrack_free(struct wbtrack *wb)
{
	if (!wb)
		return;
	for (size_t i = 0; i < wb->nr_inodes; i++) {
		free(wb->inodes[i].d);
		free(wb->inodes[i].file);
	}
	free(wb->inodes);
	hashtab_release(&wb->inode_ix);
	free(wb->threads);
	free(wb->ranges);
	free(wb->comms);
	reqtab_free(wb->sent);
	free(wb);
}
