// SPDX-License-Identifier: GPL-2.0-or-later
/* breakdown.c - iostackbreakdown's tables and their text and JSON layouts (breakdown.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "breakdown.h"

/* breakdown_op_add - see breakdown.h */
int breakdown_op_add(struct breakdown *b, const char *op, uint64_t value, uint64_t ns)
{
	struct hist *h = hist_set_get(&b->hs, op);
	size_t i;

	if (!h || hist_add(h, value))
		return -ENOMEM;
	for (i = 0; i < b->nr_ops && strcmp(b->ops[i].name, op); i++)
		;
	if (i == b->nr_ops) {
		if (array_reserve(&b->ops, &b->cap_ops, i + 1, sizeof(*b->ops), 16))
			return -ENOMEM;
		b->ops[i] = (struct breakdown_op){ .ns = 0 };
		snprintf(b->ops[b->nr_ops++].name, sizeof(b->ops[0].name), "%s", op);
	}
	b->ops[i].ns += ns;
	return 0;
}

/* breakdown_sysrow - see breakdown.h */
struct breakdown_sys *breakdown_sysrow(struct breakdown *b, const char *name)
{
	for (size_t i = 0; i < b->nr_sys; i++)
		if (b->sysrow[i].name == name)
			return &b->sysrow[i];
	if (array_reserve(&b->sysrow, &b->cap_sys, b->nr_sys + 1, sizeof(*b->sysrow), 16))
		return NULL;
	memset(&b->sysrow[b->nr_sys], 0, sizeof(b->sysrow[0]));
	b->sysrow[b->nr_sys].name = name;
	return &b->sysrow[b->nr_sys++];
}

/* breakdown_out_add - see breakdown.h */
int breakdown_out_add(struct breakdown *b, const char *comm, uint64_t bytes, uint64_t ns)
{
	size_t i;

	for (i = 0; i < b->nr_out && strncmp(b->out[i].comm, comm, 16); i++)
		;
	if (i == b->nr_out) {
		if (array_reserve(&b->out, &b->cap_out, i + 1, sizeof(*b->out), 16))
			return -ENOMEM;
		memset(&b->out[i], 0, sizeof(b->out[i]));
		snprintf(b->out[i].comm, sizeof(b->out[i].comm), "%.15s", comm);
		b->nr_out++;
	}
	b->out[i].reqs++;
	b->out[i].bytes += bytes;
	b->out[i].ns += ns;
	return 0;
}

/* breakdown_us - ns as microseconds for the table */
static unsigned long long breakdown_us(uint64_t ns)
{
	return (unsigned long long)(ns / 1000);
}

/* breakdown_orig_add - see breakdown.h */
int breakdown_orig_add(struct breakdown *b, const char *comm, uint32_t pid, const char *inode,
		       const char *file, uint64_t bytes, uint64_t ns)
{
	size_t i;

	for (i = 0; i < b->nr_out; i++)
		if (b->out[i].pid == pid && !strncmp(b->out[i].comm, comm, 15) &&
		    !strncmp(b->out[i].inode, inode, sizeof(b->out[i].inode) - 1))
			break;
	if (i == b->nr_out) {
		if (array_reserve(&b->out, &b->cap_out, i + 1, sizeof(*b->out), 16))
			return -ENOMEM;
		memset(&b->out[i], 0, sizeof(b->out[i]));
		snprintf(b->out[i].comm, sizeof(b->out[i].comm), "%.15s", comm);
		snprintf(b->out[i].inode, sizeof(b->out[i].inode), "%s", inode);
		b->out[i].pid = pid;
		b->nr_out++;
	}
	if (!b->out[i].file)
		b->out[i].file = file;
	b->out[i].reqs++;
	b->out[i].bytes += bytes;
	b->out[i].ns += ns;
	return 0;
}

/* breakdown_print_orig - the block I/O outside the syscalls by originator */
static void breakdown_print_orig(const struct breakdown *b, FILE *out)
{
	fprintf(out, "\nblock I/O outside traced syscalls, by originator (who dirtied what writeback wrote):\n");
	fprintf(out, "%-16s %8s %-24s %8s %10s %12s %s\n", "ORIGINATOR", "PID", "INODE", "BLK_REQ",
		"KB", "BLK_us", "FILE");
	for (size_t i = 0; i < b->nr_out; i++) {
		const struct breakdown_out *o = &b->out[i];
		char pid[16] = "-";

		if (o->pid)
			snprintf(pid, sizeof(pid), "%u", o->pid);
		fprintf(out, "%-16s %8s %-24s %8llu %10llu %12llu %s\n", o->comm, pid,
			o->inode[0] ? o->inode : "-", (unsigned long long)o->reqs,
			(unsigned long long)(o->bytes / 1024), breakdown_us(o->ns),
			o->file ? o->file : "-");
	}
}

/* breakdown_print_attribution - per syscall: calls, latency, disk, waiting, bytes by source */
static void breakdown_print_attribution(const struct breakdown *b, FILE *out)
{
	fprintf(out, "\nper syscall (block I/O queued by the thread between sys_enter and sys_exit):\n");
	fprintf(out, "%-16s %8s %12s %10s %8s %8s %12s %12s %12s %12s %10s %10s %8s\n",
		"SYSCALL", "CALLS", "TOTAL_us", "AVG_us", "DISK", "BLK_REQ", "BLK_WAIT_us",
		"BLK_QUE_us", "BLK_DEV_us", "REST_us", "CACHE_KB", "DEV_KB", "PC_MISS");
	for (size_t i = 0; i < b->nr_sys; i++) {
		const struct breakdown_sys *r = &b->sysrow[i];

		fprintf(out, "%-16s %8llu %12llu %10llu %8llu %8llu %12llu %12llu %12llu %12llu %10llu %10llu %8llu\n",
			r->name, (unsigned long long)r->calls, breakdown_us(r->lat_ns),
			breakdown_us(r->calls ? r->lat_ns / r->calls : 0),
			(unsigned long long)r->disk_calls, (unsigned long long)r->reqs,
			breakdown_us(r->wait_ns), breakdown_us(r->queue_ns), breakdown_us(r->dev_ns),
			breakdown_us(r->lat_ns > r->wait_ns ? r->lat_ns - r->wait_ns : 0),
			(unsigned long long)(r->bytes_cache / 1024), (unsigned long long)(r->bytes_dev / 1024),
			(unsigned long long)r->pages);
	}
	if (b->nr_out && b->originator) {
		breakdown_print_orig(b, out);
	} else if (b->nr_out) {
		fprintf(out, "\nblock I/O outside traced syscalls (writeback, journal, workers):\n");
		fprintf(out, "%-16s %8s %10s %12s %s\n", "SUBMITTER", "BLK_REQ", "KB", "BLK_us", "");
		for (size_t i = 0; i < b->nr_out; i++)
			fprintf(out, "%-16s %8llu %10llu %12llu %s\n", b->out[i].comm,
				(unsigned long long)b->out[i].reqs,
				(unsigned long long)(b->out[i].bytes / 1024), breakdown_us(b->out[i].ns),
				!strncmp(b->out[i].comm, "kworker", 7) ? "writeback (flusher)" : "");
	}
	if (b->late_reqs)
		fprintf(out, "%llu requests completed after their syscall returned (not attributed)\n",
			(unsigned long long)b->late_reqs);
}

/* breakdown_print_json - the totals and the attribution, one object per line */
static void breakdown_print_json(const struct breakdown *b, FILE *out, const char *ts)
{
	for (size_t i = 0; i < b->nr_ops; i++) {
		fprintf(out, "{\"ts\": \"%s\", \"operation\": ", ts);
		json_str(out, b->ops[i].name);
		fprintf(out, ", \"total_ns\": %llu}\n", (unsigned long long)b->ops[i].ns);
	}
	for (size_t i = 0; i < b->nr_sys; i++) {
		const struct breakdown_sys *r = &b->sysrow[i];

		fprintf(out, "{\"ts\": \"%s\", \"syscall\": \"%s\", \"calls\": %llu, \"total_ns\": %llu, "
			"\"disk_calls\": %llu, \"blk_requests\": %llu, \"blk_wait_ns\": %llu, "
			"\"blk_queue_ns\": %llu, \"blk_device_ns\": %llu, \"rest_ns\": %llu, "
			"\"cache_bytes\": %llu, \"device_bytes\": %llu, \"pagecache_misses\": %llu}\n",
			ts, r->name, (unsigned long long)r->calls, (unsigned long long)r->lat_ns,
			(unsigned long long)r->disk_calls, (unsigned long long)r->reqs,
			(unsigned long long)r->wait_ns, (unsigned long long)r->queue_ns,
			(unsigned long long)r->dev_ns,
			(unsigned long long)(r->lat_ns > r->wait_ns ? r->lat_ns - r->wait_ns : 0),
			(unsigned long long)r->bytes_cache, (unsigned long long)r->bytes_dev,
			(unsigned long long)r->pages);
	}
	for (size_t i = 0; i < b->nr_out; i++) {
		fprintf(out, "{\"ts\": \"%s\", \"%s\": ", ts,
			b->originator ? "originator" : "outside_syscalls");
		json_str(out, b->out[i].comm);
		if (b->originator) {
			fprintf(out, ", \"pid\": %u, \"inode\": ", b->out[i].pid);
			json_str(out, b->out[i].inode);
			fprintf(out, ", \"file\": ");
			if (b->out[i].file)
				json_str(out, b->out[i].file);
			else
				fprintf(out, "null");
		}
		fprintf(out, ", \"blk_requests\": %llu, \"bytes\": %llu, \"blk_ns\": %llu}\n",
			(unsigned long long)b->out[i].reqs, (unsigned long long)b->out[i].bytes,
			(unsigned long long)b->out[i].ns);
	}
}

/* breakdown_op_cmp - totals in the histograms' order */
static int breakdown_op_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* breakdown_print - see breakdown.h */
int breakdown_print(struct breakdown *b, FILE *out, const char *label, bool percentiles,
		    bool json, const char *ts)
{
	int ret = 0;

	hist_set_sort(&b->hs);
	for (size_t i = 0; i < b->hs.nr && !ret; i++) {
		if (json) {
			ret = hist_print_json(&b->hs.h[i], out, label, ts, "operation", b->hs.keys[i]);
			continue;
		}
		fprintf(out, "\noperation = %s\n", b->hs.keys[i]);
		ret = hist_print_log2(&b->hs.h[i], out, label);
		if (!ret && percentiles)
			ret = hist_print_percentiles(&b->hs.h[i], out, label);
	}
	if (json) {
		breakdown_print_json(b, out, ts);
	} else {
		fputc('\n', out);
		/* name is the first member: the entries sort as strings. No ops: no array. */
		if (b->nr_ops)
			qsort(b->ops, b->nr_ops, sizeof(b->ops[0]), breakdown_op_cmp);
		for (size_t i = 0; i < b->nr_ops; i++)
			fprintf(out, "%s, %llu\n", b->ops[i].name, (unsigned long long)b->ops[i].ns);
		breakdown_print_attribution(b, out);
	}
	return ret;
}

/* breakdown_reset - see breakdown.h */
void breakdown_reset(struct breakdown *b)
{
	hist_set_reset(&b->hs);
	b->nr_ops = 0;
	b->nr_sys = 0;
	b->nr_out = 0;
	b->late_reqs = 0;
}

/* breakdown_release - see breakdown.h */
void breakdown_release(struct breakdown *b)
{
	hist_set_release(&b->hs);
	free(b->ops);
	free(b->sysrow);
	free(b->out);
	memset(b, 0, sizeof(*b));
}
