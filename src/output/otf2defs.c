// SPDX-License-Identifier: GPL-2.0-or-later
/* otf2defs.c - an OTF2 archive's processes, threads, handles and open operations, by index */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "otf2defs.h"

#define OTF2_DEFS_NONE UINT32_MAX

/* otf2_defs_init - empty definitions */
int otf2_defs_init(struct otf2_defs *d)
{
	memset(d, 0, sizeof(*d));
	d->free_op = OTF2_DEFS_NONE;
	if (hashtab_init(&d->proc_idx, 64) || hashtab_init(&d->loc_idx, 64) ||
	    hashtab_init(&d->disk_idx, 16) || hashtab_init(&d->file_idx, 64)) {
		otf2_defs_release(d);
		return -ENOMEM;
	}
	return 0;
}

/* otf2_defs_release - free everything, safe twice */
void otf2_defs_release(struct otf2_defs *d)
{
	for (size_t i = 0; i < d->nr_handles; i++)
		free(d->handles[i].name);
	free(d->handles);
	free(d->procs);
	free(d->locs);
	free(d->ops);
	hashtab_release(&d->proc_idx);
	hashtab_release(&d->loc_idx);
	hashtab_release(&d->disk_idx);
	hashtab_release(&d->file_idx);
	memset(d, 0, sizeof(*d));
	d->free_op = OTF2_DEFS_NONE;
}

/* otf2_defs_proc - the process pid's index into *i, made on first sight */
static int otf2_defs_proc(struct otf2_defs *d, uint32_t pid, uint32_t *i)
{
	struct hashtab_pos pos;
	struct otf2_proc *p;

	for (uint32_t *v = hashtab_find(&d->proc_idx, hashtab_mix(pid), &pos); v;
	     v = hashtab_find_next(&d->proc_idx, &pos)) {
		if (d->procs[*v].pid == pid) {
			*i = *v;
			return 0;
		}
	}
	if (array_reserve(&d->procs, &d->cap_procs, d->nr_procs + 1, sizeof(*d->procs), 16) ||
	    hashtab_add(&d->proc_idx, &pos, (uint32_t)d->nr_procs))
		return -ENOMEM;
	p = &d->procs[d->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	*i = (uint32_t)d->nr_procs++;
	return 0;
}

/* otf2_defs_location - thread tid of process pid, made on first sight; comm renames its process */
int otf2_defs_location(struct otf2_defs *d, uint32_t pid, uint32_t tid, const char *comm,
		       uint32_t *loc)
{
	struct hashtab_pos pos;
	struct otf2_loc *l = NULL;
	struct otf2_proc *p;
	uint32_t proc;
	uint32_t *v;

	for (v = hashtab_find(&d->loc_idx, hashtab_mix((uint64_t)tid << 32 | pid), &pos); v;
	     v = hashtab_find_next(&d->loc_idx, &pos)) {
		if (d->locs[*v].pid == pid && d->locs[*v].tid == tid) {
			l = &d->locs[*v];
			*loc = *v;
			break;
		}
	}
	if (!l) {
		if (otf2_defs_proc(d, pid, &proc) ||
		    array_reserve(&d->locs, &d->cap_locs, d->nr_locs + 1, sizeof(*d->locs), 16) ||
		    hashtab_add(&d->loc_idx, &pos, (uint32_t)d->nr_locs))
			return -ENOMEM;
		l = &d->locs[d->nr_locs];
		memset(l, 0, sizeof(*l));
		l->pid = pid;
		l->tid = tid;
		l->proc = proc;
		*loc = (uint32_t)d->nr_locs++;
	}
	p = &d->procs[l->proc];
	if (comm && comm[0] && strcmp(comm, "?") && strncmp(p->comm, comm, sizeof(p->comm)))
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return 0;
}

/* otf2_defs_handle_add - a new handle of kind, its name copied; its index into *h */
static int otf2_defs_handle_add(struct otf2_defs *d, struct hashtab *idx, struct hashtab_pos *pos,
				enum otf2_handle_kind kind, uint32_t dev, const char *name,
				uint32_t *h)
{
	char *copy = strdup(name);

	if (!copy || array_reserve(&d->handles, &d->cap_handles, d->nr_handles + 1,
				   sizeof(*d->handles), 16) ||
	    hashtab_add(idx, pos, (uint32_t)d->nr_handles)) {
		free(copy);
		return -ENOMEM;
	}
	d->handles[d->nr_handles] = (struct otf2_handle){ .kind = kind, .dev = dev, .name = copy };
	*h = (uint32_t)d->nr_handles++;
	return 0;
}

/* otf2_defs_disk - the handle of disk dev, made on first sight */
int otf2_defs_disk(struct otf2_defs *d, uint32_t dev, const char *name, uint32_t *h)
{
	struct hashtab_pos pos;

	for (uint32_t *v = hashtab_find(&d->disk_idx, hashtab_mix(dev), &pos); v;
	     v = hashtab_find_next(&d->disk_idx, &pos)) {
		if (d->handles[*v].dev == dev) {
			*h = *v;
			return 0;
		}
	}
	return otf2_defs_handle_add(d, &d->disk_idx, &pos, OTF2_HANDLE_DISK, dev, name, h);
}

/* otf2_defs_file - the handle of the file called name, made on first sight */
int otf2_defs_file(struct otf2_defs *d, const char *name, uint32_t *h)
{
	struct hashtab_pos pos;
	uint32_t hash = hashtab_mix(hashtab_fnv_str(HASHTAB_FNV_BASIS, name));

	for (uint32_t *v = hashtab_find(&d->file_idx, hash, &pos); v;
	     v = hashtab_find_next(&d->file_idx, &pos)) {
		if (!strcmp(d->handles[*v].name, name)) {
			*h = *v;
			return 0;
		}
	}
	return otf2_defs_handle_add(d, &d->file_idx, &pos, OTF2_HANDLE_FILE, 0, name, h);
}

/* otf2_defs_time - t, or loc's last event's time when t is earlier; the event counted */
uint64_t otf2_defs_time(struct otf2_defs *d, uint32_t loc, uint64_t t)
{
	struct otf2_loc *l = &d->locs[loc];

	if (l->events && t < l->last) {
		d->late++;
		if (l->last - t > d->late_max_ns)
			d->late_max_ns = l->last - t;
		t = l->last;
	}
	l->last = t;
	l->events++;
	if (!d->have_time || t < d->t_first)
		d->t_first = t;
	if (!d->have_time || t > d->t_last)
		d->t_last = t;
	d->have_time = true;
	return t;
}

/* otf2_defs_op_open - a new open operation of loc on h; a closed one's id is reused */
int otf2_defs_op_open(struct otf2_defs *d, uint32_t loc, uint32_t h, uint64_t *id)
{
	uint32_t i = d->free_op;

	if (i == OTF2_DEFS_NONE) {
		if (d->nr_ops >= OTF2_DEFS_NONE ||
		    array_reserve(&d->ops, &d->cap_ops, d->nr_ops + 1, sizeof(*d->ops), 64))
			return -ENOMEM;
		i = (uint32_t)d->nr_ops++;
	} else {
		d->free_op = d->ops[i].next_free;
	}
	d->ops[i] = (struct otf2_op){ .loc = loc, .handle = h, .open = true,
				      .next_free = OTF2_DEFS_NONE };
	d->nr_open++;
	*id = i;
	return 0;
}

/* otf2_defs_op - the open operation of id, or NULL */
const struct otf2_op *otf2_defs_op(const struct otf2_defs *d, uint64_t id)
{
	return id < d->nr_ops && d->ops[id].open ? &d->ops[id] : NULL;
}

/* otf2_defs_op_close - id ended: put it first among those to reuse */
void otf2_defs_op_close(struct otf2_defs *d, uint64_t id)
{
	if (!otf2_defs_op(d, id))
		return;
	d->ops[id].open = false;
	d->ops[id].next_free = d->free_op;
	d->free_op = (uint32_t)id;
	d->nr_open--;
}
