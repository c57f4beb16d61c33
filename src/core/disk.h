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

/*
 * disk_table_scan - every device under sysfs_block (/sys/class/block), partitions included: 0,
 * or -errno (opening the folder; -ENOMEM)
 */
int disk_table_scan(struct disk_table *t, const char *sysfs_block);
/* disk_table_add - remember one device: 0 or -ENOMEM */
int disk_table_add(struct disk_table *t, uint32_t dev, const char *name, const char *sched);
/*
 * Add dev by the name its sysfs_dev_block (/sys/dev/block) entry links to: a device
 * that appeared after the scan. 0, -ENOENT (no such device) or -ENOMEM.
 */
int disk_table_add_sysfs(struct disk_table *t, uint32_t dev, const char *sysfs_dev_block);
/* disk_table_by_name - look up "sda", "loop0" or "MAJ:MIN"; NULL when unknown (no error) */
const struct disk *disk_table_by_name(const struct disk_table *t, const char *name);
/* disk_table_by_dev - look up a kernel dev_t; NULL when unknown (no error) */
const struct disk *disk_table_by_dev(const struct disk_table *t, uint32_t dev);
/*
 * disk_table_parent_guess - the disk whose name d's extends by a partition number (sda for
 * sda1), for tables that do not say (recordings); NULL: none
 */
const struct disk *disk_table_parent_guess(const struct disk_table *t, const struct disk *d);
void disk_table_release(struct disk_table *t);
void disk_sched_parse(const char *text, char *out, size_t len);

#endif
