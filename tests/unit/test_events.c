// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_events.c - every tool's events table says what it subscribes to: the
 * table is what `iotap record` records and the man page lists, so a tool
 * that subscribes to an event it did not declare would make recordings that
 * lack it, and one it declares but never uses makes recordings bigger for
 * nothing. Each tool's init runs over the formats of every kernel in
 * tests/data/formats (captured, or reconstructed for RHEL 8 and 9 and Ubuntu
 * 20.04 and 22.04), once plain and once per option, and what it subscribed to
 * is compared with its table. An init may fail only for a reason the test
 * checks: a required event the kernel lacks, which the tool's error must name
 * (missing[] lists every such case, so a kernel that loses one fails), or an
 * argument the tool must refuse (refusals[]).
 *
 * The same runs make the drift report: every field an init locates is kept
 * by kernel with the type and size its format gives. IOTAP_DRIFT_FORMATS=DIR
 * adds a capture of tests/vm/collect-formats (the VM tier's drift-vm.sh, on
 * Debian's newest kernels) to the kernels, and every field iotap reads whose
 * name, type or size there differs from all the known kernels' is printed.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <traceevent/event-parse.h>

#include "field.h"
#include "log.h"
#include "opt.h"
#include "session.h"
#include "testlib.h"

#define K61 "6.1.0-56-amd64"
#define K618 "6.18.44-fc-v669"

#define K510 "5.10.0-46-amd64"

/* The captured kernels, and last the one of IOTAP_DRIFT_FORMATS when set. */
static const char *kernels[] = {
	K618, K61, "6.12.117+deb12-amd64", K510, "rhel8-4.18", "ubuntu20.04-5.4",
	"rhel9-5.14", "ubuntu22.04-5.15", NULL,
};
#define NR_KNOWN (sizeof(kernels) / sizeof(kernels[0]) - 1)
static size_t nr_kernels = NR_KNOWN;

/*
 * What the inits located, by kernel: field_init and field_init_any are wrapped at link time
 * (Makefile.am), so every parser's lookup is seen as the tools make it.
 */
#define MAX_LOOKUPS 1024
struct lookup {
	char event[96];			/* sys:name */
	char field[96];			/* its name; field_init_any's names as a|b */
	char have[NR_KNOWN + 1][96];	/* "" not looked up, "-" absent, else its type and size */
	char shape[NR_KNOWN + 1][64];	/* what is compared: name, size, sign and kind, not how
					 * the type is spelled (u64 or unsigned long long) */
};
static struct lookup lookups[MAX_LOOKUPS];
static size_t nr_lookups;
static int cur_kernel = -1;		/* index into kernels[] of the init running */

int __real_field_init(struct field *f, struct tep_event *ev, const char *name);
int __real_field_init_any(struct field *f, struct tep_event *ev, const char *const *names);
int __wrap_field_init(struct field *f, struct tep_event *ev, const char *name);
int __wrap_field_init_any(struct field *f, struct tep_event *ev, const char *const *names);

/* lookup_put - what kernel cur_kernel's format of ev has of field (found: ff, as name) */
static void lookup_put(const struct tep_event *ev, const char *field, const char *name,
		       const struct tep_format_field *ff)
{
	struct lookup *l = NULL;
	char event[96];

	if (cur_kernel < 0)
		return;
	snprintf(event, sizeof(event), "%s:%s", ev->system, ev->name);
	for (size_t i = 0; i < nr_lookups && !l; i++)
		if (!strcmp(lookups[i].event, event) && !strcmp(lookups[i].field, field))
			l = &lookups[i];
	if (!l) {
		assert_true(nr_lookups < MAX_LOOKUPS);
		l = &lookups[nr_lookups++];
		snprintf(l->event, sizeof(l->event), "%s", event);
		snprintf(l->field, sizeof(l->field), "%s", field);
	}
	if (!ff) {
		snprintf(l->have[cur_kernel], sizeof(l->have[0]), "-");
		snprintf(l->shape[cur_kernel], sizeof(l->shape[0]), "-");
		return;
	}
	snprintf(l->have[cur_kernel], sizeof(l->have[0]), "%s%s%s (%d bytes%s)",
		 name ? name : "", name ? " " : "", ff->type, ff->size,
		 ff->flags & TEP_FIELD_IS_SIGNED ? ", signed" : "");
	snprintf(l->shape[cur_kernel], sizeof(l->shape[0]), "%s %d %c%c", name ? name : "",
		 ff->size, ff->flags & TEP_FIELD_IS_SIGNED ? 's' : 'u',
		 ff->flags & TEP_FIELD_IS_DYNAMIC ? 'd' : ff->flags & TEP_FIELD_IS_ARRAY ? 'a' :
		 ff->flags & TEP_FIELD_IS_POINTER ? 'p' : 'n');
}

int __wrap_field_init(struct field *f, struct tep_event *ev, const char *name)
{
	int ret = __real_field_init(f, ev, name);

	lookup_put(ev, name, NULL, ret ? NULL : tep_find_any_field(ev, name));
	return ret;
}

int __wrap_field_init_any(struct field *f, struct tep_event *ev, const char *const *names)
{
	const struct tep_format_field *ff = NULL;
	const char *name = NULL;
	char all[96] = "";
	int ret = __real_field_init_any(f, ev, names);

	for (const char *const *n = names; *n; n++) {
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", all[0] ? "|" : "", *n);
		if (!ff && (ff = tep_find_any_field(ev, *n)))
			name = *n;
	}
	lookup_put(ev, all, name, ret ? NULL : ff);
	return ret;
}

/* kernel_name - how the report names kernel k: a capture directory by its last part */
static const char *kernel_name(size_t k)
{
	const char *slash = strrchr(kernels[k], '/');

	return slash && slash[1] ? slash + 1 : kernels[k];
}

/*
 * drift_report - to out, each field whose lookup over kernel k differs from every kernel of
 * known (a mask of kernels[]) that looked it up, with what those had; the number of them
 */
static size_t drift_report(FILE *out, size_t k, unsigned int known)
{
	size_t n = 0, read = 0;

	for (size_t i = 0; i < nr_lookups; i++) {
		const struct lookup *l = &lookups[i];
		const char *now = l->have[k];
		bool same = false;
		unsigned int told = 0;

		/* A known kernel that never looked the field up lacks the event too. */
		for (size_t j = 0; j < nr_kernels; j++)
			if (j != k && (known >> j & 1))
				same |= !strcmp(l->shape[j], l->shape[k]);
		read += now[0] != 0;
		if (same)
			continue;
		n++;
		fprintf(out, "drift: %s %s: %s here;", l->event, l->field,
			!now[0] ? "not looked up (no such event)" : !strcmp(now, "-") ? "absent" : now);
		for (size_t j = 0; j < nr_kernels; j++) {
			const char *sep = " ";

			if (j == k || !(known >> j & 1) || !l->have[j][0] || (told >> j & 1))
				continue;
			fprintf(out, " %s in",
				!strcmp(l->have[j], "-") ? "absent" : l->have[j]);
			for (size_t m = j; m < nr_kernels; m++)
				if (m != k && (known >> m & 1) && !strcmp(l->shape[m], l->shape[j])) {
					fprintf(out, "%s%s", sep, kernel_name(m));
					sep = ", ";
					told |= 1u << m;
				}
			fprintf(out, ";");
		}
		fprintf(out, "%s\n", told ? "" : " no known kernel has the event");
	}
	fprintf(out, "drift: %zu of the %zu fields iotap reads differ on %s from the kernels it knows\n",
		n, read, kernel_name(k));
	return n;
}

/*
 * Tools that cannot run over a kernel's set: the required event it lacks. The
 * 6.18 capture was made on a host with no SCSI or NVMe driver loaded; every
 * other set has all that the tools require (what they do without an optional
 * event is in doc/kernels.md, "Kernels").
 */
static struct missing {
	const char *tool, *kernel, *event;
	int seen;
} missing[] = {
	{ "nvmelatency", K618, "nvme:nvme_setup_cmd" },
	{ "scsilatency", K618, "scsi:scsi_dispatch_cmd_start" },
	{ "scsiresult", K618, "scsi:scsi_dispatch_cmd_done" },
	/* The 6.18 capture has no io_uring events; RHEL 8 and Ubuntu 20.04's sets none either. */
	{ "iouring", K618, "io_uring:io_uring_complete" },
	{ "iouring", "rhel8-4.18", "io_uring:io_uring_complete" },
	{ "iouring", "ubuntu20.04-5.4", "io_uring:io_uring_complete" },
};

/* What one tool's inits subscribed to over all runs. */
struct seen {
	const struct tool *tool;
	bool used[128], stacked[128];	/* by index into tool->events */
};

/* Values string options get where a file path would be refused. */
static const struct {
	const char *tool, *opt, *value;
} str_values[] = {
	{ "scsilatency", "device", "0:0:0:0" },
	{ "scsiresult", "device", "0:0:0:0" },
	/* NULL: a port free now (free_listen), so an exporter already running never fails the test. */
	{ "exporter", "listen", NULL },
	{ "exporter", "web.config.file", "/nonexistent/web.yml" },
};

/* The disks of the test's disk table, each tried as an OPT_DISK value. */
static const char *const disks[] = { "sda", "nvme0n1", NULL };

/* Init failures that are right: the tool refuses this value of this option. */
static struct refusal {
	const char *tool, *opt, *value;
	int err;
	const char *msg;		/* in the logged error */
	int seen;
} refusals[] = {
	{ "nvmelatency", "disk", "sda", -EINVAL, "is not an NVMe namespace" },
	/* The flight recorder's options mean nothing without --ring (value NULL: any). */
	{ "exporter", "output", NULL, -EINVAL, "-o needs --ring" },
	{ "exporter", "ring-size", NULL, -EINVAL, "need --ring" },
	{ "exporter", "trigger", NULL, -EINVAL, "need --ring" },
	{ "exporter", "queued", NULL, -EINVAL, "need --ring" },
	{ "exporter", "web.config.file", "/nonexistent/web.yml", -ENOENT, "No such file or directory" },
#ifdef IOTAP_PPROF_ABSENT
	/* A build without libprotobuf-c refuses --pprof (configure said so). */
	{ "biostacks", "pprof", NULL, -ENOTSUP, "this iotap has no pprof output" },
	{ "iostack", "pprof", NULL, -ENOTSUP, "this iotap has no pprof output" },
	{ "fileio", "pprof", NULL, -ENOTSUP, "this iotap has no pprof output" },
	{ "iostackbreakdown", "pprof", NULL, -ENOTSUP, "this iotap has no pprof output" },
#endif
};

static char last_err[512];
/* The value string options get: a file in a directory of the test's own, since tools
 * that write files (--prom, --heatmap, --timeline) check them at init. */
static char str_dir[] = "/tmp/test_events.XXXXXX";
static char str_arg[sizeof(str_dir) + 2];

/* on_log - keep the last error line, to tell why an init failed */
static void on_log(enum log_level level, const char *msg)
{
	if (level == LOG_ERR)
		snprintf(last_err, sizeof(last_err), "%s", msg);
}

/* load_sys - every event format of one subsystem of a kernel */
static void load_sys(struct fmt_set *fs, const char *kernel, const char *sys)
{
	char path[2048], dir[512], *text;
	struct dirent *de;
	size_t len;
	DIR *d;

	testlib_formats_dir(kernel, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, de->d_name);
		text = testlib_text_load(path, &len);
		if (!text)
			continue;
		assert_non_null(fmt_set_add(fs, sys, de->d_name, text, len));
		free(text);
	}
	closedir(d);
}

/* load - every event format captured from a kernel, by subsystem */
static void load(struct fmt_set *fs, const char *kernel)
{
	char path[1024], dir[512];
	struct dirent *de;
	DIR *d;

	testlib_fmt_init(fs, kernel);
	snprintf(path, sizeof(path), "%s/events", testlib_formats_dir(kernel, dir, sizeof(dir)));
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && de->d_type == DT_DIR)
			load_sys(fs, kernel, de->d_name);
	closedir(d);
}

/*
 * lacking - "sys:name" of the first required event of t not in fs, or of the one
 * --show-cgroup follows (in the error), in buf; NULL when fs has them all
 */
static const char *lacking(const struct tool *t, const struct fmt_set *fs, char *buf, size_t n)
{
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (!(e->flags & TOOL_EV_OPTIONAL) && !fmt_set_find(fs, e->sys, e->name)) {
			snprintf(buf, n, "%s:%s", e->sys, e->name);
			return buf;
		}
	if (strstr(last_err, "cgroup:cgroup_attach_task") &&
	    !fmt_set_find(fs, "cgroup", "cgroup_attach_task"))
		return "cgroup:cgroup_attach_task";
	return NULL;
}

/* said_missing - the tool named the event it lacks, and missing[] expects it of this kernel */
static bool said_missing(const struct tool *t, const char *kernel, const char *event)
{
	if (!strstr(last_err, event))
		fail_msg("%s over %s lacks %s, but its error does not say so: %s", t->name, kernel,
			 event, last_err);
	if (!strcmp(event, "cgroup:cgroup_attach_task"))
		return true;	/* no capture has it: --show-cgroup is for live runs */
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		struct missing *m = &missing[i];

		if (!strcmp(m->tool, t->name) && !strcmp(m->kernel, kernel) &&
		    !strcmp(m->event, event)) {
			m->seen++;
			return true;
		}
	}
	fail_msg("%s cannot run over %s, which lacks %s: not in missing[]", t->name, kernel, event);
	return false;
}

/* refused - the failure is one of refusals[] (counted there) */
static bool refused(const struct tool *t, const struct opt *o, const char *value, int err)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		struct refusal *r = &refusals[i];

		if (o && (!r->value || (value && !strcmp(r->value, value))) &&
		    !strcmp(r->tool, t->name) && !strcmp(r->opt, o->long_name) &&
		    r->err == err && strstr(last_err, r->msg)) {
			r->seen++;
			return true;
		}
	}
	return false;
}

/*
 * free_listen - 127.0.0.1 and a port no one listens on now (the kernel's
 * pick for a socket bound and closed): the exporter's default port may be a
 * service's on this host
 */
static const char *free_listen(void)
{
	static char addr[32];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd;

	if (addr[0])
		return addr;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sin.sin_port));
	return addr;
}

/* listen_free - a tool that listens (the exporter) does so where free_listen says */
static void listen_free(const struct tool *t, void *params)
{
	for (const struct opt *o = t->opts; o && o->long_name; o++)
		if (!strcmp(o->long_name, "listen") && o->type == OPT_STR)
			*(const char **)((char *)params + o->offset) = free_listen();
}

/* str_value - what a string option of t gets */
static const char *str_value(const struct tool *t, const struct opt *o)
{
	for (size_t i = 0; i < sizeof(str_values) / sizeof(str_values[0]); i++)
		if (!strcmp(str_values[i].tool, t->name) && !strcmp(str_values[i].opt, o->long_name))
			return str_values[i].value ? str_values[i].value : free_listen();
	return str_arg;
}

/* cgtrack_event - one of the cgroup tracker's own events (cgroup.h), which no tool declares */
static bool cgtrack_event(const char *sys, const char *name)
{
	static const char *const own[][2] = {
		{ "cgroup", "cgroup_attach_task" }, { "sched", "sched_process_fork" },
		{ "task", "task_newtask" }, { "cgroup", "cgroup_mkdir" },
		{ "writeback", "writeback_single_inode_start" },
		{ "writeback", "writeback_single_inode" },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(sys, own[i][0]) && !strcmp(name, own[i][1]))
			return true;
	return false;
}

/* run_init - the tool's init over kernel with one option set (o NULL: none) to value v */
static void run_init(struct seen *sn, const char *kernel, const struct opt *o, int v)
{
	const char *value = NULL, *miss;
	char mbuf[128];
	int err;
	const struct tool *t = sn->tool;
	void *params = calloc(1, t->params_size ? t->params_size : 1);
	struct session *s;

	assert_non_null(params);
	s = testlib_session_new(t, params, SESSION_MAX_STACK_DEFAULT);
	load(&s->fs, kernel);
	for (cur_kernel = 0; strcmp(kernels[cur_kernel], kernel); cur_kernel++)
		;
	assert_int_equal(disk_table_add(&s->disks, 8 << 20, "sda", "mq-deadline"), 0);
	assert_int_equal(disk_table_add(&s->disks, 259 << 20, "nvme0n1", "none"), 0);
	listen_free(t, params);
	if (o) {
		void *f = (char *)params + o->offset;

		switch (o->type) {
		case OPT_FLAG:
			*(bool *)f = true;
			break;
		case OPT_CHOICE:
		case OPT_PID:
			*(int *)f = v;
			break;
		case OPT_DISK:
			*(const char **)f = value = disks[v];
			break;
		case OPT_STR:
		case OPT_OUTFILE:
			*(const char **)f = value = str_value(t, o);
			break;
		default:
			break;
		}
	}
	last_err[0] = 0;
	err = t->init(&s->ctx);
	if (err && !(err == -ENOENT && (miss = lacking(t, &s->fs, mbuf, sizeof(mbuf))) &&
		     said_missing(t, kernel, miss)) && !refused(t, o, value, err))
		fail_msg("%s over %s with --%s %s: %s (%s)", t->name, kernel,
			 o ? o->long_name : "(none)", value ? value : "", strerror(-err), last_err);
	for (size_t i = 0; i < s->nr_ev; i++) {
		const struct iotap_event *ev = s->ev[i];
		size_t k = 0;

		for (; t->events[k].sys; k++)
			if (!strcmp(t->events[k].sys, ev->sys) && !strcmp(t->events[k].name, ev->name))
				break;
		/* The cgroup tracker's own (cgroup.h), for a tool that follows cgroups. */
		if (!t->events[k].sys && s->cg && cgtrack_event(ev->sys, ev->name))
			continue;
		if (!t->events[k].sys)
			fail_msg("%s subscribes to %s:%s, which it does not declare", t->name,
				 ev->sys, ev->name);
		sn->used[k] = true;
		sn->stacked[k] |= !!(ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK));
	}
	cur_kernel = -1;
	testlib_session_free(s);
	free(params);
}

/*
 * remap_by_filter - whether event i is block_bio_remap of a tool that traces the submitter's
 * event: blktrack takes the remap wherever it attributes requests (to name the submitter of
 * what blk-throttle's worker starts), which for a tool that shows no submitter (biostages)
 * is under --cgroup alone, a common option these runs do not set
 */
static bool remap_by_filter(const struct tool *t, const struct seen *sn, size_t i)
{
	if (strcmp(t->events[i].sys, "block") || strcmp(t->events[i].name, "block_bio_remap"))
		return false;
	for (size_t k = 0; t->events[k].sys; k++)
		if (sn->used[k] && !strcmp(t->events[k].sys, "block") &&
		    (!strcmp(t->events[k].name, "block_io_start") ||
		     !strcmp(t->events[k].name, "block_rq_insert")))
			return true;
	return false;
}

/*
 * stacks_unasked - whether a build takes no stacks on event i of t whatever the options: the
 * syscalls' stacks are --pprof's only, which a build without pprof output refuses
 */
static bool stacks_unasked(const struct tool *t, size_t i)
{
#ifdef IOTAP_PPROF_ABSENT
	return !strcmp(t->events[i].sys, "syscalls");
#else
	return false;
#endif
}

/* test_tables - every tool subscribes to what it declares, and uses all of it */
static void test_tables(void **state)
{
	int checked = 0;

	log_set(on_log);
	for (const struct tool *const *tp = iotap_tools; *tp; tp++) {
		struct seen sn = { .tool = *tp };
		const struct tool *t = *tp;
		size_t nr = 0;

		/* A probe's events are the ones it makes from its argument (test_spec). */
		if (t->args == TOOL_ARGS_SPEC)
			continue;
		assert_non_null(t->events);
		while (t->events[nr].sys)
			nr++;
		assert_true(nr > 0 && nr <= 128);
		for (size_t k = 0; k < nr_kernels; k++) {
			run_init(&sn, kernels[k], NULL, 0);
			for (const struct opt *o = t->opts; o && o->long_name; o++) {
				if (o->type == OPT_CHOICE)
					for (int c = 0; o->choices[c]; c++)
						run_init(&sn, kernels[k], o, c);
				else if (o->type == OPT_DISK)
					for (int d = 0; disks[d]; d++)
						run_init(&sn, kernels[k], o, d);
				else
					run_init(&sn, kernels[k], o, 1);
			}
		}
		for (size_t i = 0; i < nr; i++) {
			if (!sn.used[i] && !remap_by_filter(t, &sn, i))
				fail_msg("%s declares %s:%s, which it never uses", t->name,
					 t->events[i].sys, t->events[i].name);
			if ((t->events[i].flags & TOOL_EV_STACK) && !sn.stacked[i] &&
			    !stacks_unasked(t, i))
				fail_msg("%s declares stacks on %s:%s, which it never takes", t->name,
					 t->events[i].sys, t->events[i].name);
		}
		checked++;
	}
	assert_true(checked >= 9);
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		if (refusals[i].seen != (int)nr_kernels)
			fail_msg("%s --%s %s was refused over %d kernels, expected %d", refusals[i].tool,
				 refusals[i].opt, refusals[i].value ? refusals[i].value : "(any)",
				 refusals[i].seen, (int)nr_kernels);
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
		if (!missing[i].seen)
			fail_msg("%s over %s never failed for lacking %s", missing[i].tool,
				 missing[i].kernel, missing[i].event);
	log_set(NULL);
	if (nr_kernels > NR_KNOWN)
		drift_report(stdout, NR_KNOWN, (1u << NR_KNOWN) - 1);
}

/*
 * test_drift - the report finds what changed between two known kernels: 5.10's SCSI dispatch
 * has no driver_tag, 6.1's has (over the lookups test_tables made, which runs first)
 */
static void test_drift(void **state)
{
	size_t k510 = 0, k61 = 0, len = 0, n;
	char *text = NULL;
	FILE *out;

	while (strcmp(kernels[k510], K510))
		k510++;
	while (strcmp(kernels[k61], K61))
		k61++;
	assert_true(nr_lookups > 50);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	n = drift_report(out, k510, 1u << k61);
	fclose(out);
	print_message("%s", text);
	assert_true(n >= 1);
	assert_non_null(strstr(text, "drift: scsi:scsi_dispatch_cmd_start driver_tag: absent here; "));
	assert_non_null(strstr(text, " in " K61 ";\n"));
	free(text);
	/* And the other way: 6.1 has it, where 5.10 had not. */
	text = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_true(drift_report(out, k61, 1u << k510) >= 1);
	fclose(out);
	assert_non_null(strstr(text, "drift: scsi:scsi_dispatch_cmd_start driver_tag: int"));
	assert_non_null(strstr(text, "here; absent in " K510 ";\n"));
	free(text);
}

/* test_spec - a tool whose events come from its argument subscribes to exactly those */
static void test_spec(void **state)
{
	static const struct {
		const char *spec;
		const char *const events[4];
	} cases[] = {
		{ "block:block_rq_issue", { "block_rq_issue" } },
		{ "t:block:block_rq_i*", { "block_rq_insert", "block_rq_issue" } },
		{ "block:block_rq_complete nr_sector > 8", { "block_rq_complete" } },
	};
	int checked = 0;

	for (const struct tool *const *tp = iotap_tools; *tp; tp++) {
		const struct tool *t = *tp;

		if (t->args != TOOL_ARGS_SPEC)
			continue;
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			void *params = calloc(1, t->params_size);
			struct session *s = testlib_session_new(t, params, SESSION_MAX_STACK_DEFAULT);
			size_t nr = 0;

			load(&s->fs, K618);
			s->ctx.spec = cases[c].spec;
			assert_int_equal(t->init(&s->ctx), 0);
			for (size_t i = 0; i < s->nr_ev; i++) {
				const char *const *e = cases[c].events;

				while (*e && strcmp(*e, s->ev[i]->name))
					e++;
				if (!*e || strcmp(s->ev[i]->sys, "block"))
					fail_msg("%s '%s' subscribes to %s:%s", t->name, cases[c].spec,
						 s->ev[i]->sys, s->ev[i]->name);
			}
			while (cases[c].events[nr])
				nr++;
			assert_int_equal(s->nr_ev, nr);
			testlib_session_free(s);
			free(params);
		}
		checked++;
	}
	assert_int_equal(checked, 1);
}

/* test_undeclared - the session refuses an event the tool did not declare */
static void test_undeclared(void **state)
{
	static const struct tool_event evs[] = { { "block", "block_rq_issue", 0 }, { NULL, NULL, 0 } };
	static const struct tool t = { .name = "t", .events = evs };
	struct session *s = testlib_session_new(&t, NULL, 0);

	log_set(on_log);
	load(&s->fs, K618);
	assert_null(iotap_event_use(&s->ctx, "block", "block_rq_complete", 0, NULL, NULL));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(last_err, "does not declare"));
	assert_null(iotap_event_use(&s->ctx, "block", "block_rq_issue", IOTAP_EV_KSTACK, NULL, NULL));
	assert_non_null(iotap_event_use(&s->ctx, "block", "block_rq_issue", 0, NULL, NULL));
	testlib_session_free(s);
	log_set(NULL);
}

/* test_undeclared_spec - a tool's specification declares the tracepoints it names, and no other */
static void test_undeclared_spec(void **state)
{
	static const struct tool_event none[] = { { NULL, NULL, 0 } };
	static const struct tool t = { .name = "t", .args = TOOL_ARGS_SPEC, .events = none };
	struct session *s = testlib_session_new(&t, NULL, 0);

	log_set(on_log);
	load(&s->fs, K618);
	s->ctx.spec = "block:block_rq_i* nr_sector > 8";
	assert_non_null(iotap_event_use(&s->ctx, "block", "block_rq_issue", 0, NULL, NULL));
	assert_non_null(iotap_event_use(&s->ctx, "block", "block_rq_insert", 0, NULL, NULL));
	assert_null(iotap_event_use(&s->ctx, "block", "block_rq_complete", 0, NULL, NULL));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(last_err, "does not declare"));
	testlib_session_free(s);
	log_set(NULL);
}

/* main - run the event table tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_undeclared),
		cmocka_unit_test(test_undeclared_spec),
	};

	int ret;

	if (!mkdtemp(str_dir))
		return 1;
	if (getenv("IOTAP_DRIFT_FORMATS"))
		kernels[nr_kernels++] = getenv("IOTAP_DRIFT_FORMATS");
	snprintf(str_arg, sizeof(str_arg), "%s/x", str_dir);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	for (const char *sfx = ""; sfx; sfx = *sfx ? NULL : ".tmp") {
		char path[sizeof(str_arg) + 4];

		snprintf(path, sizeof(path), "%s%s", str_arg, sfx);
		unlink(path);
	}
	rmdir(str_dir);
	return ret;
}
