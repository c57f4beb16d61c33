// SPDX-License-Identifier: GPL-2.0-or-later
/* merge.c - round-based time ordering of per-CPU record streams */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

struct pending {
	uint64_t time;
	uint64_t seq;		/* push order: keeps equal timestamps stable */
	uint32_t buf;		/* which round buffer holds the bytes */
	uint32_t off;
	uint32_t size;
	uint32_t tag;		/* the pusher's: how the bytes are laid out */
};

/*
 * A burst (a reader that fell behind drains a full ring in one round) grows
 * the buffers to megabytes. Past these sizes, a buffer or queue that
 * MERGE_QUIET_ROUNDS rounds in a row fill to a quarter at most is halved, so
 * a long-running tracer gives the memory back instead of keeping the largest
 * burst it ever saw. realloc, never free and malloc: a large block stays
 * mmapped, and shrinking it returns its pages to the kernel. Not at the
 * first quiet round: rounds of a busy reader vary by more than four times,
 * and a buffer halved at each small one and grown at each large one had its
 * pages faulted in afresh over and over, on the event path.
 */
#define MERGE_BUF_KEEP (1u << 20)
#define MERGE_Q_KEEP 16384
#define MERGE_QUIET_ROUNDS 64
/* Records ahead of the one emitted whose bytes are fetched into the cache. */
#define MERGE_PREFETCH 6

struct roundbuf {
	char *data;
	size_t len, cap;
	size_t live;		/* queued records still pointing into it */
	unsigned int quiet;	/* uses in a row that filled a quarter at most */
};

struct merge {
	struct pending *q;
	size_t nr, cap;
	struct pending *tmp;	/* merge_sort's other half: cap entries */
	size_t tmp_cap;
	size_t sorted;		/* q[0..sorted) is in order */
	size_t nr_peak;		/* the most queued at once this round */
	unsigned int q_quiet;	/* rounds in a row that filled a quarter of q at most */
	struct roundbuf bufs[3];
	uint32_t cur;
	uint64_t seq;
	uint64_t round_max;	/* newest time pushed in the current round */
	uint64_t prev_max;	/* newest time of the previous round */
	uint64_t emitted_max;	/* newest time emitted so far */
	uint64_t late;		/* records older than something already emitted */
	bool taken;		/* a merge_take's room is not given back yet */
};

/* merge_alloc - an empty merge queue; NULL with errno on failure */
struct merge *merge_alloc(void)
{
	return calloc(1, sizeof(struct merge));
}

/* merge_free - release the queue and every copied record; accepts NULL */
void merge_free(struct merge *m)
{
	if (!m)
		return;
	for (int i = 0; i < 3; i++)
		free(m->bufs[i].data);
	free(m->q);
	free(m->tmp);
	free(m);
}

/* merge_buf_pick - the round buffer to copy into, recycling empty ones (halved after a burst) */
static struct roundbuf *merge_buf_pick(struct merge *m)
{
	struct roundbuf *b = &m->bufs[m->cur];
	char *d;

	if (b->live || m->taken)
		return b;
	b->quiet = b->len <= b->cap / 4 ? b->quiet + 1 : 0;
	if (b->cap > MERGE_BUF_KEEP && b->quiet >= MERGE_QUIET_ROUNDS &&
	    (d = realloc(b->data, b->cap / 2))) {
		b->data = d;
		b->cap /= 2;
		b->quiet = 0;
	}
	b->len = 0;
	return b;
}

/*
 * merge_room - room for size more bytes at the end of b, 8-byte aligned: 0 or -ENOMEM.
 * What a take gave back ends where its last trace entry did (4-byte aligned): the perf
 * record or sub-buffer after it starts at an 8-byte boundary again, as their u64s want.
 */
static int merge_room(struct roundbuf *b, size_t size)
{
	size_t cap = b->cap ? b->cap : 1 << 16;
	char *d;

	b->len = (b->len + 7) & ~(size_t)7;
	if (b->len + size <= b->cap)
		return 0;
	while (cap < b->len + size)
		cap *= 2;
	/* Queued entries hold offsets, not pointers: realloc is safe. */
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/* merge_queue - one more entry for the bytes at off of the current buffer */
static int merge_queue(struct merge *m, uint64_t time, size_t off, size_t size, uint32_t tag)
{
	struct pending *p;

	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4096;
		struct pending *q = realloc(m->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		m->q = q;
		m->cap = cap;
	}
	p = &m->q[m->nr++];
	if (m->nr > m->nr_peak)
		m->nr_peak = m->nr;
	p->time = time;
	p->seq = m->seq++;
	p->buf = m->cur;
	p->off = (uint32_t)off;
	p->size = (uint32_t)size;
	p->tag = tag;
	m->bufs[m->cur].live++;
	if (time > m->round_max)
		m->round_max = time;
	return 0;
}

/* merge_push - queue a copy of one record stamped with time */
int merge_push(struct merge *m, uint64_t time, const void *rec, size_t size)
{
	struct roundbuf *b = merge_buf_pick(m);
	int ret;

	if (size > UINT32_MAX)
		return -EINVAL;
	ret = merge_room(b, size);
	if (ret)
		return ret;
	ret = merge_queue(m, time, b->len, size, 0);
	if (ret)
		return ret;
	memcpy(b->data + b->len, rec, size);
	b->len += size;
	return 0;
}

/* merge_take - size bytes at the end of the current buffer, counted in it until given back */
void *merge_take(struct merge *m, size_t size)
{
	struct roundbuf *b = merge_buf_pick(m);
	void *at;

	if (size > UINT32_MAX || merge_room(b, size)) {
		errno = ENOMEM;
		return NULL;
	}
	at = b->data + b->len;
	b->len += size;
	m->taken = true;
	return at;
}

/* merge_give_back - the room at taken ends after used bytes */
void merge_give_back(struct merge *m, const void *taken, size_t used)
{
	struct roundbuf *b = &m->bufs[m->cur];
	size_t off = (size_t)((const char *)taken - b->data);

	if (off + used <= b->len)
		b->len = off + used;
	m->taken = false;
}

/* merge_push_at - queue a record already in the current buffer, where it lies */
int merge_push_at(struct merge *m, uint64_t time, const void *rec, size_t size, uint32_t tag)
{
	struct roundbuf *b = &m->bufs[m->cur];
	const char *at = rec;

	if (!b->data || at < b->data || at + size > b->data + b->len)
		return -EINVAL;
	return merge_queue(m, time, (size_t)(at - b->data), size, tag);
}

/* pending_cmp - order by time, then by arrival */
static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* run_end - the end of the ascending run that starts at a */
static size_t run_end(const struct pending *q, size_t a, size_t nr)
{
	while (++a < nr && pending_cmp(&q[a - 1], &q[a]) <= 0)
		;
	return a;
}

/*
 * merge_runs - sort q by merging its ascending runs pairwise
 *
 * What a round queues is a few sorted runs (what was left, then each ring's
 * records in the order they were written): merging them costs n per pass
 * and log2(runs) passes, where qsort would cost n log n at millions of
 * events a second. Returns -ENOMEM when there is no room for the other half.
 */
static int merge_runs(struct merge *m)
{
	struct pending *src = m->q, *dst;

	if (m->tmp_cap < m->nr) {
		dst = realloc(m->tmp, m->cap * sizeof(*m->tmp));
		if (!dst)
			return -ENOMEM;
		m->tmp = dst;
		m->tmp_cap = m->cap;
	}
	dst = m->tmp;
	for (;;) {
		size_t a = 0, runs = 0;

		while (a < m->nr) {
			size_t b = run_end(src, a, m->nr), c = b < m->nr ? run_end(src, b, m->nr) : b;
			size_t i = a, j = b, k = a;

			while (i < b && j < c)
				dst[k++] = pending_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
			memcpy(dst + k, src + i, (b - i) * sizeof(*dst));
			k += b - i;
			memcpy(dst + k, src + j, (c - j) * sizeof(*dst));
			a = c;
			runs++;
		}
		/* dst holds the result of this pass; it is sorted when the pass merged one run */
		if (runs <= 1) {
			/* The result is in the other half: it becomes the queue, no copy back. */
			if (dst != m->q) {
				size_t cap = m->cap;

				m->tmp = m->q;
				m->q = dst;
				m->cap = m->tmp_cap;
				m->tmp_cap = cap;
			}
			return 0;
		}
		src = dst;
		dst = dst == m->tmp ? m->q : m->tmp;
	}
}

/* merge_sort - sort the queue; per-CPU runs are already sorted */
static void merge_sort(struct merge *m)
{
	size_t i;

	/* Cheap check first: most rounds on one CPU arrive already ordered. */
	for (i = m->sorted ? m->sorted : 1; i < m->nr; i++)
		if (pending_cmp(&m->q[i - 1], &m->q[i]) > 0)
			break;
	if (i < m->nr && merge_runs(m))
		qsort(m->q, m->nr, sizeof(*m->q), pending_cmp);
	m->sorted = m->nr;
}

/* merge_flush - emit, in time order, every queued record not newer than limit */
int merge_flush(struct merge *m, uint64_t limit, merge_emit_fn emit, void *arg)
{
	size_t n = 0;
	int ret = 0;

	merge_sort(m);
	while (n < m->nr && m->q[n].time <= limit) {
		struct pending *p = &m->q[n];

		/*
		 * What the last round read has left the caches since: ask for the
		 * record a few ahead while this one is handled (its first two lines).
		 */
		if (n + MERGE_PREFETCH < m->nr) {
			const struct pending *a = &m->q[n + MERGE_PREFETCH];
			const char *at = m->bufs[a->buf].data + a->off;

			__builtin_prefetch(at);
			__builtin_prefetch(at + 64);
		}
		if (p->time < m->emitted_max)
			m->late++;
		else
			m->emitted_max = p->time;
		ret = emit(arg, p->time, m->bufs[p->buf].data + p->off, p->size, p->tag);
		m->bufs[p->buf].live--;
		n++;
		if (ret)
			break;
	}
	/* An idle interval has nothing queued, and q may still be NULL. */
	if (n)
		memmove(m->q, m->q + n, (m->nr - n) * sizeof(*m->q));
	m->nr -= n;
	m->sorted = m->nr;
	return ret;
}

/* merge_queue_shrink - halve the queue and merge_sort's other half after a burst */
static void merge_queue_shrink(struct merge *m)
{
	size_t cap = m->cap / 2;
	struct pending *q = realloc(m->q, cap * sizeof(*q));

	if (!q)
		return;
	m->q = q;
	m->cap = cap;
	if (m->tmp_cap <= cap)
		return;
	q = realloc(m->tmp, cap * sizeof(*q));
	if (q) {
		m->tmp = q;
		m->tmp_cap = cap;
	}
}

/* merge_round_end - close a round: emit what the previous round made safe, up to horizon */
int merge_round_end(struct merge *m, uint64_t horizon, merge_emit_fn emit, void *arg)
{
	uint64_t limit = m->prev_max < horizon ? m->prev_max : horizon;
	int ret;

	m->prev_max = m->round_max;
	ret = merge_flush(m, limit, emit, arg);
	m->q_quiet = m->nr_peak <= m->cap / 4 ? m->q_quiet + 1 : 0;
	m->nr_peak = m->nr;
	if (m->cap > MERGE_Q_KEEP && m->q_quiet >= MERGE_QUIET_ROUNDS) {
		merge_queue_shrink(m);
		m->q_quiet = 0;
	}
	/*
	 * Rotate among three buffers: records of round N are all emitted by the
	 * end of round N+1 unless a flush limit held them, in which case the
	 * buffer stays live and merge_buf_pick appends instead of recycling.
	 */
	m->cur = (m->cur + 1) % 3;
	return ret;
}

/* merge_held - bytes the buffers and queues hold allocated */
size_t merge_held(const struct merge *m)
{
	size_t n = (m->cap + m->tmp_cap) * sizeof(struct pending);

	for (int i = 0; i < 3; i++)
		n += m->bufs[i].cap;
	return n;
}

/* merge_pending - how many records wait in the queue */
size_t merge_pending(const struct merge *m)
{
	return m->nr;
}

/* merge_late - records that arrived after newer ones had been emitted */
uint64_t merge_late(const struct merge *m)
{
	return m->late;
}
