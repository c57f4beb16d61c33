// SPDX-License-Identifier: GPL-2.0-or-later
/* fileio.c - reads and writes per file with file names, top style (filetop) or per call */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common-opts.h"
#include "stacks.h"
#include "systrack.h"
#include "toptable.h"

#define FILEIO_ROWS 20

/* -s choices; the first is the default. */
enum fileio_sort { FILEIO_SORT_ALL, FILEIO_SORT_READS, FILEIO_SORT_WRITES, FILEIO_SORT_RBYTES,
		   FILEIO_SORT_WBYTES, FILEIO_SORT_TIME };
static const char *const fileio_sorts[] = { "all", "reads", "writes", "rbytes", "wbytes", "time",
					    NULL };

struct fileio_params {
	bool noclear, snoop;
	uint64_t maxrows, min_ms;
	int pid;
	int sort;
	const char *comm;
	const char *pprof;
};

/* One line: the reads and writes of a process to one file this interval. */
struct fileio_row {
	uint32_t pid;
	char comm[16];
	char *file;
	uint64_t reads, writes, rbytes, wbytes, ns, max_ns;
};

/* --pprof: the stackmap's values of a stack, over the whole run. */
#define FILEIO_CALLS 0
#define FILEIO_BYTES 1
#define FILEIO_NS 2

struct fileio_state {
	struct systrack *sys;
	struct toptable rows;		/* by (pid, file, comm) */
	uint64_t t0;
	struct stackmap *map;		/* --pprof: (pid, tags, stack) of the calls */
	struct stack_tagtab tags;	/* their op, file and cgroup */
	uint64_t ips[STACK_IPS_MAX];
};

/* The profile: per stack, the calls made there, the bytes they moved, their latency. */
static const struct pprof_type fileio_pprof_types[] = {
	{ "requests", "count" }, { "bytes", "bytes" }, { "latency", "nanoseconds" },
};
static const struct stack_profile fileio_profile = {
	.types = fileio_pprof_types, .nr_types = 3, .default_type = 1,
};

#define P(f) offsetof(struct fileio_params, f)
static const struct opt fileio_opts[] = {
	{ 'C', "noclear", OPT_FLAG, P(noclear), NULL, "don't clear the screen" },
	{ 'r', "maxrows", OPT_UINT, P(maxrows), "ROWS", "maximum rows to print, default 20",
	  NULL, 1, 1u << 20 },
	{ 's', "sort", OPT_CHOICE, P(sort), "SORT",
	  "sort by reads + writes + bytes (all, the default), reads, writes, read bytes, written bytes or total latency",
	  fileio_sorts },
	{ 'p', "pid", OPT_PID, P(pid), "PID", "trace this process only" },
	{ 'c', "comm", OPT_STR, P(comm), "COMM", "trace processes with this command name only" },
	{ 0, "snoop", OPT_FLAG, P(snoop), NULL,
	  "print each read and write as it ends, like fileslower, instead of a table per interval" },
	{ 'm', "min-ms", OPT_UINT, P(min_ms), "MIN_MS",
	  "--snoop: only calls that took at least MIN_MS milliseconds (default 0: all)", NULL, 0, 1u << 30 },
	{ 0, "pprof", OPT_OUTFILE, P(pprof), "FILE",
	  "also write a pprof profile (gzipped profile.proto) of the whole run to FILE at the end: calls (as requests), bytes and latency in ns per calling stack, labelled op, file, comm, pid and cgroup" },
	OPT_END
};

static const struct tool_event fileio_events[] = {
	SYSTRACK_EVENTS_RW,
	SYSTRACK_EVENTS_OPEN,
	SYSTRACK_EVENTS_NAMES,
	{ NULL, NULL, 0 }
};

/* fileio_cmp - order of the lookup tree */
static int fileio_cmp(const void *a, const void *b)
{
	const struct fileio_row *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = strcmp(x->file, y->file);
	return c ? c : strncmp(x->comm, y->comm, sizeof(x->comm));
}

/* fileio_row_free - a row and its name */
static void fileio_row_free(void *p)
{
	struct fileio_row *r = p;

	free(r->file);
	free(r);
}

/* fileio_file - the file's name, or the descriptor when it is not known */
static const char *fileio_file(const struct sys_call *c, char *buf, size_t len)
{
	if (c->path)
		return c->path;
	snprintf(buf, len, "[fd %d]", c->fd);
	return buf;
}

/* fileio_row_make - a new row for key, with its own copy of the name */
static void *fileio_row_make(const void *key, void *arg)
{
	struct fileio_row *row = malloc(sizeof(*row));

	if (!row)
		return NULL;
	*row = *(const struct fileio_row *)key;
	row->file = strdup(row->file);
	if (!row->file) {
		free(row);
		return NULL;
	}
	return row;
}

/* fileio_row_get - the row of a call, made if new */
static struct fileio_row *fileio_row_get(struct iotap_ctx *ctx, const struct sys_call *c)
{
	struct fileio_state *st = ctx->state;
	struct fileio_row key = { .pid = c->pid };
	char buf[32];

	snprintf(key.comm, sizeof(key.comm), "%s", iotap_comm(ctx, c->pid));
	key.file = (char *)fileio_file(c, buf, sizeof(buf));
	return toptable_get(&st->rows, &key, fileio_row_make, NULL);
}

/* fileio_snoop - one line per call, fileslower's columns */
static int fileio_snoop(struct iotap_ctx *ctx, const struct sys_call *c)
{
	struct fileio_params *p = ctx->params;
	struct fileio_state *st = ctx->state;
	uint64_t ns = c->t_exit - c->t_enter;
	char buf[32];

	if (ns < p->min_ms * 1000000)
		return 0;
	if (!st->t0) {
		st->t0 = c->t_exit;
		fprintf(ctx->out, "%-8s %-14s %-7s %1s %-7s %8s %s\n", "TIME(s)", "COMM", "TID", "D",
			"BYTES", "LAT(ms)", "FILENAME");
	}
	fprintf(ctx->out, "%-8.3f %-14.14s %-7u %1s %-7lld %8.2f %s\n",
		(double)(c->t_exit - st->t0) / 1e9, iotap_comm(ctx, c->pid), c->tid,
		c->kind == SYS_READ ? "R" : "W", (long long)c->ret, ns / 1e6,
		fileio_file(c, buf, sizeof(buf)));
	return 0;
}

/* fileio_stack_add - --pprof: a call into its stack's totals */
static int fileio_stack_add(struct iotap_ctx *ctx, const struct sys_call *c,
			    const struct perf_sample *s)
{
	struct fileio_state *st = ctx->state;
	const struct stack_tags tags = {
		.op = c->kind == SYS_READ ? "read" : "write",
		.file = c->path,
		.cgroup = iotap_cgroup_of(ctx, s),
	};
	uint64_t key = stack_tags_key(&st->tags, &tags), *v;
	uint32_t n;

	v = key ? stack_sample_get(ctx, st->map, s, STACK_KERNEL | STACK_USER, key, FILEIO_CALLS,
				   st->ips, &n) : NULL;
	if (!v)
		return -ENOMEM;
	v[FILEIO_CALLS]++;
	v[FILEIO_BYTES] += (uint64_t)c->ret;
	v[FILEIO_NS] += c->t_exit - c->t_enter;
	return 0;
}

/* fileio_on_exit - a read or write ended: into its file's row */
static int fileio_on_exit(void *arg, struct sys_call *c, const struct perf_sample *s)
{
	struct iotap_ctx *ctx = arg;
	struct fileio_params *p = ctx->params;
	uint64_t ns = c->t_exit - c->t_enter;
	struct fileio_row *row;
	int ret;

	if (c->ret < 0)
		return 0;
	if (p->pprof) {
		ret = fileio_stack_add(ctx, c, s);
		if (ret)
			return ret;
	}
	if (p->snoop)
		return fileio_snoop(ctx, c);
	row = fileio_row_get(ctx, c);
	if (!row)
		return -ENOMEM;
	if (c->kind == SYS_READ) {
		row->reads++;
		row->rbytes += c->ret;
	} else {
		row->writes++;
		row->wbytes += c->ret;
	}
	row->ns += ns;
	if (ns > row->max_ns)
		row->max_ns = ns;
	return 0;
}

/* fileio_init - follow reads and writes with file names */
static int fileio_init(struct iotap_ctx *ctx)
{
	struct fileio_params *p = ctx->params;
	struct fileio_state *st = ctx->state;
	struct systrack_cfg cfg = {
		.kinds = SYS_KIND(SYS_READ) | SYS_KIND(SYS_WRITE),
		.names = true,
		.pid = p->pid,
		.comm = p->comm,
		.on_exit = fileio_on_exit,
		.arg = ctx,
	};
	int ret;

	st->rows = (struct toptable)TOPTABLE_INIT(fileio_cmp, fileio_row_free);
	if (p->pid && iotap_pid_check(ctx, p->pid)) {
		iotap_err(ctx, "no process with PID %d", p->pid);
		return -ESRCH;
	}
	if (p->min_ms && !p->snoop) {
		iotap_err(ctx, "-m needs --snoop");
		return -EINVAL;
	}
	ret = stack_pprof_init(ctx, p->pprof);
	if (ret)
		return ret;
	if (p->pprof) {
		st->map = stackmap_alloc();
		if (!st->map)
			return -ENOMEM;
		cfg.stack_flags = IOTAP_EV_KSTACK | IOTAP_EV_USTACK;
	}
	ret = systrack_create(&st->sys, ctx, &cfg);
	if (ret)
		return ret;
	iotap_info(ctx, "file names: %s", systrack_names_source(st->sys));
	return 0;
}

/* fileio_sort_key - the -s column of a row */
static uint64_t fileio_sort_key(const void *row, int sort)
{
	const struct fileio_row *r = row;

	switch (sort) {
	case FILEIO_SORT_READS:
		return r->reads;
	case FILEIO_SORT_WRITES:
		return r->writes;
	case FILEIO_SORT_RBYTES:
		return r->rbytes;
	case FILEIO_SORT_WBYTES:
		return r->wbytes;
	case FILEIO_SORT_TIME:
		return r->ns;
	default:
		return r->reads + r->writes + r->rbytes + r->wbytes;
	}
}

/* fileio_sample - one stack for the profile: its calls, bytes and latency, and labels */
static int fileio_sample(struct iotap_ctx *ctx, uint32_t pid, uint64_t key, const uint64_t *ips,
			 uint32_t nr, const uint64_t *v, struct stack_sample *out)
{
	struct fileio_state *st = ctx->state;

	out->values[0] = v[FILEIO_CALLS];
	out->values[1] = v[FILEIO_BYTES];
	out->values[2] = v[FILEIO_NS];
	stack_sample_tags(ctx, &st->tags, key, out);
	return 0;
}

/* fileio_pprof - at the end, with --pprof: the profile of the whole run */
static int fileio_pprof(struct iotap_ctx *ctx)
{
	struct fileio_params *p = ctx->params;
	struct fileio_state *st = ctx->state;
	const struct stack_outputs out = { .pprof = p->pprof, .profile = &fileio_profile };

	if (!ctx->final || !p->pprof)
		return 0;
	return stack_output(ctx, st->map, fileio_sample, &out);
}

/* fileio_report - the table of one interval, filetop's layout with latency, then reset */
static int fileio_report(struct iotap_ctx *ctx)
{
	struct fileio_params *p = ctx->params;
	struct fileio_state *st = ctx->state;
	uint64_t maxrows = p->maxrows ? p->maxrows : FILEIO_ROWS;
	char ts[32], load[128];

	/* The profile covers the whole run: written after the last table. */
	if (p->snoop)
		return ferror(ctx->out) ? -EIO : fileio_pprof(ctx);
	if (iotap_strftime(ctx, iotap_now(ctx), "%H:%M:%S", ts, sizeof(ts)))
		snprintf(ts, sizeof(ts), "?");
	if (iotap_loadavg(ctx, load, sizeof(load)))
		snprintf(load, sizeof(load), "?");
	toptable_screen(ctx->out, p->noclear, ts, load, 0);
	fprintf(ctx->out, "%-7s %-16s %6s %6s %-9s %-9s %9s %8s %s\n", "PID", "COMM", "READS",
		"WRITES", "R_Kb", "W_Kb", "TOTAL_ms", "MAX_ms", "FILE");
	toptable_sort(&st->rows, fileio_sort_key, p->sort);
	for (size_t i = 0; i < st->rows.nr && i < maxrows; i++) {
		const struct fileio_row *r = st->rows.rows[i];

		fprintf(ctx->out, "%-7u %-16s %6llu %6llu %-9llu %-9llu %9.3f %8.3f %s\n", r->pid,
			r->comm, (unsigned long long)r->reads, (unsigned long long)r->writes,
			(unsigned long long)(r->rbytes / 1024), (unsigned long long)(r->wbytes / 1024),
			r->ns / 1e6, r->max_ns / 1e6, r->file);
	}
	toptable_reset(&st->rows);
	return ferror(ctx->out) ? -EIO : fileio_pprof(ctx);
}

/* fileio_fini - free the state */
static void fileio_fini(struct iotap_ctx *ctx)
{
	struct fileio_state *st = ctx->state;

	systrack_free(st->sys);
	toptable_release(&st->rows);
	stackmap_free(st->map);
	stack_tagtab_release(&st->tags);
}

const struct tool tool_fileio = {
	.name = "fileio",
	.summary = "Show reads and writes per file, with file names, top style or per call.",
	.description =
		"Traces the read and write syscalls (read, write, pread64, pwrite64, readv, writev, "
		"preadv, pwritev, preadv2, pwritev2) from the syscalls tracepoints and, every "
		"interval (1 second unless given), clears the screen and prints one line per process "
		"and file: the calls that ended in the interval, the Kbytes they moved (the syscalls' "
		"return values), their total and longest latency from sys_enter to sys_exit. With "
		"--snoop it prints each call as it ends instead, like fileslower. "
		"File names need no BPF: descriptors are followed through open, openat, creat, "
		"openat2, dup, dup2, dup3, fcntl(F_DUPFD, F_SETFD), close, fork, exec and exit; the "
		"name an open got comes from a kretprobe on the kernel's getname where the kernel has "
		"kprobes, from uprobes on the C library's open functions (the path as the program "
		"passed it, matched to its openat by the pointer), and where neither knows it "
		"(descriptors opened before tracing, static programs without kprobes) from "
		"/proc/PID/fd when the descriptor is first seen. A recording keeps the probes' hits "
		"and every process's descriptors at its start. Descriptors that stay unknown print "
		"as [fd N]. "
		"iotap's own reads and writes are not traced. The layout follows BCC's filetop, with "
		"latency columns added and the process instead of the thread.",
	.examples =
		"iotap fileio\n  Refresh every second until Ctrl-C.\n"
		"iotap fileio -C -s wbytes 5 3\n  Every 5 seconds, three times, by written bytes, without clearing.\n"
		"iotap fileio --snoop -m 10\n  Each read or write that took 10 ms or more.\n"
		"iotap fileio -c postgres -r 10\n  The ten busiest files of postgres processes.\n",
	.banner = "Tracing file reads and writes... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.default_interval = 1,
	.opts = fileio_opts,
	/* --pprof takes stacks: how to walk them, where binaries are. */
	.common = stack_common_opts,
	.events = fileio_events,
	.probes = systrack_probes,
	.fds_initial = true,
	.params_size = sizeof(struct fileio_params),
	.state_size = sizeof(struct fileio_state),
	.init = fileio_init,
	.report = fileio_report,
	.fini = fileio_fini,
};
