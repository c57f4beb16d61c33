/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TOOL_LOCAL_H
#define IOTAP_TOOL_LOCAL_H

/*
 * What the files of a tool over a session share and nothing else calls.
 * tool-consumer.c runs a tool as a consumer of the session (tool_consumer_add,
 * session_tool_add in session.h), tool-api.c answers the tool's iotap_* calls
 * (iotap.h), tool-cgroup.c follows every task's cgroup for --cgroup and for
 * the tools that show cgroups (cgroup.h).
 */
struct session;

/*
 * tool_cgroups_follow - follow every task's cgroup along s's stream, once per
 * session (again: 0, the first tracker and its filter kept); path: the
 * --cgroup filter, whose hierarchy is followed, or NULL for hierarchy root
 * (cgtrack_create). The tracker is an observer of s, freed with it.
 * Return: 0, -ENOENT (no such cgroup, with an error line), -ENOMEM, or the
 * source's -errno (logged).
 */
int tool_cgroups_follow(struct session *s, const char *path, int root);

#endif
