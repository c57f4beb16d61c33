// SPDX-License-Identifier: GPL-2.0-or-later
/* tool-consumer.c - a tool as a consumer of a session: its callbacks, its ctx, its output */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "session.h"
#include "tool-local.h"

/* tool_ctx_fini - the tool's fini and its state; safe twice */
static void tool_ctx_fini(struct iotap_ctx *ctx)
{
	if (ctx->tool && ctx->tool->fini && ctx->state)
		ctx->tool->fini(ctx);
	free(ctx->state);
	ctx->state = NULL;
}

/* tool_consumer_init - the tool subscribes to its events, with the session's interval and duration */
static int tool_consumer_init(struct session *s, void *priv)
{
	struct iotap_ctx *ctx = priv;
	int ret;

	ctx->interval_ns = s->interval_ns;
	ctx->duration_ns = s->duration_ns;
	if (s->opts.cgroup) {
		ret = tool_cgroups_follow(s, s->opts.cgroup, 0);
		if (ret)
			return ret;
	}
	ret = ctx->tool->init(ctx);
	/* A tool may take its duration from its own option (iostack -D). */
	s->duration_ns = ctx->duration_ns;
	return ret;
}

/* tool_consumer_start - the banner where events are traced as they happen, then the tool's start */
static int tool_consumer_start(struct session *s, void *priv)
{
	struct iotap_ctx *ctx = priv;

	if (ctx->tool->banner && s->host->announce)
		s->host->announce(s, ctx, ctx->tool->banner);
	return ctx->tool->start ? ctx->tool->start(ctx) : 0;
}

/* tool_consumer_report - the tool's report, flushed */
static int tool_consumer_report(struct session *s, void *priv, bool final)
{
	struct iotap_ctx *ctx = priv;
	int ret = 0;

	ctx->final = final;
	if (ctx->tool->report)
		ret = ctx->tool->report(ctx);
	if (fflush(ctx->out) && !ret)
		ret = -errno;
	return ret;
}

/* tool_consumer_wake - the tool's wake, flushed */
static int tool_consumer_wake(struct session *s, void *priv)
{
	struct iotap_ctx *ctx = priv;
	int ret = ctx->tool->wake ? ctx->tool->wake(ctx) : 0;

	if (fflush(ctx->out) && !ret)
		ret = -errno;
	return ret;
}

/* tool_consumer_fini - the tool's fini; a ctx of session_tool_add's is freed */
static void tool_consumer_fini(struct session *s, void *priv)
{
	struct iotap_ctx *ctx = priv;

	tool_ctx_fini(ctx);
	if (ctx != &s->ctx)
		free(ctx);
}

/* A tool as a consumer: its callbacks with its own ctx. */
static const struct consumer_ops tool_consumer = {
	.name = "tool",
	.init = tool_consumer_init,
	.start = tool_consumer_start,
	.report = tool_consumer_report,
	.wake = tool_consumer_wake,
	.fini = tool_consumer_fini,
};

/* tool_consumer_add - ctx set up for tool over s (its params, a zeroed state) and fed by s */
int tool_consumer_add(struct session *s, struct iotap_ctx *ctx, const struct tool *tool,
		      void *params, FILE *out)
{
	ctx->tool = tool;
	ctx->params = params;
	ctx->out = out;
	ctx->sess = s;
	if (tool->state_size) {
		ctx->state = calloc(1, tool->state_size);
		if (!ctx->state)
			return -ENOMEM;
	}
	return session_consumer_add(s, &tool_consumer, ctx);
}

/* session_tool_add - one more tool over the session, with a ctx of its own */
struct iotap_ctx *session_tool_add(struct session *s, const struct tool *tool, void *params,
				   FILE *out)
{
	struct iotap_ctx *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (!ctx)
		return NULL;
	ret = tool_consumer_add(s, ctx, tool, params, out);
	if (ret) {
		free(ctx->state);
		free(ctx);
		errno = -ret;
		return NULL;
	}
	return ctx;
}
