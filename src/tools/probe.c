// SPDX-License-Identifier: GPL-2.0-or-later
/* probe.c - trace tracepoints, or a kprobe/uprobe made for this run; print or count each hit */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "probespec.h"

struct probe_params {
	int pid;
	uint64_t max_events;
	bool count;
};

/* One traced event: a glob can name several. */
struct probe_event {
	struct probe_state *st;
	struct iotap_event *ev;
	char *sys_name;			/* "sys:name" */
	const char *name;		/* in sys_name */
	struct iotap_filter *filter;	/* recordings: the filter, applied here */
	uint64_t hits;
};

#define PROBE_EVENTS_MAX 64

struct probe_state {
	struct probe_event *ev[PROBE_EVENTS_MAX];
	size_t nr;
	const char *filter;
	uint64_t hits;
	uint64_t t0;
	struct probespec spec;
};

#define P(f) offsetof(struct probe_params, f)
static const struct opt probe_opts[] = {
	{ 'p', "pid", OPT_PID, P(pid), "PID", "only hits in this process" },
	{ 'M', "max-events", OPT_UINT, P(max_events), "N", "stop after N hits", NULL, 1, 0 },
	{ 'c', "count", OPT_FLAG, P(count), NULL,
	  "count hits per event and print the counts at the end instead of each hit" },
	OPT_END
};

/* probe_on_hit - one line per hit, or a count */
static int probe_on_hit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct probe_params *p = ctx->params;
	struct probe_event *pe = arg;
	struct probe_state *st = pe->st;

	if ((p->pid && (int)s->pid != p->pid) || (p->max_events && st->hits >= p->max_events) ||
	    !iotap_filter_match(pe->filter, s) || !iotap_cgroup_match(ctx, s))
		return 0;
	pe->hits++;
	if (!p->count) {
		int ret;

		if (!st->t0)
			st->t0 = s->time;
		fprintf(ctx->out, "%-14.6f %-16s %-7u %s: ", (double)(s->time - st->t0) / 1e9,
			iotap_comm(ctx, s->pid), s->pid, pe->name);
		ret = iotap_event_print(pe->ev, s, ctx->out);
		if (ret)
			return ret;
		fputc('\n', ctx->out);
	}
	if (p->max_events && ++st->hits >= p->max_events)
		iotap_stop(ctx);
	return 0;
}

/* probe_subscribe - trace sys:name: its handler, its filter (kernel side live, here on a recording) */
static int probe_subscribe(struct iotap_ctx *ctx, const char *sys, const char *name, void *arg)
{
	struct probe_params *p = ctx->params;
	struct probe_state *st = ctx->state;
	struct probe_event *pe;
	int err;

	if (st->nr == PROBE_EVENTS_MAX) {
		iotap_err(ctx, "'%s' names more than %d events", ctx->spec, PROBE_EVENTS_MAX);
		return -E2BIG;
	}
	pe = calloc(1, sizeof(*pe));
	if (!pe)
		return -ENOMEM;
	st->ev[st->nr++] = pe;
	pe->st = st;
	if (asprintf(&pe->sys_name, "%s:%s", sys, name) < 0) {
		pe->sys_name = NULL;
		return -ENOMEM;
	}
	pe->name = pe->sys_name + strlen(sys) + 1;
	pe->ev = iotap_event_use(ctx, sys, name, 0, probe_on_hit, pe);
	if (!pe->ev)
		return -errno;
	if (st->filter) {
		err = iotap_event_filter(pe->ev, "%s", st->filter);
		if (err)
			return err;
		/* Checked here too: a recording holds what the kernel let through, or everything. */
		err = iotap_filter_alloc(pe->ev, st->filter, &pe->filter);
		if (err == -EINVAL)
			iotap_err(ctx, "invalid filter '%s' for %s:%s", st->filter, sys, name);
		if (err)
			return err;
	}
	if (p->pid)
		return iotap_event_filter(pe->ev, "common_pid == %d", p->pid);
	return 0;
}

/* probe_tracepoint - existing tracepoints, the spec's EVENT a glob, each with its filter */
static int probe_tracepoint(struct iotap_ctx *ctx)
{
	struct probe_state *st = ctx->state;
	int n;

	st->filter = st->spec.filter;
	n = iotap_event_each(ctx, st->spec.sys, st->spec.name, probe_subscribe, NULL);
	if (n == 0 || n == -ENOENT) {
		iotap_err(ctx, "invalid probe '%s': no event %s:%s to trace", ctx->spec,
			  st->spec.sys, st->spec.name);
		return -EINVAL;
	}
	return n < 0 ? n : 0;
}

/* probe_init - the tracepoints PROBE names, or the kprobe/uprobe it describes made and traced */
static int probe_init(struct iotap_ctx *ctx)
{
	struct probe_params *p = ctx->params;
	struct probe_state *st = ctx->state;
	const char *sys, *why = NULL;
	int err;

	err = probespec_parse(ctx->spec, &st->spec, &why);
	if (err == -ENOMEM)
		return err;
	if (p->pid && iotap_pid_check(ctx, p->pid)) {
		iotap_err(ctx, "no process with PID %d", p->pid);
		return -ESRCH;
	}
	if (err) {
		iotap_err(ctx, "invalid probe '%s': %s", ctx->spec, why);
		return err;
	}
	if (st->spec.tracepoint)
		return probe_tracepoint(ctx);
	err = iotap_probe_create(ctx, &st->spec.probe, &sys);
	if (err)
		return err == -ENOENT || err == -EINVAL ? -EINVAL : err;
	return probe_subscribe(ctx, sys, st->spec.probe.name, NULL);
}

/* probe_report - with --count: hits per event, at the end */
static int probe_report(struct iotap_ctx *ctx)
{
	struct probe_params *p = ctx->params;
	struct probe_state *st = ctx->state;

	if (!p->count || !ctx->final)
		return 0;
	fprintf(ctx->out, "%-48s %12s\n", "EVENT", "COUNT");
	for (size_t i = 0; i < st->nr; i++)
		fprintf(ctx->out, "%-48s %12" PRIu64 "\n", st->ev[i]->sys_name, st->ev[i]->hits);
	return 0;
}

/* probe_fini - free the state */
static void probe_fini(struct iotap_ctx *ctx)
{
	struct probe_state *st = ctx->state;

	for (size_t i = 0; i < st->nr; i++) {
		iotap_filter_free(st->ev[i]->filter);
		free(st->ev[i]->sys_name);
		free(st->ev[i]);
	}
	probespec_release(&st->spec);
}

static const struct tool_event probe_events[] = {
	{ NULL, NULL, 0 }
};

const struct tool tool_probe = {
	.name = "probe",
	.summary = "Trace tracepoints, or a kprobe or uprobe made for this run; print or count each hit.",
	.description =
		"PROBE is an existing tracepoint, t:SYSTEM:EVENT or SYSTEM:EVENT, where EVENT may be a "
		"glob (syscalls:sys_*_getppid), then after a space an optional tracepoint filter that "
		"the kernel applies ('block:block_rq_complete dev == 7340032 && nr_sector > 8'). Or it "
		"is a dynamic event made for this run: p:SYMBOL or r:SYMBOL for a kprobe or kretprobe, "
		"p:/path/binary:SYMBOL for a uprobe (r: for a uretprobe), optionally +OFFSET, then the "
		"kernel's fetch arguments after a space, e.g. 'p:/bin/bash:readline' or "
		"'p:vfs_read count=%dx:u64'. A dynamic event is created through tracefs in a group named "
		"iotap_PID and removed on every exit path; events left by a killed run are removed by "
		"the next run. Each hit is printed as TIME(s) COMM PID EVENT: fields, the fields "
		"formatted by the event's own print format; with --count, hits are counted per event "
		"and the counts printed at the end, with any events lost or not delivered beside them. "
		"Events are read like every tool's (see --source).",
	.examples =
		"iotap probe 'block:block_rq_issue nr_sector >= 256'\n  Print each request of 128 KiB or more as it is issued.\n"
		"iotap probe -c 'syscalls:sys_*_getppid'\n  Count getppid() entries and exits until Ctrl-C.\n"
		"iotap probe 'p:/usr/bin/bash:readline'\n  Print each readline() call of bash.\n"
		"iotap probe -p 1234 'p:/usr/lib/x86_64-linux-gnu/libc.so.6:fsync fd=%di:s32'\n  fsync() calls of PID 1234 with their fd.\n"
		"iotap probe -M 10 'p:blk_mq_start_request rq=%di:x64'\n  The first ten requests started (kernels with kprobes).\n",
	.banner = "Tracing probe... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_SPEC,
	.opts = probe_opts,
	.events = probe_events,
	.params_size = sizeof(struct probe_params),
	.state_size = sizeof(struct probe_state),
	.init = probe_init,
	.report = probe_report,
	.fini = probe_fini,
};
