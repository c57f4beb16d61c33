/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TGIDMAP_H
#define IOTAP_TGIDMAP_H

/*
 * The process (tgid) of every thread, as it was when each event happened.
 * An ftrace ring buffer entry carries the thread id only (common_pid); perf
 * samples and perf's FORK side-band records carry both. The live source
 * keeps this map in stream order: a snapshot of /proc/PID/task/TID taken
 * after the FORK side-band starts and before the events do, then every
 * PERF_RECORD_FORK (threads too) as the merge delivers it, so that every
 * thread with a traced event is in one or the other, and one gone before
 * its events are read is still credited to its process. Only a thread the side-band missed (its ring
 * overflowed, and counted so) is looked up in /proc when first seen.
 *
 * The map owns its table; a thread's PERF_RECORD_EXIT removes it, so the
 * table follows the living threads of a long run, not every one it saw.
 */
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct tgidmap;

/* tgidmap_alloc - an empty map; NULL with errno ENOMEM */
struct tgidmap *tgidmap_alloc(void);
/* tgidmap_snapshot - every thread running now, from /proc; 0 or -errno (/proc unreadable) */
int tgidmap_snapshot(struct tgidmap *m);
/*
 * tgidmap_record - one record in stream order: learn from a FORK, forget at an EXIT, and give
 * an ftrace sample (sample id at FTRACE_ID_BASE, IOTAP_SAMPLE_BASE layout)
 * its thread's process in place; every other record is left alone.
 */
void tgidmap_record(struct tgidmap *m, struct perf_event_header *rec);
/* tgidmap_of - the process of thread tid (tid itself when nothing says otherwise) */
uint32_t tgidmap_of(struct tgidmap *m, uint32_t tid);
/* tgidmap_count - the threads the map holds */
size_t tgidmap_count(const struct tgidmap *m);
/* tgidmap_free - free the map; accepts NULL */
void tgidmap_free(struct tgidmap *m);

#endif
