// SPDX-License-Identifier: GPL-2.0-or-later
/* prefetch.c - the chunks after the first records, read and inflated ahead by threads */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "container-local.h"

/* Chunks decompressed ahead of the replay: one being replayed, the others ready. */
/* Inflating threads at most (see prefetch_workers()), and chunks in flight. */
#define PREFETCH_WORKERS 3
#define PREFETCH_SLOTS 8
/* Chunks smaller than this are inflated by the caller until a larger one comes. */
#define PREFETCH_INLINE_MAX (64u << 10)

/* One chunk, inflated by a worker for the reader. */
struct chunk_slot {
	uint8_t *data;
	size_t len, cap;
	uint32_t type;
	uint64_t seq;			/* the chunk's place in the file */
	bool ready;			/* inflated (or failed: err) */
	int err;
	uint64_t offset;		/* of the chunk in the file */
};

/*
 * Chunks after the first records are read and inflated by worker threads,
 * a few ahead of the replay: chunks are independent, so workers inflate
 * them side by side while the replay consumes them in file order.
 * Decompression then costs the replay nothing when other CPUs are free.
 * Workers take the reader in turn (under the lock) to read the next
 * compressed chunk, then inflate it outside the lock into the slot of its
 * sequence number, which nobody else touches until it is ready.
 */
struct rec_prefetch {
	pthread_t thread[PREFETCH_WORKERS];
	int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk_slot slot[PREFETCH_SLOTS];
	uint64_t head, tail;		/* chunks taken from the reader, chunks given back */
	bool holding;			/* the caller is using slot[tail] */
	struct rec_reader *r;
	bool begun;			/* the workers were started */
	int end;			/* 0: more to come; 1: END; else the reader's error */
	uint64_t end_at;		/* file offset of that error */
	bool stop;
};

/* slot_reserve - room for n bytes (and the one inflating needs spare) in a slot */
static int slot_reserve(struct chunk_slot *sl, size_t n)
{
	uint8_t *p;

	if (n + 1 <= sl->cap)
		return 0;
	p = realloc(sl->data, n + 1);
	if (!p)
		return -ENOMEM;
	sl->data = p;
	sl->cap = n + 1;
	return 0;
}

/* prefetch_main - a worker: take the next chunk from the reader, inflate it into its slot */
static void *prefetch_main(void *arg)
{
	struct rec_prefetch *pf = arg;
	struct rec_inflater *z = rec_inflater_new();
	struct rec_packed c;
	struct chunk_slot *sl;
	uint8_t *copy = NULL;
	size_t copy_cap = 0;
	int ret;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (pf->head - pf->tail >= PREFETCH_SLOTS && !pf->stop && !pf->end)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop || pf->end)
			break;
		ret = z ? rec_reader_next_packed(pf->r, &c) : -ENOMEM;
		if (ret <= 0) {
			pf->end = ret ? ret : 1;
			pf->end_at = rec_reader_offset(pf->r);
			pthread_cond_broadcast(&pf->cond);
			break;
		}
		/* The payload lasts until the reader's next call: keep a copy. */
		if (c.len > copy_cap) {
			uint8_t *p = realloc(copy, c.len);

			if (!p) {
				pf->end = -ENOMEM;
				pthread_cond_broadcast(&pf->cond);
				break;
			}
			copy = p;
			copy_cap = c.len;
		}
		memcpy(copy, c.payload, c.len);
		c.payload = copy;
		sl = &pf->slot[pf->head % PREFETCH_SLOTS];
		sl->seq = pf->head++;
		sl->ready = false;
		pthread_mutex_unlock(&pf->lock);

		ret = slot_reserve(sl, c.raw_len);
		if (!ret)
			ret = rec_inflate(z, &c, sl->data);
		sl->type = c.type;
		sl->len = c.raw_len;
		sl->offset = c.offset;

		pthread_mutex_lock(&pf->lock);
		sl->err = ret;
		sl->ready = true;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	free(copy);
	rec_inflater_free(z);
	return NULL;
}

/*
 * prefetch_workers - how many threads inflate: one per CPU we may use, up
 * to PREFETCH_WORKERS (on two CPUs, two workers and the replay beat one
 * worker by a quarter: inflating is the larger half of a report's work)
 */
static int prefetch_workers(void)
{
	cpu_set_t set;
	int cpus;

	/* The affinity mask, not /sys: a report reads nothing of the machine it runs on. */
	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	return cpus < 1 ? 1 : cpus < PREFETCH_WORKERS ? cpus : PREFETCH_WORKERS;
}

/* rec_prefetch_start - see container.h */
struct rec_prefetch *rec_prefetch_start(struct rec_reader *r, uint32_t type, const void *data,
					size_t len, const uint8_t **first)
{
	struct rec_prefetch *pf = calloc(1, sizeof(*pf));
	struct chunk_slot *sl;
	int ret;

	if (!pf)
		return NULL;
	pf->r = r;
	sl = &pf->slot[0];
	ret = slot_reserve(sl, len);
	if (ret)
		goto out_free;
	memcpy(sl->data, data, len);
	sl->len = len;
	sl->type = type;
	sl->seq = 0;
	sl->ready = true;
	pf->head = 1;
	pf->holding = true;
	*first = sl->data;
	ret = -ENOMEM;
	if (pthread_mutex_init(&pf->lock, NULL))
		goto out_free;
	if (pthread_cond_init(&pf->cond, NULL)) {
		pthread_mutex_destroy(&pf->lock);
		goto out_free;
	}
	return pf;
out_free:
	free(sl->data);
	free(pf);
	errno = -ret;
	return NULL;
}

/*
 * prefetch_inline - the next chunk, read and inflated by the caller while
 * the chunks are small (STAT, END, a short recording's only records): the
 * workers start at the first large one, so a short report starts no thread
 */
static void prefetch_inline(struct rec_prefetch *pf)
{
	struct chunk_slot *sl = &pf->slot[pf->head % PREFETCH_SLOTS];
	struct rec_packed c;
	int ret = rec_reader_next_packed(pf->r, &c), want;

	if (ret <= 0) {
		pf->end = ret ? ret : 1;
		pf->end_at = rec_reader_offset(pf->r);
		return;
	}
	ret = slot_reserve(sl, c.raw_len);
	if (!ret)
		ret = rec_inflate(rec_reader_inflater(pf->r), &c, sl->data);
	sl->seq = pf->head++;
	sl->type = c.type;
	sl->len = c.raw_len;
	sl->offset = c.offset;
	sl->err = ret;
	sl->ready = true;
	if (ret) {
		pf->end = ret;
		pf->end_at = c.offset;
		return;
	}
	if (c.raw_len < PREFETCH_INLINE_MAX)
		return;
	pf->begun = true;
	/* Asked only now: a short recording makes no system call for its workers. */
	want = prefetch_workers();
	for (int i = 0; i < want; i++) {
		ret = -pthread_create(&pf->thread[i], NULL, prefetch_main, pf);
		if (ret)
			break;
		pf->nr_workers++;
	}
	/* Without a worker nothing reads on: the replay gets the error after this chunk. */
	if (!pf->nr_workers) {
		pf->end = ret;
		pf->end_at = c.offset;
	}
}

/* rec_prefetch_free - end the workers and free the slots; accepts NULL */
void rec_prefetch_free(struct rec_prefetch *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	for (int i = 0; i < pf->nr_workers; i++)
		pthread_join(pf->thread[i], NULL);
	pthread_cond_destroy(&pf->cond);
	pthread_mutex_destroy(&pf->lock);
	for (int i = 0; i < PREFETCH_SLOTS; i++)
		free(pf->slot[i].data);
	free(pf);
}

/* rec_prefetch_next - see container.h */
int rec_prefetch_next(struct rec_prefetch *pf, uint32_t *type, const uint8_t **data, size_t *len,
		      uint64_t *end_at)
{
	struct chunk_slot *sl;
	int ret;

	if (!pf->begun && !pf->end)
		prefetch_inline(pf);
	pthread_mutex_lock(&pf->lock);
	if (pf->holding)
		pf->tail++;
	pf->holding = false;
	pthread_cond_broadcast(&pf->cond);
	sl = &pf->slot[pf->tail % PREFETCH_SLOTS];
	while (!(pf->head > pf->tail && sl->ready && sl->seq == pf->tail) &&
	       !(pf->end && pf->head == pf->tail))
		pthread_cond_wait(&pf->cond, &pf->lock);
	if (pf->head > pf->tail && sl->err) {
		/* Damaged in the middle: cut there, as a reader that stopped at it would. */
		ret = sl->err;
		*end_at = sl->offset;
	} else if (pf->head > pf->tail) {
		*type = sl->type;
		*data = sl->data;
		*len = sl->len;
		pf->holding = true;
		ret = 1;
	} else {
		ret = pf->end == 1 ? 0 : pf->end;
		*end_at = pf->end_at;
	}
	pthread_mutex_unlock(&pf->lock);
	return ret;
}
