/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OTF2DEFS_H
#define IOTAP_OTF2DEFS_H

/*
 * What an OTF2 archive defines, kept while its events are written: the
 * processes (location groups), their threads (locations, each with the time
 * of its last event), the I/O handles of disks and files, and the I/O
 * operations begun and not yet ended. Nothing here knows libotf2
 * (otf2write.c turns it into definitions); every index is the OTF2
 * reference of its kind. Functions return 0 or -ENOMEM.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

#define OTF2_DEFS_COMM 16		/* a process name, TASK_COMM_LEN */

struct otf2_proc {
	uint32_t pid;
	char comm[OTF2_DEFS_COMM];	/* "" until known */
};

struct otf2_loc {
	uint32_t pid, tid;
	uint32_t proc;			/* its process, an index into procs */
	uint64_t last;			/* the time of its last event */
	uint64_t events;
};

enum otf2_handle_kind {
	OTF2_HANDLE_DISK,		/* a block device: its requests */
	OTF2_HANDLE_FILE,		/* a file by name: the reads and writes of it */
};

struct otf2_handle {
	enum otf2_handle_kind kind;
	uint32_t dev;			/* a disk's */
	char *name;
};

/* An operation begun on a location's handle; its matching id is its index into ops. */
struct otf2_op {
	uint32_t loc, handle;
	bool open;
	uint32_t next_free;		/* the next closed one to reuse, while closed */
};

struct otf2_defs {
	struct otf2_proc *procs;
	size_t nr_procs, cap_procs;
	struct otf2_loc *locs;
	size_t nr_locs, cap_locs;
	struct otf2_handle *handles;
	size_t nr_handles, cap_handles;
	struct hashtab proc_idx, loc_idx, disk_idx, file_idx;
	struct otf2_op *ops;
	size_t nr_ops, cap_ops, nr_open;
	uint32_t free_op;		/* the first closed op to reuse; UINT32_MAX: none */
	bool have_time;
	uint64_t t_first, t_last;	/* of every event */
	/* Events earlier than their location's last, written at that time instead */
	uint64_t late;
	uint64_t late_max_ns;		/* the most one was moved */
};

/* otf2_defs_init - empty definitions; 0, or -ENOMEM (then safe to release) */
int otf2_defs_init(struct otf2_defs *d);
/* otf2_defs_release - free everything; safe on a zeroed, failed or released d */
void otf2_defs_release(struct otf2_defs *d);
/*
 * otf2_defs_location - the location of thread tid of process pid into *loc, made with
 * its process on first sight. comm: the process's name as known now (NULL or "?": not
 * known), which renames it (a process that exec'd is named by its last name).
 */
int otf2_defs_location(struct otf2_defs *d, uint32_t pid, uint32_t tid, const char *comm,
		       uint32_t *loc);
/* otf2_defs_disk - the handle of disk dev into *h, named name (copied) on first sight */
int otf2_defs_disk(struct otf2_defs *d, uint32_t dev, const char *name, uint32_t *h);
/* otf2_defs_file - the handle of the file called name into *h, made on first sight */
int otf2_defs_file(struct otf2_defs *d, const char *name, uint32_t *h);
/*
 * otf2_defs_time - the time to write an event of loc at t with: t, or the location's last
 * event's time when t is earlier (counted in late), as OTF2 wants each location's events in
 * time order; the event is counted to loc and the span of all events. Cannot fail.
 */
uint64_t otf2_defs_time(struct otf2_defs *d, uint32_t loc, uint64_t t);
/* otf2_defs_op_open - an operation begun on loc's handle h: its matching id into *id */
int otf2_defs_op_open(struct otf2_defs *d, uint32_t loc, uint32_t h, uint64_t *id);
/* otf2_defs_op - the open operation of matching id, NULL when none is open under it */
const struct otf2_op *otf2_defs_op(const struct otf2_defs *d, uint64_t id);
/* otf2_defs_op_close - operation id ended: its id may name a later one (no effect when not open) */
void otf2_defs_op_close(struct otf2_defs *d, uint64_t id);

#endif
