// SPDX-License-Identifier: GPL-2.0-or-later
/* usyms-procfs.c - reading a live process's executable mappings from /proc/PID/maps */
#include "usyms-local.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*maps_walk_fn)(void *arg, const struct usyms_map *map,
			    const char *hint);

/* maps_walk - call fn for each executable mapping of a live process */
static int maps_walk(uint32_t pid, maps_walk_fn fn, void *arg)
{
	char file[64], hint[PATH_MAX], last[PATH_MAX] = "";
	uint8_t last_id[USYMS_BUILD_ID_MAX];
	int last_len = 0, ret = 0, n, off;
	struct usyms_map map;
	size_t cap = 0, plen;
	char *line = NULL, perms[8];
	uint64_t end;
	FILE *fp;

	elf_version(EV_CURRENT);
	snprintf(file, sizeof(file), "/proc/%" PRIu32 "/maps", pid);
	fp = fopen(file, "re");
	if (!fp)
		return -errno;
	while (getline(&line, &cap, fp) > 0) {
		bool deleted;
		char *path;

		off = 0;
		n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %*u %n",
			   &map.start, &end, perms, &map.pgoff, &off);
		if (n < 4 || off == 0 || end <= map.start || !strchr(perms, 'x'))
			continue;
		map.len = end - map.start;
		path = line + off;
		path[strcspn(path, "\n")] = '\0';
		plen = path_strip_deleted(path);
		deleted = path[plen] != '\0';
		path[plen] = '\0';
		/* After the cut, which writes: the name below is a literal. */
		if (!path[0])
			path = (char *)"//anon";
		map.path = path;
		map.build_id_len = 0;
		hint[0] = '\0';
		if (path[0] == '/' && strcmp(path, "//anon") != 0) {
			if (deleted)
				n = snprintf(hint, sizeof(hint),
					     "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
					     pid, map.start, end);
			else
				n = snprintf(hint, sizeof(hint), "/proc/%" PRIu32 "/root%s",
					     pid, path);
			if (n < 0 || (size_t)n >= sizeof(hint))
				hint[0] = '\0';
			if (strcmp(last, path) != 0) {
				last_len = hint[0] ? usyms_build_id_read(hint, last_id,
									  sizeof(last_id))
						   : -ENOENT;
				if (last_len < 0 && !deleted)
					last_len = usyms_build_id_read(path, last_id,
								       sizeof(last_id));
				snprintf(last, sizeof(last), "%s", path);
			}
			if (last_len > 0 && last_len <= USYMS_BUILD_ID_MAX) {
				memcpy(map.build_id, last_id, last_len);
				map.build_id_len = last_len;
			}
		}
		ret = fn(arg, &map, hint[0] ? hint : NULL);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	return ret;
}

struct foreach_ctx {
	usyms_map_fn fn;
	void *arg;
};

/* foreach_cb - maps_walk() callback of usyms_maps_foreach() */
static int foreach_cb(void *arg, const struct usyms_map *map, const char *hint)
{
	struct foreach_ctx *ctx = arg;

	(void)hint;
	return ctx->fn(ctx->arg, map);
}

/* usyms_maps_foreach - walk a live process's executable mappings */
int usyms_maps_foreach(uint32_t pid, usyms_map_fn fn, void *arg)
{
	struct foreach_ctx ctx = { .fn = fn, .arg = arg };

	if (!fn)
		return -EINVAL;
	return maps_walk(pid, foreach_cb, &ctx);
}

struct maps_read_ctx {
	struct usyms *us;
	uint32_t pid;
};

/* maps_read_cb - maps_walk() callback of usyms_maps_read() */
static int maps_read_cb(void *arg, const struct usyms_map *map, const char *hint)
{
	struct maps_read_ctx *ctx = arg;

	return usyms_map_add_hinted(ctx->us, ctx->pid, map->start, map->len,
				    map->pgoff, map->path, map->build_id,
				    map->build_id_len, hint);
}

/* usyms_maps_read - load a live process's executable mappings */
int usyms_maps_read(struct usyms *us, uint32_t pid)
{
	struct maps_read_ctx ctx = { .us = us, .pid = pid };
	struct uproc *p;

	if (!us)
		return -EINVAL;
	p = usyms_proc_get(us, pid);
	if (!p)
		return -ENOMEM;
	uproc_maps_clear(us, p);
	return maps_walk(pid, maps_read_cb, &ctx);
}
