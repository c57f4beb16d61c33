// SPDX-License-Identifier: GPL-2.0-or-later
/* record.c - iotap record: the events tools use, and all a later report needs, to a file */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "opt.h"
#include "record.h"
#include "recording.h"
#include "stacks.h"
#include "systrack.h"

#define NSEC_PER_SEC 1000000000ull
/* Processes per COMM chunk: 1.3 MB, well under the container's chunk limit. */
#define COMM_PER_CHUNK 65536
/* Bytes read from /proc/kallsyms per call; whatever the kernel gives is streamed as is. */
#define KSYM_READ (64u << 10)

#define P(f) offsetof(struct record_params, f)
static const struct opt record_opts[] = {
	{ 'o', "output", OPT_STR, P(output), "FILE", "write the recording to FILE (required; created mode 0600)" },
	{ 'f', "force", OPT_FLAG, P(force), NULL, "overwrite FILE if it exists" },
	{ 'g', NULL, OPT_FLAG, P(callchains), NULL,
	  "record kernel and user stacks on the events tools take stacks on, with /proc/kallsyms and the processes' mappings (--call-graph chooses how user stacks are walked)" },
	{ 'D', "duration", OPT_UINT, P(duration), "SECS", "stop after SECS seconds", NULL, 1, 0 },
	{ 0, "tools", OPT_STR, P(tools), "LIST",
	  "record the events of these tools, comma-separated (default: every block tool; see iotap list)" },
	{ 0, "all", OPT_FLAG, P(all), NULL, "record the events of every tool whose events this kernel has" },
	OPT_END
};

/* What a recording is being written with. */
struct recorder {
	struct rec_writer *w;
	uint64_t records, samples;
	uint8_t *rewrite;		/* PERF_RECORD_MAX: a sample with its callchain id */
	struct stackmap *stacks;	/* distinct callchains written so far: their id + 1 */
	int werr;			/* the first write error */
};

/* The traced command: stopped before exec until tracing runs. */
struct record_child {
	pid_t pid;
	int go;				/* a byte here lets it exec */
	int err;			/* errno of a failed exec comes back here */
};

/* Growing byte buffer for one section. */
struct secbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* sb_put - append n bytes; a failure sticks and is reported at the end */
static void sb_put(struct secbuf *b, const void *data, size_t n)
{
	/* n == 0 on an empty buffer would compute NULL + 0 below. */
	if (b->err || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* sb_u32 - append a u32 in the recording's (this machine's) byte order */
static void sb_u32(struct secbuf *b, uint32_t v)
{
	sb_put(b, &v, sizeof(v));
}

/* sb_u64 - append a u64 */
static void sb_u64(struct secbuf *b, uint64_t v)
{
	sb_put(b, &v, sizeof(v));
}

/* sb_str0 - append s in a zero-padded field of n bytes, always NUL-terminated */
static void sb_str0(struct secbuf *b, const char *s, size_t n)
{
	char field[64] = "";

	snprintf(field, n, "%s", s);
	sb_put(b, field, n);
}

/* sb_meta - append one key=value line, a line break in the value becoming a space */
static void __attribute__((format(printf, 3, 4)))
sb_meta(struct secbuf *b, const char *key, const char *fmt, ...)
{
	char val[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	for (char *c = val; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	sb_put(b, key, strlen(key));
	sb_put(b, "=", 1);
	sb_put(b, val, strlen(val));
	sb_put(b, "\n", 1);
}

/* rc_fail - remember the first write error */
static int rc_fail(struct recorder *rc, int err)
{
	if (err && !rc->werr)
		rc->werr = err;
	return err;
}

/* sb_flush - write the buffer as one whole section and empty it */
static int sb_flush(struct recorder *rc, struct secbuf *b, uint32_t type)
{
	int ret = b->err ? b->err : rec_writer_put(rc->w, type, b->p, b->len);

	b->len = 0;
	b->err = 0;
	return rc_fail(rc, ret);
}

/* record_ignore - the handler of recorded events: the sink takes every record first */
static int record_ignore(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return 0;
}

/* record_listed - whether name is an item of the comma-separated list */
static bool record_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* record_check_list - every item of --tools names a tool */
static int record_check_list(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!tool_find(tok)) {
			log_msg(LOG_ERR, "unknown tool '%s' in --tools; see 'iotap list'", tok);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

/* record_is_block_tool - a tool whose events are all block:* tracepoints */
static bool record_is_block_tool(const struct tool *t)
{
	if (!t->events || !t->events[0].sys)
		return false;
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (strcmp(e->sys, "block"))
			return false;
	return true;
}

/* record_tool_missing - an event a tool cannot do without that this kernel lacks, or NULL */
static const struct tool_event *record_tool_missing(struct session *s, const struct tool *t)
{
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (!(e->flags & TOOL_EV_OPTIONAL) && !iotap_event_available(&s->ctx, e->sys, e->name))
			return e;
	return NULL;
}

/* record_want - add a tool's events that this kernel has; stacks if any tool takes them */
static int record_want(struct session *s, const struct tool *t, bool stacks,
		       struct tool_event **want, size_t *nr)
{
	for (const struct tool_event *e = t->events; e->sys; e++) {
		unsigned int flags = stacks && (e->flags & TOOL_EV_STACK) ?
			IOTAP_EV_KSTACK | IOTAP_EV_USTACK : 0;
		struct tool_event *w;
		size_t i;

		if (!iotap_event_available(&s->ctx, e->sys, e->name))
			continue;
		for (i = 0; i < *nr; i++)
			if (!strcmp((*want)[i].sys, e->sys) && !strcmp((*want)[i].name, e->name))
				break;
		if (i == *nr) {
			w = realloc(*want, (*nr + 1) * sizeof(*w));
			if (!w)
				return -ENOMEM;
			*want = w;
			w[(*nr)++] = (struct tool_event){ e->sys, e->name, 0 };
		}
		(*want)[i].flags |= flags;
	}
	return 0;
}

/* record_select - subscribe to the events of the tools asked for (default: the block tools) */
static int record_select(struct session *s, const struct record_params *p, struct secbuf *names)
{
	struct tool_event *want = NULL;
	unsigned int stacks = 0;
	size_t nr = 0;
	int ret = 0;

	if (p->tools && p->all) {
		log_msg(LOG_ERR, "--tools and --all cannot be used together");
		return -EINVAL;
	}
	if (p->tools) {
		ret = record_check_list(p->tools);
		if (ret)
			return ret;
	}
	for (const struct tool *const *tp = iotap_tools; *tp && !ret; tp++) {
		const struct tool *t = *tp;
		const struct tool_event *miss;

		if (p->tools ? !record_listed(p->tools, t->name) &&
		    !(t->alias && record_listed(p->tools, t->alias)) :
		    !p->all && !record_is_block_tool(t))
			continue;
		if (!t->events || !t->events[0].sys) {
			if (p->tools) {
				log_msg(LOG_ERR, "%s declares no events that can be recorded", t->name);
				ret = -EINVAL;
			}
			continue;
		}
		miss = record_tool_missing(s, t);
		if (miss && p->tools) {
			log_msg(LOG_ERR, "%s needs %s:%s, which this kernel does not have",
				t->name, miss->sys, miss->name);
			ret = -ENOENT;
		} else if (miss) {
			log_msg(LOG_WARN, "not recording for %s: this kernel has no %s:%s",
				t->name, miss->sys, miss->name);
		} else {
			ret = record_want(s, t, p->callchains, &want, &nr);
			/* Probes the tool makes for itself (file names) are recorded too. */
			if (!ret && t->record)
				ret = t->record(&s->ctx);
			sb_put(names, ",", names->len ? 1 : 0);
			sb_put(names, t->name, strlen(t->name));
		}
	}
	for (size_t i = 0; i < nr && !ret; i++) {
		stacks |= want[i].flags;
		if (!iotap_event_use(&s->ctx, want[i].sys, want[i].name, want[i].flags,
				     record_ignore, NULL))
			ret = -errno;
	}
	if (!ret && p->callchains && !stacks)
		log_msg(LOG_WARN, "-g: none of these tools takes stacks; only the symbols are recorded");
	free(want);
	sb_put(names, "", 1);
	if (!ret && names->err)
		ret = names->err;
	if (!ret && !s->nr_ev) {
		log_msg(LOG_ERR, "no event to record");
		ret = -EINVAL;
	}
	return ret;
}

/* record_put_fmth - the header_page text the formats were parsed with */
static int record_put_fmth(struct recorder *rc, const struct session *s)
{
	struct secbuf b = { 0 };
	int ret;

	sb_u32(&b, REC_SEC_VERSION);
	sb_put(&b, s->fs.header_page, s->fs.header_page_len);
	ret = sb_flush(rc, &b, REC_SEC_FMTH);
	free(b.p);
	return ret;
}

/* record_put_disks - the block devices and their schedulers */
static int record_put_disks(struct recorder *rc, const struct session *s)
{
	struct secbuf b = { 0 };
	int ret;

	sb_u32(&b, REC_SEC_VERSION);
	sb_u32(&b, s->disks.nr);
	for (size_t i = 0; i < s->disks.nr; i++) {
		sb_u32(&b, s->disks.d[i].dev);
		sb_str0(&b, s->disks.d[i].name, 32);
		sb_str0(&b, s->disks.d[i].sched, 32);
	}
	ret = sb_flush(rc, &b, REC_SEC_DISK);
	free(b.p);
	return ret;
}

/* record_put_kallsyms - /proc/kallsyms as it is now, streamed */
static int record_put_kallsyms(struct recorder *rc)
{
	static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };
	char *buf = malloc(KSYM_READ);
	int fd, ret;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_msg(LOG_ERR, "cannot read /proc/kallsyms: %s", strerror(errno));
		goto out_free;
	}
	ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_KSYM, prefix, sizeof(prefix)));
	while (!ret && (n = read(fd, buf, KSYM_READ)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			log_msg(LOG_ERR, "cannot read /proc/kallsyms: %s", strerror(errno));
			break;
		}
		ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_KSYM, buf, n));
	}
	if (!ret)
		ret = rc_fail(rc, rec_writer_flush(rc->w));
	close(fd);
out_free:
	free(buf);
	return ret;
}

/* record_fmt_text - the format text an event was opened with */
static const struct fmt_event *record_fmt_text(const struct session *s, const char *sys,
					       const char *name)
{
	for (size_t i = 0; i < s->fs.nr; i++)
		if (!strcmp(s->fs.ev[i].sys, sys) && !strcmp(s->fs.ev[i].name, name))
			return &s->fs.ev[i];
	return NULL;
}

/* record_put_events - one EVNT per event: sample layout, perf ids per CPU, format text */
static int record_put_events(struct recorder *rc, const struct session *s)
{
	int nr_cpus = evlist_nr_cpus(s->el);
	struct secbuf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < s->nr_ev && !ret; i++) {
		const struct iotap_event *ev = s->ev[i];
		const struct fmt_event *fe = record_fmt_text(s, ev->sys, ev->name);

		if (!fe)
			return -ENOENT;
		/* Callchains go by id (record_rewrite()): a flag that version 1 has no room for. */
		bool ids = ev->sel->sample_type & PERF_SAMPLE_CALLCHAIN;

		sb_u32(&b, ids ? REC_EVNT_VERSION_FLAGS : REC_SEC_VERSION);
		sb_u32(&b, nr_cpus);
		sb_u64(&b, stacks_walked_type(ev->sel->sample_type));
		sb_u64(&b, 0);			/* no user registers are stored */
		sb_u32(&b, strlen(ev->sys));
		sb_u32(&b, strlen(ev->name));
		sb_u32(&b, fe->len);
		sb_u32(&b, ids ? REC_EVNT_CHAIN_IDS : 0);
		for (int c = 0; c < nr_cpus; c++)
			sb_u64(&b, ev->sel->ids[c]);
		sb_put(&b, ev->sys, strlen(ev->sys));
		sb_put(&b, ev->name, strlen(ev->name));
		sb_put(&b, fe->text, fe->len);
		ret = sb_flush(rc, &b, REC_SEC_EVNT);
	}
	free(b.p);
	return ret;
}

/* record_put_meta - the recording machine, the clock and what was recorded */
static int record_put_meta(struct recorder *rc, const struct session *s,
			   const struct record_params *p, const char *tools, char **command,
			   pid_t pid)
{
	struct secbuf b = { 0 };
	struct utsname u;
	int ret;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	sb_u32(&b, REC_SEC_VERSION);
	sb_meta(&b, "iotap", "%s", PACKAGE_VERSION);
	sb_meta(&b, "host", "%s", u.nodename);
	sb_meta(&b, "sysname", "%s", u.sysname);
	sb_meta(&b, "release", "%s", u.release);
	sb_meta(&b, "kversion", "%s", u.version);
	sb_meta(&b, "machine", "%s", u.machine);
	sb_meta(&b, "cpus", "%d", evlist_nr_cpus(s->el));
	sb_meta(&b, "page_size", "%d", s->fs.page_size);
	sb_meta(&b, "long_size", "%d", s->fs.long_size);
	sb_meta(&b, "byte_order", "%s", __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	sb_meta(&b, "clock", "monotonic");
	sb_meta(&b, "t_start", "%llu", (unsigned long long)s->t_start);
	sb_meta(&b, "wall_offset", "%lld", (long long)s->wall_offset);
	sb_meta(&b, "callchains", "%d", p->callchains);
	sb_meta(&b, "tools", "%s", tools);
	if (command) {
		struct secbuf cmd = { 0 };

		for (char **a = command; *a; a++) {
			sb_put(&cmd, a == command ? "" : " ", a != command);
			sb_put(&cmd, *a, strlen(*a));
		}
		sb_put(&cmd, "", 1);
		if (!cmd.err)
			sb_meta(&b, "command", "%s", (char *)cmd.p);
		free(cmd.p);
		sb_meta(&b, "command_pid", "%d", (int)pid);
	}
	ret = sb_flush(rc, &b, REC_SEC_META);
	free(b.p);
	return ret;
}

/* record_put_comms - the name of every process now; COMM and FORK records follow changes */
static int record_put_comms(struct recorder *rc)
{
	struct secbuf b = { 0 };
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint32_t n = 0;
	int ret = 0;

	if (!d) {
		log_msg(LOG_WARN, "cannot list /proc: %s; process names come from COMM records only",
			strerror(errno));
		return 0;
	}
	sb_u32(&b, REC_SEC_VERSION);
	sb_u32(&b, 0);
	while ((de = readdir(d)) && !ret) {
		char path[300], comm[32] = "", *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		ssize_t len;
		int fd;

		if (*end || end == de->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* gone since readdir */
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = 0;
		comm[strcspn(comm, "\n")] = 0;
		sb_u32(&b, pid);
		sb_str0(&b, comm, 16);
		if (++n == COMM_PER_CHUNK) {
			memcpy(b.p + 4, &n, 4);
			ret = sb_flush(rc, &b, REC_SEC_COMM);
			sb_u32(&b, REC_SEC_VERSION);
			sb_u32(&b, 0);
			n = 0;
		}
	}
	closedir(d);
	if (!ret && n) {
		memcpy(b.p + 4, &n, 4);
		ret = sb_flush(rc, &b, REC_SEC_COMM);
	}
	free(b.p);
	return ret;
}

/* record_put_maps - -g: every process's executable mappings now; MMAP2 records follow changes */
static int record_put_maps(struct recorder *rc)
{
	size_t len;
	void *buf;
	int ret = stacks_maps_snapshot(&buf, &len);

	if (ret) {
		log_msg(LOG_WARN, "cannot read the processes' mappings: %s; their user frames may stay unknown",
			strerror(-ret));
		return 0;
	}
	ret = rc_fail(rc, rec_writer_put(rc->w, REC_SEC_MAPS, buf, len));
	free(buf);
	return ret;
}

/* record_put_fds - fileio: every process's open descriptors now; syscalls follow changes */
static int record_put_fds(struct recorder *rc)
{
	size_t len;
	void *buf;
	int ret = systrack_fds_snapshot(&buf, &len);

	if (ret) {
		log_msg(LOG_WARN, "cannot read the processes' descriptors: %s; files opened before recording stay unnamed",
			strerror(-ret));
		return 0;
	}
	ret = rc_fail(rc, rec_writer_put(rc->w, REC_SEC_FDTB, buf, len));
	free(buf);
	return ret;
}

/* record_put_stat - after the records: when recording stopped, and how much it wrote */
static int record_put_stat(struct recorder *rc, uint64_t t_end)
{
	struct secbuf b = { 0 };
	int ret;

	sb_u32(&b, REC_SEC_VERSION);
	sb_u32(&b, 0);
	sb_u64(&b, t_end);
	sb_u64(&b, rc->records);
	sb_u64(&b, rc->samples);
	ret = sb_flush(rc, &b, REC_SEC_STAT);
	free(b.p);
	return ret;
}

/* record_put_stack - a callchain's id in the file; its REC_RECORD_STACK goes first if new */
static int record_put_stack(struct recorder *rc, const uint64_t *chain, uint32_t nr,
			    uint64_t *id)
{
	struct perf_event_header *h = (void *)rc->rewrite;
	uint64_t *v, *body = (uint64_t *)(h + 1);

	if (nr > (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8)
		nr = (PERF_RECORD_MAX - 1 - REC_STACK_FIXED) / 8;
	if (stackmap_count(rc->stacks) >= REC_STACKS_MAX)
		stackmap_clear(rc->stacks);
	v = stackmap_get(rc->stacks, 0, 0, chain, nr);
	if (!v)
		return -ENOMEM;
	if (!v[0]) {
		v[0] = stackmap_count(rc->stacks);
		h->type = REC_RECORD_STACK;
		h->misc = 0;
		h->size = REC_STACK_FIXED + nr * 8;
		body[0] = v[0] - 1;
		body[1] = nr;
		memcpy(body + 2, chain, nr * 8ull);
		if (rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, h, h->size)))
			return rc->werr;
	}
	*id = v[0] - 1;
	return 0;
}

/*
 * record_rewrite - a sample as the file keeps it: its callchain (a copied
 * user stack walked into it first, stacks_walk_record(): DWARF copies come
 * here, frame-pointer ones were walked as they left the ring) named by the
 * id of a REC_RECORD_STACK; any other record as it is. NULL with *err 0: a
 * sample that does not parse, dropped.
 */
static const struct perf_event_header *record_rewrite(struct session *s, struct recorder *rc,
						       const struct perf_event_header *rec, int *err)
{
	const struct iotap_event *ev;
	struct perf_sample smp;
	uint64_t type, regs_mask, id;
	int n;

	*err = 0;
	if (rec->type != PERF_RECORD_SAMPLE || !rc->stacks)
		return rec;
	ev = s->src->find(s, perf_record_id(rec));
	if (!ev || !(ev->sample_type & PERF_SAMPLE_CALLCHAIN))
		return rec;
	type = ev->sample_type;
	regs_mask = ev->regs_mask;
	if (type & PERF_SAMPLE_STACK_USER) {
		rec = stacks_walk_record(s, rec, type, regs_mask);
		type = stacks_walked_type(type);
		regs_mask = 0;
	}
	if (!rec || perf_sample_parse(rec, type, regs_mask, &smp))
		return NULL;
	*err = record_put_stack(rc, smp.ips, (uint32_t)smp.nr_ips, &id);
	if (*err)
		return NULL;
	smp.ips = &id;
	smp.nr_ips = 1;
	n = perf_sample_write(&smp, type, rec->misc, rc->rewrite, PERF_RECORD_MAX);
	return n < 0 ? NULL : (const void *)rc->rewrite;
}

/* record_sink - every record the merge emits, in time order, goes to the file */
static int record_sink(struct session *s, const struct perf_event_header *rec)
{
	struct recorder *rc = s->sink_arg;
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE) {
		rec = record_rewrite(s, rc, rec, &ret);
		if (!rec) {
			s->dropped += !ret;
			s->malformed += !ret;
			return ret;
		}
	} else if (s->sym && s->opts.call_graph == STACK_CG_DWARF) {
		/* The mappings DWARF unwinding needs, kept as a live tool keeps them. */
		stacks_session_record(s, rec);
	}
	ret = rc_fail(rc, rec_writer_stream(rc->w, REC_SEC_EVTS, rec, rec->size));
	if (ret)
		return ret;
	rc->records++;
	if (rec->type == PERF_RECORD_SAMPLE)
		rc->samples++;
	return 0;
}

/* record_on_child - the command exited: stop as a signal would */
static void record_on_child(int sig)
{
	session_stop = 1;
}

/* record_spawn - fork the command, held before exec until tracing runs */
static int record_spawn(char **argv, struct record_child *c)
{
	int go[2], ep[2], e;
	char b;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		e = -errno;
		goto close_go;
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		close(ep[0]);
		close(ep[1]);
		goto close_go;
	}
	if (c->pid == 0) {
		/* Ignored signals stay ignored across exec; the command gets the defaults. */
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go = go[1];
	c->err = ep[0];
	return 0;
close_go:
	close(go[0]);
	close(go[1]);
	return e;
}

/* record_release - let the command exec; -errno when it could not */
static int record_release(struct record_child *c)
{
	int e = 0;
	ssize_t n;

	n = write(c->go, "g", 1);
	close(c->go);
	c->go = -1;
	if (n != 1)
		return -EPIPE;
	/* EOF: exec closed the pipe; an int: exec failed with it. */
	do
		n = read(c->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err);
	c->err = -1;
	return n == sizeof(e) ? -e : 0;
}

/* record_reap - end the command if tracing stopped first; the wait status of one that ended */
static int record_reap(struct record_child *c)
{
	int st = 0;

	if (c->go >= 0)
		close(c->go);
	if (c->err >= 0)
		close(c->err);
	c->go = c->err = -1;
	if (c->pid <= 0)
		return 0;
	if (waitpid(c->pid, &st, WNOHANG) == 0) {
		/* Tracing stopped first (-D, a signal): the command's end is ours, not news. */
		kill(c->pid, SIGTERM);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		st = 0;
	}
	c->pid = -1;
	return st;
}

/* record_progress - tell the caller how far recording got */
static void record_progress(struct session *s, struct recorder *rc, record_progress_fn fn,
			    void *arg, bool final, int cmd_status)
{
	struct record_progress pr = {
		.elapsed_ns = mono_now() - s->t_start,
		.samples = rc->samples,
		.bytes = rec_writer_bytes(rc->w),
		.lost = session_lost_total(s),
		.final = final,
		.cmd_status = cmd_status,
	};

	if (fn)
		fn(arg, &pr);
}

/* record_loop - drain the rings into the file until stopped, the command exits or -D passes */
static int record_loop(struct session *s, struct recorder *rc, const struct record_params *p,
		       record_progress_fn fn, void *arg)
{
	uint64_t end = p->duration ? s->t_start + p->duration * NSEC_PER_SEC : UINT64_MAX;
	uint64_t tick = s->t_start + NSEC_PER_SEC;
	int ret;

	for (;;) {
		uint64_t deadline = tick < end ? tick : end;

		ret = s->src->run(s, deadline);
		if (ret <= 0)
			return ret;
		if (deadline == end) {
			/* Stop the kernel and write what is left. */
			session_stop = 1;
			return s->src->run(s, UINT64_MAX);
		}
		/* A chunk a second: the file grows as events come, and a crash loses a second at most. */
		ret = rc_fail(rc, rec_writer_flush(rc->w));
		if (ret)
			return ret;
		record_progress(s, rc, fn, arg, false, 0);
		tick += NSEC_PER_SEC;
	}
}

/* record_unlink - remove a recording that never started, if it is a file we made */
static void record_unlink(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* record_run - record until stopped; progress gets the status about once a second */
int record_run(const struct record_params *p, const struct session_opts *so_in, char **command,
	       record_progress_fn progress, void *arg)
{
	struct record_child child = { .pid = -1, .go = -1, .err = -1 };
	struct recorder rc = { 0 };
	struct session_opts so = *so_in;
	struct secbuf tools = { 0 };
	struct sigaction sa, old_sa;
	bool started = false;
	struct session s;
	int ret, status = 0;

	if (!p->output) {
		log_msg(LOG_ERR, "no output file: use -o FILE");
		return -EINVAL;
	}
	so.input = NULL;
	so.input_buf = NULL;
	so.track_mmap = p->callchains;
	rc.w = rec_writer_create(p->output, p->force);
	if (!rc.w) {
		ret = -errno;
		if (ret == -EEXIST)
			log_msg(LOG_ERR, "'%s' exists; use -f to overwrite it", p->output);
		else
			log_msg(LOG_ERR, "cannot create '%s': %s", p->output, strerror(errno));
		return ret;
	}
	/* The command's exit stops recording; a stop (SIGSTOP) does not. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);

	ret = session_init(&s, NULL, NULL, &so);
	if (!ret)
		ret = record_select(&s, p, &tools);
	if (!ret && p->callchains) {
		rc.rewrite = malloc(PERF_RECORD_MAX);
		rc.stacks = stackmap_alloc();
		if (!rc.rewrite || !rc.stacks)
			ret = -ENOMEM;
	}
	/* What needs no tracing yet goes first, so the rings do not wait on it. */
	if (!ret)
		ret = record_put_fmth(&rc, &s);
	if (!ret)
		ret = record_put_disks(&rc, &s);
	if (!ret && p->callchains)
		ret = record_put_kallsyms(&rc);
	if (!ret && command)
		ret = record_spawn(command, &child);
	if (ret)
		goto out_session;
	s.sink = record_sink;
	s.sink_arg = &rc;
	ret = s.src->run(&s, 0);
	if (!ret)
		ret = record_put_events(&rc, &s);
	if (!ret)
		ret = record_put_meta(&rc, &s, p, (char *)tools.p, command, child.pid);
	if (!ret)
		ret = record_put_comms(&rc);
	if (!ret && p->callchains)
		ret = record_put_maps(&rc);
	if (!ret && tools.p && record_listed((char *)tools.p, "fileio"))
		ret = record_put_fds(&rc);
	if (!ret) {
		static const uint32_t prefix[2] = { REC_SEC_VERSION, 0 };

		ret = rc_fail(&rc, rec_writer_stream(rc.w, REC_SEC_EVTS, prefix, sizeof(prefix)));
	}
	if (!ret && command) {
		ret = record_release(&child);
		if (ret)
			log_msg(LOG_ERR, "cannot run '%s': %s", command[0], strerror(-ret));
	}
	if (ret)
		goto out_session;
	started = true;
	ret = record_loop(&s, &rc, p, progress, arg);
	if (ret && !rc.werr)
		log_msg(LOG_ERR, "recording stopped: %s", strerror(-ret));
	status = record_reap(&child);
	session_warn_malformed(&s);
	/* What was written stays readable even after an error: a reader sees it as cut short. */
	if (!rc.werr && !record_put_stat(&rc, mono_now()))
		rc_fail(&rc, rec_writer_close(rc.w));
	if (!ret)
		ret = rc.werr;
	record_progress(&s, &rc, progress, arg, true, status);
out_session:
	record_reap(&child);
	if (rc.werr)
		log_msg(LOG_ERR, "cannot write '%s': %s", p->output, rec_strerror(rc.werr));
	session_release(&s);
	sigaction(SIGCHLD, &old_sa, NULL);
	rec_writer_free(rc.w);
	free(rc.rewrite);
	stackmap_free(rc.stacks);
	if (!started)
		record_unlink(p->output);
	free(tools.p);
	return ret;
}

const struct tool cmd_record = {
	.name = "record",
	.summary = "Record block I/O events to a file, for iotap report to analyse later.",
	.description =
		"Traces the events that the chosen tools use (by default every block tool; see each "
		"tool's EVENTS in iotap-TOOL(8)) and writes them to a file, with everything a later "
		"report needs and nothing it would otherwise take from the machine that analyses it: "
		"the kernel's own format text of each event, the block devices and their schedulers, "
		"the process names, the host, kernel, CPU count and clock. Events that this kernel "
		"lacks are skipped when a tool can do without them. Any tool then runs over the file "
		"with iotap report -i FILE TOOL (or iotap TOOL -i FILE), with the same output as live, "
		"on any machine and without privileges. "
		"With -g, user stacks are walked as they are recorded (see --call-graph) and each "
		"distinct callchain is stored once: the file holds no copies of stacks, and a report "
		"needs the traced binaries (or --symfs) only to name the frames. "
		"Recording stops at Ctrl-C, after -D seconds, or when the command given after the "
		"options exits. While stderr is a terminal a status line shows the time, events, "
		"bytes written and events lost so far; a summary line is always printed at the end. "
		"The file is created with mode 0600; its format is described in iotap-recording(5).",
	.examples =
		"iotap record -o io.iotap -D 10\n  Record the block events of every tool for ten seconds.\n"
		"iotap record -o io.iotap -- fio job.fio\n  Record while fio runs.\n"
		"iotap record -g -o stacks.iotap --tools biostacks\n  Record biostacks' events, with the stacks it takes.\n"
		"iotap report -i io.iotap biolatency -D\n  Analyse the recording later, anywhere.\n",
	.args = TOOL_ARGS_COMMAND,
	.opts = record_opts,
	.common = record_common_opts,
	.params_size = sizeof(struct record_params),
};
