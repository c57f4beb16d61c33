// SPDX-License-Identifier: GPL-2.0-or-later
/* cgname.c - a cgroup path folded to a depth, and the container or unit it names */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cgname.h"

/* cgname_fold - see cgname.h */
void cgname_fold(const char *path, unsigned int depth, char *out, size_t len)
{
	const char *p = path;
	unsigned int n = 0;

	if (!len)
		return;
	if (depth)
		for (p = path; *p; p++)
			if (*p == '/' && p != path && ++n == depth)
				break;
	if (!depth || !*p) {
		snprintf(out, len, "%s", path);
		return;
	}
	snprintf(out, len, "%.*s", (int)(p - path), path);
}

/* cgname_hex - whether the n bytes at s are all lower-case hex digits */
static bool cgname_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* cgname_scoped_id - the 64-hex id of a component "PREFIX<id>.scope", or NULL */
static const char *cgname_scoped_id(const char *c, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	if (n != p + 64 + 6 || strncmp(c, prefix, p) || strncmp(c + p + 64, ".scope", 6) ||
	    !cgname_hex(c + p, 64))
		return NULL;
	return c + p;
}

/* cgname_component - the container or unit component c (n bytes) names, under parent; 0: none */
static int cgname_component(const char *c, size_t n, const char *path, char *out, size_t len)
{
	static const struct {
		const char *prefix;
		int shown;
	} scopes[] = {
		{ "docker-", 12 }, { "libpod-", 12 }, { "cri-containerd-", 13 }, { "crio-", 13 },
	};
	const char *id;

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		id = cgname_scoped_id(c, n, scopes[i].prefix);
		if (id) {
			snprintf(out, len, "%.*s", scopes[i].shown, id);
			return 1;
		}
	}
	/* A bare id: Docker's cgroupfs driver (/docker/ID), or the kubelet's (/kubepods/.../ID). */
	if (n == 64 && cgname_hex(c, 64)) {
		int shown = strstr(path, "/kubepods") && strstr(path, "/kubepods") < c ? 13 :
			    strstr(path, "/docker/") && strstr(path, "/docker/") < c ? 12 : 0;

		if (shown) {
			snprintf(out, len, "%.*s", shown, c);
			return 1;
		}
	}
	if (n > 14 && !strncmp(c, "machine-", 8) && !strncmp(c + n - 6, ".scope", 6) &&
	    c - path >= 15 && !strncmp(c - 15, "/machine.slice/", 15)) {
		snprintf(out, len, "%.*s", (int)(n - 14), c + 8);
		return 1;
	}
	if (n > 8 && !strncmp(c + n - 8, ".service", 8)) {
		snprintf(out, len, "%.*s", (int)n, c);
		return 1;
	}
	return 0;
}

/* cgname_container - see cgname.h */
void cgname_container(const char *path, char *out, size_t len)
{
	const char *end = path + strlen(path);

	if (!len)
		return;
	out[0] = 0;
	/* The deepest first: a container's own sub-cgroups, and services inside a machine. */
	while (end > path) {
		const char *c = end;

		while (c > path && c[-1] != '/')
			c--;
		if (end > c && cgname_component(c, (size_t)(end - c), path, out, len))
			return;
		end = c > path ? c - 1 : path;
	}
}
