// SPDX-License-Identifier: GPL-2.0-or-later
/* selection.c - which events a recording takes: the tools' events and probes */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "selection.h"

/* sel_ignore - the handler of recorded events: on_record takes every record instead */
static int sel_ignore(struct iotap_ctx *ctx, const struct perf_sample *s, void *arg)
{
	return 0;
}

/* --cgroups, where the kernel has them: what charges writeback to the inode's cgroup. */
static const struct {
	const char *sys, *name;
} sel_cgroup_writeback[] = {
	{ "cgroup", "cgroup_mkdir" },
	{ "writeback", "writeback_single_inode_start" },
	{ "writeback", "writeback_single_inode" },
};

/* sel_listed - whether name is an item of the comma-separated list */
static bool sel_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* sel_check_list - every item of --tools names a tool */
static int sel_check_list(const struct record_params *p)
{
	char *copy = strdup(p->tools), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!p->tool_find(tok)) {
			log_msg(LOG_ERR, "unknown tool '%s' in --tools; see 'iotap list'", tok);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

/*
 * sel_is_block_tool - a tool whose events are block:* tracepoints, but for
 * those recorded only when asked for (TOOL_EV_OPTIN)
 */
static bool sel_is_block_tool(const struct tool *t)
{
	if (!t->events || !t->events[0].sys)
		return false;
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (strcmp(e->sys, "block") && !(e->flags & TOOL_EV_OPTIN))
			return false;
	return true;
}

/* sel_tool_missing - an event a tool cannot do without that this kernel lacks, or NULL */
static const struct tool_event *sel_tool_missing(struct session *s, const struct tool *t)
{
	for (const struct tool_event *e = t->events; e->sys; e++)
		if (!(e->flags & TOOL_EV_OPTIONAL) && !iotap_event_available(&s->ctx, e->sys, e->name))
			return e;
	return NULL;
}

/*
 * sel_want - add a tool's events that this kernel has; stacks if any tool takes them; an
 * option's own (TOOL_EV_OPTIN) only when optin (the tool named, or --all)
 */
static int sel_want(struct session *s, const struct tool *t, bool stacks, bool optin,
		    struct tool_event **want, size_t *nr)
{
	for (const struct tool_event *e = t->events; e->sys; e++) {
		unsigned int flags = stacks && (e->flags & TOOL_EV_STACK) ?
			IOTAP_EV_KSTACK | IOTAP_EV_USTACK : 0;
		struct tool_event *w;
		size_t i;

		if (!iotap_event_available(&s->ctx, e->sys, e->name) ||
		    ((e->flags & TOOL_EV_OPTIN) && !optin))
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

/* sel_probe_made - whether a probe called name was made for this recording already */
static bool sel_probe_made(const struct session *s, const char *name)
{
	for (size_t i = 0; s->probe_sys && i < s->nr_ev; i++)
		if (!strcmp(s->ev[i]->sys, s->probe_sys) && !strcmp(s->ev[i]->name, name))
			return true;
	return false;
}

/* sel_probes - the probes a tool makes for itself that this kernel can make, recorded too */
static int sel_probes(struct session *s, const struct tool *t)
{
	bool made = false;

	for (const struct probe_spec *p = t->probes; p && p->name; p++) {
		struct probe_spec made_spec = *p;
		char args[256];
		const char *sys;
		int ret;

		/* As the tool does: a fallback only where the probe before it could not be made. */
		if (p->fallback && made)
			continue;
		made = false;
		if (!iotap_probe_available(&s->ctx, p) ||
		    (p->args_fn && p->args_fn(&s->ctx, args, sizeof(args))))
			continue;
		if (p->args_fn)
			made_spec.args = args;
		made = true;
		/* Two tools may make the same probe; one place may be probed once (-EEXIST). */
		if (sel_probe_made(s, p->name))
			continue;
		ret = iotap_probe_create(&s->ctx, &made_spec, &sys);
		if (ret == -EEXIST)
			continue;
		if (ret)
			return ret;
		if (!iotap_event_use(&s->ctx, sys, p->name, 0, sel_ignore, NULL))
			return -errno;
	}
	return 0;
}

/* selection_subscribe - the events of the tools asked for (default: the block tools) */
int selection_subscribe(struct session *s, const struct record_params *p, struct rec_buf *names,
			 bool *fds)
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
		ret = sel_check_list(p);
		if (ret)
			return ret;
	}
	for (const struct tool *const *tp = p->tool_table; *tp && !ret; tp++) {
		const struct tool *t = *tp;
		const struct tool_event *miss;

		if (p->tools ? !sel_listed(p->tools, t->name) &&
		    !(t->alias && sel_listed(p->tools, t->alias)) :
		    !p->all && !sel_is_block_tool(t))
			continue;
		if (!t->events || !t->events[0].sys) {
			if (p->tools) {
				log_msg(LOG_ERR, "%s declares no events that can be recorded", t->name);
				ret = -EINVAL;
			}
			continue;
		}
		miss = sel_tool_missing(s, t);
		if (miss && p->tools) {
			log_msg(LOG_ERR, "%s needs %s:%s, which this kernel does not have",
				t->name, miss->sys, miss->name);
			ret = -ENOENT;
		} else if (miss) {
			log_msg(LOG_WARN, "not recording for %s: this kernel has no %s:%s",
				t->name, miss->sys, miss->name);
		} else {
			ret = sel_want(s, t, p->callchains, p->tools || p->all, &want, &nr);
			if (!ret)
				ret = sel_probes(s, t);
			*fds |= t->fds_initial;
			rec_buf_put(names, ",", names->len ? 1 : 0);
			rec_buf_put(names, t->name, strlen(t->name));
		}
	}
	for (size_t i = 0; i < nr && !ret; i++) {
		struct iotap_event *ev;

		stacks |= want[i].flags;
		ev = iotap_event_use(&s->ctx, want[i].sys, want[i].name, want[i].flags,
				     sel_ignore, NULL);
		if (!ev)
			ret = -errno;
		/* The recorder's own writes of the file would feed the syscall events they record. */
		else if (!strcmp(want[i].sys, "syscalls"))
			ret = iotap_event_filter(ev, "common_pid != %d", (int)getpid());
	}
	/* Which task is in which cgroup: a snapshot (snapshot.h), then these in stream order. */
	if (!ret && p->cgroups &&
	    (!iotap_event_use(&s->ctx, "sched", "sched_process_fork", 0, sel_ignore, NULL) ||
	     !iotap_event_use(&s->ctx, "cgroup", "cgroup_attach_task", 0, sel_ignore, NULL)))
		ret = -errno;
	/* And which cgroup owns what the flusher writes back, with the ids of new cgroups (cgroup.h). */
	for (size_t i = 0; !ret && p->cgroups && i < sizeof(sel_cgroup_writeback) / sizeof(sel_cgroup_writeback[0]); i++) {
		const char *sys = sel_cgroup_writeback[i].sys, *name = sel_cgroup_writeback[i].name;

		if (iotap_event_available(&s->ctx, sys, name) &&
		    !iotap_event_use(&s->ctx, sys, name, 0, sel_ignore, NULL))
			ret = -errno;
	}
	if (!ret && p->callchains && !stacks)
		log_msg(LOG_WARN, "-g: none of these tools takes stacks; only the symbols are recorded");
	free(want);
	rec_buf_put(names, "", 1);
	if (!ret && names->err)
		ret = names->err;
	if (!ret && !s->nr_ev) {
		log_msg(LOG_ERR, "no event to record");
		ret = -EINVAL;
	}
	return ret;
}

