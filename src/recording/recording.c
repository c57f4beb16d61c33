// SPDX-License-Identifier: GPL-2.0-or-later
/* recording.c - the session source that replays an iotap recording */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"
#include "log.h"
#include "opt.h"
#include "recording.h"
#include "stacks.h"
#include "usyms.h"

/* Largest kallsyms text accepted: real ones are 5 to 20 MiB. */
#define KSYM_MAX (64u << 20)
/* Distinct CPUs whose lost counts are kept; more only happens in a damaged file. */
#define LOST_CPUS_MAX 4096
/* Chunks decompressed ahead of the replay: one being replayed, the others ready. */
/* Inflating threads at most (see prefetch_workers()), and chunks in flight. */
#define PREFETCH_WORKERS 3
#define PREFETCH_SLOTS 8

/* One recorded event. */
struct rec_ev {
	const char *sys, *name;		/* the fmt_set's copies */
	uint64_t sample_type;
	uint64_t regs_mask;		/* with PERF_SAMPLE_REGS_USER */
	uint64_t count;			/* samples seen, for --info */
	bool chain_ids;			/* REC_EVNT_CHAIN_IDS */
	struct iotap_event *ev;		/* the session's, when a tool uses it */
};

/* The widest span of perf ids that file_lookup() indexes directly. */
#define ID_DENSE_MAX 65536

/* The callchains of REC_RECORD_STACK records so far, by id. */
struct rec_stacks {
	uint64_t *ips;			/* every chain, end to end */
	size_t len, cap;
	struct rec_stack {
		size_t at;		/* into ips */
		uint32_t nr;
	} *st;
	size_t nr, cap_st;
};

struct rec_id {
	uint64_t id;
	size_t idx;			/* into evs */
};

struct rec_lost {
	int cpu;
	uint64_t lost;
};

/* A section kept until META is known (FMTH, EVNT). */
struct rec_blob {
	uint32_t type;
	uint8_t *data;
	size_t len;
};

/* The META values, pointing into text. */
struct rec_meta {
	char *text;
	const char *iotap, *host, *sysname, *release, *kversion, *machine, *command;
	const char *byte_order, *clock;
	int nr_cpus, command_pid, page_size, long_size;
	uint64_t t_start;
	int64_t wall_offset;
	bool have_t_start;
};

/* One chunk of records, inflated by a worker for the replay. */
struct chunk_slot {
	uint8_t *data;
	size_t len, cap;
	uint32_t type;
	uint64_t seq;			/* the chunk's place in the file */
	bool ready;			/* inflated (or failed: err) */
	int err;
	uint64_t offset;		/* of the chunk in the file */
};

/*
 * Chunks after the first records are read and inflated by worker threads,
 * a few ahead of the replay: chunks are independent, so workers inflate
 * them side by side while the replay consumes them in file order.
 * Decompression then costs the replay nothing when other CPUs are free.
 * Workers take the reader in turn (under the lock) to read the next
 * compressed chunk, then inflate it outside the lock into the slot of its
 * sequence number, which nobody else touches until it is ready.
 */
struct prefetch {
	pthread_t thread[PREFETCH_WORKERS];
	int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk_slot slot[PREFETCH_SLOTS];
	uint64_t head, tail;		/* chunks taken from the reader, chunks given back */
	bool holding;			/* the replay is using slot[tail] */
	int end;			/* 0: more to come; 1: END; else the reader's error */
	uint64_t end_at;		/* file offset of that error */
	bool stop;
};

struct file_src {
	struct rec_reader *r;
	struct prefetch pf;
	const char *path;
	struct rec_meta meta;
	struct rec_blob *blobs;
	size_t nr_blobs;
	struct rec_ev *evs;
	size_t nr_evs;
	struct rec_id *ids;
	size_t nr_ids;
	/* Perf ids are handed out in sequence: a direct table when they span little. */
	uint32_t *id_dense;		/* id - id_base -> index into evs + 1; 0: none */
	uint64_t id_base, id_span;
	char *ksym;
	size_t ksym_len, ksym_cap;
	bool ksym_started;
	/* The kernel symbols are parsed by a thread while the records replay. */
	pthread_t ks_thread;
	bool ks_parsing;
	struct ksyms *ks;
	int ks_errno;
	bool info;			/* recording_info(): count samples, deliver none */
	/* The chunk of records being replayed, and the next record in it. */
	const uint8_t *chunk;
	size_t len, pos;
	bool ended;			/* END or the cut was reached */
	bool at_end;			/* run() said so; the cut is then worth a warning */
	bool cut;
	uint64_t cut_at;
	bool have_t_end;
	uint64_t t_end, last_time;
	uint64_t records;
	struct rec_lost *lost;
	size_t nr_lost;
	struct rec_stacks stacks;
	struct recording_event *info_ev;
};

/* rd32 - a u32 of the file */
static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* rd64 - a u64 of the file */
static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* file_bad - say what is wrong with the recording; returns the code for it */
static int __attribute__((format(printf, 2, 3)))
file_bad(const struct file_src *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "cannot read '%s': invalid recording: %s", f->path, msg);
	return -REC_ECORRUPT;
}

/* file_rec_error - a container error, with rec_strerror's words */
static int file_rec_error(const struct file_src *f, int code)
{
	log_msg(LOG_ERR, "cannot read '%s': %s", f->path, rec_strerror(code));
	return code;
}

/* meta_int - a decimal META value within [min, max] */
static int meta_int(const char *v, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* meta_parse - the key=value lines of META; unknown keys are for later versions */
static int meta_parse(struct file_src *f, const uint8_t *data, size_t len)
{
	struct rec_meta *m = &f->meta;
	char *line, *save = NULL;
	int64_t v = 0;

	if (m->text)
		return file_bad(f, "two META sections");
	if (len < 4 || rd32(data) != REC_SEC_VERSION)
		return file_bad(f, "META version %u is not supported", len < 4 ? 0 : rd32(data));
	m->text = malloc(len - 4 + 1);
	if (!m->text)
		return -ENOMEM;
	memcpy(m->text, data + 4, len - 4);
	m->text[len - 4] = 0;
	if (strlen(m->text) != len - 4)
		return file_bad(f, "META holds a NUL byte");
	for (line = strtok_r(m->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const struct {
			const char *key;
			size_t off;
		} strs[] = {
			{ "iotap", offsetof(struct rec_meta, iotap) },
			{ "host", offsetof(struct rec_meta, host) },
			{ "sysname", offsetof(struct rec_meta, sysname) },
			{ "release", offsetof(struct rec_meta, release) },
			{ "kversion", offsetof(struct rec_meta, kversion) },
			{ "machine", offsetof(struct rec_meta, machine) },
			{ "command", offsetof(struct rec_meta, command) },
			{ "byte_order", offsetof(struct rec_meta, byte_order) },
			{ "clock", offsetof(struct rec_meta, clock) },
		};
		char *val = strchr(line, '=');
		bool bad = false;

		if (!val)
			continue;
		*val++ = 0;
		for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
			if (!strcmp(line, strs[i].key))
				*(const char **)((char *)m + strs[i].off) = val;
		if (!strcmp(line, "cpus")) {
			bad = meta_int(val, 1, 1 << 20, &v);
			m->nr_cpus = v;
		} else if (!strcmp(line, "command_pid")) {
			bad = meta_int(val, 0, INT32_MAX, &v);
			m->command_pid = v;
		} else if (!strcmp(line, "page_size")) {
			bad = meta_int(val, 512, 1 << 20, &v) || (v & (v - 1));
			m->page_size = v;
		} else if (!strcmp(line, "long_size")) {
			bad = meta_int(val, 4, 8, &v) || (v != 4 && v != 8);
			m->long_size = v;
		} else if (!strcmp(line, "t_start")) {
			bad = meta_int(val, 0, INT64_MAX, &v);
			m->t_start = v;
			m->have_t_start = true;
		} else if (!strcmp(line, "wall_offset")) {
			bad = meta_int(val, INT64_MIN, INT64_MAX, &v);
			m->wall_offset = v;
		}
		if (bad)
			return file_bad(f, "META %s=%s is out of range", line, val);
	}
	return 0;
}

/* meta_check - what replaying needs from META */
static int meta_check(struct file_src *f)
{
	const struct rec_meta *m = &f->meta;
	const char *native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big";

	if (!m->text)
		return file_bad(f, "no META section");
	if (!m->byte_order || strcmp(m->byte_order, native))
		return file_bad(f, "recorded on a %s-endian machine; this one is %s-endian",
				m->byte_order ? m->byte_order : "an unknown", native);
	if (!m->clock || strcmp(m->clock, "monotonic"))
		return file_bad(f, "events use clock '%s', not monotonic", m->clock ? m->clock : "?");
	if (!m->page_size || !m->long_size || !m->have_t_start)
		return file_bad(f, "META lacks page_size, long_size or t_start");
	return 0;
}

/* blob_keep - copy a section that can only be read once META is known */
static int blob_keep(struct file_src *f, uint32_t type, const uint8_t *data, size_t len)
{
	struct rec_blob *b = realloc(f->blobs, (f->nr_blobs + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	f->blobs = b;
	b = &f->blobs[f->nr_blobs];
	b->data = malloc(len ? len : 1);
	if (!b->data)
		return -ENOMEM;
	if (len)
		memcpy(b->data, data, len);
	b->len = len;
	b->type = type;
	f->nr_blobs++;
	return 0;
}

/* name_ok - a subsystem or event name: printable, no ':' or '/' */
static bool name_ok(const uint8_t *p, size_t len)
{
	if (!len || len > 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (p[i] <= ' ' || p[i] >= 0x7f || p[i] == ':' || p[i] == '/')
			return false;
	return true;
}

/* ident_char - a letter, digit or underscore */
static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ident_len - length of the C identifier at p (at most n bytes) */
static size_t ident_len(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ident_char(p[i]) && (i || p[i] < '0' || p[i] > '9'))
		i++;
	return i;
}

/* fmt_has_field - whether a "field:TYPE NAME[...];" line of the text declares name */
static bool fmt_has_field(const char *text, size_t len, const char *name, size_t nlen)
{
	for (const char *p = text, *end = text + len; (p = memmem(p, end - p, "field:", 6)); p += 6) {
		const char *semi = memchr(p, ';', end - p), *q;

		if (!semi)
			return false;
		q = semi;
		if (q > p && q[-1] == ']')
			while (q > p && *q != '[')
				q--;
		if (q - p >= (ptrdiff_t)nlen && !memcmp(q - nlen, name, nlen) &&
		    (q - nlen == p || !ident_char(q[-(ptrdiff_t)nlen - 1])))
			return true;
	}
	return false;
}

/* skip_lit - p past the literal lit, or NULL when it is not there */
static const char *skip_lit(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return end - p >= (ptrdiff_t)n && !memcmp(p, lit, n) ? p + n : NULL;
}

/* skip_num - p past a decimal number of at most 9 digits, or NULL */
static const char *skip_num(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && q - p < 10 && *q >= '0' && *q <= '9')
		q++;
	return q > p && q - p < 10 ? q : NULL;
}

/* field_line_ok - "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:0|1;", as the kernel writes it */
static bool field_line_ok(const char *p, const char *end)
{
	const char *semi;

	if (!(p = skip_lit(p, end, "\tfield:")))
		return false;
	semi = memchr(p, ';', end - p);
	if (!semi || semi == p || memchr(p, '\t', semi - p))
		return false;
	p = skip_lit(semi, end, ";\toffset:");
	p = p ? skip_num(p, end) : NULL;
	p = p ? skip_lit(p, end, ";\tsize:") : NULL;
	p = p ? skip_num(p, end) : NULL;
	p = p ? skip_lit(p, end, ";\tsigned:") : NULL;
	return p && end - p == 2 && (*p == '0' || *p == '1') && p[1] == ';';
}

/* skip_string - p (at a '"') past the end of its string literal, or NULL */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/*
 * print_fmt_ok - the arguments of a print fmt: string literals closed, (), [] and {}
 * nested, no tab or line end outside a string. libtraceevent 1.7 dereferences NULL on some that are not (an
 * unclosed __print_symbolic( whose table holds "{ X[1] }").
 */
static bool print_fmt_ok(const char *p, const char *end)
{
	char open[64];
	int depth = 0;

	for (; p < end; p++) {
		char c = *p, want;

		if (c == '"') {
			p = skip_string(p, end);
			if (!p)
				return false;
			p--;
			continue;
		}
		if (c == '\t' || c == '\n')
			return false;
		if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(open))
				return false;
			open[depth++] = c;
			continue;
		}
		if (c != ')' && c != ']' && c != '}')
			continue;
		want = c == ')' ? '(' : c == ']' ? '[' : '{';
		if (!depth || open[--depth] != want)
			return false;
	}
	return depth == 0;
}

/*
 * fmt_text_ok - a format text laid out as the kernel writes them, in printable
 * ASCII, whose print format names only declared fields and ends the text.
 * libtraceevent 1.7 dereferences NULL on some texts that are not (a size that
 * is no number, a control character in a declaration, a REC->field that does
 * not exist, a malformed symbol table); the kernel never writes those, but a
 * file can hold anything.
 */
bool fmt_text_ok(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *pf = NULL;
	int line = 0;

	/* Printable ASCII, tabs and line ends: libtraceevent's tokenizer knows nothing else. */
	for (size_t i = 0; i < len; i++)
		if ((text[i] < ' ' || text[i] > '~') && text[i] != '\t' && text[i] != '\n')
			return false;

	for (; p < end && !pf; p = nl + 1, line++) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return false;
		if (line == 0 ? !skip_lit(p, nl, "name: ") :
		    line == 1 ? !skip_lit(p, nl, "ID: ") || skip_num(p + 4, nl) != nl :
		    line == 2 ? nl - p != 7 || !skip_lit(p, nl, "format:") :
		    skip_lit(p, nl, "print fmt: ") ? !(pf = p) : nl != p && !field_line_ok(p, nl))
			return false;
	}
	/* The print fmt is the last thing, one line but for line ends inside its string. */
	if (!pf || end[-1] != '\n' || !print_fmt_ok(pf + 11, end - 1))
		return false;
	for (p = pf; (p = memmem(p, end - p, "REC->", 5)); ) {
		size_t n;

		p += 5;
		n = ident_len(p, end - p);
		if (!n || !fmt_has_field(text, pf - text, p, n))
			return false;
		p += n;
	}
	return true;
}

/* evnt_add - one EVNT section: its format into the fmt_set, its ids into the map */
static int evnt_add(struct session *s, struct file_src *f, const uint8_t *p, size_t len)
{
	uint64_t sample_type, regs_mask, nr_ids, sl, nl, fl, need;
	char sys[65], name[65];
	struct rec_ev *ev;
	struct rec_id *ids;
	const uint8_t *q;
	uint32_t flags;

	if (len < REC_EVNT_FIXED ||
	    (rd32(p) != REC_SEC_VERSION && rd32(p) != REC_EVNT_VERSION_FLAGS))
		return file_bad(f, "EVNT section of %zu bytes, version %u", len, len < 4 ? 0 : rd32(p));
	flags = rd32(p + 36);
	if ((rd32(p) == REC_SEC_VERSION && flags) || (flags & ~REC_EVNT_CHAIN_IDS))
		return file_bad(f, "EVNT section with unknown flags %#x", flags);
	nr_ids = rd32(p + 4);
	sample_type = rd64(p + 8);
	regs_mask = rd64(p + 16);
	sl = rd32(p + 24);
	nl = rd32(p + 28);
	fl = rd32(p + 32);
	need = REC_EVNT_FIXED + nr_ids * 8 + sl + nl + fl;
	if (nr_ids > 65536 || need != len)
		return file_bad(f, "EVNT lengths do not add up to its %zu bytes", len);
	q = p + REC_EVNT_FIXED + nr_ids * 8;
	if (!name_ok(q, sl) || !name_ok(q + sl, nl))
		return file_bad(f, "EVNT names an event with an invalid name");
	memcpy(sys, q, sl);
	sys[sl] = 0;
	memcpy(name, q + sl, nl);
	name[nl] = 0;
	if ((sample_type & IOTAP_SAMPLE_BASE) != IOTAP_SAMPLE_BASE ||
	    (sample_type & ~(IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER)))
		return file_bad(f, "%s:%s has sample_type %#" PRIx64 ", which iotap cannot decode",
				sys, name, sample_type);
	if ((flags & REC_EVNT_CHAIN_IDS) &&
	    (!(sample_type & PERF_SAMPLE_CALLCHAIN) ||
	     (sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))))
		return file_bad(f, "%s:%s has callchain ids without a callchain", sys, name);
	if (fmt_set_find(&s->fs, sys, name))
		return file_bad(f, "%s:%s is recorded twice", sys, name);
	if (!fmt_text_ok((const char *)q + sl + nl, fl))
		return file_bad(f, "the format text of %s:%s is not one the kernel writes", sys, name);
	if (!fmt_set_add(&s->fs, sys, name, (const char *)q + sl + nl, fl)) {
		if (errno == ENOMEM)
			return -ENOMEM;
		return file_bad(f, "the format of %s:%s cannot be parsed", sys, name);
	}
	ev = realloc(f->evs, (f->nr_evs + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	f->evs = ev;
	ids = realloc(f->ids, (f->nr_ids + nr_ids + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	f->ids = ids;
	for (uint64_t i = 0; i < nr_ids; i++) {
		f->ids[f->nr_ids].id = rd64(p + REC_EVNT_FIXED + i * 8);
		f->ids[f->nr_ids++].idx = f->nr_evs;
	}
	ev = &f->evs[f->nr_evs++];
	memset(ev, 0, sizeof(*ev));
	ev->sys = s->fs.ev[s->fs.nr - 1].sys;
	ev->name = s->fs.ev[s->fs.nr - 1].name;
	ev->sample_type = sample_type;
	ev->regs_mask = sample_type & PERF_SAMPLE_REGS_USER ? regs_mask : 0;
	ev->chain_ids = flags & REC_EVNT_CHAIN_IDS;
	return 0;
}

/* disk_parse - the block device table */
static int disk_parse(struct session *s, struct file_src *f, const uint8_t *p, size_t len)
{
	uint32_t n;

	if (len < 8 || rd32(p) != REC_SEC_VERSION)
		return file_bad(f, "DISK section of %zu bytes, version %u", len, len < 4 ? 0 : rd32(p));
	n = rd32(p + 4);
	if ((len - 8) / REC_DISK_ENTRY < n)
		return file_bad(f, "DISK says %u devices in %zu bytes", n, len);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = p + 8 + (size_t)i * REC_DISK_ENTRY;
		char name[32], sched[32];
		int ret;

		memcpy(name, e + 4, 31);
		name[31] = 0;
		memcpy(sched, e + 36, 31);
		sched[31] = 0;
		ret = disk_table_add(&s->disks, rd32(e), name, sched);
		if (ret)
			return ret;
	}
	return 0;
}

/* comm_parse - process names as they were when recording began */
static int comm_parse(struct session *s, struct file_src *f, const uint8_t *p, size_t len)
{
	uint32_t n;

	if (len < 8 || rd32(p) != REC_SEC_VERSION)
		return file_bad(f, "COMM section of %zu bytes, version %u", len, len < 4 ? 0 : rd32(p));
	n = rd32(p + 4);
	if ((len - 8) / REC_COMM_ENTRY < n)
		return file_bad(f, "COMM says %u processes in %zu bytes", n, len);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = p + 8 + (size_t)i * REC_COMM_ENTRY;

		session_comm_cache(s, rd32(e), (const char *)e + 4);
	}
	return 0;
}

/* stream_open - check the prefix of a streamed section; returns its length */
static int stream_open(struct file_src *f, const char *what, const uint8_t *p, size_t len)
{
	if (len < REC_STREAM_PREFIX || rd32(p) != REC_SEC_VERSION)
		return file_bad(f, "%s stream version %u is not supported", what, len < 4 ? 0 : rd32(p));
	return REC_STREAM_PREFIX;
}

/* ksym_append - one chunk of the kallsyms text */
static int ksym_append(struct file_src *f, const uint8_t *p, size_t len)
{
	size_t need;

	if (!f->ksym_started) {
		int skip = stream_open(f, "KSYM", p, len);

		if (skip < 0)
			return skip;
		p += skip;
		len -= skip;
		f->ksym_started = true;
	}
	need = f->ksym_len + len + 1;
	if (need > KSYM_MAX)
		return file_bad(f, "KSYM is larger than %u MiB", KSYM_MAX >> 20);
	if (need > f->ksym_cap) {
		size_t cap = f->ksym_cap ? f->ksym_cap : 1 << 20;
		char *k;

		while (cap < need)
			cap *= 2;
		k = realloc(f->ksym, cap);
		if (!k)
			return -ENOMEM;
		f->ksym = k;
		f->ksym_cap = cap;
	}
	memcpy(f->ksym + f->ksym_len, p, len);
	f->ksym_len += len;
	f->ksym[f->ksym_len] = 0;
	return 0;
}

/* stat_parse - the end time the recorder wrote when it stopped */
static int stat_parse(struct file_src *f, const uint8_t *p, size_t len)
{
	if (len < REC_STAT_SIZE || rd32(p) != REC_SEC_VERSION)
		return file_bad(f, "STAT section of %zu bytes, version %u", len, len < 4 ? 0 : rd32(p));
	f->t_end = rd64(p + 8);
	f->have_t_end = true;
	return 0;
}

/* rec_id_cmp - order the id map for bsearch */
static int rec_id_cmp(const void *a, const void *b)
{
	const struct rec_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* file_build - once the records start: the formats, the events and the clock */
static int file_build(struct session *s, struct file_src *f)
{
	const struct rec_blob *hp = NULL;
	int ret = meta_check(f);

	if (ret)
		return ret;
	for (size_t i = 0; i < f->nr_blobs; i++) {
		if (f->blobs[i].type != REC_SEC_FMTH)
			continue;
		if (hp)
			return file_bad(f, "two FMTH sections");
		hp = &f->blobs[i];
	}
	if (!hp || hp->len < 4 || rd32(hp->data) != REC_SEC_VERSION)
		return file_bad(f, "no FMTH section of a known version");
	ret = fmt_set_init(&s->fs, (const char *)hp->data + 4, hp->len - 4, f->meta.long_size,
			   f->meta.page_size);
	if (ret)
		return ret;
	for (size_t i = 0; i < f->nr_blobs; i++) {
		if (f->blobs[i].type != REC_SEC_EVNT)
			continue;
		ret = evnt_add(s, f, f->blobs[i].data, f->blobs[i].len);
		if (ret)
			return ret;
	}
	if (f->nr_ids) {
		qsort(f->ids, f->nr_ids, sizeof(*f->ids), rec_id_cmp);
		f->id_base = f->ids[0].id;
		f->id_span = f->ids[f->nr_ids - 1].id - f->id_base + 1;
		if (f->id_span <= ID_DENSE_MAX) {
			f->id_dense = calloc(f->id_span, sizeof(*f->id_dense));
			for (size_t i = 0; f->id_dense && i < f->nr_ids; i++)
				f->id_dense[f->ids[i].id - f->id_base] = (uint32_t)f->ids[i].idx + 1;
		}
	}
	s->t_start = f->meta.t_start;
	s->now = s->t_start;
	s->wall_offset = f->meta.wall_offset;
	f->last_time = s->t_start;
	return 0;
}

/* file_section - take one section of the part before the records */
static int file_section(struct session *s, struct file_src *f, uint32_t type, const uint8_t *p,
			size_t len)
{
	switch (type) {
	case REC_SEC_META:
		return meta_parse(f, p, len);
	case REC_SEC_FMTH:
	case REC_SEC_EVNT:
	case REC_SEC_MAPS:
	case REC_SEC_CGRP:
		return blob_keep(f, type, p, len);
	case REC_SEC_DISK:
		return disk_parse(s, f, p, len);
	case REC_SEC_COMM:
		return comm_parse(s, f, p, len);
	case REC_SEC_KSYM:
		return ksym_append(f, p, len);
	case REC_SEC_STAT:
		return stat_parse(f, p, len);
	default:
		return 0;	/* a section of a later version */
	}
}

/* slot_reserve - room for n bytes (and the one inflating needs spare) in a slot */
static int slot_reserve(struct chunk_slot *sl, size_t n)
{
	uint8_t *p;

	if (n + 1 <= sl->cap)
		return 0;
	p = realloc(sl->data, n + 1);
	if (!p)
		return -ENOMEM;
	sl->data = p;
	sl->cap = n + 1;
	return 0;
}

/* prefetch_main - a worker: take the next chunk from the reader, inflate it into its slot */
static void *prefetch_main(void *arg)
{
	struct file_src *f = arg;
	struct prefetch *pf = &f->pf;
	struct rec_inflater *z = rec_inflater_new();
	struct rec_packed c;
	struct chunk_slot *sl;
	uint8_t *copy = NULL;
	size_t copy_cap = 0;
	int ret;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (pf->head - pf->tail >= PREFETCH_SLOTS && !pf->stop && !pf->end)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop || pf->end)
			break;
		ret = z ? rec_reader_next_packed(f->r, &c) : -ENOMEM;
		if (ret <= 0) {
			pf->end = ret ? ret : 1;
			pf->end_at = rec_reader_offset(f->r);
			pthread_cond_broadcast(&pf->cond);
			break;
		}
		/* The payload lasts until the reader's next call: keep a copy. */
		if (c.len > copy_cap) {
			uint8_t *p = realloc(copy, c.len);

			if (!p) {
				pf->end = -ENOMEM;
				pthread_cond_broadcast(&pf->cond);
				break;
			}
			copy = p;
			copy_cap = c.len;
		}
		memcpy(copy, c.payload, c.len);
		c.payload = copy;
		sl = &pf->slot[pf->head % PREFETCH_SLOTS];
		sl->seq = pf->head++;
		sl->ready = false;
		pthread_mutex_unlock(&pf->lock);

		ret = slot_reserve(sl, c.raw_len);
		if (!ret)
			ret = rec_inflate(z, &c, sl->data);
		sl->type = c.type;
		sl->len = c.raw_len;
		sl->offset = c.offset;

		pthread_mutex_lock(&pf->lock);
		sl->err = ret;
		sl->ready = true;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	free(copy);
	rec_inflater_free(z);
	return NULL;
}

/*
 * prefetch_workers - how many threads inflate: one per CPU we may use, up
 * to PREFETCH_WORKERS (on two CPUs, two workers and the replay beat one
 * worker by a quarter: inflating is the larger half of a report's work)
 */
static int prefetch_workers(void)
{
	cpu_set_t set;
	int cpus;

	/* The affinity mask, not /sys: a report reads nothing of the machine it runs on. */
	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	return cpus < 1 ? 1 : cpus < PREFETCH_WORKERS ? cpus : PREFETCH_WORKERS;
}

/* prefetch_start - take the first chunk of records, then read ahead in worker threads */
static int prefetch_start(struct file_src *f, const void *data, size_t len)
{
	struct prefetch *pf = &f->pf;
	struct chunk_slot *sl = &pf->slot[0];
	int ret = slot_reserve(sl, len), want = prefetch_workers();

	if (ret)
		return ret;
	memcpy(sl->data, data, len);
	sl->len = len;
	sl->type = REC_SEC_EVTS;
	sl->seq = 0;
	sl->ready = true;
	pf->head = 1;
	pf->holding = true;
	f->chunk = sl->data;
	f->len = len;
	if (pthread_mutex_init(&pf->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&pf->cond, NULL)) {
		pthread_mutex_destroy(&pf->lock);
		return -ENOMEM;
	}
	for (int i = 0; i < want; i++) {
		ret = -pthread_create(&pf->thread[i], NULL, prefetch_main, f);
		if (ret)
			break;
		pf->nr_workers++;
	}
	if (!pf->nr_workers) {
		pthread_cond_destroy(&pf->cond);
		pthread_mutex_destroy(&pf->lock);
		return ret;
	}
	return 0;
}

/* prefetch_stop - end the workers and free the slots; safe when none ran */
static void prefetch_stop(struct prefetch *pf)
{
	if (pf->nr_workers) {
		pthread_mutex_lock(&pf->lock);
		pf->stop = true;
		pthread_cond_broadcast(&pf->cond);
		pthread_mutex_unlock(&pf->lock);
		for (int i = 0; i < pf->nr_workers; i++)
			pthread_join(pf->thread[i], NULL);
		pthread_cond_destroy(&pf->cond);
		pthread_mutex_destroy(&pf->lock);
		pf->nr_workers = 0;
	}
	for (int i = 0; i < PREFETCH_SLOTS; i++)
		free(pf->slot[i].data);
	memset(pf->slot, 0, sizeof(pf->slot));
}

/*
 * prefetch_next - give back the slot in use and wait for the next chunk in
 * file order; 1, or the end: 0 at END, else the error (at *end_at)
 */
static int prefetch_next(struct prefetch *pf, struct chunk_slot **out, uint64_t *end_at)
{
	struct chunk_slot *sl;
	int ret;

	pthread_mutex_lock(&pf->lock);
	if (pf->holding)
		pf->tail++;
	pf->holding = false;
	pthread_cond_broadcast(&pf->cond);
	sl = &pf->slot[pf->tail % PREFETCH_SLOTS];
	while (!(pf->head > pf->tail && sl->ready && sl->seq == pf->tail) &&
	       !(pf->end && pf->head == pf->tail))
		pthread_cond_wait(&pf->cond, &pf->lock);
	if (pf->head > pf->tail && sl->err) {
		/* Damaged in the middle: cut there, as a reader that stopped at it would. */
		ret = sl->err;
		*end_at = sl->offset;
	} else if (pf->head > pf->tail) {
		*out = sl;
		pf->holding = true;
		ret = 1;
	} else {
		ret = pf->end == 1 ? 0 : pf->end;
		*end_at = pf->end_at;
	}
	pthread_mutex_unlock(&pf->lock);
	return ret;
}

/* file_open - read everything before the records: formats, events, disks, names */
static int file_open(struct session *s)
{
	struct file_src *f = calloc(1, sizeof(*f));
	const void *data;
	uint32_t type;
	size_t len;
	int ret;

	if (!f)
		return -ENOMEM;
	s->src_priv = f;
	f->path = s->opts.input ? s->opts.input : "(memory)";
	if (s->opts.input)
		f->r = rec_reader_open(s->opts.input, &ret);
	else
		f->r = rec_reader_open_mem(s->opts.input_buf, s->opts.input_len, &ret);
	if (!f->r)
		return file_rec_error(f, ret);
	for (;;) {
		ret = rec_reader_next(f->r, &type, &data, &len);
		if (ret == -REC_ETRUNC) {
			f->cut = f->ended = true;
			f->cut_at = rec_reader_offset(f->r);
			break;
		}
		if (ret < 0)
			return file_rec_error(f, ret);
		if (ret == 0) {
			f->ended = true;
			break;
		}
		if (type == REC_SEC_EVTS) {
			ret = stream_open(f, "EVTS", data, len);
			if (ret < 0)
				return ret;
			f->pos = ret;
			ret = prefetch_start(f, data, len);
			if (ret)
				return ret;
			break;
		}
		ret = file_section(s, f, type, data, len);
		if (ret)
			return ret;
	}
	/* Every complete recording has records, if only their prefix: cut before them, none is usable. */
	if (f->cut)
		return file_rec_error(f, -REC_ETRUNC);
	return file_build(s, f);
}

/* file_lookup - the recorded event a sample id belongs to */
static struct rec_ev *file_lookup(struct file_src *f, uint64_t id)
{
	struct rec_id key = { .id = id }, *e;

	if (f->id_dense) {
		uint64_t at = id - f->id_base;

		return at < f->id_span && f->id_dense[at] ? &f->evs[f->id_dense[at] - 1] : NULL;
	}
	e = bsearch(&key, f->ids, f->nr_ids, sizeof(key), rec_id_cmp);
	return e ? &f->evs[e->idx] : NULL;
}

/* file_bind - give the tool's events the recorded sample layout (the run(0) call) */
static int file_bind(struct session *s, struct file_src *f)
{
	for (size_t i = 0; i < f->nr_evs; i++) {
		struct rec_ev *re = &f->evs[i];

		for (size_t k = 0; k < s->nr_ev; k++) {
			struct iotap_event *ev = s->ev[k];

			if (strcmp(ev->sys, re->sys) || strcmp(ev->name, re->name))
				continue;
			if ((ev->flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) &&
			    !(re->sample_type & PERF_SAMPLE_CALLCHAIN)) {
				log_msg(LOG_ERR, "the recording has no stacks for %s:%s (record with -g)",
					re->sys, re->name);
				return -EINVAL;
			}
			ev->sample_type = re->sample_type;
			ev->regs_mask = re->regs_mask;
			ev->chain_ids = re->chain_ids;
			re->ev = ev;
		}
	}
	return 0;
}

/* file_next_chunk - the next chunk of records; 1, 0 at the end (or the cut), or an error */
static int file_next_chunk(struct file_src *f)
{
	struct chunk_slot *sl = NULL;
	uint64_t at = 0;
	int ret;

	while (!f->ended && f->pf.nr_workers) {
		ret = prefetch_next(&f->pf, &sl, &at);
		if (ret == -REC_ETRUNC) {
			f->cut = true;
			f->cut_at = at;
			break;
		}
		if (ret < 0)
			return file_rec_error(f, ret);
		if (ret == 0)
			break;
		if (sl->type == REC_SEC_EVTS) {
			f->chunk = sl->data;
			f->len = sl->len;
			f->pos = 0;
			return 1;
		}
		if (sl->type == REC_SEC_STAT) {
			ret = stat_parse(f, sl->data, sl->len);
			if (ret)
				return ret;
		}
	}
	f->ended = true;
	return 0;
}

/* file_peek - the next record, not consumed; 1, 0 at the end, or an error */
static int file_peek(struct file_src *f, const struct perf_event_header **out)
{
	int ret;

	for (;;) {
		if (f->pos < f->len) {
			const struct perf_event_header *h = (const void *)(f->chunk + f->pos);
			size_t left = f->len - f->pos;

			/* Records are 8-byte multiples and never span two chunks. */
			if (left < sizeof(*h) || h->size < sizeof(*h) || h->size > left || h->size % 8)
				return file_bad(f, "a record at chunk offset %zu has size %u", f->pos,
						left < sizeof(*h) ? 0 : h->size);
			*out = h;
			return 1;
		}
		if (f->ended)
			return 0;
		f->chunk = NULL;
		f->len = f->pos = 0;
		ret = file_next_chunk(f);
		if (ret <= 0)
			return ret;
	}
}

/* file_count_lost - a LOST or LOST_SAMPLES record, counted for its CPU */
static void file_count_lost(struct file_src *f, const struct perf_event_header *h)
{
	struct perf_sample_id sid;
	uint64_t n;
	size_t i;

	/* LOST: id and count; LOST_SAMPLES: count; then the sample_id trailer. */
	if (perf_sample_id_parse(h, &sid) ||
	    h->size < sizeof(*h) + (h->type == PERF_RECORD_LOST ? 16 : 8) + sizeof(uint64_t) * 4)
		return;
	n = rd64((const uint8_t *)(h + 1) + (h->type == PERF_RECORD_LOST ? 8 : 0));
	for (i = 0; i < f->nr_lost && f->lost[i].cpu != (int)sid.cpu; i++)
		;
	if (i == f->nr_lost) {
		struct rec_lost *l;

		if (f->nr_lost == LOST_CPUS_MAX)
			return;
		l = realloc(f->lost, (f->nr_lost + 1) * sizeof(*l));
		if (!l)
			return;
		f->lost = l;
		f->lost[f->nr_lost].cpu = (int)sid.cpu;
		f->lost[f->nr_lost++].lost = 0;
	}
	f->lost[i].lost += n;
}

/* stack_add - a REC_RECORD_STACK: the callchain of its id, from now on */
static int stack_add(struct file_src *f, const struct perf_event_header *h)
{
	struct rec_stacks *t = &f->stacks;
	const uint8_t *body = (const uint8_t *)(h + 1);
	uint64_t id, nr;

	if (h->size < REC_STACK_FIXED)
		return file_bad(f, "a stack record of %u bytes", h->size);
	id = rd64(body);
	nr = rd64(body + 8);
	if (nr != (h->size - REC_STACK_FIXED) / 8u)
		return file_bad(f, "a stack record of %u bytes says %" PRIu64 " entries", h->size, nr);
	if (id == 0) {
		t->len = 0;
		t->nr = 0;
	}
	if (id != t->nr || t->nr >= REC_STACKS_MAX)
		return file_bad(f, "stack id %" PRIu64 " out of sequence (%zu so far)", id, t->nr);
	if (t->nr == t->cap_st) {
		size_t cap = t->cap_st ? t->cap_st * 2 : 256;
		struct rec_stack *st = realloc(t->st, cap * sizeof(*st));

		if (!st)
			return -ENOMEM;
		t->st = st;
		t->cap_st = cap;
	}
	if (t->len + nr > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		uint64_t *ips;

		while (cap < t->len + nr)
			cap *= 2;
		ips = realloc(t->ips, cap * sizeof(*ips));
		if (!ips)
			return -ENOMEM;
		t->ips = ips;
		t->cap = cap;
	}
	memcpy(t->ips + t->len, body + 16, nr * 8);
	t->st[t->nr].at = t->len;
	t->st[t->nr++].nr = (uint32_t)nr;
	t->len += nr;
	return 0;
}

/* file_chain - a sample's callchain from its id (REC_EVNT_CHAIN_IDS); -EINVAL: no such id */
static int file_chain(struct session *s, struct perf_sample *smp)
{
	const struct rec_stacks *t = &((struct file_src *)s->src_priv)->stacks;
	uint64_t id;

	if (smp->nr_ips != 1)
		return -EINVAL;
	id = smp->ips[0];
	if (id >= t->nr)
		return -EINVAL;
	smp->ips = t->ips + t->st[id].at;
	smp->nr_ips = t->st[id].nr;
	return 0;
}

/* file_info_count - for --info: count the samples of each recorded event */
static int file_info_count(struct file_src *f, const struct perf_event_header *rec)
{
	struct rec_ev *re;

	if (rec->type == PERF_RECORD_SAMPLE && (re = file_lookup(f, perf_record_id(rec))))
		re->count++;
	return 0;
}

/* file_run - replay the records up to deadline, in recorded time; 1 at the deadline, 0 at the end */
static int file_run(struct session *s, uint64_t deadline)
{
	struct file_src *f = s->src_priv;
	const struct perf_event_header *h = NULL;
	uint64_t t;
	int ret;

	while (!session_stop) {
		ret = file_peek(f, &h);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			/* Empty intervals up to when recording stopped, as they were printed live. */
			if (f->have_t_end && f->t_end > deadline)
				return 1;
			f->at_end = true;
			s->now = f->have_t_end && f->t_end > f->last_time ? f->t_end : f->last_time;
			return 0;
		}
		if (h->type == REC_RECORD_STACK) {
			ret = stack_add(f, h);
			if (ret)
				return ret;
			f->pos += h->size;
			continue;
		}
		if (perf_record_time(h, &t) == 0) {
			if (t > deadline)
				return 1;
			if (t > f->last_time)
				f->last_time = t;
		}
		f->pos += h->size;
		f->records++;
		if (h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES)
			file_count_lost(f, h);
		ret = f->info ? file_info_count(f, h) : session_dispatch(s, h);
		if (ret)
			return ret;
	}
	s->now = f->last_time;
	return 0;
}

/* file_find - the session event of a sample id, NULL when no tool uses it */
static struct iotap_event *file_find(struct session *s, uint64_t id)
{
	struct rec_ev *re = file_lookup(s->src_priv, id);

	return re ? re->ev : NULL;
}

/* file_lost - the lost counts of the CPUs seen losing events so far */
static int file_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct file_src *f = s->src_priv;

	if (!f || i < 0 || (size_t)i >= f->nr_lost)
		return -ENOENT;
	*cpu = f->lost[i].cpu;
	*lost = f->lost[i].lost;
	return 0;
}

/* maps_decode - one MAPS section into the user symbolizer; -EINVAL when damaged */
static int maps_decode(const uint8_t *p, size_t len, struct usyms *us)
{
	uint32_t count;
	size_t off = 8;

	if (len < 8)
		return -EINVAL;
	if (rd32(p) != REC_SEC_VERSION)
		return 0;
	count = rd32(p + 4);
	for (uint32_t k = 0; k < count; k++) {
		uint64_t start, mlen, pgoff;
		uint16_t plen;
		uint32_t pid;
		char path[4096];
		uint8_t blen;

		if (len - off < REC_MAPS_FIXED)
			return -EINVAL;
		pid = rd32(p + off);
		memcpy(&plen, p + off + 4, 2);
		blen = p[off + 6];
		start = rd64(p + off + 8);
		mlen = rd64(p + off + 16);
		pgoff = rd64(p + off + 24);
		off += REC_MAPS_FIXED;
		if (blen > USYMS_BUILD_ID_MAX || plen >= sizeof(path) || len - off < blen + plen)
			return -EINVAL;
		memcpy(path, p + off + blen, plen);
		path[plen] = 0;
		usyms_map_add(us, pid, start, mlen, pgoff, path, p + off, blen);
		off += blen + plen;
	}
	return 0;
}

/* file_event_available - whether sys:name was recorded */
static bool file_event_available(struct session *s, const char *sys, const char *name)
{
	return fmt_set_find(&s->fs, sys, name) != NULL;
}

/* file_event_attach - the recorded format of ev; its layout comes with start (file_bind) */
static int file_event_attach(struct session *s, struct iotap_event *ev)
{
	ev->tep = fmt_set_find(&s->fs, ev->sys, ev->name);
	if (!ev->tep) {
		log_msg(LOG_ERR, "the recording has no %s:%s events", ev->sys, ev->name);
		return -ENOENT;
	}
	return 0;
}

/* file_probe_create - a recording names the recorder's group: find the probe by name in any */
static int file_probe_create(struct session *s, const struct probe_spec *p, const char **sys)
{
	for (size_t i = 0; i < s->fs.nr; i++) {
		if (!strncmp(s->fs.ev[i].sys, "iotap_", 6) && !strcmp(s->fs.ev[i].name, p->name)) {
			*sys = s->fs.ev[i].sys;
			return 0;
		}
	}
	log_msg(LOG_ERR, "the recording has no probe named %s", p->name);
	return -ENOENT;
}

/* file_start - give the tool's events the recorded sample layout */
static int file_start(struct session *s)
{
	return file_bind(s, s->src_priv);
}

/* file_nr_cpus - the recorder's CPUs */
static int file_nr_cpus(const struct session *s)
{
	return ((const struct file_src *)s->src_priv)->meta.nr_cpus;
}

/* file_ksyms_main - the parsing thread: ksyms_parse() touches nothing but its text */
static void *file_ksyms_main(void *arg)
{
	struct file_src *f = arg;

	f->ks = ksyms_parse(f->ksym, f->ksym_len);
	f->ks_errno = f->ks ? 0 : errno;
	return NULL;
}

/* file_ksyms_prefetch - parse the recorded kernel symbols meanwhile, if there are any */
static void file_ksyms_prefetch(struct session *s)
{
	struct file_src *f = s->src_priv;

	/* Without the thread (or the text) file_ksyms_load() parses, or says why not. */
	if (f->ksym && !f->ks_parsing && !f->ks &&
	    !pthread_create(&f->ks_thread, NULL, file_ksyms_main, f))
		f->ks_parsing = true;
}

/* file_ksyms_join - wait for the parsing thread, if it runs */
static void file_ksyms_join(struct file_src *f)
{
	if (!f->ks_parsing)
		return;
	pthread_join(f->ks_thread, NULL);
	f->ks_parsing = false;
	errno = f->ks_errno;
}

/* file_ksyms_load - the recorded kernel symbols (-g); the caller owns them */
static struct ksyms *file_ksyms_load(struct session *s)
{
	struct file_src *f = s->src_priv;
	struct ksyms *ks;

	if (f->ks_parsing) {
		file_ksyms_join(f);
	} else if (!f->ks) {
		if (!f->ksym) {
			log_msg(LOG_WARN, "the recording has no kernel symbols (record with -g): kernel frames print as addresses");
			return NULL;
		}
		f->ks = ksyms_parse(f->ksym, f->ksym_len);
	}
	if (!f->ks)
		log_msg(LOG_WARN, "cannot parse the recorded kernel symbols: %s", strerror(errno));
	ks = f->ks;
	f->ks = NULL;
	return ks;
}

/* file_maps_load - the mappings the recording's MAPS sections hold (-g) */
static int file_maps_load(struct session *s, struct usyms *us)
{
	const struct file_src *f = s->src_priv;
	int ret = 0;

	for (size_t k = 0; k < f->nr_blobs && !ret; k++)
		if (f->blobs[k].type == REC_SEC_MAPS)
			ret = maps_decode(f->blobs[k].data, f->blobs[k].len, us);
	if (ret)
		log_msg(LOG_WARN, "the recorded process mappings are damaged: some user frames stay unknown");
	return ret;
}

/* cgrp_decode - one CGRP section, one fn call per task; -EINVAL when damaged */
static int cgrp_decode(const uint8_t *p, size_t len, cgroup_task_fn fn, void *arg)
{
	char path[4096];
	uint32_t n, tid, plen;
	size_t off = 8;
	uint64_t t;

	if (len < 8 || rd32(p) != REC_SEC_VERSION)
		return -EINVAL;
	n = rd32(p + 4);
	for (uint32_t i = 0; i < n; i++) {
		if (len - off < REC_CGRP_ENTRY)
			return -EINVAL;
		tid = rd32(p + off);
		plen = rd32(p + off + 4);
		t = rd64(p + off + 8);
		off += REC_CGRP_ENTRY;
		if (plen >= sizeof(path) || len - off < plen || memchr(p + off, 0, plen))
			return -EINVAL;
		memcpy(path, p + off, plen);
		path[plen] = 0;
		fn(arg, tid, path, t);
		off += plen;
	}
	return 0;
}

/* file_cgroup_tasks - every task's cgroup when recording began (record --cgroups) */
static int file_cgroup_tasks(struct session *s, cgroup_task_fn fn, void *arg)
{
	const struct file_src *f = s->src_priv;
	int ret = 0;

	for (size_t k = 0; k < f->nr_blobs && !ret; k++)
		if (f->blobs[k].type == REC_SEC_CGRP)
			ret = cgrp_decode(f->blobs[k].data, f->blobs[k].len, fn, arg);
	if (ret)
		log_msg(LOG_WARN, "the recorded cgroups are damaged: some tasks' cgroups stay unknown");
	return ret;
}

/* file_close - warn if the end was never written, then free everything */
static void file_close(struct session *s)
{
	struct file_src *f = s->src_priv;

	if (!f)
		return;
	file_ksyms_join(f);
	ksyms_free(f->ks);
	if (f->cut && f->at_end)
		log_msg(LOG_WARN, "'%s' was cut short at byte %" PRIu64 " (the recording was interrupted): "
			"the report covers the events before that point", f->path, f->cut_at);
	prefetch_stop(&f->pf);
	rec_reader_free(f->r);
	for (size_t i = 0; i < f->nr_blobs; i++)
		free(f->blobs[i].data);
	free(f->blobs);
	free(f->meta.text);
	free(f->evs);
	free(f->ids);
	free(f->id_dense);
	free(f->stacks.ips);
	free(f->stacks.st);
	free(f->ksym);
	free(f->lost);
	free(f->info_ev);
	free(f);
	s->src_priv = NULL;
}

/* file_info - read the whole recording and describe it */
static int file_info(struct session *s, struct recording_info *info)
{
	struct file_src *f = s->src_priv;
	int ret;

	f->info = true;
	ret = file_run(s, UINT64_MAX);
	f->info = false;
	if (ret < 0)
		return ret;
	f->info_ev = calloc(f->nr_evs ? f->nr_evs : 1, sizeof(*f->info_ev));
	if (!f->info_ev)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_evs; i++) {
		f->info_ev[i].sys = f->evs[i].sys;
		f->info_ev[i].name = f->evs[i].name;
		f->info_ev[i].sample_type = f->evs[i].sample_type;
		f->info_ev[i].count = f->evs[i].count;
	}
	memset(info, 0, sizeof(*info));
	info->path = f->path;
	rec_reader_version(f->r, &info->major, &info->minor);
	info->host = f->meta.host;
	info->sysname = f->meta.sysname;
	info->release = f->meta.release;
	info->kversion = f->meta.kversion;
	info->machine = f->meta.machine;
	info->iotap_version = f->meta.iotap;
	info->command = f->meta.command;
	info->command_pid = f->meta.command_pid;
	info->nr_cpus = f->meta.nr_cpus;
	info->t_start = s->t_start;
	info->t_end = s->now;
	info->wall_offset = s->wall_offset;
	info->records = f->records;
	info->ev = f->info_ev;
	info->nr_ev = f->nr_evs;
	info->cut_short = f->cut;
	info->cut_at = f->cut_at;
	info->kallsyms = f->ksym != NULL;
	return 0;
}

const struct source_ops source_file = {
	.name = "recording",
	.open = file_open,
	.event_available = file_event_available,
	.event_attach = file_event_attach,
	.probe_create = file_probe_create,
	.start = file_start,
	.run = file_run,
	.find = file_find,
	.chain = file_chain,
	.lost = file_lost,
	.nr_cpus = file_nr_cpus,
	.ksyms_prefetch = file_ksyms_prefetch,
	.ksyms_load = file_ksyms_load,
	.maps_load = file_maps_load,
	.cgroup_tasks = file_cgroup_tasks,
	.info = file_info,
	.close = file_close,
};


/* recording_info - read the whole file and describe it (report --info) */
int recording_info(struct session *s, struct recording_info *info)
{
	if (!s->src->info) {
		log_msg(LOG_ERR, "--info describes recordings and perf.data files, not live tracing");
		return -EINVAL;
	}
	return s->src->info(s, info);
}

#define RP(f) offsetof(struct report_params, f)
static const struct opt report_opts[] = {
	{ 0, "info", OPT_FLAG, RP(info), NULL,
	  "describe the recording instead: host, kernel, CPUs, start, duration, events per type, events lost per CPU, and whether it is complete" },
	OPT_END
};

const struct tool cmd_report = {
	.name = "report",
	.summary = "Run a tool over a recording made by iotap record (or a perf.data), or describe the recording.",
	.description =
		"Runs TOOL over the events of the recording given with -i, exactly as it runs live "
		"(iotap TOOL -i FILE is the same): the same options, the same output, intervals "
		"that follow the recorded time, and the events the kernel lost printed as they were "
		"lost. Only the banner that live tracing prints is left out. A report reads nothing "
		"of the machine it runs on (no tracefs, /proc, /sys or kallsyms), so it needs no "
		"privileges and works on any machine. A recording that was cut short (the recorder "
		"was killed, the disk filled up) is reported up to its last complete chunk, followed "
		"by a warning; a damaged one gives one error line and a non-zero exit status. "
		"A perf.data file (recognized by its magic) works the same for every tool whose "
		"events perf recorded (perf record -e block:block_rq_issue -e block:block_rq_complete "
		"-a; add block:block_io_start for the submitter, -g for the stack tools). perf.data "
		"names no disks: they print as MAJ:MIN and -d takes that form, unless the file was "
		"recorded on this machine and kernel; kernel symbols come from perf's build-id "
		"cache (~/.debug), as perf report finds them. Pipe-mode and compressed (-z) files "
		"are refused. With --cgroup a report needs the recorded cgroups (iotap record "
		"--cgroups).",
	.examples =
		"iotap report -i io.iotap biolatency -D\n  One latency histogram per disk from the recording.\n"
		"iotap report -i perf.data biosnoop\n  biosnoop over what perf record -e block:... -a recorded.\n"
		"iotap report -i io.iotap biolatency 1\n  One histogram per recorded second.\n"
		"iotap report -i io.iotap --info\n  Where, when and what was recorded, and whether anything was lost.\n",
	.args = TOOL_ARGS_TOOL,
	.opts = report_opts,
	.common = report_common_opts,
	.params_size = sizeof(struct report_params),
};
