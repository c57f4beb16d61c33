/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PAIRTAB_H
#define IOTAP_PAIRTAB_H

/*
 * Enter/exit pairing of traced functions, per thread: the entry of a
 * function (a kprobe, an *_enter or *_begin tracepoint) is held until the
 * same thread's exit of the same function takes it back, with its time.
 * Keys are the caller's and compared by pointer (a function's name in a
 * static table, say): the table never reads them.
 *
 * Nothing is dropped silently: a thread that enters a function again
 * before its exit (recursion, or an exit the kernel lost) keeps the newer
 * entry and the older is counted (replaced); an exit without its entry
 * (the function was entered before tracing began) is counted
 * (unmatched_exits); entries still held are pairtab_pending(). The table
 * grows as threads nest; it holds no limit of its own.
 */
#include <stddef.h>
#include <stdint.h>

struct pairtab_stats {
	uint64_t paired;
	uint64_t replaced;		/* entries a later entry of the same thread and key replaced */
	uint64_t unmatched_exits;	/* exits whose entry was not seen */
};

struct pairtab;

/* pairtab_alloc - an empty table; NULL with errno ENOMEM */
struct pairtab *pairtab_alloc(void);
/* pairtab_free - free the table; accepts NULL */
void pairtab_free(struct pairtab *pt);
/* pairtab_enter - tid entered key at time t; 0 or -ENOMEM */
int pairtab_enter(struct pairtab *pt, uint32_t tid, const void *key, uint64_t t);
/*
 * pairtab_exit - tid left key: *t gets the time it entered, and the entry
 * goes. 0, or -ENOENT (counted) when no entry of tid and key is held.
 */
int pairtab_exit(struct pairtab *pt, uint32_t tid, const void *key, uint64_t *t);
/* pairtab_pending - entries held, waiting for their exit */
size_t pairtab_pending(const struct pairtab *pt);
const struct pairtab_stats *pairtab_stats(const struct pairtab *pt);

#endif
