// SPDX-License-Identifier: GPL-2.0-or-later
/* tool-cgroup.c - every task's cgroup for a session's tools: the tracker, wired to the session */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cgroup.h"
#include "session.h"
#include "tool-local.h"

/* session_cg_event_use - the cgroup tracker subscribes to its events; their formats */
static struct tep_event *session_cg_event_use(void *arg, const char *sys, const char *name,
					      iotap_handler_fn fn, void *fn_arg)
{
	struct iotap_event *ev = session_event_use(arg, NULL, sys, name, 0, fn, fn_arg);

	return ev ? ev->tep : NULL;
}

/* session_cg_available - whether the source can deliver one of the tracker's events */
static bool session_cg_available(void *arg, const char *sys, const char *name)
{
	struct session *s = arg;

	return s->src->event_available(s, sys, name);
}

/* session_cg_path - the source turns a --cgroup argument into a hierarchy path */
static int session_cg_path(void *arg, const char *in, char *out, size_t len, int *root)
{
	struct session *s = arg;

	return s->host->cgroup_path(s, in, out, len, root);
}

/* session_cg_tasks - the source knows every task's cgroup when events began to flow */
static int session_cg_tasks(void *arg, int root, cgroup_task_fn fn, void *fn_arg)
{
	struct session *s = arg;

	return s->host->cgroup_tasks(s, root, fn, fn_arg);
}

/* session_cg_born - the source says where a child born into a cgroup of its own is */
static int session_cg_born(void *arg, uint32_t tid, uint64_t t, char *path, size_t len)
{
	struct session *s = arg;

	return s->host->cgroup_born(s, tid, t, path, len);
}

/* session_cg_ids - the source knows every cgroup v2 directory's id when events began to flow */
static int session_cg_ids(void *arg, cgroup_id_fn fn, void *fn_arg)
{
	struct session *s = arg;

	return s->host->cgroup_ids(s, fn, fn_arg);
}

/* cgroup_observer_start - events flow: every task's cgroup then */
static int cgroup_observer_start(struct session *s, void *priv)
{
	cgtrack_started(s->cg);
	return 0;
}

/* cgroup_observer_report - at the end: what stayed unknown, said once */
static int cgroup_observer_report(struct session *s, void *priv, bool final)
{
	if (final)
		cgtrack_report(s->cg);
	return 0;
}

/* cgroup_observer_fini - the tracker goes with the session */
static void cgroup_observer_fini(struct session *s, void *priv)
{
	cgtrack_free(s->cg);
	s->cg = NULL;
}

/* The cgroup tracker watches the stream through its events' handlers. */
static const struct consumer_ops cgroup_observer = {
	.name = "cgroups",
	.observer = true,
	.start = cgroup_observer_start,
	.report = cgroup_observer_report,
	.fini = cgroup_observer_fini,
};

/* tool_cgroups_follow - see tool-local.h */
int tool_cgroups_follow(struct session *s, const char *path, int root)
{
	struct cgtrack_ops ops = {
		.arg = s,
		.event_available = session_cg_available,
		.event_use = session_cg_event_use,
		.path = s->host->cgroup_path ? session_cg_path : NULL,
		.tasks = s->host->cgroup_tasks ? session_cg_tasks : NULL,
		.born = s->host->cgroup_born ? session_cg_born : NULL,
	};
	char mount[PATH_MAX];
	int ret;

	if (s->cg)
		return 0;
	/* Writeback is charged to an inode's owner only where the block controller is v2's. */
	if (s->host->cgroup_ids &&
	    !(s->host->cgroup_io_root ? s->host->cgroup_io_root(s, mount, sizeof(mount)) : 0))
		ops.ids = session_cg_ids;
	ret = cgtrack_create(&s->cg, &ops, path, root);
	if (!ret) {
		ret = session_consumer_add(s, &cgroup_observer, NULL);
		if (ret) {
			cgtrack_free(s->cg);
			s->cg = NULL;
		}
	}
	return ret;
}

/* iotap_cgroup_track - a tool shows cgroups: track every task's, with or without --cgroup */
int iotap_cgroup_track(struct iotap_ctx *ctx)
{
	return tool_cgroups_follow(ctx->sess, NULL, 0);
}

/* iotap_cgroup_track_io - see iotap.h */
int iotap_cgroup_track_io(struct iotap_ctx *ctx, char *which, size_t len)
{
	struct session *s = ctx->sess;
	char mount[PATH_MAX] = "";
	int root = s->host->cgroup_io_root ? s->host->cgroup_io_root(s, mount, sizeof(mount)) : 0;
	int ret = tool_cgroups_follow(s, NULL, root);

	if (ret)
		return ret;
	if (s->opts.cgroup && cgtrack_root(s->cg) != root)
		snprintf(which, len, "the hierarchy of --cgroup %s (%s), not the block controller's",
			 s->opts.cgroup, cgtrack_root(s->cg) ? "a cgroup v1 one" : "cgroup v2");
	else
		snprintf(which, len, "%s%s%s%s", root ? "cgroup v1's blkio hierarchy" : "cgroup v2",
			 *mount ? " (" : "", mount, *mount ? ")" : "");
	return 0;
}

/* iotap_cgroup_of - the cgroup the task of a sample is in at its time, NULL when unknown */
const char *iotap_cgroup_of(struct iotap_ctx *ctx, const struct perf_sample *smp)
{
	return ctx->sess->cg ? cgtrack_of(ctx->sess->cg, smp) : NULL;
}

/* iotap_cgroup_match - whether a sample's task is in the --cgroup one or below (true without) */
bool iotap_cgroup_match(struct iotap_ctx *ctx, const struct perf_sample *smp)
{
	return cgtrack_match(ctx->sess->cg, smp);
}

/* iotap_cgroup_filtering - whether --cgroup was given */
bool iotap_cgroup_filtering(struct iotap_ctx *ctx)
{
	return cgtrack_filtering(ctx->sess->cg);
}
