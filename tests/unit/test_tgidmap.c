// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tgidmap.c - each thread's process: /proc snapshot, FORK records, births, samples filled in */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <event-parse.h>

#include "ftrace.h"
#include "tgidmap.h"

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

/* The kernel's task_newtask, as 6.18 gives it. */
static const char newtask_fmt[] =
	"name: task_newtask\n"
	"ID: 205\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:u64 clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n"
	"\n"
	"print fmt: \"pid=%d comm=%s clone_flags=%llx oom_score_adj=%hd\", REC->pid, REC->comm, REC->clone_flags, REC->oom_score_adj\n";

/* birth_rec - a task_newtask sample from the ftrace ring: parent made child with flags */
static size_t birth_rec(uint8_t *buf, uint32_t parent, uint32_t child, uint64_t flags)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(h) + 32 + 4 + 44 };
	uint64_t v[4] = { ftrace_sample_id(205), (uint64_t)parent << 32 | parent, 9, 1 };
	uint8_t raw[44] = { 0 };
	uint32_t raw_size = sizeof(raw);
	uint16_t type = 205;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &parent, 4);
	memcpy(raw + 8, &child, 4);
	memcpy(raw + 12, "worker", 7);
	memcpy(raw + 32, &flags, 8);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
	memcpy(buf + sizeof(h) + 32, &raw_size, 4);
	memcpy(buf + sizeof(h) + 36, raw, sizeof(raw));
	return h.size;
}

/*
 * test_births - the ftrace ring's task_newtask teaches each thread's process
 * in stream order, without FORK records: a thread is its parent's process's,
 * a process its own, even where the tid was another's before
 */
static void test_births(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct tgidmap *m = tgidmap_alloc();
	uint32_t proc = 4194304 + 20, thr = 4194304 + 21, thr2 = 4194304 + 22, child = 4194304 + 23;
	uint8_t buf[128];
	struct tep_event *tp;

	assert_non_null(tep);
	assert_non_null(m);
	assert_int_equal(tep_parse_event(tep, newtask_fmt, sizeof(newtask_fmt) - 1, "task"), 0);
	tp = tep_find_event_by_name(tep, "task", "task_newtask");
	assert_non_null(tp);
	assert_int_equal(tgidmap_births(m, ftrace_sample_id(205), tp), 0);
	/* proc makes a thread, which makes another: both are proc's. */
	birth_rec(buf, proc, thr, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND);
	assert_true(tgidmap_record(m, (struct perf_event_header *)buf));
	birth_rec(buf, thr, thr2, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND);
	assert_true(tgidmap_record(m, (struct perf_event_header *)buf));
	assert_int_equal(tgidmap_of(m, thr), proc);
	assert_int_equal(tgidmap_of(m, thr2), proc);
	sample_rec(buf, ftrace_sample_id(42), thr2);
	assert_false(tgidmap_record(m, (struct perf_event_header *)buf));
	assert_int_equal(pid_of(buf), proc);
	/* A fork: a process of its own, though its tid was proc's thread's before. */
	birth_rec(buf, thr2, thr, 0x11 /* SIGCHLD */);
	assert_true(tgidmap_record(m, (struct perf_event_header *)buf));
	assert_int_equal(tgidmap_of(m, thr), thr);
	/* A record cut short teaches nothing, and still goes no further. */
	birth_rec(buf, proc, child, CLONE_THREAD);
	((struct perf_event_header *)buf)->size = sizeof(struct perf_event_header) + 40;
	assert_true(tgidmap_record(m, (struct perf_event_header *)buf));
	assert_int_equal(tgidmap_of(m, child), child);
	tgidmap_free(m);
	tep_free(tep);
}

/* test_births_refused - a format without the fields is refused, and births stay unknown */
static void test_births_refused(void **state)
{
	static const char fmt[] =
		"name: task_newtask\nID: 205\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"pid=%d\", REC->pid\n";
	struct tep_handle *tep = tep_alloc();
	struct tgidmap *m = tgidmap_alloc();
	uint8_t buf[128];

	assert_int_equal(tep_parse_event(tep, fmt, sizeof(fmt) - 1, "task"), 0);
	assert_int_equal(tgidmap_births(m, ftrace_sample_id(205),
					tep_find_event_by_name(tep, "task", "task_newtask")),
			 -ENOENT);
	birth_rec(buf, 4194304 + 30, 4194304 + 31, CLONE_THREAD);
	assert_false(tgidmap_record(m, (struct perf_event_header *)buf));
	tgidmap_free(m);
	tep_free(tep);
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

/* at - a FORK or EXIT record made by fork_rec, at time t */
static void *at(uint8_t *buf, uint64_t t)
{
	memcpy(buf + sizeof(struct perf_event_header) + 16, &t, 8);
	return buf;
}

/*
 * test_linger - tracking learns as recording does, filling nothing in; a
 * thread that exits lingers: a copy as of a time before its exit has it
 * again, one as of after does not, and an exit linger_ns later lets it go
 */
static void test_linger(void **state)
{
	struct tgidmap *m = tgidmap_alloc(), *c;
	uint32_t proc = 4194304 + 20, thr = 4194304 + 21, late = 4194304 + 22;
	uint8_t buf[64];

	assert_non_null(m);
	tgidmap_linger(m, 100);
	fork_rec(buf, proc, thr);
	assert_false(tgidmap_track(m, at(buf, 5)));
	fork_rec(buf, proc, late);
	assert_false(tgidmap_track(m, at(buf, 6)));
	sample_rec(buf, ftrace_sample_id(42), thr);
	assert_false(tgidmap_track(m, (struct perf_event_header *)buf));
	assert_int_equal(pid_of(buf), thr);
	assert_int_equal(tgidmap_count(m), 2);

	exit_rec(buf, proc, thr);
	assert_false(tgidmap_track(m, at(buf, 50)));
	assert_int_equal(tgidmap_count(m), 1);
	c = tgidmap_copy_at(m, 40);
	assert_non_null(c);
	assert_int_equal(tgidmap_count(c), 2);
	assert_int_equal(tgidmap_of(c, thr), proc);
	tgidmap_free(c);
	c = tgidmap_copy_at(m, 60);
	assert_int_equal(tgidmap_count(c), 1);
	tgidmap_free(c);

	/* 150 after thr's exit, past the linger: thr is let go, late lingers. */
	exit_rec(buf, proc, late);
	assert_false(tgidmap_track(m, at(buf, 200)));
	assert_int_equal(tgidmap_count(m), 0);
	c = tgidmap_copy_at(m, 40);
	assert_int_equal(tgidmap_count(c), 1);
	assert_int_equal(tgidmap_of(c, late), proc);
	tgidmap_free(c);
	tgidmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_births),
		cmocka_unit_test(test_births_refused),
		cmocka_unit_test(test_exit_forgets),
		cmocka_unit_test(test_linger),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
