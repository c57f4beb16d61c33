/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TFS_H
#define IOTAP_TFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

/* tracefs location: found, or mounted at /sys/kernel/tracing like perf does. */
int tfs_dir_get(const char **dir);
int tfs_libtracefs_sync(void);
int tfs_file_read(const char *rel, char **buf, size_t *len);
int tfs_file_append(const char *rel, const char *text);
bool tfs_event_exists(const char *sys, const char *name);
bool tfs_file_exists(const char *rel);
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

int fmt_set_init(struct fmt_set *fs, const char *header_page, size_t len,
		 int long_size, int page_size);
int fmt_set_init_live(struct fmt_set *fs);
void fmt_set_release(struct fmt_set *fs);
struct tep_event *fmt_set_add(struct fmt_set *fs, const char *sys, const char *name,
			      const char *text, size_t len);
struct tep_event *fmt_set_add_live(struct fmt_set *fs, const char *sys, const char *name);
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

struct dynevent_set *dynevent_set_alloc(void);
int dynevent_create(struct dynevent_set *set, enum dynevent_kind kind, const char *name,
		    const char *target, uint64_t offset, const char *args);
const char *dynevent_group(void);
int dynevent_destroy_all(struct dynevent_set *set);
void dynevent_set_free(struct dynevent_set *set);
int dynevent_remove_stale(void);

#endif
