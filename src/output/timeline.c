// SPDX-License-Identifier: GPL-2.0-or-later
/* timeline.c - block requests as Trace Event Format JSON (chrome://tracing, Perfetto) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hist.h"
#include "timeline.h"

/* Trace pids of the disk tracks: above any real PID (PID_MAX_LIMIT is 2^22). */
#define TL_DISK_PID 5000000u
/* Trace tids of lanes after the first, which is the track's own pid. */
#define TL_LANE_TID 6000000u

struct tl_req {
	uint32_t disk;			/* index into disks */
	uint32_t proc;			/* index into procs */
	uint64_t t_start, t_issue, t_done;
	uint64_t sector;
	uint32_t bytes;
	int32_t error;
	bool flush;
	char rwbs[12];
	uint32_t disk_lane, proc_lane;
};

/* A track: a disk or a submitting process, with how many lanes it needed. */
struct tl_track {
	uint32_t id;			/* dev or pid */
	char name[40];
	uint32_t lanes;
	uint64_t *lane_end;
	uint32_t first_tid;		/* tid of lane 1; lane 0 is the track's pid */
};

struct timeline {
	struct tl_req *req;
	size_t nr, cap;
	struct tl_track *disks, *procs;
	size_t nr_disks, nr_procs;
};

/* timeline_alloc - see timeline.h */
struct timeline *timeline_alloc(void)
{
	return calloc(1, sizeof(struct timeline));
}

/* timeline_tracks_free - the lane arrays of a set of tracks, then the set */
static void timeline_tracks_free(struct tl_track *t, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(t[i].lane_end);
	free(t);
}

/* timeline_free - see timeline.h */
void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->req);
	timeline_tracks_free(tl->disks, tl->nr_disks);
	timeline_tracks_free(tl->procs, tl->nr_procs);
	free(tl);
}

/* timeline_track - the index of the track called id, added with name the first time */
static int timeline_track(struct tl_track **t, size_t *nr, uint32_t id, const char *name,
			  const char *prefix)
{
	struct tl_track *n;

	for (size_t i = 0; i < *nr; i++)
		if ((*t)[i].id == id)
			return i;
	n = realloc(*t, (*nr + 1) * sizeof(**t));
	if (!n)
		return -ENOMEM;
	*t = n;
	memset(&n[*nr], 0, sizeof(n[*nr]));
	n[*nr].id = id;
	snprintf(n[*nr].name, sizeof(n[*nr].name), "%s%s", prefix, name ? name : "?");
	return (*nr)++;
}

/* timeline_add - see timeline.h */
int timeline_add(struct timeline *tl, const struct timeline_req *r)
{
	struct tl_req *q;
	int d, p;

	if (r->t_done < r->t_issue)
		return -EINVAL;
	char proc[32];

	snprintf(proc, sizeof(proc), "%s %u", r->comm ? r->comm : "?", r->pid);
	d = timeline_track(&tl->disks, &tl->nr_disks, r->dev, r->disk, "disk ");
	p = d < 0 ? d : timeline_track(&tl->procs, &tl->nr_procs, r->pid, proc, "");
	if (p < 0)
		return p;
	if (array_reserve(&tl->req, &tl->cap, tl->nr + 1, sizeof(*tl->req), 256))
		return -ENOMEM;
	q = &tl->req[tl->nr++];
	memset(q, 0, sizeof(*q));
	q->disk = d;
	q->proc = p;
	/* A creation after the issue is another request's: not this one's queue time. */
	q->t_start = r->t_start && r->t_start <= r->t_issue ? r->t_start : r->t_issue;
	q->t_issue = r->t_issue;
	q->t_done = r->t_done;
	q->sector = r->sector;
	q->bytes = r->bytes;
	q->error = r->error;
	q->flush = r->flush;
	snprintf(q->rwbs, sizeof(q->rwbs), "%s", r->rwbs ? r->rwbs : "");
	return 0;
}

/* timeline_count - see timeline.h */
uint64_t timeline_count(const struct timeline *tl)
{
	return tl->nr;
}

/* timeline_by_start - requests in start order, so lanes are packed greedily */
static int timeline_by_start(const void *a, const void *b)
{
	const struct tl_req *x = a, *y = b;

	if (x->t_start != y->t_start)
		return x->t_start < y->t_start ? -1 : 1;
	return x->t_done < y->t_done ? 1 : x->t_done > y->t_done ? -1 : 0;
}

/* timeline_lane - the first lane of t free at start, taken until end */
static int timeline_lane(struct tl_track *t, uint64_t start, uint64_t end, uint32_t *lane)
{
	uint32_t i;

	for (i = 0; i < t->lanes && t->lane_end[i] > start; i++)
		;
	if (i == t->lanes) {
		uint64_t *n = realloc(t->lane_end, (t->lanes + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->lane_end = n;
		t->lanes++;
	}
	t->lane_end[i] = end;
	*lane = i;
	return 0;
}

/* timeline_tid - the trace tid of a lane */
static uint32_t timeline_tid(const struct tl_track *t, uint32_t pid, uint32_t lane)
{
	return lane ? t->first_tid + lane - 1 : pid;
}

/* timeline_us - ns as microseconds with three decimals, exactly */
static void timeline_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/* timeline_sep - the separator before an event: none before the first */
static void timeline_sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

/* timeline_slice - one complete ("X") event */
static void timeline_slice(FILE *f, bool *first, const char *name, const char *cat, uint32_t pid,
			   uint32_t tid, uint64_t t0, uint64_t from, uint64_t to,
			   const struct tl_req *q, const char *disk, const char *proc)
{
	timeline_sep(f, first);
	fputs("{\"ph\": \"X\", \"name\": ", f);
	json_str(f, name);
	fprintf(f, ", \"cat\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": ", cat, pid, tid);
	timeline_us(f, from - t0);
	fputs(", \"dur\": ", f);
	timeline_us(f, to - from);
	if (q) {
		fputs(", \"args\": {\"disk\": ", f);
		json_str(f, disk);
		fputs(", \"process\": ", f);
		json_str(f, proc);
		fputs(", \"rwbs\": ", f);
		json_str(f, q->rwbs);
		fprintf(f, ", \"sector\": %llu, \"bytes\": %u, \"error\": %d, \"queued_us\": ",
			(unsigned long long)q->sector, q->bytes, q->error);
		timeline_us(f, q->t_issue - q->t_start);
		fputs(", \"device_us\": ", f);
		timeline_us(f, q->t_done - q->t_issue);
		fputc('}', f);
	}
	fputc('}', f);
}

/* timeline_instant - a thread-scoped instant ("i") event */
static void timeline_instant(FILE *f, bool *first, const char *name, uint32_t pid, uint32_t tid,
			     uint64_t ts)
{
	timeline_sep(f, first);
	fputs("{\"ph\": \"i\", \"s\": \"t\", \"name\": ", f);
	json_str(f, name);
	fprintf(f, ", \"cat\": \"mark\", \"pid\": %u, \"tid\": %u, \"ts\": ", pid, tid);
	timeline_us(f, ts);
	fputc('}', f);
}

/* timeline_meta - the names and order of one track and its lanes */
static void timeline_meta(FILE *f, bool *first, const struct tl_track *t, uint32_t pid,
			  unsigned int sort)
{
	char lane[64];

	timeline_sep(f, first);
	fputs("{\"ph\": \"M\", \"name\": \"process_name\", \"ts\": 0", f);
	fprintf(f, ", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": ", pid, pid);
	json_str(f, t->name);
	fputs("}}", f);
	fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": 0, \"pid\": %u, "
		"\"tid\": %u, \"args\": {\"sort_index\": %u}}", pid, pid, sort);
	for (uint32_t l = 0; l < t->lanes; l++) {
		snprintf(lane, sizeof(lane), "%s lane %u", t->name, l);
		fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": 0, \"pid\": %u, "
			"\"tid\": %u, \"args\": {\"name\": ", pid, timeline_tid(t, pid, l));
		json_str(f, lane);
		fputs("}}", f);
	}
}

/* timeline_write_json - see timeline.h */
int timeline_write_json(struct timeline *tl, FILE *f)
{
	uint64_t t0 = tl->nr ? UINT64_MAX : 0;
	uint32_t tid = TL_LANE_TID;
	bool first = true;
	int ret = 0;

	if (tl->nr)
		qsort(tl->req, tl->nr, sizeof(*tl->req), timeline_by_start);
	for (size_t i = 0; i < tl->nr && !ret; i++) {
		struct tl_req *q = &tl->req[i];

		t0 = q->t_start < t0 ? q->t_start : t0;
		ret = timeline_lane(&tl->disks[q->disk], q->t_start, q->t_done, &q->disk_lane);
		if (!ret)
			ret = timeline_lane(&tl->procs[q->proc], q->t_start, q->t_done, &q->proc_lane);
	}
	if (ret)
		return ret;
	for (size_t i = 0; i < tl->nr_disks; i++) {
		tl->disks[i].first_tid = tid;
		tid += tl->disks[i].lanes;
	}
	for (size_t i = 0; i < tl->nr_procs; i++) {
		tl->procs[i].first_tid = tid;
		tid += tl->procs[i].lanes;
	}
	fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"producer\": \"iotap\"}, "
	      "\"traceEvents\": [", f);
	for (size_t i = 0; i < tl->nr_disks; i++)
		timeline_meta(f, &first, &tl->disks[i], TL_DISK_PID + i, i);
	for (size_t i = 0; i < tl->nr_procs; i++)
		timeline_meta(f, &first, &tl->procs[i], tl->procs[i].id, tl->nr_disks + i);
	for (size_t i = 0; i < tl->nr; i++) {
		const struct tl_req *q = &tl->req[i];
		const struct tl_track *d = &tl->disks[q->disk], *p = &tl->procs[q->proc];
		uint32_t dpid = TL_DISK_PID + q->disk, dtid = timeline_tid(d, dpid, q->disk_lane);
		uint32_t ptid = timeline_tid(p, p->id, q->proc_lane);
		const char *disk = d->name + 5;
		char name[96];

		if (q->flush)
			snprintf(name, sizeof(name), "flush%s", q->error ? " (error)" : "");
		else
			snprintf(name, sizeof(name), "%s %u B @ %llu%s", q->rwbs, q->bytes,
				 (unsigned long long)q->sector, q->error ? " (error)" : "");
		timeline_slice(f, &first, name, q->flush ? "flush" : "request", dpid, dtid, t0, q->t_start,
			       q->t_done, q, disk, p->name);
		if (q->t_issue > q->t_start)
			timeline_slice(f, &first, "queued", "queued", dpid, dtid, t0, q->t_start, q->t_issue,
				       NULL, NULL, NULL);
		timeline_slice(f, &first, "device", "device", dpid, dtid, t0, q->t_issue, q->t_done, NULL,
			       NULL, NULL);
		timeline_slice(f, &first, name, q->flush ? "flush" : "request", p->id, ptid, t0, q->t_start,
			       q->t_done, q, disk, p->name);
		if (q->flush)
			timeline_instant(f, &first, "flush", dpid, dtid, q->t_issue - t0);
		if (q->error) {
			snprintf(name, sizeof(name), "error %d", q->error);
			timeline_instant(f, &first, name, dpid, dtid, q->t_done - t0);
			timeline_instant(f, &first, name, p->id, ptid, q->t_done - t0);
		}
	}
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}
