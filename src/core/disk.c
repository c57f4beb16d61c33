// SPDX-License-Identifier: GPL-2.0-or-later
/* disk.c - block device names and schedulers keyed by kernel dev_t */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "disk.h"

/* disk_sched_parse - the [bracketed] entry of a queue/scheduler file */
void disk_sched_parse(const char *text, char *out, size_t len)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b && (size_t)(b - a - 1) < len) {
		memcpy(out, a + 1, b - a - 1);
		out[b - a - 1] = 0;
	} else {
		snprintf(out, len, "%s", strncmp(text, "none", 4) ? "" : "none");
	}
}

/* disk_read_line - the first line of a sysfs file */
static int disk_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ret;
}

/* disk_table_add - remember one device */
int disk_table_add(struct disk_table *t, uint32_t dev, const char *name, const char *sched)
{
	struct disk *d = realloc(t->d, (t->nr + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	t->d = d;
	d = &t->d[t->nr++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->sched, sizeof(d->sched), "%s", sched ? sched : "");
	return 0;
}

/* disk_part_scan - a partition's disk and place on it (block events carry those, not its own) */
static void disk_part_scan(struct disk *d, const char *sysfs_block)
{
	char path[512], line[64];
	unsigned long long start, size;
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "%s/%s/partition", sysfs_block, d->name);
	if (access(path, F_OK))
		return;
	/* The class entry is a symlink into the disk's directory: ".." is the disk. */
	snprintf(path, sizeof(path), "%s/%s/../dev", sysfs_block, d->name);
	if (disk_read_line(path, line, sizeof(line)) || sscanf(line, "%u:%u", &ma, &mi) != 2)
		return;
	snprintf(path, sizeof(path), "%s/%s/start", sysfs_block, d->name);
	if (disk_read_line(path, line, sizeof(line)) || sscanf(line, "%llu", &start) != 1)
		return;
	snprintf(path, sizeof(path), "%s/%s/size", sysfs_block, d->name);
	if (disk_read_line(path, line, sizeof(line)) || sscanf(line, "%llu", &size) != 1)
		return;
	d->parent = BLOCK_DEV(ma, mi);
	d->start = start;
	d->nr_sectors = size;
}

/* disk_table_scan - every device under sysfs_block (/sys/class/block), partitions included */
int disk_table_scan(struct disk_table *t, const char *sysfs_block)
{
	DIR *dir = opendir(sysfs_block);
	struct dirent *de;
	int ret = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char path[512], line[256], sched[32] = "";
		unsigned int ma, mi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", sysfs_block, de->d_name);
		if (disk_read_line(path, line, sizeof(line)) || sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s/queue/scheduler", sysfs_block, de->d_name);
		if (disk_read_line(path, line, sizeof(line)) == 0)
			disk_sched_parse(line, sched, sizeof(sched));
		ret = disk_table_add(t, BLOCK_DEV(ma, mi), de->d_name, sched);
		if (ret)
			break;
		disk_part_scan(&t->d[t->nr - 1], sysfs_block);
	}
	closedir(dir);
	return ret;
}

/* disk_table_add_sysfs - see disk.h */
int disk_table_add_sysfs(struct disk_table *t, uint32_t dev, const char *sysfs_dev_block)
{
	char path[512], target[512], line[256], sched[32] = "";
	const char *name;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u:%u", sysfs_dev_block, BLOCK_DEV_MAJOR(dev),
		 BLOCK_DEV_MINOR(dev));
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return -ENOENT;
	target[n] = 0;
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	if (!*name)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%u:%u/queue/scheduler", sysfs_dev_block,
		 BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
	if (disk_read_line(path, line, sizeof(line)) == 0)
		disk_sched_parse(line, sched, sizeof(sched));
	return disk_table_add(t, dev, name, sched);
}

/* disk_table_by_name - look up "sda", "loop0" or "MAJ:MIN" */
const struct disk *disk_table_by_name(const struct disk_table *t, const char *name)
{
	unsigned int ma, mi;
	char c;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->d[i].name, name))
			return &t->d[i];
	if (sscanf(name, "%u:%u%c", &ma, &mi, &c) == 2)
		return disk_table_by_dev(t, BLOCK_DEV(ma, mi));
	return NULL;
}

/* disk_table_by_dev - look up a kernel dev_t */
const struct disk *disk_table_by_dev(const struct disk_table *t, uint32_t dev)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->d[i].dev == dev)
			return &t->d[i];
	return NULL;
}

/*
 * disk_table_parent_guess - the disk whose name d's extends by a partition number (sda for
 * sda1, nvme0n1 for nvme0n1p1), for tables that do not say (recordings); NULL: none
 */
const struct disk *disk_table_parent_guess(const struct disk_table *t, const struct disk *d)
{
	size_t n = strlen(d->name);

	while (n && d->name[n - 1] >= '0' && d->name[n - 1] <= '9')
		n--;
	if (!n || n == strlen(d->name))
		return NULL;
	for (size_t i = 0; i < t->nr; i++) {
		size_t m = strlen(t->d[i].name);

		if (&t->d[i] == d || strncmp(t->d[i].name, d->name, m))
			continue;
		/* sda1 after sda; nvme0n1p1 after nvme0n1 and its "p". */
		if (m == n || (m + 1 == n && d->name[m] == 'p'))
			return &t->d[i];
	}
	return NULL;
}

/* disk_table_release - free the table; safe twice */
void disk_table_release(struct disk_table *t)
{
	free(t->d);
	t->d = NULL;
	t->nr = 0;
}
