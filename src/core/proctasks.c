// SPDX-License-Identifier: GPL-2.0-or-later
/* proctasks.c - every thread running now, from /proc (proctasks.h) */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "proctasks.h"

/* proc_id - a /proc directory name as a process or thread id, 0 when it is none */
static uint32_t proc_id(const char *name)
{
	char *end;
	unsigned long id = strtoul(name, &end, 10);

	return *end || id > INT32_MAX ? 0 : (uint32_t)id;
}

/* proc_tasks_each - see proctasks.h */
int proc_tasks_each(proc_task_fn fn, void *arg)
{
	struct dirent *de, *te;
	char path[64];
	DIR *d, *td;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint32_t pid = proc_id(de->d_name), tid;

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td)))
			if ((tid = proc_id(te->d_name)))
				fn(arg, pid, tid);
		closedir(td);
	}
	closedir(d);
	return 0;
}
