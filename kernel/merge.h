/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_MERGE_H
#define IOTAP_MERGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Time-ordered merge of per-CPU perf streams, in rounds as perf does with
 * FINISHED_ROUND: everything read in round N is queued; when round N ends,
 * the queued records not newer than the newest timestamp of round N-1 are
 * sorted and emitted. A record that arrives late is sorted in with the rest
 * (never dropped) because it can only be older than what round N saw if it
 * was written during round N-1 at the latest.
 *
 * Records are copied on push, so the caller may release ring space at once;
 * or a reader reads its input into the merge's own room (merge_take) and
 * queues the records where they lie (merge_push_at), copying nothing. Each
 * record carries the pusher's tag, which says how its bytes are laid out
 * (0: a perf record). A reader that holds records back before pushing them
 * passes the time of its oldest as the horizon: a round emits nothing newer.
 */
struct merge;

typedef int (*merge_emit_fn)(void *arg, uint64_t time, const void *rec, size_t size,
			     uint32_t tag);

/* merge_alloc - an empty merge queue, or NULL with errno (ENOMEM) */
struct merge *merge_alloc(void);
void merge_free(struct merge *m);
/*
 * merge_push - queue a copy of one record stamped with time: 0, -EINVAL for a record too
 * large, or -ENOMEM
 */
int merge_push(struct merge *m, uint64_t time, const void *rec, size_t size);
/*
 * merge_take - size bytes of the merge's own room to read records into, or NULL (ENOMEM):
 * valid until the next merge_take or merge_push. The records in it are queued with
 * merge_push_at; then merge_give_back returns the bytes after the last one (every take
 * ends so, before the next take, push or round end).
 */
void *merge_take(struct merge *m, size_t size);
/* merge_give_back - keep only used bytes of the room at taken, the last merge_take's */
void merge_give_back(struct merge *m, const void *taken, size_t used);
/*
 * merge_push_at - queue the record of size bytes at rec, inside the last merge_take's room,
 * stamped with time and tagged tag: 0, or -EINVAL when it is not in that room
 */
int merge_push_at(struct merge *m, uint64_t time, const void *rec, size_t size, uint32_t tag);
/*
 * merge_round_end - close a round: emit what the previous round made safe, up to horizon: 0,
 * or emit's non-zero return
 */
int merge_round_end(struct merge *m, uint64_t horizon, merge_emit_fn emit, void *arg);
/*
 * merge_flush - emit, in time order, every queued record not newer than limit: 0, or emit's
 * non-zero return
 */
int merge_flush(struct merge *m, uint64_t limit, merge_emit_fn emit, void *arg);
/* Bytes the buffers and queues hold allocated (a burst's, until quiet rounds give it back). */
size_t merge_held(const struct merge *m);
size_t merge_pending(const struct merge *m);
uint64_t merge_late(const struct merge *m);

#endif
