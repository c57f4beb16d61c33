// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tgidmap.c - each thread's process: /proc snapshot, FORK records, ftrace samples filled in */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "tgidmap.h"
#include "../tracefs/ftrace.h"

struct waiter {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pid_t tid;
	int done;
};

/* waiter_run - publish the thread's id, then wait until told to end */
static void *waiter_run(void *arg)
{
	struct waiter *w = arg;

	pthread_mutex_lock(&w->mu);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&w->cv);
	while (!w->done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* test_snapshot - a thread running at the snapshot belongs to its process, even once gone */
static void test_snapshot(void **state)
{
	struct waiter w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	struct tgidmap *m = tgidmap_alloc();
	pthread_t th;

	assert_non_null(m);
	assert_int_equal(pthread_create(&th, NULL, waiter_run, &w), 0);
	pthread_mutex_lock(&w.mu);
	while (!w.tid)
		pthread_cond_wait(&w.cv, &w.mu);
	pthread_mutex_unlock(&w.mu);
	assert_int_equal(tgidmap_snapshot(m), 0);
	pthread_mutex_lock(&w.mu);
	w.done = 1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(th, NULL);
	assert_int_not_equal(w.tid, getpid());
	assert_int_equal(tgidmap_of(m, (uint32_t)w.tid), getpid());
	assert_int_equal(tgidmap_of(m, (uint32_t)getpid()), getpid());
	assert_int_equal(tgidmap_of(m, 0), 0);
	tgidmap_free(m);
}

/* fork_rec - a PERF_RECORD_FORK of thread tid in process pid */
static void fork_rec(uint8_t *buf, uint32_t pid, uint32_t tid)
{
	struct perf_event_header h = { .type = PERF_RECORD_FORK, .size = sizeof(h) + 24 };
	uint32_t v[4] = { pid, 1, tid, 1 };
	uint64_t t = 5;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
	memcpy(buf + sizeof(h) + 16, &t, 8);
}

/* exit_rec - a PERF_RECORD_EXIT of thread tid in process pid */
static void exit_rec(uint8_t *buf, uint32_t pid, uint32_t tid)
{
	fork_rec(buf, pid, tid);
	((struct perf_event_header *)buf)->type = PERF_RECORD_EXIT;
}

/* sample_rec - an IOTAP_SAMPLE_BASE sample of id whose pid and tid are both tid */
static void sample_rec(uint8_t *buf, uint64_t id, uint32_t tid)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) + 32 };
	uint64_t v[4] = { id, (uint64_t)tid << 32 | tid, 7, 0 };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
}

/* pid_of - the pid half of a sample's TID field */
static uint32_t pid_of(const uint8_t *buf)
{
	uint64_t v;

	memcpy(&v, buf + sizeof(struct perf_event_header) + 8, 8);
	return (uint32_t)v;
}

/* test_stream - FORK records teach threads no /proc shows; ftrace samples get the process */
static void test_stream(void **state)
{
	struct tgidmap *m = tgidmap_alloc();
	/* Ids no live task has (above pid_max's limit), so /proc cannot answer for them. */
	uint32_t proc = 4194304 + 10, thr = 4194304 + 11, gone = 4194304 + 12;
	uint8_t buf[64];

	assert_non_null(m);
	fork_rec(buf, proc, thr);
	tgidmap_record(m, (struct perf_event_header *)buf);
	sample_rec(buf, ftrace_sample_id(42), thr);
	tgidmap_record(m, (struct perf_event_header *)buf);
	assert_int_equal(pid_of(buf), proc);
	/* perf's own samples carry the process already: left alone. */
	sample_rec(buf, 3, thr);
	tgidmap_record(m, (struct perf_event_header *)buf);
	assert_int_equal(pid_of(buf), thr);
	/* Known nowhere: its own id, the one answer left. */
	sample_rec(buf, ftrace_sample_id(42), gone);
	tgidmap_record(m, (struct perf_event_header *)buf);
	assert_int_equal(pid_of(buf), gone);
	/* A tid reused by another process: the later FORK wins. */
	fork_rec(buf, gone, thr);
	tgidmap_record(m, (struct perf_event_header *)buf);
	assert_int_equal(tgidmap_of(m, thr), gone);
	/* Thousands of threads: the table grows and keeps every one. */
	for (uint32_t t = 1; t <= 5000; t++) {
		fork_rec(buf, proc, 5000000 + t);
		tgidmap_record(m, (struct perf_event_header *)buf);
	}
	for (uint32_t t = 1; t <= 5000; t++)
		assert_int_equal(tgidmap_of(m, 5000000 + t), proc);
	tgidmap_free(m);
	tgidmap_free(NULL);
}

/*
 * test_exit_forgets - threads that exited leave the table: a long run's
 * table holds the living, and the ones left, probed past holes, stay found
 */
static void test_exit_forgets(void **state)
{
	struct tgidmap *m = tgidmap_alloc();
	uint32_t proc = 4194304 + 20;
	size_t peak = 0;
	uint8_t buf[64];

	assert_non_null(m);
	/* 200000 threads over the run, 300 alive at a time; every 7th lives on. */
	for (uint32_t t = 1; t <= 200000; t++) {
		fork_rec(buf, proc, 5000000 + t);
		tgidmap_record(m, (struct perf_event_header *)buf);
		if (t > 300 && (t - 300) % 7) {
			exit_rec(buf, proc, 5000000 + t - 300);
			tgidmap_record(m, (struct perf_event_header *)buf);
		}
		if (tgidmap_count(m) > peak)
			peak = tgidmap_count(m);
	}
	assert_int_equal(tgidmap_count(m), 300 + (200000 - 300) / 7);
	assert_int_equal(peak, tgidmap_count(m));
	for (uint32_t t = 1; t <= 200000 - 300; t++) {
		uint32_t tid = 5000000 + t;

		/* The living keep their process; the gone are their own id (no /proc has them). */
		assert_int_equal(tgidmap_of(m, tid), t % 7 ? tid : proc);
		if (t % 7)
			exit_rec(buf, tid, tid);
		else
			continue;
		/* tgidmap_of learnt it again: forget it once more. */
		tgidmap_record(m, (struct perf_event_header *)buf);
	}
	for (uint32_t t = 200000 - 299; t <= 200000; t++)
		assert_int_equal(tgidmap_of(m, 5000000 + t), proc);
	assert_int_equal(tgidmap_count(m), 300 + (200000 - 300) / 7);
	tgidmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_exit_forgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
