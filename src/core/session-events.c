// SPDX-License-Identifier: GPL-2.0-or-later
/* session-events.c - a session's events: the index by name, and the handlers of each */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "session.h"
#include "session-local.h"

/* event_hash - sys:name as ev_index hashes it */
static uint32_t event_hash(const char *sys, const char *name)
{
	uint64_t h = hashtab_fnv_str(HASHTAB_FNV_BASIS, sys);

	return hashtab_mix(hashtab_fnv_str(hashtab_fnv(h, ":", 1), name));
}

/*
 * session_find_event - an event already in use, or NULL: through ev_index,
 * as a tool that follows every system call asks for a hundred; pos ends the
 * probe, for session_index_event
 */
static struct iotap_event *session_find_event(struct session *s, const char *sys,
					      const char *name, struct hashtab_pos *pos)
{
	uint32_t *v;

	if (!s->ev_index.slots)
		return NULL;
	for (v = hashtab_find(&s->ev_index, event_hash(sys, name), pos); v;
	     v = hashtab_find_next(&s->ev_index, pos))
		if (*v < s->nr_ev && !strcmp(s->ev[*v]->name, name) && !strcmp(s->ev[*v]->sys, sys))
			return s->ev[*v];
	return NULL;
}

/*
 * session_index_event - ev_index: sys:name is s->ev[idx] (an index whose
 * event then fails to attach is left: a lookup checks the names it finds)
 */
static int session_index_event(struct session *s, const char *sys, const char *name,
			       uint32_t idx)
{
	struct hashtab_pos pos;

	if (!s->ev_index.slots && hashtab_init(&s->ev_index, 64))
		return -ENOMEM;
	if (session_find_event(s, sys, name, &pos))
		return -EEXIST;
	return hashtab_add(&s->ev_index, &pos, idx);
}

/* session_handler_add - fn(ctx, sample, arg) for every sample of ev, after those before it */
static int session_handler_add(struct iotap_event *ev, struct iotap_ctx *ctx,
			       iotap_handler_fn fn, void *arg)
{
	if (!ev->h) {
		ev->h = &ev->h_one;
		ev->cap_h = 1;
	} else if (ev->h == &ev->h_one && ev->nr_h == 1) {
		struct iotap_handler *h = malloc(4 * sizeof(*h));

		if (!h)
			return -ENOMEM;
		h[0] = ev->h_one;
		ev->h = h;
		ev->cap_h = 4;
	} else if (array_reserve(&ev->h, &ev->cap_h, ev->nr_h + 1, sizeof(*ev->h), 4)) {
		return -ENOMEM;
	}
	ev->h[ev->nr_h].fn = fn;
	ev->h[ev->nr_h].arg = arg;
	ev->h[ev->nr_h++].ctx = ctx;
	return 0;
}

/* session_event_use - subscribe fn (called with ctx, NULL: s->ctx) to sys:name, attached on first use */
struct iotap_event *session_event_use(struct session *s, struct iotap_ctx *ctx, const char *sys,
				      const char *name, unsigned int flags, iotap_handler_fn fn,
				      void *arg)
{
	struct hashtab_pos pos;
	struct iotap_event *ev = session_find_event(s, sys, name, &pos);
	size_t sys_len = strlen(sys) + 1, name_len = strlen(name) + 1;
	int ret;

	if (!ctx)
		ctx = &s->ctx;
	if (ev) {
		if (ev->layout_fixed && (flags & ~ev->flags)) {
			errno = EBUSY;
			return NULL;
		}
		ret = session_handler_add(ev, ctx, fn, arg);
		if (ret) {
			errno = -ret;
			return NULL;
		}
		return ev;
	}
	if (array_reserve(&s->ev, &s->cap_ev, s->nr_ev + 1, sizeof(*s->ev), 16))
		return NULL;
	/* One allocation for the event and its names: a tool may use hundreds. */
	ev = calloc(1, sizeof(*ev) + sys_len + name_len);
	if (!ev)
		return NULL;
	ev->sys = memcpy((char *)(ev + 1), sys, sys_len);
	ev->name = memcpy(ev->sys + sys_len, name, name_len);
	ev->flags = flags;
	ev->sess = s;
	if (session_handler_add(ev, ctx, fn, arg)) {
		errno = ENOMEM;
		goto out_free;
	}
	if ((flags & (IOTAP_EV_KSTACK | IOTAP_EV_USTACK)) && s->stacks_want) {
		ret = s->stacks_want(s, flags & IOTAP_EV_USTACK);
		if (ret) {
			errno = -ret;
			goto out_free;
		}
	}
	ret = session_index_event(s, sys, name, s->nr_ev);
	if (!ret)
		ret = s->src->event_attach(s, ev);
	if (ret) {
		errno = -ret;
		goto out_free;
	}
	s->ev[s->nr_ev++] = ev;
	return ev;
out_free:
	if (ev->h != &ev->h_one)
		free(ev->h);
	free(ev);
	return NULL;
}

/* session_events_free - see session-local.h */
void session_events_free(struct session *s)
{
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (s->ev[i]->h != &s->ev[i]->h_one)
			free(s->ev[i]->h);
		free(s->ev[i]);
	}
	s->nr_ev = 0;
	if (s->ev_index.slots)
		hashtab_clear(&s->ev_index);
}

/* session_events_release - see session-local.h */
void session_events_release(struct session *s)
{
	session_events_free(s);
	free(s->ev);
	s->ev = NULL;
	s->cap_ev = 0;
	hashtab_release(&s->ev_index);
}
