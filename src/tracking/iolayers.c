// SPDX-License-Identifier: GPL-2.0-or-later
/* iolayers.c - which events and probes serve each layer of the I/O stack, and their timing (iolayers.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "field.h"
#include "iolayers.h"
#include "pairtab.h"
#include "reqtab.h"

/* Functions timed by kprobe/kretprobe pairs where the kernel has kprobes: layer, op name. */
static const struct iolayers_kfunc {
	const char *fn, *op;
	enum iolayer layer;
} iolayers_kfuncs[] = {
	{ "vfs_read", "vfs_read", IOLAYER_VFS },
	{ "vfs_write", "vfs_write", IOLAYER_VFS },
	{ "vfs_open", "vfs_open", IOLAYER_VFS },
	{ "vfs_fsync_range", "vfs_fsync", IOLAYER_VFS },
	{ "ext4_file_read_iter", "ext4_file_read_iter", IOLAYER_FS },
	{ "ext4_file_write_iter", "ext4_file_write_iter", IOLAYER_FS },
	{ "ext4_file_open", "ext4_file_open", IOLAYER_FS },
	{ "ext4_sync_file", "ext4_sync_file", IOLAYER_FS },
	{ "xfs_file_read_iter", "xfs_file_read_iter", IOLAYER_FS },
	{ "xfs_file_write_iter", "xfs_file_write_iter", IOLAYER_FS },
	{ "xfs_file_open", "xfs_file_open", IOLAYER_FS },
	{ "xfs_file_fsync", "xfs_file_fsync", IOLAYER_FS },
};
#define IOLAYERS_NR_KFUNCS (sizeof(iolayers_kfuncs) / sizeof(iolayers_kfuncs[0]))

struct iolayers {
	struct iotap_ctx *ctx;
	struct iolayers_cfg cfg;
	struct pairtab *fsin;		/* threads inside the traced vfs and fs functions */
	struct field f_dev, f_flags, f_sdev, f_sync_dev;
	struct reqtab *bios;		/* before block_io_start (6.5): bio queued -> its syscall */
	struct block_fmt f_bio;
	char *lines[IOLAYER_NR];
	/* Each kprobe pair's handlers' argument: this, and the function it times. */
	struct iolayers_probe_arg {
		struct iolayers *il;
		const struct iolayers_kfunc *k;
	} args[IOLAYERS_NR_KFUNCS];
};

/* The kprobe and kretprobe of each of iolayers_kfuncs, in its order. */
#define IOLAYERS_KPROBES(f) { .name = "kp_" f, .symbol = f }, { .name = "kr_" f, .symbol = f, .ret = true }
const struct probe_spec iolayers_probes[] = {
	IOLAYERS_KPROBES("vfs_read"), IOLAYERS_KPROBES("vfs_write"), IOLAYERS_KPROBES("vfs_open"),
	IOLAYERS_KPROBES("vfs_fsync_range"), IOLAYERS_KPROBES("ext4_file_read_iter"),
	IOLAYERS_KPROBES("ext4_file_write_iter"), IOLAYERS_KPROBES("ext4_file_open"),
	IOLAYERS_KPROBES("ext4_sync_file"), IOLAYERS_KPROBES("xfs_file_read_iter"),
	IOLAYERS_KPROBES("xfs_file_write_iter"), IOLAYERS_KPROBES("xfs_file_open"),
	IOLAYERS_KPROBES("xfs_file_fsync"),
	{ 0 }
};

static const char IOLAYERS_OP_SYNC[] = "ext4_sync_file";
static const char IOLAYERS_OP_DIO_R[] = "iomap_dio_read";
static const char IOLAYERS_OP_DIO_W[] = "iomap_dio_write";

/* iolayers_wanted - see iolayers.h */
bool iolayers_wanted(const struct iolayers *il, uint32_t pid)
{
	if (il->cfg.pid && (int)pid != il->cfg.pid)
		return false;
	return !il->cfg.comm || !strcmp(iotap_comm(il->ctx, pid), il->cfg.comm);
}

/* iolayers_caller_ok - an fs event in a traced caller's context (-p, -c, --cgroup) */
static bool iolayers_caller_ok(struct iolayers *il, const struct perf_sample *s)
{
	return iolayers_wanted(il, s->pid) && iotap_cgroup_match(il->ctx, s);
}

/* iolayers_dev_ok - with a disk, only its filesystem's events */
static bool iolayers_dev_ok(const struct iolayers *il, const struct field *f,
			    const struct perf_sample *s)
{
	return !il->cfg.has_dev || (uint32_t)field_u64(f, s->raw, s->raw_size) == il->cfg.dev;
}

/* iolayers_exit - tid left op, which it entered: one timed operation (none without its entry) */
static int iolayers_exit(struct iolayers *il, uint32_t tid, const char *op, uint64_t t)
{
	uint64_t t_enter;

	if (pairtab_exit(il->fsin, tid, op, &t_enter))
		return 0;
	return il->cfg.on_op(il->cfg.arg, op, t - t_enter);
}

/* iolayers_on_sync_enter - ext4_sync_file_enter */
static int iolayers_on_sync_enter(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iolayers *il = arg;

	if (!iolayers_dev_ok(il, &il->f_sync_dev, s) || !iolayers_caller_ok(il, s))
		return 0;
	return pairtab_enter(il->fsin, s->tid, IOLAYERS_OP_SYNC, s->time);
}

/* iolayers_on_sync_exit - ext4_sync_file_exit */
static int iolayers_on_sync_exit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return iolayers_exit(arg, s->tid, IOLAYERS_OP_SYNC, s->time);
}

/* iolayers_dio_op - a direct I/O's operation, by its kiocb's IOCB_WRITE */
static const char *iolayers_dio_op(struct iolayers *il, const struct perf_sample *s)
{
	return field_u64(&il->f_flags, s->raw, s->raw_size) & (1u << 18) ? IOLAYERS_OP_DIO_W :
	       IOLAYERS_OP_DIO_R;
}

/* iolayers_on_dio_begin - iomap_dio_rw_begin, in the caller */
static int iolayers_on_dio_begin(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iolayers *il = arg;

	if (!iolayers_dev_ok(il, &il->f_dev, s) || !iolayers_caller_ok(il, s))
		return 0;
	return pairtab_enter(il->fsin, s->tid, iolayers_dio_op(il, s), s->time);
}

/* iolayers_on_dio_complete - synchronous direct I/O completes in the caller; aio is not paired */
static int iolayers_on_dio_complete(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iolayers *il = arg;

	return iolayers_exit(il, s->tid, iolayers_dio_op(il, s), s->time);
}

/* iolayers_on_pagecache - a page added to the page cache: a miss of the thread's call */
static int iolayers_on_pagecache(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iolayers *il = arg;

	if (!il->cfg.on_pagecache || !iolayers_dev_ok(il, &il->f_sdev, s))
		return 0;
	return il->cfg.on_pagecache(il->cfg.arg, s->tid);
}

/* iolayers_on_kentry - a traced kernel function entered */
static int iolayers_on_kentry(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	const struct iolayers_probe_arg *pa = arg;

	if (!iolayers_caller_ok(pa->il, s))
		return 0;
	return pairtab_enter(pa->il->fsin, s->tid, pa->k->op, s->time);
}

/* iolayers_on_kreturn - it returned: one timed operation */
static int iolayers_on_kreturn(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	const struct iolayers_probe_arg *pa = arg;

	return iolayers_exit(pa->il, s->tid, pa->k->op, s->time);
}

/* iolayers_use - subscribe to an optional event; -ENOENT if the kernel (or recording) lacks it */
static int iolayers_use(struct iolayers *il, const char *sys, const char *name,
			iotap_handler_fn fn, struct field *f, const char *field)
{
	struct iotap_event *ev;

	if (!iotap_event_available(il->ctx, sys, name))
		return -ENOENT;
	ev = iotap_event_use(il->ctx, sys, name, 0, fn, il);
	if (!ev)
		return -errno;
	if (f)
		field_init(f, iotap_event_format(ev), field);
	return 0;
}

/* iolayers_cat - append text to the string *s (NULL: empty), which grows to hold it; 0 or -ENOMEM */
static int iolayers_cat(char **s, const char *text)
{
	size_t n = *s ? strlen(*s) : 0, m = strlen(text);
	char *p = realloc(*s, n + m + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + n, text, m + 1);
	*s = p;
	return 0;
}

/* iolayers_line - the layer's line for the banner, made from fmt; 0 or -ENOMEM */
static int iolayers_line(struct iolayers *il, enum iolayer layer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int iolayers_line(struct iolayers *il, enum iolayer layer, const char *fmt, ...)
{
	va_list ap;
	int ret;

	free(il->lines[layer]);
	va_start(ap, fmt);
	ret = vasprintf(&il->lines[layer], fmt, ap);
	va_end(ap);
	if (ret < 0) {
		il->lines[layer] = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* iolayers_kprobes_use - kprobe pairs on the layer's functions; their names appended to *fns */
static int iolayers_kprobes_use(struct iolayers *il, enum iolayer layer, bool ext4, bool xfs,
				char **fns)
{
	int nr = 0;

	for (size_t i = 0; i < IOLAYERS_NR_KFUNCS; i++) {
		const struct iolayers_kfunc *k = &iolayers_kfuncs[i];
		const struct probe_spec *pr = &iolayers_probes[2 * i];
		const char *sys;
		int ret = 0;

		if (k->layer != layer || (!ext4 && !strncmp(k->fn, "ext4", 4)) ||
		    (!xfs && !strncmp(k->fn, "xfs", 3)))
			continue;
		/* Live, a function ftrace cannot hook (inlined, notrace) is refused: it would time nothing. */
		if (!iotap_probe_available(il->ctx, &pr[0]) || !iotap_probe_available(il->ctx, &pr[1]))
			continue;
		il->args[i] = (struct iolayers_probe_arg){ il, k };
		for (int r = 0; r < 2 && !ret; r++) {
			struct iotap_event *ev;

			ret = iotap_probe_create(il->ctx, &pr[r], &sys);
			if (ret)
				break;
			ev = iotap_event_use(il->ctx, sys, pr[r].name, 0,
					     r ? iolayers_on_kreturn : iolayers_on_kentry, &il->args[i]);
			/* iotap's own report writes are not the traced I/O. */
			ret = !ev ? -errno : iotap_event_filter(ev, "common_pid != %d", (int)getpid());
		}
		if (!ret && nr++)
			ret = iolayers_cat(fns, ", ");
		if (!ret)
			ret = iolayers_cat(fns, k->fn);
		if (ret)
			return ret;
	}
	return nr;
}

/* iolayers_fs_tracepoints - the filesystem's tracepoints this kernel has, named in *tp; 0 or -errno */
static int iolayers_fs_tracepoints(struct iolayers *il, bool ext4_sync, char **tp)
{
	int ret = 0;

	if (ext4_sync &&
	    !(ret = iolayers_use(il, "ext4", "ext4_sync_file_enter", iolayers_on_sync_enter,
				 &il->f_sync_dev, "dev")) &&
	    !(ret = iolayers_use(il, "ext4", "ext4_sync_file_exit", iolayers_on_sync_exit, NULL,
				 NULL)))
		ret = iolayers_cat(tp, "ext4:ext4_sync_file_enter/exit");
	if (ret && ret != -ENOENT)
		return ret;
	/* iomap serves direct I/O for ext4 and xfs alike. */
	if (!(ret = iolayers_use(il, "iomap", "iomap_dio_rw_begin", iolayers_on_dio_begin,
				 &il->f_dev, "dev")) &&
	    !(ret = iolayers_use(il, "iomap", "iomap_dio_complete", iolayers_on_dio_complete,
				 &il->f_flags, "ki_flags")))
		ret = iolayers_cat(tp, *tp ? ", iomap:iomap_dio_rw_begin/iomap_dio_complete" :
				   "iomap:iomap_dio_rw_begin/iomap_dio_complete");
	if (ret && ret != -ENOENT)
		return ret;
	if (!(ret = iolayers_use(il, "filemap", "mm_filemap_add_to_page_cache",
				 iolayers_on_pagecache, &il->f_sdev, "s_dev")))
		ret = iolayers_cat(tp, *tp ? ", filemap:mm_filemap_add_to_page_cache (page-cache misses)" :
				   "filemap:mm_filemap_add_to_page_cache (page-cache misses)");
	return ret == -ENOENT ? 0 : ret;
}

/* iolayers_fs_init - the filesystem's kprobe pairs where the kernel has kprobes, and its tracepoints */
static int iolayers_fs_init(struct iolayers *il, bool kprobes)
{
	char *kp = NULL, *tp = NULL;
	int ret = 0, nr_kp = 0;

	if (kprobes)
		nr_kp = iolayers_kprobes_use(il, IOLAYER_FS, il->cfg.ext4, il->cfg.xfs, &kp);
	/* A kprobe on ext4_sync_file times what the tracepoint pair would: not both. */
	if (nr_kp >= 0)
		ret = iolayers_fs_tracepoints(il, il->cfg.ext4 && !(kp && strstr(kp, "ext4_sync_file")),
					      &tp);
	if (nr_kp < 0)
		ret = nr_kp;
	else if (!ret && !nr_kp && !tp)
		ret = iolayers_line(il, IOLAYER_FS, "fs: not offered: no kprobes, and none of the ext4, iomap and filemap tracepoints");
	else if (!ret)
		ret = iolayers_line(il, IOLAYER_FS, "fs: %s%s%s%s%s",
				    nr_kp ? "kprobe/kretprobe pairs on " : "", kp ? kp : "",
				    nr_kp && tp ? "; " : "", tp ? tp : "", tp ? " tracepoints" : "");
	free(kp);
	free(tp);
	return ret;
}

/* iolayers_vfs_init - kprobe pairs on vfs_*, or the reason there are none */
static int iolayers_vfs_init(struct iolayers *il, bool kprobes)
{
	char *fns = NULL;
	int nr, ret;

	if (!kprobes)
		return iolayers_line(il, IOLAYER_VFS, "vfs: not offered: no kprobes (none in this kernel, or none recorded), and no tracepoint marks vfs_read/vfs_write");
	nr = iolayers_kprobes_use(il, IOLAYER_VFS, true, true, &fns);
	if (nr < 0)
		ret = nr;
	else if (nr)
		ret = iolayers_line(il, IOLAYER_VFS, "vfs: kprobe/kretprobe pairs on %s", fns);
	else
		ret = iolayers_line(il, IOLAYER_VFS, "vfs: not offered: no vfs_* function can be probed (not in available_filter_functions, or not recorded)");
	free(fns);
	return ret;
}

/* iolayers_tag - a syscall in progress as a tag: its thread and sequence */
static uint64_t iolayers_tag(uint32_t tid, const struct sys_call *c)
{
	return (uint64_t)tid << 32 | (uint32_t)c->seq;
}

/* iolayers_owner - see iolayers.h */
uint64_t iolayers_owner(struct iolayers *il, uint32_t tid)
{
	/* block_rq_insert (before 6.5) may run in another context: bios tag instead. */
	struct sys_call *c = il->bios ? NULL : systrack_current(il->cfg.sys, tid);

	return c ? iolayers_tag(tid, c) : 0;
}

/* iolayers_on_bio_queue - kernels before 6.5: a bio queued in the submitter tags its sector */
static int iolayers_on_bio_queue(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct iolayers *il = arg;
	struct sys_call *c = systrack_current(il->cfg.sys, s->tid);
	struct block_rq rq;
	struct blkreq *r;

	if (!c || block_rq_decode(&il->f_bio, s->raw, s->raw_size, &rq) || !rq.nr_sector ||
	    (il->cfg.has_dev && rq.dev != il->cfg.dev))
		return 0;
	r = reqtab_insert(il->bios, rq.dev, rq.sector, s->time);
	if (!r)
		return -ENOMEM;
	r->user = iolayers_tag(s->tid, c);
	return 0;
}

/* iolayers_bio_owner - see iolayers.h */
uint64_t iolayers_bio_owner(struct iolayers *il, uint32_t dev, uint64_t sector)
{
	/* A request starts at its first bio's sector (merges append, or prepend the caller's). */
	struct blkreq *b = il->bios ? reqtab_find(il->bios, dev, sector) : NULL;
	uint64_t tag;

	if (!b)
		return 0;
	tag = b->user;
	reqtab_remove(il->bios, b);
	return tag;
}

/* iolayers_call - see iolayers.h */
struct sys_call *iolayers_call(struct iolayers *il, uint64_t tag)
{
	struct sys_call *c = systrack_current(il->cfg.sys, (uint32_t)(tag >> 32));

	return c && (uint32_t)c->seq == (uint32_t)tag ? c : NULL;
}

/* iolayers_block - see iolayers.h */
int iolayers_block(struct iolayers *il, struct blktrack *bt)
{
	bool has_io_start = iotap_event_available(il->ctx, "block", "block_io_start");
	int ret;

	if (!has_io_start && iotap_event_available(il->ctx, "block", "block_bio_queue")) {
		struct iotap_event *ev = iotap_event_use(il->ctx, "block", "block_bio_queue", 0,
							 iolayers_on_bio_queue, il);

		if (!ev)
			return -errno;
		ret = block_fmt_init(&il->f_bio, iotap_event_format(ev));
		if (ret)
			return ret;
		il->bios = reqtab_alloc(1u << 16, 60ull * 1000000000ull);
		if (!il->bios)
			return -ENOMEM;
	}
	return iolayers_line(il, IOLAYER_BLK, "blk: block:%s/block_rq_issue/block_rq_complete tracepoints (%s)%s",
			     has_io_start ? "block_io_start" : blktrack_has_start(bt) ? "block_rq_insert" : "",
			     il->cfg.queued ? "from creation, -Q" : "device time",
			     il->bios ? "; requests matched to syscalls by their first bio (block_bio_queue)" : "");
}

/* iolayers_has_kprobes - whether any of the functions can be timed by kprobes here (or was recorded) */
static bool iolayers_has_kprobes(struct iotap_ctx *ctx)
{
	for (size_t i = 0; i < IOLAYERS_NR_KFUNCS; i++)
		if (iotap_probe_available(ctx, &iolayers_probes[2 * i + 1]))
			return true;
	return false;
}

/* iolayers_create - see iolayers.h */
int iolayers_create(struct iolayers **ilp, struct iotap_ctx *ctx, const struct iolayers_cfg *cfg)
{
	struct iolayers *il = calloc(1, sizeof(*il));
	bool kprobes;
	int ret = -ENOMEM;

	*ilp = NULL;
	if (!il)
		return -ENOMEM;
	il->ctx = ctx;
	il->cfg = *cfg;
	il->fsin = pairtab_alloc();
	if (!il->fsin)
		goto free_il;
	ret = iolayers_line(il, IOLAYER_SYSCALL, "syscall: syscalls:sys_enter_*/sys_exit_* tracepoints%s",
			    cfg->layer[IOLAYER_SYSCALL] ? "" : " (attribution only)");
	kprobes = iolayers_has_kprobes(ctx);
	if (!ret && cfg->layer[IOLAYER_VFS])
		ret = iolayers_vfs_init(il, kprobes);
	if (!ret && cfg->layer[IOLAYER_FS])
		ret = iolayers_fs_init(il, kprobes);
	if (ret)
		goto free_il;
	*ilp = il;
	return 0;
free_il:
	iolayers_free(il);
	return ret;
}

/* iolayers_source - see iolayers.h */
const char *iolayers_source(const struct iolayers *il, enum iolayer layer)
{
	return il->lines[layer];
}

/* iolayers_warn_stats - see iolayers.h */
void iolayers_warn_stats(const struct iolayers *il)
{
	const struct pairtab_stats *ps = pairtab_stats(il->fsin);
	const struct reqtab_stats *bs = il->bios ? reqtab_stats(il->bios) : NULL;

	if (bs && (bs->evicted_age || bs->evicted_full))
		iotap_warn(il->ctx, "%llu bios queued in syscalls waited over 60 s for their request or overflowed the table of bios: those requests were not attributed",
			   (unsigned long long)(bs->evicted_age + bs->evicted_full));
	if (iotap_verbose(il->ctx))
		iotap_info(il->ctx, "vfs and fs functions: %llu timed; not timed: %llu returns whose entry was not seen (entered before tracing began), %llu entries begun again before they returned, %zu not returned yet",
			   (unsigned long long)ps->paired, (unsigned long long)ps->unmatched_exits,
			   (unsigned long long)ps->replaced, pairtab_pending(il->fsin));
}

/* iolayers_free - see iolayers.h */
void iolayers_free(struct iolayers *il)
{
	if (!il)
		return;
	pairtab_free(il->fsin);
	reqtab_free(il->bios);
	for (int i = 0; i < IOLAYER_NR; i++)
		free(il->lines[i]);
	free(il);
}
