// SPDX-License-Identifier: GPL-2.0-or-later
/* cgbirths.c - record --cgroups: where each child born straight into a cgroup is (cgbirths.h) */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cgbirths.h"
#include "cgroup.h"
#include "field.h"
#include "log.h"
#include "sections.h"

struct cgbirths {
	struct iotap_event *ev;		/* task:task_newtask */
	struct field pid, flags;
	uint64_t gone;			/* reaped before /proc was read */
	uint64_t rec[REC_BORN_MAX / 8];	/* the born record made last */
};

/* cb_ignore - the births' handler: the recorder looks at their records instead */
static int cb_ignore(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return 0;
}

/* cgbirths_create - see cgbirths.h */
int cgbirths_create(struct cgbirths **out, struct session *s)
{
	struct cgbirths *cb;

	*out = NULL;
	if (!iotap_event_available(&s->ctx, "task", "task_newtask"))
		return 0;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	cb->ev = iotap_event_use(&s->ctx, "task", "task_newtask", 0, cb_ignore, NULL);
	if (!cb->ev) {
		int ret = -errno;

		free(cb);
		return ret;
	}
	field_init(&cb->pid, cb->ev->tep, "pid");
	field_init(&cb->flags, cb->ev->tep, "clone_flags");
	/* A 32-bit kernel's clone_flags drops the flag: the report says so, as a live run does. */
	if (cb->flags.size < 8)
		cb->flags.present = false;
	*out = cb;
	return 0;
}

/* cgbirths_learn - see cgbirths.h */
const struct perf_event_header *cgbirths_learn(struct cgbirths *cb, struct session *s,
					       const struct perf_event_header *rec)
{
	struct perf_sample smp;
	char path[PATH_MAX];
	uint32_t tid;
	int ret;

	if (rec->type != PERF_RECORD_SAMPLE || session_event_find(s, perf_record_id(rec)) != cb->ev ||
	    perf_sample_parse(rec, cb->ev->sample_type, cb->ev->regs_mask, &smp) ||
	    !(field_u64(&cb->flags, smp.raw, smp.raw_size) & CGROUP_CLONE_INTO))
		return NULL;
	tid = (uint32_t)field_u64(&cb->pid, smp.raw, smp.raw_size);
	ret = s->host->cgroup_born ? s->host->cgroup_born(s, tid, smp.time, path, sizeof(path)) :
		-ENODATA;
	if (ret)
		cb->gone++;
	return rec_sec_born_encode(cb->rec, tid, ret ? NULL : path, smp.time, smp.cpu);
}

/* cgbirths_report - see cgbirths.h */
void cgbirths_report(struct cgbirths *cb)
{
	if (!cb || !cb->gone)
		return;
	log_msg(LOG_WARN, "%llu task%s created straight into a cgroup (clone3 CLONE_INTO_CGROUP) had exited before %s cgroup could be read: a report puts %s I/O in no cgroup",
		(unsigned long long)cb->gone, cb->gone == 1 ? "" : "s", cb->gone == 1 ? "its" : "their",
		cb->gone == 1 ? "its" : "their");
	cb->gone = 0;
}

/* cgbirths_free - see cgbirths.h */
void cgbirths_free(struct cgbirths *cb)
{
	free(cb);
}
