/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PROCTASKS_H
#define IOTAP_PROCTASKS_H

/*
 * Every task (thread) running now, from /proc/PID/task/TID: the one walk that
 * the snapshots of cgroups and of thread-to-process ids share.
 */
#include <stdint.h>

typedef void (*proc_task_fn)(void *arg, uint32_t pid, uint32_t tid);

/*
 * proc_tasks_each - fn once for every thread of every process /proc lists now
 * (each process's threads listed until two listings in a row agree: one
 * listing alone can skip live threads while others exit); a process that
 * exits during the walk is skipped. 0, or -errno when /proc cannot be read.
 */
int proc_tasks_each(proc_task_fn fn, void *arg);

#endif
