// SPDX-License-Identifier: GPL-2.0-or-later
/* session-comms.c - a session's process names: from COMM records, by pid, forgotten after exit */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "session.h"
#include "session-local.h"

struct comm_ent {
	uint32_t pid;
	char comm[16];
	uint64_t gone;			/* its EXIT's time (at least 1); 0: alive */
};

/*
 * Names of processes that exited stay this long at least, and two
 * intervals (a tool may name them in its next report): then they go, so
 * that a long-running session's names are those of the host's living
 * processes, not of every one it ever saw.
 */
#define SESSION_COMM_GRACE_NS (60 * 1000000000ull)
/* Exited names kept before the table is compacted (then twice those left, at least). */
#define SESSION_COMM_GONE_MIN 1024

/* session_comm_index - rebuild the pid index of the names kept (after session_reset) */
static void session_comm_index(struct session *s)
{
	struct hashtab_pos pos;

	if (!s->comm_index.slots)
		return;
	hashtab_clear(&s->comm_index);
	for (size_t i = 0; i < s->nr_comms; i++) {
		hashtab_find(&s->comm_index, hashtab_mix(s->comms[i].pid), &pos);
		if (hashtab_add(&s->comm_index, &pos, (uint32_t)i))
			break;
	}
}

/* session_comms_keep - see session-local.h */
int session_comms_keep(struct session *s)
{
	if (s->nr_comms) {
		s->comms_open = malloc(s->nr_comms * sizeof(*s->comms_open));
		if (!s->comms_open)
			return -ENOMEM;
		memcpy(s->comms_open, s->comms, s->nr_comms * sizeof(*s->comms_open));
	}
	s->nr_comms_open = s->nr_comms;
	return 0;
}

/* session_comms_reset - see session-local.h */
void session_comms_reset(struct session *s)
{
	/* A run only adds names or renames: the first nr_comms_open entries are the open's. */
	if (s->nr_comms_open)
		memcpy(s->comms, s->comms_open, s->nr_comms_open * sizeof(*s->comms));
	s->nr_comms = s->nr_comms_open;
	s->nr_comms_gone = s->comm_compact_at = 0;
	session_comm_index(s);
}

/* session_comms_release - see session-local.h */
void session_comms_release(struct session *s)
{
	free(s->comms);
	s->comms = NULL;
	hashtab_release(&s->comm_index);
	free(s->comms_open);
	s->comms_open = NULL;
	s->nr_comms = s->cap_comms = s->nr_comms_open = 0;
}

/* session_comm_cache - remember pid's name (comm need not be NUL-terminated) */
void session_comm_cache(struct session *s, uint32_t pid, const char *comm)
{
	struct hashtab_pos pos;
	uint32_t *v;

	if (!s->comm_index.slots && hashtab_init(&s->comm_index, 1024))
		return;
	for (v = hashtab_find(&s->comm_index, hashtab_mix(pid), &pos); v;
	     v = hashtab_find_next(&s->comm_index, &pos)) {
		if (s->comms[*v].pid == pid) {
			snprintf(s->comms[*v].comm, sizeof(s->comms[*v].comm), "%.15s", comm);
			/* The pid lives again (reused): its name stays. */
			if (s->comms[*v].gone) {
				s->comms[*v].gone = 0;
				s->nr_comms_gone--;
			}
			return;
		}
	}
	if (array_reserve(&s->comms, &s->cap_comms, s->nr_comms + 1,
			  sizeof(*s->comms), 64) ||
	    hashtab_add(&s->comm_index, &pos, (uint32_t)s->nr_comms))
		return;
	s->comms[s->nr_comms].pid = pid;
	s->comms[s->nr_comms].gone = 0;
	snprintf(s->comms[s->nr_comms++].comm, 16, "%.15s", comm);
}

/* session_comm_compact - drop the names of processes gone for longer than the grace */
static void session_comm_compact(struct session *s, uint64_t now)
{
	uint64_t grace = s->interval_ns * 2 > SESSION_COMM_GRACE_NS ? s->interval_ns * 2 :
			 SESSION_COMM_GRACE_NS;
	size_t n = s->nr_comms_open;

	s->nr_comms_gone = 0;
	for (size_t i = s->nr_comms_open; i < s->nr_comms; i++) {
		if (s->comms[i].gone && s->comms[i].gone + grace <= now)
			continue;
		if (s->comms[i].gone)
			s->nr_comms_gone++;
		s->comms[n++] = s->comms[i];
	}
	s->nr_comms = n;
	s->comm_compact_at = s->nr_comms_gone * 2 + SESSION_COMM_GONE_MIN;
	session_comm_index(s);
}

/*
 * session_comm_exit - pid exited at time t: its name is kept a while, then
 * forgotten (only live runs that report by interval: a run that reports once
 * at its end may name any process it saw)
 */
void session_comm_exit(struct session *s, uint32_t pid, uint64_t t)
{
	struct hashtab_pos pos;
	uint32_t *v;

	if (!s->interval_ns || !s->comm_index.slots)
		return;
	for (v = hashtab_find(&s->comm_index, hashtab_mix(pid), &pos); v;
	     v = hashtab_find_next(&s->comm_index, &pos)) {
		struct comm_ent *c = &s->comms[*v];

		if (c->pid != pid || *v < s->nr_comms_open)
			continue;
		if (!c->gone)
			s->nr_comms_gone++;
		c->gone = t ? t : 1;
		break;
	}
	if (s->nr_comms_gone >= (s->comm_compact_at ? s->comm_compact_at : SESSION_COMM_GONE_MIN))
		session_comm_compact(s, t);
}

/* session_comm_count - see session.h */
size_t session_comm_count(const struct session *s)
{
	return s->nr_comms;
}

/* session_comm_cached - a name COMM records (or an earlier lookup) gave pid, or NULL */
const char *session_comm_cached(const struct session *s, uint32_t pid)
{
	struct hashtab_pos pos;
	uint32_t *v;

	if (!s->comm_index.slots)
		return NULL;
	for (v = hashtab_find(&s->comm_index, hashtab_mix(pid), &pos); v;
	     v = hashtab_find_next(&s->comm_index, &pos))
		if (s->comms[*v].pid == pid)
			return s->comms[*v].comm;
	return NULL;
}
