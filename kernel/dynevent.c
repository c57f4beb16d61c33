// SPDX-License-Identifier: GPL-2.0-or-later
/* dynevent.c - kprobe/uprobe events owned by one run, removed on every exit path */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "tfs.h"

#define DYNEVENT_PREFIX "iotap_"

struct dynevent_set {
	struct tracefs_dynevent **ev;
	size_t nr;
};

/* dynevent_group - the group name of this process's dynamic events */
const char *dynevent_group(void)
{
	static char group[32];

	snprintf(group, sizeof(group), DYNEVENT_PREFIX "%d", (int)getpid());
	return group;
}

/* dynevent_set_alloc - an empty set of owned dynamic events */
struct dynevent_set *dynevent_set_alloc(void)
{
	return calloc(1, sizeof(struct dynevent_set));
}

/* dynevent_create - create group iotap_<pid>/name at target+offset with fetch args */
int dynevent_create(struct dynevent_set *set, enum dynevent_kind kind, const char *name,
		    const char *target, uint64_t offset, const char *args)
{
	struct tracefs_dynevent **arr, *ev = NULL;
	const char *group = dynevent_group();
	char addr[512];
	int ret;

	ret = tfs_libtracefs_sync();
	if (ret)
		return ret;
	arr = realloc(set->ev, (set->nr + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	set->ev = arr;
	switch (kind) {
	case DYNEVENT_KPROBE:
	case DYNEVENT_KRETPROBE:
		if (offset)
			snprintf(addr, sizeof(addr), "%s+%llu", target, (unsigned long long)offset);
		else
			snprintf(addr, sizeof(addr), "%s", target);
		ev = kind == DYNEVENT_KPROBE ?
			tracefs_kprobe_alloc(group, name, addr, args) :
			tracefs_kretprobe_alloc(group, name, addr, args, 0);
		break;
	case DYNEVENT_UPROBE:
		ev = tracefs_uprobe_alloc(group, name, target, offset, args);
		break;
	case DYNEVENT_URETPROBE:
		ev = tracefs_uretprobe_alloc(group, name, target, offset, args);
		break;
	}
	if (!ev)
		return errno ? -errno : -ENOMEM;
	if (tracefs_dynevent_create(ev)) {
		/* libtracefs leaves errno from the failed write (ENOENT, EINVAL...). */
		ret = errno ? -errno : -EINVAL;
		tracefs_dynevent_free(ev);
		return ret;
	}
	set->ev[set->nr++] = ev;
	return 0;
}

/* dynevent_destroy_all - remove every event of the set from the kernel; safe twice */
int dynevent_destroy_all(struct dynevent_set *set)
{
	int ret = 0;

	if (!set)
		return 0;
	while (set->nr) {
		struct tracefs_dynevent *ev = set->ev[--set->nr];

		/* force: a perf fd still open on it would otherwise keep it busy */
		if (tracefs_dynevent_destroy(ev, true) && !ret)
			ret = errno ? -errno : -EBUSY;
		tracefs_dynevent_free(ev);
	}
	return ret;
}

/* dynevent_set_free - destroy the owned events and free the set; accepts NULL */
void dynevent_set_free(struct dynevent_set *set)
{
	if (!set)
		return;
	dynevent_destroy_all(set);
	free(set->ev);
	free(set);
}

/* dynevent_remove_stale - remove iotap_<pid> events whose run is dead; returns how many */
int dynevent_remove_stale(void)
{
	struct tracefs_dynevent **all;
	int removed = 0, ret;

	ret = tfs_libtracefs_sync();
	if (ret)
		return ret;
	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE |
				       TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE,
				       NULL);
	if (!all)
		return 0;
	for (size_t i = 0; all[i]; i++) {
		char *sys = NULL, *name = NULL;
		char *end;
		long pid;

		tracefs_dynevent_info(all[i], &sys, &name, NULL, NULL, NULL);
		if (sys && !strncmp(sys, DYNEVENT_PREFIX, strlen(DYNEVENT_PREFIX))) {
			pid = strtol(sys + strlen(DYNEVENT_PREFIX), &end, 10);
			if (*end == 0 && pid > 0 && pid != getpid() &&
			    kill(pid, 0) && errno == ESRCH &&
			    tracefs_dynevent_destroy(all[i], true) == 0)
				removed++;
		}
		free(sys);
		free(name);
	}
	tracefs_dynevent_list_free(all);
	return removed;
}
