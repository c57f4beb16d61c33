/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SECTIONS_H
#define IOTAP_SECTIONS_H

/*
 * What an iotap recording holds, on top of the container of container.h: the
 * section types and their layouts (iotap-recording(5), SECTIONS), and for
 * the sections of a fixed binary layout their encoder (used by the
 * recorder, src/recorder/) beside their decoder (used by the recorded
 * source, source-recording.c), so that the two cannot drift: neither side
 * lays out or parses a section's bytes itself. Decoders read through the
 * bounds-checked cursor and return 0, or -EINVAL with why the section is
 * malformed in why. Names: rec_sec_<section>_encode/_decode (or _begin, _add,
 * _end for sections built entry by entry), rec_buf_ for the buffer they fill.
 *
 * Whole sections start with a u32 version; streamed ones with a u32 version
 * and a u32 of zero, so that the records after them stay 8-byte aligned.
 * Integers are in the byte order that META names (the recording machine's,
 * as perf records are); a reader refuses any other than its own.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "disk.h"
#include "container.h"

#define REC_SEC_META	REC_FOURCC('M', 'E', 'T', 'A')	/* key=value lines: host, kernel, clock */
#define REC_SEC_FMTH	REC_FOURCC('F', 'M', 'T', 'H')	/* tracefs events/header_page text */
#define REC_SEC_EVNT	REC_FOURCC('E', 'V', 'N', 'T')	/* one recorded event: ids, format */
#define REC_SEC_DISK	REC_FOURCC('D', 'I', 'S', 'K')	/* block devices and schedulers */
#define REC_SEC_COMM	REC_FOURCC('C', 'O', 'M', 'M')	/* process names when recording began */
#define REC_SEC_KSYM	REC_FOURCC('K', 'S', 'Y', 'M')	/* streamed: /proc/kallsyms text (-g) */
#define REC_SEC_EVTS	REC_FOURCC('E', 'V', 'T', 'S')	/* streamed: the perf records, in time order */
#define REC_SEC_STAT	REC_FOURCC('S', 'T', 'A', 'T')	/* after the records: end time, totals */
#define REC_SEC_MAPS	REC_FOURCC('M', 'A', 'P', 'S')	/* -g: executable mappings when recording began */
#define REC_SEC_CGRP	REC_FOURCC('C', 'G', 'R', 'P')	/* --cgroups: every task's cgroup v2 when recording began */
#define REC_SEC_CGV1	REC_FOURCC('C', 'G', 'V', '1')	/* --cgroups: the same in one cgroup v1 hierarchy */
#define REC_SEC_CGID	REC_FOURCC('C', 'G', 'I', 'D')	/* --cgroups: every cgroup v2 directory's id */
#define REC_SEC_FDTB	REC_FOURCC('F', 'D', 'T', 'B')	/* fileio: open descriptors when recording began */
#define REC_SEC_TRIG	REC_FOURCC('T', 'R', 'I', 'G')	/* record --ring: what made this dump, its window */

#define REC_SEC_VERSION 1u

/*
 * EVNT: u32 version, u32 nr_ids, u64 sample_type, u64 regs, u32 sys/name/format lengths,
 * u32 flags (version 2; zero in version 1).
 */
#define REC_EVNT_FIXED 40
#define REC_EVNT_VERSION_FLAGS 2u
/* EVNT flag: the event's samples carry one callchain entry, the id of a REC_RECORD_STACK. */
#define REC_EVNT_CHAIN_IDS 1u
/*
 * An EVTS record of iotap's own, before the first sample that names it: a
 * distinct callchain, once. Body: u64 id, u64 nr, then nr u64 callchain
 * entries as the kernel lays them out. Ids count up from 0; 0 again starts
 * the table over (the recorder bounds its memory).
 */
#define REC_RECORD_STACK 0x10000u
#define REC_STACK_FIXED 24
#define REC_STACKS_MAX (1u << 20)
/*
 * An EVTS record of iotap's own (--cgroups), before the task:task_newtask
 * sample of a child born straight into a cgroup (clone3 CLONE_INTO_CGROUP):
 * the cgroup v2 path the recorder read for it as that birth was delivered.
 * Body: u32 tid, u32 path length (0: the child had exited and was reaped
 * before it was read), the path zero-padded to 8 bytes, then the sample_id
 * trailer with the birth's time and CPU (id 0). Record types 0x10001 and
 * 0x10002 are sample.h's.
 */
#define REC_RECORD_BORN 0x10003u
#define REC_BORN_FIXED (8 + 8 + 32)
#define REC_BORN_MAX (REC_BORN_FIXED + 4096)
/* DISK: u32 version, u32 count, then count entries of u32 dev, name[32], sched[32]. */
#define REC_DISK_ENTRY 68
/*
 * CGRP: u32 version, u32 count, then count entries of u32 tid, u32 path length, u64 time
 * the entry was read at, and the path ("/a/b", no NUL). Later moves are the recorded
 * cgroup:cgroup_attach_task and sched:sched_process_fork events.
 */
#define REC_CGRP_ENTRY 16
#define REC_CGRP_PATH_MAX 4095
/*
 * CGV1 (--cgroups, one per cgroup v1 hierarchy recorded: blkio's and the named
 * ones, such as name=systemd): u32 version, u32 the hierarchy's id (as
 * /proc/PID/cgroup and cgroup_attach_task's dst_root number it), u32 count,
 * u32 controllers length, u32 mount point length, the controllers ("blkio",
 * "name=systemd"), the mount point ("/sys/fs/cgroup/blkio"), then count
 * entries laid out as CGRP's.
 */
#define REC_CGV1_FIXED 20
/*
 * CGID (--cgroups, where the block controller is cgroup v2's): u32 version, u32 count,
 * then count entries of u64 id (the directory's kernfs id: its inode number, which
 * writeback's cgroup_ino names), u32 path length, and the path ("/a/b", no NUL; at most
 * REC_CGRP_PATH_MAX). Later ones are the recorded cgroup:cgroup_mkdir events.
 */
#define REC_CGID_ENTRY 12
#define REC_CGV1_NAME_MAX 255
/* COMM: u32 version, u32 count, then count entries of u32 pid, comm[16]. */
#define REC_COMM_ENTRY 20
/*
 * FDTB (tools that name files by descriptor): u32 version, u32 count, then count
 * entries of u32 pid, s32 fd, u32 path length and the path (no NUL), each
 * entry padded with zeros to 4 bytes. Later changes are the recorded syscalls.
 */
#define REC_FDTB_ENTRY 12
#define REC_FDTB_PATH_MAX 4095
/* Streamed sections: u32 version, u32 zero, then the content. */
#define REC_STREAM_PREFIX 8
/* STAT: u32 version, u32 zero, u64 end time, u64 records, u64 samples. */
#define REC_STAT_SIZE 32

/*
 * MAPS (-g): the initial process mappings. u32 version, u32 count, then
 * count entries of u32 pid, u16 path length, u8 build-id length, u8 0, u64
 * start, u64 len, u64 pgoff, the build-id bytes and the path bytes (no NUL).
 */
#define REC_MAPS_FIXED 32
#define REC_MAPS_BUILD_ID_MAX 64


/* A growing byte buffer for one section; the first failure sticks in err. */
struct rec_buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

void rec_buf_put(struct rec_buf *b, const void *data, size_t n);
void rec_buf_u32(struct rec_buf *b, uint32_t v);
void rec_buf_u64(struct rec_buf *b, uint64_t v);
/* s in a zero-padded field of n (<= 64) bytes, always NUL-terminated */
void rec_buf_str0(struct rec_buf *b, const char *s, size_t n);
/* one key=value line of META, a line break in the value becoming a space */
void rec_buf_meta(struct rec_buf *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* empty it, keeping its memory; rec_buf_release frees it */
void rec_buf_reset(struct rec_buf *b);
void rec_buf_release(struct rec_buf *b);

/* The version a section begins with; 0 when it is too short. */
uint32_t rec_sec_version(const void *p, size_t len);

/* b as one whole section of type (b's first failure instead, if it had one); b stays. */
int rec_sec_put(struct rec_writer *w, uint32_t type, const struct rec_buf *b);

/* Streamed sections (KSYM, EVTS): their prefix, then rec_writer_stream() their content. */
int rec_sec_stream_begin(struct rec_writer *w, uint32_t type);
/*
 * The first chunk of a streamed section: how many bytes of prefix its
 * content follows (REC_STREAM_PREFIX), or -EINVAL with why (what: its name).
 */
int rec_sec_stream_skip(const void *p, size_t len, const char *what, char *why, size_t whylen);

/* FMTH: u32 version, then the header_page text the formats were parsed with. */
void rec_sec_fmth_encode(struct rec_buf *b, const char *text, size_t len);
/* the text, pointing into p; -EINVAL for a section of another version */
int rec_sec_fmth_decode(const void *p, size_t len, const char **text, size_t *text_len);

/*
 * META: u32 version, then key=value lines (rec_buf_meta()): the machine
 * (iotap, host, sysname, release, kversion, machine, cpus, page_size,
 * long_size, byte_order), the clock, t_start, wall_offset, callchains,
 * tools, and for a traced command command and command_pid. Keys a reader
 * does not know are for later versions; callchains is for people (a reader
 * goes by each EVNT's sample_type).
 */
#define REC_META_CLOCK "monotonic"

struct rec_sec_meta {
	const char *iotap, *host, *sysname, *release, *kversion, *machine;
	const char *tools;
	const char *command;		/* NULL: no command (nor command_pid) */
	int nr_cpus, page_size, long_size, callchains, command_pid;
	uint64_t t_start;
	int64_t wall_offset;
	/* decode only: the encoder writes this machine's byte order and REC_META_CLOCK */
	const char *byte_order, *clock;
	bool have_t_start;
	char *text;			/* the lines the strings point into */
};

void rec_sec_meta_encode(struct rec_buf *b, const struct rec_sec_meta *m);
/* into m, its strings in m->text (rec_sec_meta_release()); -ENOMEM, or -EINVAL with why */
int rec_sec_meta_decode(const void *p, size_t len, struct rec_sec_meta *m, char *why,
			size_t whylen);
/* what replaying needs of a decoded META (m->text NULL: there was none); 0 or -EINVAL */
int rec_sec_meta_check(const struct rec_sec_meta *m, char *why, size_t whylen);
void rec_sec_meta_release(struct rec_sec_meta *m);

/*
 * EVTS: the records, each a perf_event_header and its body, 8-byte multiples,
 * never spanning two chunks. The record at pos of a chunk's len bytes: 1
 * with *h, 0 at the chunk's end, or -EINVAL with why.
 */
int rec_sec_evts_record(const void *chunk, size_t len, size_t pos,
			const struct perf_event_header **h, char *why, size_t whylen);
/* A REC_RECORD_STACK of id and its nr entries, into buf (REC_STACK_FIXED + nr * 8 bytes). */
const struct perf_event_header *rec_sec_stack_encode(void *buf, uint64_t id,
						     const uint64_t *chain, uint32_t nr);
/* its id and its nr entries (unaligned, in h); -EINVAL with why */
int rec_sec_stack_decode(const struct perf_event_header *h, uint64_t *id, const void **chain,
			 uint64_t *nr, char *why, size_t whylen);

/* EVNT: one recorded event, its sample layout, its perf ids per CPU and its format text. */
struct rec_sec_evnt {
	uint64_t sample_type, regs_mask;
	bool chain_ids;			/* REC_EVNT_CHAIN_IDS: written as version 2 */
	const uint64_t *ids;		/* encode: nr_ids ids */
	const void *ids_raw;		/* decode: nr_ids u64s, unaligned (rec_sec_evnt_id()) */
	size_t nr_ids;
	const char *sys, *name;
	char sys_buf[65], name_buf[65];	/* decode: where sys and name point (fmt_name_ok()) */
	const char *fmt;		/* format text, fmt_len bytes, not NUL-terminated */
	size_t fmt_len;
};

void rec_sec_evnt_encode(struct rec_buf *b, const struct rec_sec_evnt *e);
/* the layout's own checks: version, flags, lengths, names; the caller checks the rest.
 * -EINVAL with why */
int rec_sec_evnt_decode(const void *p, size_t len, struct rec_sec_evnt *e, char *why,
		       size_t whylen);
/* the i-th perf id of a decoded EVNT */
uint64_t rec_sec_evnt_id(const struct rec_sec_evnt *e, size_t i);

/* DISK: the block devices and their schedulers. */
void rec_sec_disk_encode(struct rec_buf *b, const struct disk_table *t);
/* the devices into t: 0, -ENOMEM, or -EINVAL with why */
int rec_sec_disk_decode(const void *p, size_t len, struct disk_table *t, char *why, size_t whylen);

/* COMM: process names (begin, add each, end patches the count). */
void rec_sec_comm_begin(struct rec_buf *b);
void rec_sec_comm_add(struct rec_buf *b, uint32_t pid, const char *comm);
void rec_sec_comm_end(struct rec_buf *b, uint32_t n);
/* comm: 16 bytes, NUL-padded, perhaps not NUL-terminated */
typedef void (*rec_sec_comm_fn)(void *arg, uint32_t pid, const char *comm);
/* each process name to fn: 0, or -EINVAL with why */
int rec_sec_comm_decode(const void *p, size_t len, rec_sec_comm_fn fn, void *arg, char *why,
		       size_t whylen);

/* CGRP (--cgroups): every task's cgroup v2 when recording began (begin, add each, end). */
void rec_sec_cgrp_begin(struct rec_buf *b);
void rec_sec_cgrp_add(struct rec_buf *b, uint32_t tid, const char *path, uint64_t t);
void rec_sec_cgrp_end(struct rec_buf *b, uint32_t n);
typedef void (*rec_sec_cgrp_fn)(void *arg, uint32_t tid, const char *path, uint64_t t);
/* each task's cgroup to fn: 0, or -EINVAL with why */
int rec_sec_cgrp_decode(const void *p, size_t len, rec_sec_cgrp_fn fn, void *arg, char *why,
		       size_t whylen);

/* CGID (--cgroups): every cgroup v2 directory's id when recording began (begin, add each, end). */
void rec_sec_cgid_begin(struct rec_buf *b);
void rec_sec_cgid_add(struct rec_buf *b, uint64_t id, const char *path);
void rec_sec_cgid_end(struct rec_buf *b, uint32_t n);
typedef void (*rec_sec_cgid_fn)(void *arg, uint64_t id, const char *path);
/* each directory's id and path to fn: 0, or -EINVAL with why */
int rec_sec_cgid_decode(const void *p, size_t len, rec_sec_cgid_fn fn, void *arg, char *why,
			size_t whylen);

/* CGV1 (--cgroups): every task's cgroup in one v1 hierarchy when recording began. */
struct rec_sec_cgv1 {
	uint32_t id;			/* the hierarchy's, on the recording machine */
	char controllers[REC_CGV1_NAME_MAX + 1];	/* "blkio", "name=systemd" */
	char mount[REC_CGV1_NAME_MAX + 1];	/* where it was mounted: "/sys/fs/cgroup/blkio" */
};

/* the head (names longer than REC_CGV1_NAME_MAX are cut); rec_sec_cgrp_add each, then end */
void rec_sec_cgv1_begin(struct rec_buf *b, const struct rec_sec_cgv1 *h);
void rec_sec_cgv1_end(struct rec_buf *b, uint32_t n);
/* the head into h, and each task's cgroup to fn (NULL: the head only): 0, or -EINVAL with why */
int rec_sec_cgv1_decode(const void *p, size_t len, struct rec_sec_cgv1 *h, rec_sec_cgrp_fn fn,
			void *arg, char *why, size_t whylen);

/*
 * REC_RECORD_BORN: a child born into a cgroup, at the birth's time and CPU, into buf
 * (REC_BORN_MAX bytes); path NULL: gone before it was read (a longer path than
 * REC_CGRP_PATH_MAX is taken as gone too)
 */
const struct perf_event_header *rec_sec_born_encode(void *buf, uint32_t tid, const char *path,
						    uint64_t time, uint32_t cpu);
/* its tid, time and path (len > REC_CGRP_PATH_MAX; "" for gone): 0, or -EINVAL with why */
int rec_sec_born_decode(const struct perf_event_header *h, uint32_t *tid, uint64_t *time,
			char *path, size_t len, char *why, size_t whylen);

/* FDTB: every process's open descriptors when recording began (begin, add each, end). */
void rec_sec_fdtb_begin(struct rec_buf *b);
void rec_sec_fdtb_add(struct rec_buf *b, uint32_t pid, int fd, const char *path);
void rec_sec_fdtb_end(struct rec_buf *b, uint32_t n);
/* path: NUL-terminated, valid only during the call; fn's error ends the decode */
typedef int (*rec_sec_fdtb_fn)(void *arg, uint32_t pid, int fd, const char *path);
/* a section of another version is skipped (0); -EINVAL with why when damaged */
int rec_sec_fdtb_decode(const void *p, size_t len, rec_sec_fdtb_fn fn, void *arg, char *why,
		       size_t whylen);

/*
 * TRIG (a flight recorder's dump): u32 version, then key=value lines as in
 * META: what (one line for people), reason (signal, latency, error), and
 * t_trigger, t_from, t_to (monotonic ns: the trigger and the window the
 * dump covers); for a request, also disk, dev, sector, bytes, rwbs,
 * latency_ns, error, pid, comm.
 */
struct rec_sec_trig {
	const char *what, *reason;
	uint64_t t_trigger, t_from, t_to;
};

/* TRIG: the common keys; callers add the request's with rec_buf_meta() */
void rec_sec_trig_encode(struct rec_buf *b, const struct rec_sec_trig *t);
/*
 * keys it does not know are skipped; what and reason point into *text, the
 * lines copied (the caller frees them). A TRIG of another version is
 * skipped: 0 with *text NULL. -ENOMEM, or -EINVAL with why.
 */
int rec_sec_trig_decode(const void *p, size_t len, struct rec_sec_trig *t, char **text,
			char *why, size_t whylen);

/* STAT: after the records, when recording stopped and how much it wrote. */
void rec_sec_stat_encode(struct rec_buf *b, uint64_t t_end, uint64_t records, uint64_t samples);
/* the end time: 0, or -EINVAL with why */
int rec_sec_stat_decode(const void *p, size_t len, uint64_t *t_end, char *why, size_t whylen);

/* MAPS (-g): executable mappings when recording began (begin, add each, end). */
void rec_sec_maps_begin(struct rec_buf *b);
/* 0, -E2BIG once the section would outgrow a chunk, or -ENOMEM (the buffer's, sticky); a path
 * over 4095 bytes is left out */
int rec_sec_maps_add(struct rec_buf *b, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *path, const uint8_t *build_id, uint8_t build_id_len);
void rec_sec_maps_end(struct rec_buf *b, uint32_t count);
typedef void (*rec_sec_map_fn)(void *arg, uint32_t pid, uint64_t start, uint64_t len,
			      uint64_t pgoff, const char *path, const uint8_t *build_id,
			      uint8_t build_id_len);
/* a section of another version is skipped (0); -EINVAL when damaged */
int rec_sec_maps_decode(const void *p, size_t len, rec_sec_map_fn fn, void *arg);

#endif
