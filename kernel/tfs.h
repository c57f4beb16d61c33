/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TFS_H
#define IOTAP_TFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

/*
 * tracefs location: found, or mounted at /sys/kernel/tracing like perf does. 0, or
 * -errno from mount(2) (-EPERM: this process may not mount it).
 */
int tfs_dir_get(const char **dir);
/*
 * tfs_libtracefs_sync - point libtracefs at the directory iotap found or mounted: 0,
 * tfs_dir_get's -errno, or -EIO
 */
int tfs_libtracefs_sync(void);
/* tfs_file_read - a whole tracefs file into a NUL-terminated *buf the caller frees: 0 or -errno */
int tfs_file_read(const char *rel, char **buf, size_t *len);
bool tfs_event_exists(const char *sys, const char *name);
bool tfs_file_exists(const char *rel);
/*
 * tfs_event_names - the events of one system, a NULL-terminated array the caller frees (each,
 * then it): 0, -errno, or -ENOENT when the system has none
 */
int tfs_event_names(const char *sys, char ***names);

/*
 * The event formats a session uses: the kernel's own text for header_page
 * and each event, kept so that a recording can carry them and a report on
 * another kernel decodes with exactly what the recording kernel described.
 */
struct fmt_event {
	char *sys, *name;
	char *text;
	size_t len;
};

struct fmt_set {
	char *header_page;
	size_t header_page_len;
	struct fmt_event *ev;
	size_t nr;
	int long_size;
	int page_size;
	struct tep_handle *tep;
};

/* fmt_set_init - start a format set from a header_page text: 0 or -ENOMEM */
int fmt_set_init(struct fmt_set *fs, const char *header_page, size_t len,
		 int long_size, int page_size);
/*
 * fmt_set_init_live - start a format set from the running kernel: 0 or -errno
 * (tfs_file_read's, -ENOMEM)
 */
int fmt_set_init_live(struct fmt_set *fs);
void fmt_set_release(struct fmt_set *fs);
/*
 * fmt_set_add - parse one event format text and keep a copy: the event, or NULL with errno
 * (EINVAL: the text does not parse as sys:name, ENOMEM)
 */
struct tep_event *fmt_set_add(struct fmt_set *fs, const char *sys, const char *name,
			      const char *text, size_t len);
/*
 * fmt_set_add_live - read sys:name's format from tracefs and add it: the event, or NULL with
 * errno (tfs_file_read's, or fmt_set_add's)
 */
struct tep_event *fmt_set_add_live(struct fmt_set *fs, const char *sys, const char *name);
/* fmt_set_find - the parsed event sys:name, or NULL when the set has none (no error) */
struct tep_event *fmt_set_find(const struct fmt_set *fs, const char *sys, const char *name);

/*
 * Dynamic events (uprobes; kprobes where the kernel has them), created in a
 * group unique to this process, "iotap_<pid>", so that a later run can tell
 * a dead run's leftovers from a live one's and remove them.
 */
struct dynevent_set;

enum dynevent_kind {
	DYNEVENT_KPROBE,
	DYNEVENT_KRETPROBE,
	DYNEVENT_UPROBE,
	DYNEVENT_URETPROBE,
};

/* dynevent_set_alloc - an empty set of owned dynamic events, or NULL with errno (ENOMEM) */
struct dynevent_set *dynevent_set_alloc(void);
/*
 * dynevent_create - create group iotap_<pid>/name at target+offset with fetch args: 0, or
 * -errno (the kernel's refusal: -ENOENT, -EINVAL...; -ENOMEM)
 */
int dynevent_create(struct dynevent_set *set, enum dynevent_kind kind, const char *name,
		    const char *target, uint64_t offset, const char *args);
const char *dynevent_group(void);
/*
 * dynevent_destroy_all - remove every event of the set from the kernel; safe twice: 0, or
 * -errno (-EBUSY: an event still in use)
 */
int dynevent_destroy_all(struct dynevent_set *set);
void dynevent_set_free(struct dynevent_set *set);
/*
 * dynevent_remove_stale - remove iotap_<pid> events whose run is dead: how many, or -errno
 * (tfs_libtracefs_sync's)
 */
int dynevent_remove_stale(void);

#endif
