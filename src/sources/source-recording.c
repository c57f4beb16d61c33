// SPDX-License-Identifier: GPL-2.0-or-later
/* source-recording.c - the session source that replays an iotap recording */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "array.h"
#include "cgroup.h"
#include "fmtcheck.h"
#include "ksyms.h"
#include "log.h"
#include "sections.h"
#include "source-recording.h"
#include "usyms.h"

/* Largest kallsyms text accepted: real ones are 5 to 20 MiB. */
#define KSYM_MAX (64u << 20)
/* Distinct CPUs whose lost counts are kept; more only happens in a damaged file. */
#define LOST_CPUS_MAX 4096

/* One recorded event. */
struct file_ev {
	const char *sys, *name;		/* the fmt_set's copies */
	struct tep_event *tep;		/* its format, the attached event's */
	uint64_t sample_type;
	uint64_t regs_mask;		/* with PERF_SAMPLE_REGS_USER */
	uint64_t count;			/* samples seen, for --info */
	uint64_t undelivered;		/* the last IOTAP_RECORD_UNDELIVERED's count, for --info */
	uint64_t stackless;		/* the last IOTAP_RECORD_STACKLESS's count, for --info */
	bool chain_ids;			/* REC_EVNT_CHAIN_IDS */
	struct iotap_event *ev;		/* the session's, when a tool uses it */
};

/*
 * The born records read last (REC_RECORD_BORN): each comes just before its
 * child's birth, or a few births before at one time on several CPUs.
 */
#define FILE_BORN_KEPT 64
struct file_born {
	uint32_t tid;
	uint64_t t;
	char *path;			/* "" : the child was gone; NULL: a free slot */
};

/* The widest span of perf ids that file_lookup() indexes directly. */
#define ID_DENSE_MAX 65536

/* The callchains of REC_RECORD_STACK records so far, by id. */
struct file_stacks {
	uint64_t *ips;			/* every chain, end to end */
	size_t len, cap;
	struct file_stack {
		size_t at;		/* into ips */
		uint32_t nr;
	} *st;
	size_t nr, cap_st;
};

struct file_id {
	uint64_t id;
	size_t idx;			/* into evs */
};

/* A section kept until META is known (FMTH, EVNT). */
struct file_blob {
	uint32_t type;
	uint8_t *data;
	size_t len;
};

struct file_src {
	struct rec_reader *r;
	/* What the sections before the records were (file_rewind checks a new input by it). */
	size_t head_chunks;
	uint32_t head_sum;		/* crc32 of each chunk's type, length and payload CRC */
	bool head_have_t_end;		/* a STAT among them */
	uint64_t head_t_end;
	struct rec_inflater *z;		/* file_rewind's, and the first records it inflates */
	uint8_t *first;
	size_t first_cap;
	char *trig_text;			/* TRIG: a flight recorder's dump */
	struct rec_sec_trig trig;
	struct rec_prefetch *pf;		/* the chunks after the first, read ahead */
	const char *path;
	struct rec_sec_meta meta;
	struct file_blob *blobs;
	size_t nr_blobs;
	struct file_ev *evs;
	size_t nr_evs;
	struct hashtab by_name;		/* an event's name -> its index into evs */
	struct file_id *ids;
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
	struct lost_cpus lost;
	struct file_stacks stacks;
	struct file_born born[FILE_BORN_KEPT];
	size_t born_next;		/* the slot the next born record takes */
	struct recording_event *info_ev;
};

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

/* file_reader_open - a reader of the input s->opts names (a file, or the caller's buffer); 0 or the error, said */
static int file_reader_open(struct session *s, struct file_src *f)
{
	f->path = s->opts.input ? s->opts.input : "(memory)";
	if (s->opts.input)
		f->r = rec_reader_open(s->opts.input);
	else
		f->r = rec_reader_open_mem(s->opts.input_buf, s->opts.input_len);
	return f->r ? 0 : file_rec_error(f, -errno);
}

/* blob_keep - copy a section that can only be read once META is known */
static int blob_keep(struct file_src *f, uint32_t type, const uint8_t *data, size_t len)
{
	struct file_blob *b = realloc(f->blobs, (f->nr_blobs + 1) * sizeof(*b));

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

/* comm_cache - a recorded process name into the session */
static void comm_cache(void *arg, uint32_t pid, const char *comm)
{
	session_comm_cache(arg, pid, comm);
}

/* section_bad - a decoder's complaint as the one error line; other errors as they are */
static int section_bad(const struct file_src *f, int ret, const char *why)
{
	return ret == -EINVAL && why[0] ? file_bad(f, "%s", why) : ret;
}

/* meta_parse - the one META section */
static int meta_parse(struct file_src *f, const uint8_t *data, size_t len)
{
	char why[256] = "";

	if (f->meta.text)
		return file_bad(f, "two META sections");
	return section_bad(f, rec_sec_meta_decode(data, len, &f->meta, why, sizeof(why)), why);
}

/* evnt_add - one EVNT section: its format into the fmt_set, its ids into the map */
static int evnt_add(struct session *s, struct file_src *f, const uint8_t *p, size_t len)
{
	struct rec_sec_evnt e;
	struct tep_event *tep;
	struct file_ev *ev;
	struct file_id *ids;
	char why[128] = "";
	int ret = rec_sec_evnt_decode(p, len, &e, why, sizeof(why));
	const char *sys = e.sys, *name = e.name;
	uint64_t sample_type = e.sample_type;

	if (ret)
		return section_bad(f, ret, why);
	if ((sample_type & IOTAP_SAMPLE_BASE) != IOTAP_SAMPLE_BASE ||
	    (sample_type & ~(IOTAP_SAMPLE_BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER)))
		return file_bad(f, "%s:%s has sample_type %#" PRIx64 ", which iotap cannot decode",
				sys, name, sample_type);
	if (e.chain_ids &&
	    (!(sample_type & PERF_SAMPLE_CALLCHAIN) ||
	     (sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))))
		return file_bad(f, "%s:%s has callchain ids without a callchain", sys, name);
	if (fmt_set_find(&s->fs, sys, name))
		return file_bad(f, "%s:%s is recorded twice", sys, name);
	if (!fmt_text_ok(e.fmt, e.fmt_len))
		return file_bad(f, "the format text of %s:%s is not one the kernel writes", sys, name);
	tep = fmt_set_add(&s->fs, sys, name, e.fmt, e.fmt_len);
	if (!tep) {
		if (errno == ENOMEM)
			return -ENOMEM;
		return file_bad(f, "the format of %s:%s cannot be parsed", sys, name);
	}
	ev = realloc(f->evs, (f->nr_evs + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	f->evs = ev;
	ids = realloc(f->ids, (f->nr_ids + e.nr_ids + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	f->ids = ids;
	for (size_t i = 0; i < e.nr_ids; i++) {
		f->ids[f->nr_ids].id = rec_sec_evnt_id(&e, i);
		f->ids[f->nr_ids++].idx = f->nr_evs;
	}
	ev = &f->evs[f->nr_evs++];
	memset(ev, 0, sizeof(*ev));
	ev->sys = s->fs.ev[s->fs.nr - 1].sys;
	ev->name = s->fs.ev[s->fs.nr - 1].name;
	ev->sample_type = sample_type;
	ev->regs_mask = sample_type & PERF_SAMPLE_REGS_USER ? e.regs_mask : 0;
	ev->chain_ids = e.chain_ids;
	ev->tep = tep;
	return 0;
}

/* stream_open - the first chunk of a streamed section: the length of its prefix */
static int stream_open(struct file_src *f, const char *what, const uint8_t *p, size_t len)
{
	char why[128] = "";

	return section_bad(f, rec_sec_stream_skip(p, len, what, why, sizeof(why)), why);
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
	char why[128] = "";
	int ret = rec_sec_stat_decode(p, len, &f->t_end, why, sizeof(why));

	if (ret)
		return section_bad(f, ret, why);
	f->have_t_end = true;
	return 0;
}

/* file_id_cmp - order the id map for bsearch */
static int file_id_cmp(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* name_hash - an event's name as by_name hashes it */
static uint32_t name_hash(const char *name)
{
	return hashtab_mix(hashtab_fnv_str(HASHTAB_FNV_BASIS, name));
}

/*
 * file_event_find - the first recorded event called name whose system begins
 * with the sys_len bytes of sys (its length + 1: that system exactly), or NULL
 */
static struct file_ev *file_event_find(const struct file_src *f, const char *sys, size_t sys_len,
				      const char *name)
{
	struct hashtab_pos pos;
	uint32_t *v;

	if (!f->by_name.slots)
		return NULL;
	for (v = hashtab_find(&f->by_name, name_hash(name), &pos); v;
	     v = hashtab_find_next(&f->by_name, &pos))
		if (!strcmp(f->evs[*v].name, name) && !strncmp(f->evs[*v].sys, sys, sys_len))
			return &f->evs[*v];
	return NULL;
}

/* file_event_by_name - the recorded event sys:name, or NULL (a tool's setup asks often) */
static struct file_ev *file_event_by_name(const struct file_src *f, const char *sys,
					 const char *name)
{
	return file_event_find(f, sys, strlen(sys) + 1, name);
}

/* file_index_names - by_name over every recorded event; 0 or -ENOMEM */
static int file_index_names(struct file_src *f)
{
	struct hashtab_pos pos;
	int ret = hashtab_init(&f->by_name, 2 * f->nr_evs);

	for (size_t i = 0; i < f->nr_evs && !ret; i++) {
		for (uint32_t *v = hashtab_find(&f->by_name, name_hash(f->evs[i].name), &pos); v;
		     v = hashtab_find_next(&f->by_name, &pos))
			;
		ret = hashtab_add(&f->by_name, &pos, i);
	}
	return ret;
}

/* file_build - once the records start: the formats, the events and the clock */
static int file_build(struct session *s, struct file_src *f)
{
	const struct file_blob *hp = NULL;
	const char *header_page;
	size_t header_len;
	char why[256] = "";
	int ret = rec_sec_meta_check(&f->meta, why, sizeof(why));

	if (ret)
		return section_bad(f, ret, why);
	for (size_t i = 0; i < f->nr_blobs; i++) {
		if (f->blobs[i].type != REC_SEC_FMTH)
			continue;
		if (hp)
			return file_bad(f, "two FMTH sections");
		hp = &f->blobs[i];
	}
	if (!hp || rec_sec_fmth_decode(hp->data, hp->len, &header_page, &header_len))
		return file_bad(f, "no FMTH section of a known version");
	ret = fmt_set_init(&s->fs, header_page, header_len, f->meta.long_size, f->meta.page_size);
	if (ret)
		return ret;
	for (size_t i = 0; i < f->nr_blobs; i++) {
		if (f->blobs[i].type != REC_SEC_EVNT)
			continue;
		ret = evnt_add(s, f, f->blobs[i].data, f->blobs[i].len);
		if (ret)
			return ret;
	}
	ret = file_index_names(f);
	if (ret)
		return ret;
	if (f->nr_ids) {
		qsort(f->ids, f->nr_ids, sizeof(*f->ids), file_id_cmp);
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

/* trig_parse - what made a flight recorder's dump, and its window */
static int trig_parse(struct file_src *f, const uint8_t *p, size_t len)
{
	char why[128] = "";
	int ret;

	if (f->trig_text)
		return file_bad(f, "two TRIG sections");
	ret = rec_sec_trig_decode(p, len, &f->trig, &f->trig_text, why, sizeof(why));
	return section_bad(f, ret, why);
}

/* file_section - take one section of the part before the records */
static int file_section(struct session *s, struct file_src *f, uint32_t type, const uint8_t *p,
			size_t len)
{
	char why[128] = "";
	int ret;

	switch (type) {
	case REC_SEC_META:
		return meta_parse(f, p, len);
	case REC_SEC_FMTH:
	case REC_SEC_EVNT:
	case REC_SEC_MAPS:
	case REC_SEC_CGRP:
	case REC_SEC_CGV1:
	case REC_SEC_CGID:
	case REC_SEC_FDTB:
		return blob_keep(f, type, p, len);
	case REC_SEC_DISK:
		ret = rec_sec_disk_decode(p, len, &s->disks, why, sizeof(why));
		return section_bad(f, ret, why);
	case REC_SEC_COMM:
		ret = rec_sec_comm_decode(p, len, comm_cache, s, why, sizeof(why));
		return section_bad(f, ret, why);
	case REC_SEC_KSYM:
		return ksym_append(f, p, len);
	case REC_SEC_STAT:
		return stat_parse(f, p, len);
	case REC_SEC_TRIG:
		return trig_parse(f, p, len);
	default:
		return 0;	/* a section of a later version */
	}
}

/* head_sum - sum with one more chunk before the records: its type, length and payload CRC */
static uint32_t head_sum(uint32_t sum, uint32_t type, size_t len, uint32_t crc)
{
	uint32_t id[3] = { type, (uint32_t)len, crc };

	return crc32(sum, (const uint8_t *)id, sizeof(id));
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
	ret = file_reader_open(s, f);
	if (ret)
		return ret;
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
			f->pf = rec_prefetch_start(f->r, REC_SEC_EVTS, data, len, &f->chunk);
			if (!f->pf)
				return -errno;
			f->len = len;
			break;
		}
		f->head_sum = head_sum(f->head_sum, type, len, rec_reader_crc(f->r));
		f->head_chunks++;
		ret = file_section(s, f, type, data, len);
		if (ret)
			return ret;
	}
	f->head_have_t_end = f->have_t_end;
	f->head_t_end = f->t_end;
	/* Every complete recording has records, if only their prefix: cut before them, none is usable. */
	if (f->cut)
		return file_rec_error(f, -REC_ETRUNC);
	return file_build(s, f);
}

/* file_lookup - the recorded event a sample id belongs to */
static struct file_ev *file_lookup(struct file_src *f, uint64_t id)
{
	struct file_id key = { .id = id }, *e;

	if (f->id_dense) {
		uint64_t at = id - f->id_base;

		return at < f->id_span && f->id_dense[at] ? &f->evs[f->id_dense[at] - 1] : NULL;
	}
	/* No ids (none recorded): bsearch must not be given a NULL array, even empty. */
	if (!f->nr_ids)
		return NULL;
	e = bsearch(&key, f->ids, f->nr_ids, sizeof(key), file_id_cmp);
	return e ? &f->evs[e->idx] : NULL;
}

/* file_bind - give the tool's events the recorded sample layout (the run(0) call) */
static int file_bind(struct session *s)
{
	for (size_t k = 0; k < s->nr_ev; k++) {
		struct iotap_event *ev = s->ev[k];
		struct file_ev *re = ev->backend;	/* file_event_attach's */

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
	return 0;
}

/* file_next_chunk - the next chunk of records; 1, 0 at the end (or the cut), or an error */
static int file_next_chunk(struct file_src *f)
{
	const uint8_t *data;
	uint64_t at = 0;
	uint32_t type;
	size_t len;
	int ret;

	while (!f->ended && f->pf) {
		ret = rec_prefetch_next(f->pf, &type, &data, &len, &at);
		if (ret == -REC_ETRUNC) {
			f->cut = true;
			f->cut_at = at;
			break;
		}
		if (ret < 0)
			return file_rec_error(f, ret);
		if (ret == 0)
			break;
		if (type == REC_SEC_EVTS) {
			f->chunk = data;
			f->len = len;
			f->pos = 0;
			return 1;
		}
		if (type == REC_SEC_STAT) {
			ret = stat_parse(f, data, len);
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
			char why[128] = "";

			ret = rec_sec_evts_record(f->chunk, f->len, f->pos, out, why, sizeof(why));
			return ret < 0 ? section_bad(f, ret, why) : ret;
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

/* stack_add - a REC_RECORD_STACK: the callchain of its id, from now on */
static int stack_add(struct file_src *f, const struct perf_event_header *h)
{
	struct file_stacks *t = &f->stacks;
	const void *chain;
	uint64_t id, nr;
	char why[128] = "";
	int ret = rec_sec_stack_decode(h, &id, &chain, &nr, why, sizeof(why));

	if (ret)
		return section_bad(f, ret, why);
	if (id == 0) {
		t->len = 0;
		t->nr = 0;
	}
	if (id != t->nr || t->nr >= REC_STACKS_MAX)
		return file_bad(f, "stack id %" PRIu64 " out of sequence (%zu so far)", id, t->nr);
	if (array_reserve(&t->st, &t->cap_st, t->nr + 1, sizeof(*t->st), 256) ||
	    array_reserve(&t->ips, &t->cap, t->len + nr, sizeof(*t->ips), 4096))
		return -ENOMEM;
	memcpy(t->ips + t->len, chain, nr * 8);
	t->st[t->nr].at = t->len;
	t->st[t->nr++].nr = (uint32_t)nr;
	t->len += nr;
	return 0;
}

/* born_add - a REC_RECORD_BORN: where a child born into a cgroup is, for its birth that follows */
static int born_add(struct file_src *f, const struct perf_event_header *h)
{
	struct file_born *b = &f->born[f->born_next];
	char path[REC_CGRP_PATH_MAX + 1], why[128] = "";
	uint32_t tid;
	uint64_t t;
	int ret = rec_sec_born_decode(h, &tid, &t, path, sizeof(path), why, sizeof(why));

	if (ret)
		return section_bad(f, ret, why);
	free(b->path);
	b->path = strdup(path);
	if (!b->path)
		return -ENOMEM;
	b->tid = tid;
	b->t = t;
	f->born_next = (f->born_next + 1) % FILE_BORN_KEPT;
	return 0;
}

/* born_forget - no born record read yet */
static void born_forget(struct file_src *f)
{
	for (size_t i = 0; i < FILE_BORN_KEPT; i++) {
		free(f->born[i].path);
		f->born[i].path = NULL;
	}
	f->born_next = 0;
}

/* file_chain - a sample's callchain from its id (REC_EVNT_CHAIN_IDS); -EINVAL: no such id */
static int file_chain(struct session *s, struct perf_sample *smp)
{
	const struct file_stacks *t = &((struct file_src *)s->src_priv)->stacks;
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

/* file_event_names - the recorded events of system sys */
static int file_event_names(struct session *s, const char *sys, char ***names)
{
	char **arr = calloc(s->fs.nr + 1, sizeof(*arr));
	size_t n = 0;

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < s->fs.nr; i++) {
		if (strcmp(s->fs.ev[i].sys, sys))
			continue;
		arr[n] = strdup(s->fs.ev[i].name);
		if (!arr[n]) {
			while (n)
				free(arr[--n]);
			free(arr);
			return -ENOMEM;
		}
		n++;
	}
	if (!n) {
		free(arr);
		return -ENOENT;
	}
	*names = arr;
	return 0;
}

/* file_info_count - for --info: count the samples of each recorded event */
static int file_info_count(struct file_src *f, const struct perf_event_header *rec)
{
	struct file_ev *re;

	if (rec->type == PERF_RECORD_SAMPLE && (re = file_lookup(f, perf_record_id(rec))))
		re->count++;
	else if (rec->type == IOTAP_RECORD_UNDELIVERED && rec->size >= IOTAP_UNDELIVERED_SIZE &&
		 (re = file_lookup(f, perf_record_id(rec))))
		memcpy(&re->undelivered, rec + 1, 8);
	else if (rec->type == IOTAP_RECORD_STACKLESS && rec->size >= IOTAP_STACKLESS_SIZE &&
		 (re = file_lookup(f, perf_record_id(rec))))
		memcpy(&re->stackless, rec + 1, 8);
	return 0;
}

/* file_run - replay the records up to deadline, in recorded time; 1 at the deadline, 0 at the end */
static int file_run(struct session *s, uint64_t deadline)
{
	struct file_src *f = s->src_priv;
	const struct perf_event_header *h = NULL;
	uint64_t t;
	int ret;

	while (!session_stopped(s)) {
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
		if (h->type == REC_RECORD_STACK || h->type == REC_RECORD_BORN) {
			ret = h->type == REC_RECORD_STACK ? stack_add(f, h) : born_add(f, h);
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
			lost_cpus_add(&f->lost, h, LOST_CPUS_MAX);
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
	struct file_ev *re = file_lookup(s->src_priv, id);

	return re ? re->ev : NULL;
}

/* file_lost - the lost counts of the CPUs seen losing events so far */
static int file_lost(const struct session *s, int i, int *cpu, uint64_t *lost)
{
	const struct file_src *f = s->src_priv;

	return f ? lost_cpus_get(&f->lost, i, cpu, lost) : -ENOENT;
}

/* maps_add - a recorded mapping into the user symbolizer */
static void maps_add(void *arg, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, const uint8_t *build_id, uint8_t build_id_len)
{
	usyms_map_add(arg, pid, start, len, pgoff, path, build_id, build_id_len);
}

/* file_event_available - whether sys:name was recorded */
static bool file_event_available(struct session *s, const char *sys, const char *name)
{
	return file_event_by_name(s->src_priv, sys, name) != NULL;
}

/* file_event_stacks - whether sys:name was recorded with callchains */
static bool file_event_stacks(struct session *s, const char *sys, const char *name)
{
	const struct file_ev *re = file_event_by_name(s->src_priv, sys, name);

	return re && (re->sample_type & PERF_SAMPLE_CALLCHAIN);
}

/* file_event_attach - the recorded format of ev, and which it is; its layout comes with start (file_bind) */
static int file_event_attach(struct session *s, struct iotap_event *ev)
{
	struct file_ev *re = file_event_by_name(s->src_priv, ev->sys, ev->name);

	if (!re) {
		log_msg(LOG_ERR, "the recording has no %s:%s events", ev->sys, ev->name);
		return -ENOENT;
	}
	ev->tep = re->tep;
	ev->backend = re;
	return 0;
}

/* file_probe_recorded - the recorder's group that holds a probe called name, or NULL */
static const char *file_probe_recorded(struct session *s, const char *name)
{
	const struct file_ev *re = file_event_find(s->src_priv, "iotap_", 6, name);

	return re ? re->sys : NULL;
}

/* file_probe_available - whether the recording has the probe */
static bool file_probe_available(struct session *s, const struct probe_spec *p)
{
	return file_probe_recorded(s, p->name) != NULL;
}

/* file_probe_create - a recording names the recorder's group: find the probe by name in any */
static int file_probe_create(struct session *s, const struct probe_spec *p, const char **sys)
{
	*sys = file_probe_recorded(s, p->name);
	if (*sys)
		return 0;
	log_msg(LOG_ERR, "the recording has no probe named %s", p->name);
	return -ENOENT;
}

/* file_start - give the tool's events the recorded sample layout */
static int file_start(struct session *s)
{
	return file_bind(s);
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

/*
 * file_ksyms_load - the recorded kernel symbols (-g), a reference the caller
 * drops; the source keeps its own, so that a rewound replay parses them no more
 */
static struct ksyms *file_ksyms_load(struct session *s)
{
	struct file_src *f = s->src_priv;

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
	return ksyms_get(f->ks);
}

/* file_maps_load - the mappings the recording's MAPS sections hold (-g) */
static int file_maps_load(struct session *s, struct usyms *us)
{
	const struct file_src *f = s->src_priv;
	int ret = 0;

	for (size_t k = 0; k < f->nr_blobs && !ret; k++)
		if (f->blobs[k].type == REC_SEC_MAPS)
			ret = rec_sec_maps_decode(f->blobs[k].data, f->blobs[k].len, maps_add, us);
	if (ret)
		log_msg(LOG_WARN, "the recorded process mappings are damaged: some user frames stay unknown");
	return ret;
}

/*
 * file_cgroup_v1s - the v1 hierarchies the CGV1 sections hold (their ids are the recording
 * machine's), into *out (the caller frees it) and *nr: 0, -ENOMEM, or -EINVAL damaged (logged)
 */
static int file_cgroup_v1s(const struct file_src *f, struct cgroup_v1 **out, size_t *nr)
{
	struct cgroup_v1 *v1;
	struct rec_sec_cgv1 h;
	char why[128] = "";
	size_t n = 0, max = 0;
	int ret = 0;

	for (size_t k = 0; k < f->nr_blobs; k++)
		max += f->blobs[k].type == REC_SEC_CGV1;
	v1 = calloc(max ? max : 1, sizeof(*v1));
	if (!v1)
		return -ENOMEM;
	for (size_t k = 0; k < f->nr_blobs && !ret; k++) {
		if (f->blobs[k].type != REC_SEC_CGV1)
			continue;
		ret = rec_sec_cgv1_decode(f->blobs[k].data, f->blobs[k].len, &h, NULL, NULL, why,
					  sizeof(why));
		if (ret)
			break;
		v1[n].id = (int)h.id;
		snprintf(v1[n].controllers, sizeof(v1[n].controllers), "%s", h.controllers);
		snprintf(v1[n].mount, sizeof(v1[n].mount), "%s", h.mount);
		n++;
	}
	if (ret) {
		log_msg(LOG_ERR, "the recorded cgroups are damaged (%s)", why);
		free(v1);
		return ret;
	}
	*out = v1;
	*nr = n;
	return 0;
}

/*
 * file_cgroup_path - --cgroup names a cgroup of a recorded hierarchy: cgroup v2's, or one of
 * the v1 hierarchies the CGV1 sections hold
 */
static int file_cgroup_path(struct session *s, const char *arg, char *path, size_t len,
			    int *root)
{
	struct cgroup_v1 *v1;
	size_t n;
	int ret = file_cgroup_v1s(s->src_priv, &v1, &n);

	if (ret)
		return ret;
	ret = cgroup_path_named(arg, path, len, root, v1, n);
	free(v1);
	return ret;
}

/*
 * file_cgroup_io_root - the hierarchy the block controller was on where the recording was
 * made: blkio's v1 one where the recording holds it (a hybrid or v1 host), else cgroup v2
 */
static int file_cgroup_io_root(struct session *s, char *mount, size_t len)
{
	const struct cgroup_v1 *io;
	struct cgroup_v1 *v1;
	size_t n;
	int root = 0;

	mount[0] = 0;
	/* Damaged sections (said): the v2 hierarchy, which the CGRP section holds apart. */
	if (file_cgroup_v1s(s->src_priv, &v1, &n))
		return 0;
	io = cgroup_v1_io(v1, n);
	if (io) {
		snprintf(mount, len, "%s", io->mount);
		root = io->id;
	}
	free(v1);
	return root;
}

/* file_cgroup_tasks - every task's cgroup in hierarchy root when recording began (record --cgroups) */
static int file_cgroup_tasks(struct session *s, int root, cgroup_task_fn fn, void *arg)
{
	const struct file_src *f = s->src_priv;
	struct rec_sec_cgv1 h;
	char why[128] = "";
	int ret = 0;

	for (size_t k = 0; k < f->nr_blobs && !ret; k++) {
		const struct file_blob *b = &f->blobs[k];

		if (!root && b->type == REC_SEC_CGRP)
			ret = rec_sec_cgrp_decode(b->data, b->len, fn, arg, why, sizeof(why));
		else if (root && b->type == REC_SEC_CGV1 &&
			 !(ret = rec_sec_cgv1_decode(b->data, b->len, &h, NULL, NULL, why,
						     sizeof(why))) && (int)h.id == root)
			ret = rec_sec_cgv1_decode(b->data, b->len, &h, fn, arg, why, sizeof(why));
	}
	if (ret)
		log_msg(LOG_WARN, "the recorded cgroups are damaged (%s): some tasks' cgroups stay unknown",
			why);
	return ret;
}

/* file_cgroup_ids - every cgroup v2 directory's id when recording began (record --cgroups) */
static int file_cgroup_ids(struct session *s, cgroup_id_fn fn, void *arg)
{
	const struct file_src *f = s->src_priv;
	char why[128] = "";
	int ret = -ENODATA;

	for (size_t k = 0; k < f->nr_blobs && ret == -ENODATA; k++)
		if (f->blobs[k].type == REC_SEC_CGID)
			ret = rec_sec_cgid_decode(f->blobs[k].data, f->blobs[k].len, fn, arg, why,
						  sizeof(why));
	if (ret == -EINVAL)
		log_msg(LOG_WARN, "the recorded cgroup ids are damaged (%s): some writeback stays the flusher's cgroup's",
			why);
	return ret;
}

/* file_cgroup_born - what the recorder read of a child born into a cgroup (its born record) */
static int file_cgroup_born(struct session *s, uint32_t tid, uint64_t t, char *path, size_t len)
{
	const struct file_src *f = s->src_priv;

	for (size_t i = 0; i < FILE_BORN_KEPT; i++) {
		const struct file_born *b = &f->born[(f->born_next + FILE_BORN_KEPT - 1 - i) %
						      FILE_BORN_KEPT];

		if (!b->path)
			break;
		if (b->tid != tid || b->t != t)
			continue;
		if (!b->path[0])
			return -ESRCH;
		snprintf(path, len, "%s", b->path);
		return 0;
	}
	return -ENODATA;
}

/* file_fds_initial - the descriptors open when recording began (FDTB) */
static int file_fds_initial(struct session *s, iotap_fd_fn fn, void *arg)
{
	const struct file_src *f = s->src_priv;
	int ret = 0;

	char why[128] = "";

	for (size_t k = 0; k < f->nr_blobs && !ret; k++)
		if (f->blobs[k].type == REC_SEC_FDTB)
			ret = rec_sec_fdtb_decode(f->blobs[k].data, f->blobs[k].len, fn, arg, why,
						 sizeof(why));
	if (ret == -EINVAL && why[0])
		log_msg(LOG_ERR, "the recording's descriptor table is damaged (%s)", why);
	return ret;
}

/* file_replay_forget - what replaying left, back to as file_open left it; no reader */
static void file_replay_forget(struct session *s, struct file_src *f)
{
	file_ksyms_join(f);
	rec_prefetch_free(f->pf);
	f->pf = NULL;
	rec_reader_free(f->r);
	f->r = NULL;
	f->chunk = NULL;
	f->len = f->pos = 0;
	f->ended = f->at_end = f->cut = false;
	f->cut_at = 0;
	f->have_t_end = f->head_have_t_end;
	f->t_end = f->head_t_end;
	f->last_time = s->t_start;
	f->records = 0;
	lost_cpus_release(&f->lost);
	f->stacks.len = f->stacks.nr = 0;
	born_forget(f);
	for (size_t i = 0; i < f->nr_evs; i++) {
		f->evs[i].count = f->evs[i].undelivered = f->evs[i].stackless = 0;
		f->evs[i].ev = NULL;
	}
	free(f->info_ev);
	f->info_ev = NULL;
	s->now = s->t_start;
}

/* file_rewind_first - the first chunk of records of a rewound input, inflated into f->first */
static int file_rewind_first(struct file_src *f, const struct rec_packed *c)
{
	int ret;

	if (!f->z && !(f->z = rec_inflater_new()))
		return -ENOMEM;
	if (array_reserve(&f->first, &f->first_cap, c->raw_len + 1, 1, 4096))
		return -ENOMEM;
	ret = rec_inflate(f->z, c, f->first);
	if (ret)
		return file_rec_error(f, ret);
	ret = stream_open(f, "EVTS", f->first, c->raw_len);
	if (ret < 0)
		return ret;
	f->pos = ret;
	f->pf = rec_prefetch_start(f->r, REC_SEC_EVTS, f->first, c->raw_len, &f->chunk);
	if (!f->pf)
		return -errno;
	f->len = c->raw_len;
	return 0;
}

/*
 * file_rewind - the records again from the first, from the input s->opts names now;
 * its sections before them are only checked to be the ones file_open read (source.h)
 */
static int file_rewind(struct session *s)
{
	struct file_src *f = s->src_priv;
	struct rec_packed c;
	uint32_t sum = 0;
	size_t n = 0;
	int ret, bad;

	file_replay_forget(s, f);
	if (!s->opts.input && !s->opts.input_buf) {
		/* No input: nothing to replay, and no pointer into the last one. */
		f->path = "(no input)";
		f->ended = true;
		return 0;
	}
	ret = file_reader_open(s, f);
	if (ret)
		return ret;
	/* The head's payloads were checked and read at open: only their CRCs count here. */
	while ((ret = rec_reader_skim_packed(f->r, &c)) == 1 && c.type != REC_SEC_EVTS) {
		sum = head_sum(sum, c.type, c.raw_len, rec_reader_crc(f->r));
		n++;
	}
	if (ret == 1 && (bad = rec_reader_check_packed(f->r, &c)))
		ret = bad;
	if (ret < 0)
		return file_rec_error(f, ret);
	if (n != f->head_chunks || sum != f->head_sum) {
		log_msg(LOG_ERR, "cannot read '%s' again: its sections before the records are not those read first",
			f->path);
		return -EINVAL;
	}
	if (ret == 0) {
		f->ended = true;
		return 0;
	}
	return file_rewind_first(f, &c);
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
	rec_prefetch_free(f->pf);
	rec_reader_free(f->r);
	for (size_t i = 0; i < f->nr_blobs; i++)
		free(f->blobs[i].data);
	free(f->blobs);
	rec_sec_meta_release(&f->meta);
	free(f->trig_text);
	free(f->evs);
	hashtab_release(&f->by_name);
	free(f->ids);
	free(f->id_dense);
	free(f->stacks.ips);
	free(f->stacks.st);
	born_forget(f);
	free(f->ksym);
	lost_cpus_release(&f->lost);
	free(f->info_ev);
	rec_inflater_free(f->z);
	free(f->first);
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
		f->info_ev[i].undelivered = f->evs[i].undelivered;
		f->info_ev[i].stackless = f->evs[i].stackless;
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
	if (f->trig_text)
		info->trig = &f->trig;
	for (size_t i = 0; i < f->nr_blobs; i++) {
		info->maps |= f->blobs[i].type == REC_SEC_MAPS;
		info->cgroups |= f->blobs[i].type == REC_SEC_CGRP;
		info->fdtab |= f->blobs[i].type == REC_SEC_FDTB;
	}
	return 0;
}

/* file_machine - the machine the recording names in its META section */
static int file_machine(struct session *s, struct iotap_machine *m)
{
	struct file_src *f = s->src_priv;
	const struct rec_sec_meta *mt = &f->meta;

	if (!mt->host && !mt->sysname && !mt->release)
		return -ENODATA;
	snprintf(m->host, sizeof(m->host), "%s", mt->host ? mt->host : "");
	snprintf(m->sysname, sizeof(m->sysname), "%s", mt->sysname ? mt->sysname : "");
	snprintf(m->release, sizeof(m->release), "%s", mt->release ? mt->release : "");
	snprintf(m->version, sizeof(m->version), "%s", mt->kversion ? mt->kversion : "");
	snprintf(m->arch, sizeof(m->arch), "%s", mt->machine ? mt->machine : "");
	return 0;
}

/* What the recording's sections say about the host it was made on. */
static const struct host_ops file_host = {
	.fds_initial = file_fds_initial,
	.fd_names = "the descriptor table recorded at the start",
	.ksyms_prefetch = file_ksyms_prefetch,
	.ksyms_load = file_ksyms_load,
	.maps_load = file_maps_load,
	.cgroup_path = file_cgroup_path,
	.cgroup_tasks = file_cgroup_tasks,
	.cgroup_born = file_cgroup_born,
	.cgroup_ids = file_cgroup_ids,
	.cgroup_io_root = file_cgroup_io_root,
	.machine = file_machine,
	.info = file_info,
};

const struct source_ops source_file = {
	.name = "recording",
	.open = file_open,
	.event_names = file_event_names,
	.event_available = file_event_available,
	.event_stacks = file_event_stacks,
	.event_attach = file_event_attach,
	.probe_available = file_probe_available,
	.probe_create = file_probe_create,
	.start = file_start,
	.run = file_run,
	.find = file_find,
	.chain = file_chain,
	.lost = file_lost,
	.nr_cpus = file_nr_cpus,
	.rewind = file_rewind,
	.close = file_close,
	.host = &file_host,
};

/* recording_info - read the whole file and describe it (report --info) */
int recording_info(struct session *s, struct recording_info *info)
{
	if (!s->host->info) {
		log_msg(LOG_ERR, "--info describes recordings and perf.data files, not live tracing");
		return -EINVAL;
	}
	return s->host->info(s, info);
}

