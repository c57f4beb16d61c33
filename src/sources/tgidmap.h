/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TGIDMAP_H
#define IOTAP_TGIDMAP_H

/*
 * The process (tgid) of every thread, as it was when each event happened.
 * An ftrace ring buffer entry carries the thread id only (common_pid); perf
 * samples and perf's FORK side-band records carry both. The live source
 * keeps this map in stream order: a snapshot of /proc/PID/task/TID taken
 * after the births start to be traced and before the events are, then each
 * birth as the merge delivers it, so that every thread with a traced event
 * is in one or the other, and one gone before its events are read is still
 * credited to its process. Births are the ftrace ring's own task_newtask
 * events where the kernel has them (as lossless as the events they precede),
 * and perf's FORK side-band records (threads too) always. Only a thread
 * neither told of is looked up in /proc when first seen.
 *
 * The map owns its table; a thread's PERF_RECORD_EXIT removes it, so the
 * table follows the living threads of a long run, not every one it saw.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct tgidmap;
struct tep_event;

/* tgidmap_alloc - an empty map; NULL with errno ENOMEM */
struct tgidmap *tgidmap_alloc(void);
/* tgidmap_snapshot - every thread running now, from /proc; 0 or -errno (/proc unreadable) */
int tgidmap_snapshot(struct tgidmap *m);
/*
 * tgidmap_births - ftrace samples with sample id id are task_newtask events of
 * format tp (fields pid and clone_flags): 0, or -ENOENT when tp lacks them
 */
int tgidmap_births(struct tgidmap *m, uint64_t id, struct tep_event *tp);
/*
 * tgidmap_record - one record in stream order: learn from a FORK or a birth,
 * forget at an EXIT, and give an ftrace sample (sample id at FTRACE_ID_BASE, IOTAP_SAMPLE_BASE
 * layout) its thread's process in place; every other record is left alone.
 * Return: true for a birth, which is the map's alone and goes no further.
 */
bool tgidmap_record(struct tgidmap *m, struct perf_event_header *rec);
/*
 * tgidmap_entry - an ftrace event of sample id id by thread tid, its trace
 * entry (size bytes at raw) where it lies, in stream order: *pid (may be
 * NULL: nothing filled in, as tgidmap_track) gets tid's process. Return: true
 * for a birth, learnt, which is the map's alone and goes no further.
 */
bool tgidmap_entry(struct tgidmap *m, uint64_t id, uint32_t tid, const void *raw, uint32_t size,
		   uint32_t *pid);
/* tgidmap_track - tgidmap_record without filling anything in: rec is left as it is. */
bool tgidmap_track(struct tgidmap *m, const struct perf_event_header *rec);
/* tgidmap_of - the process of thread tid (tid itself when nothing says otherwise) */
uint32_t tgidmap_of(struct tgidmap *m, uint32_t tid);
/*
 * tgidmap_linger - keep each thread that exits (its PERF_RECORD_EXIT) known
 * for ns more, as of its exit time, for tgidmap_copy_at; 0: not at all
 */
void tgidmap_linger(struct tgidmap *m, uint64_t ns);
/*
 * tgidmap_copy_at - a map of its own, as m was at event time t for the
 * threads living then: m's, with those that exited since t (and within the
 * linger) back, owning their tids again. Replaying the records from t on
 * through it (tgidmap_record) fills each in as m did. NULL with errno ENOMEM.
 */
struct tgidmap *tgidmap_copy_at(const struct tgidmap *m, uint64_t t);
/* tgidmap_count - the threads the map holds */
size_t tgidmap_count(const struct tgidmap *m);
/* tgidmap_free - free the map; accepts NULL */
void tgidmap_free(struct tgidmap *m);

#endif
