// SPDX-License-Identifier: GPL-2.0-or-later
/* probespec.c - a probe's text: an existing tracepoint or a kprobe/uprobe to make (probespec.h) */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probespec.h"

#define TRACEPOINT_SYNTAX "expected [t:]system:event [filter]"
#define DYNAMIC_SYNTAX "expected p|r:[/path/binary:]symbol[+offset] [fetchargs]"

/* probespec_event_name - a tracefs-safe event name from the symbol */
static void probespec_event_name(const char *symbol, bool ret, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s_%s", ret ? "r" : "p", symbol);

	for (size_t i = 0; i < n && i < len; i++)
		if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') ||
		      (buf[i] >= 'A' && buf[i] <= 'Z') || (buf[i] >= '0' && buf[i] <= '9')))
			buf[i] = '_';
}

/* probespec_tracepoint - "SYS:EVENT" at sys, the filter after it */
static int probespec_tracepoint(struct probespec *ps, char *sys, char *filter, const char **why)
{
	char *name = strchr(sys, ':');

	if (!name || !name[1] || name == sys || strchr(name + 1, ':')) {
		*why = TRACEPOINT_SYNTAX;
		return -EINVAL;
	}
	*name++ = 0;
	ps->tracepoint = true;
	ps->sys = sys;
	ps->name = name;
	ps->filter = filter;
	return 0;
}

/* probespec_parse - see probespec.h */
int probespec_parse(const char *text, struct probespec *ps, const char **why)
{
	char *kind, *where, *args, *path = NULL, *symbol, *plus;
	uint64_t offset = 0;
	bool ret;

	*ps = (struct probespec){ 0 };
	ps->text = strdup(text);
	if (!ps->text)
		return -ENOMEM;
	args = strchr(ps->text, ' ');
	if (args)
		*args++ = 0;
	kind = ps->text;
	where = strchr(kind, ':');
	if (where && where - kind == 1 && kind[0] == 't')
		return probespec_tracepoint(ps, where + 1, args, why);
	if (where && !(where - kind == 1 && (kind[0] == 'p' || kind[0] == 'r')) &&
	    strchr(where + 1, ':') == NULL && where[1])
		return probespec_tracepoint(ps, kind, args, why);
	if (!where || where - kind != 1 || (kind[0] != 'p' && kind[0] != 'r') || !where[1]) {
		*why = DYNAMIC_SYNTAX;
		return -EINVAL;
	}
	ret = kind[0] == 'r';
	where++;
	symbol = strrchr(where, ':');
	if (symbol) {
		*symbol++ = 0;
		path = where;
	} else {
		symbol = where;
	}
	plus = strchr(symbol, '+');
	if (plus) {
		*plus++ = 0;
		offset = strtoull(plus, NULL, 0);
	}
	probespec_event_name(symbol, ret, ps->probe_name, sizeof(ps->probe_name));
	ps->probe = (struct probe_spec){
		.uprobe = path != NULL, .ret = ret, .name = ps->probe_name, .path = path,
		.symbol = symbol, .offset = offset, .args = args,
	};
	return 0;
}

/* probespec_names - see probespec.h */
bool probespec_names(const struct probespec *ps, const char *sys, const char *name)
{
	return ps->tracepoint && !strcmp(ps->sys, sys) && !fnmatch(ps->name, name, 0);
}

/* probespec_release - see probespec.h */
void probespec_release(struct probespec *ps)
{
	free(ps->text);
	ps->text = NULL;
}
