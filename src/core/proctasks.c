// SPDX-License-Identifier: GPL-2.0-or-later
/* proctasks.c - every thread running now, from /proc (proctasks.h) */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctasks.h"

/* proc_id - a /proc directory name as a process or thread id, 0 when it is none */
static uint32_t proc_id(const char *name)
{
	char *end;
	unsigned long id = strtoul(name, &end, 10);

	return *end || id > INT32_MAX ? 0 : (uint32_t)id;
}

/* Listings of one process's threads at most, until two in a row agree. */
#define PROC_TASK_PASSES 4

/* tid_cmp - qsort order of thread ids */
static int tid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* tids_unique - sort v[0..n) and drop repeats; the new count */
static size_t tids_unique(uint32_t *v, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), tid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* tids_list - append the threads /proc/PID/task lists now to *v: how many, or -errno (gone) */
static long tids_list(uint32_t pid, uint32_t **v, size_t *nr, size_t *cap)
{
	struct dirent *te;
	char path[64];
	long n = 0;
	uint32_t tid;
	DIR *td;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	td = opendir(path);
	if (!td)
		return -errno;
	while ((te = readdir(td))) {
		if (!(tid = proc_id(te->d_name)))
			continue;
		if (*nr == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			uint32_t *g = realloc(*v, c * sizeof(*g));

			if (!g)
				break;
			*v = g;
			*cap = c;
		}
		(*v)[(*nr)++] = tid;
		n++;
	}
	closedir(td);
	return n;
}

/*
 * proc_threads - every thread of pid to fn once. A listing of
 * /proc/PID/task skips live threads when others exit while it is read (the
 * kernel resumes it by position), so it is read again until two listings in
 * a row agree, and the threads of every listing count.
 */
static void proc_threads(uint32_t pid, proc_task_fn fn, void *arg, uint32_t **v, size_t *cap)
{
	size_t nr = 0, prev_at = 0, prev_n = 0, all;

	for (int pass = 0; pass < PROC_TASK_PASSES; pass++) {
		size_t at = nr;
		long n = tids_list(pid, v, &nr, cap);
		bool same;

		if (n < 0)
			break;
		/* A process gone before its listing is read lists nothing: *v may be NULL. */
		if (n > 1)
			qsort(*v + at, (size_t)n, sizeof(**v), tid_cmp);
		same = pass && (size_t)n == prev_n &&
		       (!n || !memcmp(*v + at, *v + prev_at, (size_t)n * sizeof(**v)));
		prev_at = at;
		prev_n = (size_t)n;
		if (same)
			break;
	}
	all = tids_unique(*v, nr);
	for (size_t i = 0; i < all; i++)
		fn(arg, pid, (*v)[i]);
}

/* proc_tasks_each - see proctasks.h */
int proc_tasks_each(proc_task_fn fn, void *arg)
{
	struct dirent *de;
	uint32_t *v = NULL;
	size_t cap = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint32_t pid = proc_id(de->d_name);

		if (pid)
			proc_threads(pid, fn, arg, &v, &cap);
	}
	closedir(d);
	free(v);
	return 0;
}
