// SPDX-License-Identifier: GPL-2.0-or-later
/* live-probe.c - where the live source puts kprobes and uprobes: binaries, offsets, hookable functions */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "elfsym.h"
#include "live-probe.h"
#include "log.h"
#include "tfs.h"

/* live_libc - the C library this program runs with, from its own mappings */
static int live_libc(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (strstr(p, "/libc.so.6") || strstr(p, "/libc-")) {
			snprintf(path, len, "%s", p);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* live_uprobe_place - the binary and file offset a uprobe goes to; logs nothing */
static int live_uprobe_place(const struct probe_spec *p, char *path, size_t len, uint64_t *off)
{
	uint64_t base;
	int err;

	if (p->libc)
		err = live_libc(path, len);
	else
		err = snprintf(path, len, "%s", p->path ? p->path : "") >= (int)len ? -ENAMETOOLONG : 0;
	if (err)
		return err;
	err = elf_symbol_file_offset(path, p->symbol, &base);
	if (err)
		return err;
	*off = base + p->offset;
	return 0;
}

/* live_str_cmp - qsort/bsearch order of C strings */
static int live_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* live_ftrace_fns_read - available_filter_functions, sorted for lookups */
static void live_ftrace_fns_read(struct live_probes *lp)
{
	char path[512], line[512];
	size_t cap = 0;
	const char *dir;
	FILE *f;

	lp->ftrace_fns_read = true;
	if (tfs_dir_get(&dir))
		return;
	snprintf(path, sizeof(path), "%s/available_filter_functions", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *name;

		line[strcspn(line, " \t\n")] = 0;
		if (array_reserve(&lp->ftrace_fns, &cap, lp->nr_ftrace_fns + 1,
				  sizeof(*lp->ftrace_fns), 4096))
			break;
		name = strdup(line);
		if (!name)
			break;
		lp->ftrace_fns[lp->nr_ftrace_fns++] = name;
	}
	if (f)
		fclose(f);
	if (lp->nr_ftrace_fns)
		qsort(lp->ftrace_fns, lp->nr_ftrace_fns, sizeof(*lp->ftrace_fns), live_str_cmp);
}

/*
 * live_probes_available - whether this kernel has the probe's kind and its
 * place: a uprobe's function in its binary; a kprobe's function where ftrace
 * can hook it (available_filter_functions), since an inlined or notrace
 * function would time nothing
 */
bool live_probes_available(struct live_probes *lp, const struct probe_spec *p)
{
	char path[4096];
	uint64_t off;

	if (!tfs_file_exists(p->uprobe ? "uprobe_events" : "kprobe_events"))
		return false;
	if (p->uprobe)
		return !live_uprobe_place(p, path, sizeof(path), &off);
	if (!p->symbol)
		return true;
	if (!lp->ftrace_fns_read)
		live_ftrace_fns_read(lp);
	return lp->nr_ftrace_fns &&
		bsearch(&p->symbol, lp->ftrace_fns, lp->nr_ftrace_fns, sizeof(*lp->ftrace_fns),
			live_str_cmp);
}

/* live_place_seen - remember a uprobe's place; -EEXIST when one was made there already */
static int live_place_seen(struct live_probes *lp, const char *path, uint64_t off, bool ret)
{
	for (size_t i = 0; i < lp->nr_places; i++)
		if (lp->places[i].offset == off && lp->places[i].ret == ret &&
		    !strcmp(lp->places[i].path, path))
			return -EEXIST;
	if (array_reserve(&lp->places, &lp->cap_places, lp->nr_places + 1, sizeof(*lp->places), 8))
		return -ENOMEM;
	lp->places[lp->nr_places].path = strdup(path);
	if (!lp->places[lp->nr_places].path)
		return -ENOMEM;
	lp->places[lp->nr_places].offset = off;
	lp->places[lp->nr_places++].ret = ret;
	return 0;
}

/* live_probes_create - a kprobe/uprobe in dyn's group, removed with it; -EEXIST: place taken */
int live_probes_create(struct live_probes *lp, struct dynevent_set *dyn,
		       const struct probe_spec *p, const char **sys)
{
	enum dynevent_kind kind = p->uprobe ? (p->ret ? DYNEVENT_URETPROBE : DYNEVENT_UPROBE) :
		(p->ret ? DYNEVENT_KRETPROBE : DYNEVENT_KPROBE);
	uint64_t offset = p->offset;
	char path[4096];
	int err;

	if (p->uprobe) {
		err = live_uprobe_place(p, path, sizeof(path), &offset);
		if (err) {
			log_msg(LOG_ERR, "no function '%s' in %s: %s", p->symbol,
				p->libc ? "the C library" : p->path, strerror(-err));
			return -EINVAL;
		}
		/* Aliases (open and open64) share an address: their second probe would fire twice. */
		err = live_place_seen(lp, path, offset, p->ret);
		if (err)
			return err;
	}
	err = dynevent_create(dyn, kind, p->name, p->uprobe ? path : p->symbol, offset,
			      p->args);
	if (err) {
		log_msg(LOG_ERR, "cannot create %s %s at %s: %s%s", p->uprobe ? "uprobe" : "kprobe",
			p->name, p->uprobe ? path : p->symbol, strerror(-err),
			!p->uprobe && !tfs_file_exists("kprobe_events") ?
			" (this kernel has no kprobe_events)" : "");
		return err;
	}
	*sys = dynevent_group();
	return 0;
}

/* live_probes_release - free what lp remembers; safe twice */
void live_probes_release(struct live_probes *lp)
{
	for (size_t i = 0; i < lp->nr_places; i++)
		free(lp->places[i].path);
	free(lp->places);
	for (size_t i = 0; i < lp->nr_ftrace_fns; i++)
		free(lp->ftrace_fns[i]);
	free(lp->ftrace_fns);
	memset(lp, 0, sizeof(*lp));
}
