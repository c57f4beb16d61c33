/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_DISK_H
#define IOTAP_DISK_H

#include <stddef.h>
#include <stdint.h>

/* Block devices by kernel dev_t: names and schedulers, live or from a recording. */
struct disk {
	uint32_t dev;			/* major << 20 | minor, as tracepoints carry it */
	char name[32];
	char sched[32];			/* active I/O scheduler, "" when unknown */
	uint32_t parent;		/* a partition's disk; 0: a whole disk, or not known */
	uint64_t start, nr_sectors;	/* a partition's place on its disk */
};

struct disk_table {
	struct disk *d;
	size_t nr;
};

int disk_table_scan(struct disk_table *t, const char *sysfs_block);
int disk_table_add(struct disk_table *t, uint32_t dev, const char *name, const char *sched);
/*
 * Add dev by the name its sysfs_dev_block (/sys/dev/block) entry links to: a device
 * that appeared after the scan. 0, -ENOENT (no such device) or -ENOMEM.
 */
int disk_table_add_sysfs(struct disk_table *t, uint32_t dev, const char *sysfs_dev_block);
const struct disk *disk_table_by_name(const struct disk_table *t, const char *name);
const struct disk *disk_table_by_dev(const struct disk_table *t, uint32_t dev);
const struct disk *disk_table_parent_guess(const struct disk_table *t, const struct disk *d);
void disk_table_release(struct disk_table *t);
void disk_sched_parse(const char *text, char *out, size_t len);

#endif
