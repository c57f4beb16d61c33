// SPDX-License-Identifier: GPL-2.0-or-later
/* probe.c - trace a kprobe or uprobe created for this run, print each hit decoded */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "iotap.h"

struct probe_params {
	int pid;
	uint64_t max_events;
};

struct probe_state {
	struct iotap_event *ev;
	struct tep_event *fmt;
	uint64_t hits;
	uint64_t t0;
	char *spec;
};

#define P(f) offsetof(struct probe_params, f)
static const struct opt probe_opts[] = {
	{ 'p', "pid", OPT_PID, P(pid), "PID", "only hits in this process" },
	{ 'M', "max-events", OPT_UINT, P(max_events), "N", "stop after N hits", NULL, 1, 0 },
	OPT_END
};

/* probe_print_info - the hit formatted by the kernel's own print fmt for the event */
static void probe_print_info(struct probe_state *st, FILE *out, const struct perf_sample *s)
{
	struct tep_record rec = {
		.ts = s->time,
		.cpu = s->cpu,
		.size = s->raw_size,
		.data = (void *)s->raw,
	};
	struct trace_seq seq;

	trace_seq_init(&seq);
	tep_print_event(st->fmt->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	fprintf(out, " %s", seq.buffer);
	trace_seq_destroy(&seq);
}

/* probe_on_hit - one line per hit */
static int probe_on_hit(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	struct probe_params *p = ctx->params;
	struct probe_state *st = arg;

	if ((p->pid && (int)s->pid != p->pid) || (p->max_events && st->hits >= p->max_events) ||
	    !iotap_cgroup_match(ctx, s))
		return 0;
	if (!st->t0)
		st->t0 = s->time;
	fprintf(ctx->out, "%-14.6f %-16s %-7u %s:", (double)(s->time - st->t0) / 1e9,
		iotap_comm(ctx, s->pid), s->pid, st->fmt->name);
	probe_print_info(st, ctx->out, s);
	fputc('\n', ctx->out);
	if (p->max_events && ++st->hits >= p->max_events)
		iotap_stop(ctx);
	return 0;
}

/* probe_name - a tracefs-safe event name from the symbol */
static void probe_name(const char *symbol, bool ret, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s_%s", ret ? "r" : "p", symbol);

	for (size_t i = 0; i < n && i < len; i++)
		if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') ||
		      (buf[i] >= 'A' && buf[i] <= 'Z') || (buf[i] >= '0' && buf[i] <= '9')))
			buf[i] = '_';
}

/* probe_init - parse "p|r:[PATH:]SYMBOL[+OFF] [ARGS]", create the probe, subscribe */
static int probe_init(struct iotap_ctx *ctx)
{
	struct probe_params *p = ctx->params;
	struct probe_state *st = ctx->state;
	char *kind, *where, *args, *path = NULL, *symbol, *plus, name[128];
	struct probe_spec spec;
	const char *sys;
	uint64_t offset = 0;
	bool ret;
	int err;

	st->spec = strdup(ctx->spec);
	if (!st->spec)
		return -ENOMEM;
	args = strchr(st->spec, ' ');
	if (args)
		*args++ = 0;
	kind = st->spec;
	where = strchr(kind, ':');
	if (!where || where - kind != 1 || (kind[0] != 'p' && kind[0] != 'r') || !where[1]) {
		iotap_err(ctx, "invalid probe '%s': expected p|r:[/path/binary:]symbol[+offset] [fetchargs]",
			  ctx->spec);
		return -EINVAL;
	}
	ret = kind[0] == 'r';
	where++;
	symbol = strrchr(where, ':');
	if (symbol) {
		*symbol++ = 0;
		path = where;
	} else {
		symbol = where;
	}
	plus = strchr(symbol, '+');
	if (plus) {
		*plus++ = 0;
		offset = strtoull(plus, NULL, 0);
	}
	if (p->pid && iotap_pid_check(ctx, p->pid)) {
		iotap_err(ctx, "no process with PID %d", p->pid);
		return -ESRCH;
	}
	probe_name(symbol, ret, name, sizeof(name));
	spec = (struct probe_spec){
		.uprobe = path != NULL, .ret = ret, .name = name, .path = path,
		.symbol = symbol, .offset = offset, .args = args,
	};
	err = iotap_probe_create(ctx, &spec, &sys);
	if (err)
		return err == -ENOENT || err == -EINVAL ? -EINVAL : err;
	st->ev = iotap_event_use(ctx, sys, name, 0, probe_on_hit, st);
	if (!st->ev)
		return -errno;
	st->fmt = iotap_event_format(st->ev);
	if (p->pid)
		return iotap_event_filter(st->ev, "common_pid == %d", p->pid);
	return 0;
}

/* probe_fini - free the state */
static void probe_fini(struct iotap_ctx *ctx)
{
	struct probe_state *st = ctx->state;

	free(st->spec);
}

static const struct tool_event probe_events[] = {
	{ NULL, NULL, 0 }
};

const struct tool tool_probe = {
	.name = "probe",
	.summary = "Trace a kprobe or uprobe made for this run and print each hit.",
	.description =
		"Creates a dynamic event through tracefs in a group named iotap_PID, opens it with "
		"perf_event_open like the block tools' tracepoints, prints one line per hit "
		"(TIME(s) COMM PID PROBE: fields), and removes the event on every exit path; events "
		"left by a killed run are removed by the next run. PROBE is p:SYMBOL or r:SYMBOL for a "
		"kprobe or kretprobe, and p:/path/binary:SYMBOL for a uprobe (r: for a uretprobe), "
		"optionally +OFFSET, then the kernel's fetch arguments after a space, e.g. "
		"'p:/bin/bash:readline' or 'p:vfs_read count=%dx:u64'.",
	.examples =
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
	.fini = probe_fini,
};
