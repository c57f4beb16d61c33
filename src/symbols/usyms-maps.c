// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usyms-maps.c - the processes the user symbolizer knows and their executable mappings:
 * mmap, fork, exec, exit, and the bias of each mapping
 */
#include "usyms-local.h"

#include "array.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* uproc_dwfl_drop - free a process's unwinding Dwfl */
void uproc_dwfl_drop(struct uproc *p)
{
	dwfl_end(p->dwfl);
	p->dwfl = NULL;
}

/*
 * uproc_maps_clear - forget a process's mappings (pid reused or exec)
 *
 * When a key was handed out for this image, stacks taken with it are still
 * to be named: its mappings move to a retired process that the key finds
 * from now on, and the pid starts afresh without a key.
 */
void uproc_maps_clear(struct usyms *us, struct uproc *p)
{
	struct uproc *old = p->key ? calloc(1, sizeof(*old)) : NULL;

	if (old) {
		old->pid = p->pid;
		old->exited = true;
		old->maps = p->maps;
		old->nmaps = p->nmaps;
		old->cap = p->cap;
		old->gen = p->gen;
		old->key = p->key;
		old->next = us->retired;
		us->retired = old;
		us->keyed[p->key - 1] = old;
		p->maps = NULL;
		p->cap = 0;
		p->key = 0;
	}
	/* Without memory for the copy, the key names the new image: wrong names, not a crash. */
	p->nmaps = 0;
	p->exited = false;
	p->gen++;
}

/* usyms_proc_probe - the process of a pid, or NULL with pos where it would go */
static struct uproc *usyms_proc_probe(const struct usyms *us, uint32_t pid,
				      struct hashtab_pos *pos)
{
	uint32_t *i;

	for (i = hashtab_find(&us->proc_index, hashtab_mix(pid), pos); i;
	     i = hashtab_find_next(&us->proc_index, pos)) {
		if (us->procs[*i]->pid == pid)
			return us->procs[*i];
	}
	return NULL;
}

/* usyms_proc_find - the process of a pid, or NULL */
struct uproc *usyms_proc_find(const struct usyms *us, uint32_t pid)
{
	struct hashtab_pos pos;

	return usyms_proc_probe(us, pid, &pos);
}

/* usyms_proc_get - the process of a pid, created if new */
struct uproc *usyms_proc_get(struct usyms *us, uint32_t pid)
{
	struct hashtab_pos pos;
	struct uproc *p = usyms_proc_probe(us, pid, &pos);

	if (p)
		return p;
	if (us->nprocs >= UINT32_MAX ||
	    array_reserve(&us->procs, &us->procs_cap, us->nprocs + 1,
			  sizeof(*us->procs), 256))
		goto no_memory;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto no_memory;
	p->pid = pid;
	p->gen = 1;
	if (hashtab_add(&us->proc_index, &pos, (uint32_t)us->nprocs)) {
		free(p);
		goto no_memory;
	}
	us->procs[us->nprocs++] = p;
	return p;

no_memory:
	errno = ENOMEM;
	return NULL;
}

/* uproc_free - free a process */
void uproc_free(struct uproc *p)
{
	if (!p)
		return;
	uproc_dwfl_drop(p);
	free(p->maps);
	free(p);
}

/* uproc_maps_reserve - room for n more mappings */
static int uproc_maps_reserve(struct uproc *p, size_t n)
{
	return array_reserve(&p->maps, &p->cap, p->nmaps + n, sizeof(*p->maps), 16);
}

/* uproc_map_insert - insert a mapping, cutting away what it overlaps */
static int uproc_map_insert(struct uproc *p, const struct umap *m)
{
	struct umap *maps, old;
	size_t i, n = 0;
	bool placed = false;

	/* at most one old mapping is split in two: n + 2 entries suffice */
	maps = malloc((p->nmaps + 2) * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	for (i = 0; i < p->nmaps; i++) {
		old = p->maps[i];
		if (!placed && old.start >= m->start) {
			maps[n++] = *m;
			placed = true;
		}
		if (old.end <= m->start || old.start >= m->end) {
			maps[n++] = old;
			continue;
		}
		if (old.start < m->start) {
			maps[n] = old;
			maps[n++].end = m->start;
		}
		if (!placed) {
			maps[n++] = *m;
			placed = true;
		}
		if (old.end > m->end) {
			old.pgoff += m->end - old.start;
			old.start = m->end;
			maps[n++] = old;
		}
	}
	if (!placed)
		maps[n++] = *m;
	free(p->maps);
	p->maps = maps;
	p->nmaps = n;
	p->cap = n;
	p->gen++;
	return 0;
}

/* uproc_map_find - the mapping holding an address, or NULL */
struct umap *uproc_map_find(struct uproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

/* umap_bias_compute - find the bias of a mapping from its file's segments */
bool umap_bias_compute(struct umap *m)
{
	const struct ufile *f = m->file;
	uint64_t len = m->end - m->start;
	const struct uload *l, *pick = NULL;
	size_t i;

	if (m->bias_known)
		return true;
	if (f->state != UFILE_FOUND)
		return false;
	if (!f->debug_only) {
		/* the segment whose file range the mapping covers, text first */
		for (i = 0; i < f->nloads; i++) {
			l = &f->loads[i];
			if (m->pgoff >= l->offset + l->filesz ||
			    m->pgoff + len <= l->offset)
				continue;
			if (!pick || ((l->flags & PF_X) && !(pick->flags & PF_X)))
				pick = l;
		}
		if (pick) {
			m->bias = m->start - m->pgoff + pick->offset - pick->vaddr;
			m->bias_known = true;
			return true;
		}
	}
	/* A debug file has lost the file offsets: take the text segment the
	 * mapping spans exactly, else assume offsets follow addresses. */
	for (i = 0; i < f->nloads; i++) {
		uint64_t lo, hi;

		l = &f->loads[i];
		lo = l->vaddr & ~4095ULL;
		hi = (l->vaddr + l->memsz + 4095) & ~4095ULL;
		if ((l->flags & PF_X) && hi - lo == len) {
			m->bias = m->start - lo;
			m->bias_known = true;
			return true;
		}
	}
	m->bias = m->start - m->pgoff - (f->loads[0].vaddr & ~4095ULL);
	m->bias_known = true;
	return true;
}

/* usyms_map_add_hinted - usyms_map_add(), trying the hint path first */
int usyms_map_add_hinted(struct usyms *us, uint32_t pid,
			 uint64_t start, uint64_t len, uint64_t pgoff,
			 const char *path, const uint8_t *build_id,
			 uint8_t build_id_len, const char *hint)
{
	struct uproc *p;
	struct ufile *f;
	struct umap m;

	if (!us || !path || len == 0 || start + len < start ||
	    build_id_len > USYMS_BUILD_ID_MAX || (build_id_len && !build_id))
		return -EINVAL;
	p = usyms_proc_get(us, pid);
	if (!p)
		return -ENOMEM;
	if (p->exited) {
		/* a new process with a pid whose exit we saw */
		uproc_maps_clear(us, p);
	}
	f = usyms_file_get(us, path, build_id, build_id_len);
	if (!f)
		return -ENOMEM;
	/* the hint may not outlive the process: use it now */
	if (hint && f->state == UFILE_NEW)
		ufile_resolve(us, f, hint);
	else if (hint && f->state == UFILE_MISSING)
		ufile_try(f, hint);

	m = (struct umap){
		.start = start,
		.end = start + len,
		.pgoff = pgoff,
		.file = f,
	};
	return uproc_map_insert(p, &m);
}

/* usyms_map_add - record a mapping of a process */
int usyms_map_add(struct usyms *us, uint32_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path, const uint8_t *build_id,
		  uint8_t build_id_len)
{
	char hint[PATH_MAX];
	int n;

	/* live: a container's file is only reachable through its root */
	if (us && !us->sysroot && build_id_len && path && path[0] == '/') {
		n = snprintf(hint, sizeof(hint), "/proc/%" PRIu32 "/root%.*s",
			     pid, (int)path_strip_deleted(path), path);
		if (n > 0 && (size_t)n < sizeof(hint))
			return usyms_map_add_hinted(us, pid, start, len, pgoff,
						    path, build_id,
						    build_id_len, hint);
	}
	return usyms_map_add_hinted(us, pid, start, len, pgoff, path, build_id,
				    build_id_len, NULL);
}

/* usyms_proc_fork - a process was forked */
int usyms_proc_fork(struct usyms *us, uint32_t ppid, uint32_t pid)
{
	struct uproc *parent, *child;
	int err;

	if (!us)
		return -EINVAL;
	if (ppid == pid)
		return 0;	/* a new thread */
	child = usyms_proc_get(us, pid);
	if (!child)
		return -ENOMEM;
	uproc_maps_clear(us, child);
	uproc_dwfl_drop(child);
	parent = usyms_proc_find(us, ppid);
	if (!parent || !parent->nmaps)
		return 0;
	err = uproc_maps_reserve(child, parent->nmaps);
	if (err)
		return err;
	memcpy(child->maps, parent->maps, parent->nmaps * sizeof(*child->maps));
	child->nmaps = parent->nmaps;
	return 0;
}

/* usyms_proc_exec - a process called exec: drop its mappings */
int usyms_proc_exec(struct usyms *us, uint32_t pid)
{
	struct uproc *p;

	if (!us)
		return -EINVAL;
	p = usyms_proc_find(us, pid);
	if (p) {
		uproc_maps_clear(us, p);
		uproc_dwfl_drop(p);
	}
	return 0;
}

/* usyms_proc_exit - a process exited: keep its mappings for the report */
void usyms_proc_exit(struct usyms *us, uint32_t pid)
{
	struct uproc *p;

	if (!us)
		return;
	p = usyms_proc_find(us, pid);
	if (p) {
		p->exited = true;
		uproc_dwfl_drop(p);
	}
}
