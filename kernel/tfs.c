// SPDX-License-Identifier: GPL-2.0-or-later
/* tfs.c - tracefs discovery and the kernel's event format texts */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tfs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static char tfs_path[PATH_MAX];

/* tfs_is_tracefs - true when dir is a mounted tracefs */
static bool tfs_is_tracefs(const char *dir)
{
	struct statfs st;

	return statfs(dir, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

/* tfs_dir_get - the tracefs directory, mounting it at /sys/kernel/tracing when absent */
int tfs_dir_get(const char **dir)
{
	static const char *const candidates[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};

	if (!tfs_path[0]) {
		const char *env = getenv("IOTAP_TRACEFS");

		if (env && tfs_is_tracefs(env))
			snprintf(tfs_path, sizeof(tfs_path), "%s", env);
		for (size_t i = 0; !tfs_path[0] && i < 2; i++)
			if (tfs_is_tracefs(candidates[i]))
				snprintf(tfs_path, sizeof(tfs_path), "%s", candidates[i]);
		if (!tfs_path[0]) {
			/* Left mounted on exit, as perf does: unmounting could pull it from under another user. */
			if (mount("nodev", candidates[0], "tracefs", 0, NULL))
				return -errno;
			snprintf(tfs_path, sizeof(tfs_path), "%s", candidates[0]);
		}
	}
	*dir = tfs_path;
	return 0;
}

/* tfs_libtracefs_sync - point libtracefs at the directory iotap found or mounted */
int tfs_libtracefs_sync(void)
{
	const char *dir;
	int ret = tfs_dir_get(&dir);

	if (ret)
		return ret;
	return tracefs_set_tracing_dir((char *)dir) ? -EIO : 0;
}

/* tfs_path_of - absolute path of a file under tracefs */
static int tfs_path_of(const char *rel, char *out, size_t size)
{
	const char *dir;
	int ret = tfs_dir_get(&dir);

	if (ret)
		return ret;
	if ((size_t)snprintf(out, size, "%s/%s", dir, rel) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* tfs_file_read - read a whole tracefs file into a NUL-terminated buffer */
int tfs_file_read(const char *rel, char **buf, size_t *len)
{
	char path[PATH_MAX];
	size_t cap = 4096, n = 0;
	char *data = NULL, *tmp;
	ssize_t r;
	int fd, ret;

	ret = tfs_path_of(rel, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!data || n + 1 >= cap) {
			cap *= 2;
			tmp = realloc(data, cap);
			if (!tmp) {
				ret = -ENOMEM;
				goto out_free;
			}
			data = tmp;
		}
		r = read(fd, data + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out_free;
		}
		if (r == 0)
			break;
		n += r;
	}
	data[n] = 0;
	close(fd);
	*buf = data;
	*len = n;
	return 0;
out_free:
	free(data);
	close(fd);
	return ret;
}

/* tfs_file_exists - whether a tracefs file exists (features differ across kernels) */
bool tfs_file_exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	/*
	 * stat, not access: access checks with the real uid, without capabilities,
	 * so a user given CAP_DAC_OVERRIDE would find no event at all.
	 */
	return tfs_path_of(rel, path, sizeof(path)) == 0 && stat(path, &st) == 0;
}

/* tfs_name_cmp - order names for qsort */
static int tfs_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* tfs_event_names - the events of one system; a NULL-terminated array the caller frees (each, then it) */
int tfs_event_names(const char *sys, char ***names)
{
	char path[PATH_MAX], rel[512], **arr = NULL, **tmp;
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int ret;

	snprintf(rel, sizeof(rel), "events/%s", sys);
	ret = tfs_path_of(rel, path, sizeof(path));
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	ret = 0;
	while ((de = readdir(d))) {
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, de->d_name);
		if (de->d_name[0] == '.' || !tfs_file_exists(rel))
			continue;
		tmp = realloc(arr, (n + 2) * sizeof(*arr));
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		arr = tmp;
		arr[n] = strdup(de->d_name);
		if (!arr[n]) {
			ret = -ENOMEM;
			break;
		}
		arr[++n] = NULL;
	}
	closedir(d);
	if (ret || !arr) {
		for (size_t i = 0; i < n; i++)
			free(arr[i]);
		free(arr);
		return ret ? ret : -ENOENT;
	}
	qsort(arr, n, sizeof(*arr), tfs_name_cmp);
	*names = arr;
	return 0;
}

/* tfs_event_exists - whether sys:name is a tracepoint on this kernel */
bool tfs_event_exists(const char *sys, const char *name)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	return tfs_file_exists(rel);
}

/* tfs_print_func_stub - stands in for a kernel print function: its text is not needed */
static unsigned long long tfs_print_func_stub(struct trace_seq *s, unsigned long long *args)
{
	return 0;
}

/*
 * Print functions the kernel's nvme and scsi formats call (nvme_trace_disk_name(p, ...)).
 * libtraceevent stops parsing a print fmt at a function it does not know, which loses
 * every argument after it, the __print_symbolic name tables among them.
 */
static const struct {
	char name[32];
	int nr_args;
} tfs_print_funcs[] = {
	{ "nvme_trace_disk_name", 2 },
	{ "nvme_trace_parse_nvm_cmd", 3 },
	{ "nvme_trace_parse_admin_cmd", 3 },
	{ "nvme_trace_parse_fabrics_cmd", 3 },
	{ "scsi_trace_parse_cdb", 3 },
};

/* tfs_print_funcs_register - declare the kernel's print functions so their formats parse whole */
static int tfs_print_funcs_register(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(tfs_print_funcs) / sizeof(tfs_print_funcs[0]); i++) {
		/* libtraceevent copies the name, but takes it as char *. */
		char name[sizeof(tfs_print_funcs[0].name)];
		int ret;

		memcpy(name, tfs_print_funcs[i].name, sizeof(name));
		/* Only the argument count matters for parsing; the pointers are never followed. */
		if (tfs_print_funcs[i].nr_args == 2)
			ret = tep_register_print_function(tep, tfs_print_func_stub, TEP_FUNC_ARG_STRING,
							  name, TEP_FUNC_ARG_PTR,
							  TEP_FUNC_ARG_PTR, TEP_FUNC_ARG_VOID);
		else
			ret = tep_register_print_function(tep, tfs_print_func_stub, TEP_FUNC_ARG_STRING,
							  name, TEP_FUNC_ARG_PTR,
							  TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_PTR,
							  TEP_FUNC_ARG_VOID);
		if (ret)
			return -ENOMEM;
	}
	return 0;
}

/* fmt_set_init - start a format set from a header_page text */
int fmt_set_init(struct fmt_set *fs, const char *header_page, size_t len,
		 int long_size, int page_size)
{
	memset(fs, 0, sizeof(*fs));
	fs->tep = tep_alloc();
	if (!fs->tep)
		return -ENOMEM;
	fs->long_size = long_size;
	fs->page_size = page_size;
	tep_set_long_size(fs->tep, long_size);
	tep_set_page_size(fs->tep, page_size);
	fs->header_page = malloc(len + 1);
	if (!fs->header_page || tfs_print_funcs_register(fs->tep)) {
		fmt_set_release(fs);
		return -ENOMEM;
	}
	memcpy(fs->header_page, header_page, len);
	fs->header_page[len] = 0;
	fs->header_page_len = len;
	/* A malformed header_page only loses ring-buffer page decoding, which iotap does not use. */
	tep_parse_header_page(fs->tep, fs->header_page, len, long_size);
	return 0;
}

/* fmt_set_init_live - start a format set from the running kernel */
int fmt_set_init_live(struct fmt_set *fs)
{
	char *hp;
	size_t len;
	int ret = tfs_file_read("events/header_page", &hp, &len);

	if (ret)
		return ret;
	ret = fmt_set_init(fs, hp, len, sizeof(long), getpagesize());
	free(hp);
	return ret;
}

/* fmt_set_release - free the texts and the tep handle; safe twice */
void fmt_set_release(struct fmt_set *fs)
{
	for (size_t i = 0; i < fs->nr; i++) {
		free(fs->ev[i].sys);
		free(fs->ev[i].name);
		free(fs->ev[i].text);
	}
	free(fs->ev);
	free(fs->header_page);
	if (fs->tep)
		tep_free(fs->tep);
	memset(fs, 0, sizeof(*fs));
}

/* fmt_set_find - the parsed event sys:name, or NULL */
struct tep_event *fmt_set_find(const struct fmt_set *fs, const char *sys, const char *name)
{
	return fs->tep ? tep_find_event_by_name(fs->tep, sys, name) : NULL;
}

/* fmt_set_add - parse one event format text and keep a copy of it */
struct tep_event *fmt_set_add(struct fmt_set *fs, const char *sys, const char *name,
			      const char *text, size_t len)
{
	struct fmt_event *ev, *arr;
	struct tep_event *tev = fmt_set_find(fs, sys, name);

	if (tev)
		return tev;
	arr = realloc(fs->ev, (fs->nr + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	fs->ev = arr;
	ev = &fs->ev[fs->nr];
	ev->sys = strdup(sys);
	ev->name = strdup(name);
	ev->text = malloc(len + 1);
	if (!ev->sys || !ev->name || !ev->text)
		goto out_free;
	memcpy(ev->text, text, len);
	ev->text[len] = 0;
	ev->len = len;
	if (tep_parse_event(fs->tep, ev->text, len, sys) != TEP_ERRNO__SUCCESS) {
		errno = EINVAL;
		goto out_free;
	}
	tev = fmt_set_find(fs, sys, name);
	if (!tev) {
		/* The text named another event than the one asked for. */
		errno = EINVAL;
		goto out_free;
	}
	fs->nr++;
	return tev;
out_free:
	free(ev->sys);
	free(ev->name);
	free(ev->text);
	if (!errno)
		errno = ENOMEM;
	return NULL;
}

/* fmt_set_add_live - read sys:name's format from tracefs and add it */
struct tep_event *fmt_set_add_live(struct fmt_set *fs, const char *sys, const char *name)
{
	struct tep_event *tev;
	char rel[512], *text;
	size_t len;
	int ret;

	tev = fmt_set_find(fs, sys, name);
	if (tev)
		return tev;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	ret = tfs_file_read(rel, &text, &len);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	tev = fmt_set_add(fs, sys, name, text, len);
	free(text);
	return tev;
}
