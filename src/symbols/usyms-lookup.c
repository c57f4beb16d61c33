// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usyms-lookup.c - naming addresses: the function symbol, the inlined calls DWARF describes,
 * and the cache of addresses already named
 */
#include "usyms-local.h"

#include "array.h"

#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inlined frames kept per address, the real function included. */
#define USYMS_INLINE_MAX	16

/* Cache entries after which the address cache starts afresh. */
#define USYMS_CACHE_MAX		(1u << 20)

/* ufile_sym_find - the function symbol holding a link-time address */
static const struct usym *ufile_sym_find(const struct ufile *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= f->syms[lo - 1].end)
		return NULL;
	return &f->syms[lo - 1];
}

/* Nesting of scopes followed below a compile unit. */
#define USYMS_SCOPES_MAX	64

/* die_scopes_find - code scopes holding pc below parent, outermost first */
static int die_scopes_find(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain,
			   int depth)
{
	Dwarf_Die child;
	int found;

	/* Fills chain[depth...] and returns the new depth. dwarf_getscopes()
	 * is no help: past an inlined instance it follows the abstract
	 * origin, and finds none across units (LTO builds). */
	if (depth >= USYMS_SCOPES_MAX || dwarf_child(parent, &child) != 0)
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_entry_point:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) <= 0)
				break;
			chain[depth] = child;
			return die_scopes_find(&chain[depth], pc, chain, depth + 1);
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			/* no pc range of their own, but functions inside */
			found = die_scopes_find(&child, pc, chain, depth);
			if (found > depth)
				return found;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

/* ucu_cmp - qsort order of compile unit ranges */
static int ucu_cmp(const void *pa, const void *pb)
{
	const struct ucu *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* ufile_cus_load - index the compile units by their address ranges */
static int ufile_cus_load(struct ufile *f)
{
	Dwarf_Addr bias, base, lo, hi;
	Dwarf_Die *cu = NULL;
	size_t cap = 0;
	ptrdiff_t off;

	f->cus_loaded = true;
	while ((cu = dwfl_module_nextcu(f->mod, cu, &bias))) {
		for (off = 0; (off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0;) {
			if (hi <= lo)
				continue;
			if (array_reserve(&f->cus, &cap, f->ncus + 1, sizeof(*f->cus), 64))
				return -ENOMEM;
			f->cus[f->ncus++] = (struct ucu){
				.lo = lo + bias,
				.hi = hi + bias,
				.die = *cu,
				.bias = bias,
			};
		}
	}
	if (f->ncus)
		qsort(f->cus, f->ncus, sizeof(*f->cus), ucu_cmp);
	return 0;
}

/* ufile_cu_find - the compile unit holding a link-time address */
static Dwarf_Die *ufile_cu_find(struct ufile *f, uint64_t addr,
				Dwarf_Addr *bias)
{
	size_t lo = 0, hi, mid;
	Dwarf_Die *cu;

	cu = dwfl_module_addrdie(f->mod, addr, bias);
	if (cu)
		return cu;
	/* elfutils < 0.191 finds units only through .debug_aranges, which
	 * clang does not write */
	if (!f->cus_loaded && ufile_cus_load(f) != 0)
		return NULL;
	hi = f->ncus;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->cus[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= f->cus[lo - 1].hi)
		return NULL;
	*bias = f->cus[lo - 1].bias;
	return &f->cus[lo - 1].die;
}

/* ucu_src_pos - where the line table of a compile unit puts an address */
static void ucu_src_pos(Dwarf_Die *cu, Dwarf_Addr pc, const char **file, int *line)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);

	*file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!l || dwarf_lineno(l, line))
		*line = 0;
}

/* die_call_pos - where an inlined instance is called from, in the function it is inlined into */
static void die_call_pos(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, const char **file,
			 int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	*file = NULL;
	*line = 0;
	if (files && !dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) && v <= INT32_MAX)
		*line = (int)v;
}

/*
 * ufile_inlines - the inlined calls at pc (a unit's address) of a compile unit, innermost
 * first, at most max of them; *file and *line, the line table's position at pc on entry,
 * move out through the call sites to where the function they are inlined into stands
 */
static int ufile_inlines(struct ufile *f, Dwarf_Die *cu, Dwarf_Addr pc, uint64_t off,
			 struct usym_frame *out, int max, const char **outer,
			 const char **file, int *line)
{
	Dwarf_Die chain[USYMS_SCOPES_MAX];
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	const char *name;
	int depth, i, n = 0;

	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	depth = die_scopes_find(cu, pc, chain, 0);
	for (i = depth - 1; i >= 0; i--) {
		switch (dwarf_tag(&chain[i])) {
		case DW_TAG_inlined_subroutine:
			/* the name comes through DW_AT_abstract_origin */
			name = dwarf_diename(&chain[i]);
			if (name && n < max)
				out[n++] = (struct usym_frame){
					.name = name,
					.module = f->base,
					.offset = off,
					.inlined = true,
					.file = *file,
					.line = *line,
				};
			die_call_pos(&chain[i], files, nfiles, file, line);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_entry_point:
			if (!*outer)
				*outer = dwarf_diename(&chain[i]);
			return n;
		default:
			break;
		}
	}
	return n;
}

/* ufile_frames - the frames of a link-time address of a file */
static int ufile_frames(struct usyms *us, struct ufile *f, uint64_t addr,
			struct usym_frame *out, int max)
{
	const struct usym *sym;
	const char *outer, *file = NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	uint64_t off;
	int n = 0, line = 0;

	if (ufile_dwfl_open(us, f) != 0) {
		out[0] = (struct usym_frame){ .module = f->base, .offset = addr };
		return 1;
	}
	sym = ufile_sym_find(f, addr);
	outer = sym ? sym->name : NULL;
	off = sym ? addr - sym->addr : addr;
	cu = ufile_cu_find(f, addr, &bias);
	if (cu) {
		ucu_src_pos(cu, addr - bias, &file, &line);
		n = ufile_inlines(f, cu, addr - bias, off, out, max - 1, &outer, &file, &line);
	}
	out[n++] = (struct usym_frame){
		.name = outer,
		.module = f->base,
		.offset = outer ? off : addr,
		.file = file,
		.line = line,
	};
	return n;
}

/* usyms_cache_grow - double the address cache */
static int usyms_cache_grow(struct usyms *us)
{
	size_t cap = us->cache_cap ? us->cache_cap * 2 : 4096, i, j;
	struct ucache_entry *cache;

	cache = calloc(cap, sizeof(*cache));
	if (!cache)
		return -ENOMEM;
	for (i = 0; i < us->cache_cap; i++) {
		const struct ucache_entry *e = &us->cache[i];

		if (!e->file)
			continue;
		j = hashtab_mix((uintptr_t)e->file ^ e->addr) & (cap - 1);
		while (cache[j].file)
			j = (j + 1) & (cap - 1);
		cache[j] = *e;
	}
	free(us->cache);
	us->cache = cache;
	us->cache_cap = cap;
	return 0;
}

/* usyms_cache_reset - start the address cache afresh */
static void usyms_cache_reset(struct usyms *us)
{
	memset(us->cache, 0, us->cache_cap * sizeof(*us->cache));
	us->cache_used = 0;
	us->ncframes = 0;
}

/* usyms_cache_slot - the cache slot of (file, addr): its entry or a free one */
static struct ucache_entry *usyms_cache_slot(struct usyms *us,
					     const struct ufile *f,
					     uint64_t addr)
{
	size_t i = hashtab_mix((uintptr_t)f ^ addr) & (us->cache_cap - 1);

	while (us->cache[i].file &&
	       (us->cache[i].file != f || us->cache[i].addr != addr))
		i = (i + 1) & (us->cache_cap - 1);
	return &us->cache[i];
}

/* usyms_cache_store - remember the frames of (file, addr) */
static void usyms_cache_store(struct usyms *us, const struct ufile *f,
			      uint64_t addr, const struct usym_frame *frames,
			      int n)
{
	struct ucache_entry *e;

	if (us->cache_used >= USYMS_CACHE_MAX)
		usyms_cache_reset(us);
	if ((us->cache_used + 1) * 2 > us->cache_cap && usyms_cache_grow(us))
		return;
	if (array_reserve(&us->cframes, &us->cframes_cap, us->ncframes + n,
			  sizeof(*us->cframes), 4096))
		return;
	e = usyms_cache_slot(us, f, addr);
	e->file = f;
	e->addr = addr;
	e->first = us->ncframes;
	e->n = n;
	memcpy(&us->cframes[us->ncframes], frames, n * sizeof(*frames));
	us->ncframes += n;
	us->cache_used++;
}

/* usyms_lookup - symbolize an instruction pointer of a process */
static int uproc_lookup(struct usyms *us, struct uproc *p, uint64_t ip,
			struct usym_frame *frames, int max);

int usyms_lookup(struct usyms *us, uint32_t pid, uint64_t ip,
		 struct usym_frame *frames, int max)
{
	if (!us || !frames || max < 1)
		return -EINVAL;
	return uproc_lookup(us, usyms_proc_find(us, pid), ip, frames, max);
}

/* usyms_key_lookup - usyms_lookup() in the process image a key names */
int usyms_key_lookup(struct usyms *us, uint32_t key, uint64_t ip,
		     struct usym_frame *frames, int max)
{
	if (!us || !frames || max < 1)
		return -EINVAL;
	return uproc_lookup(us, key && key <= us->nkeyed ? us->keyed[key - 1] : NULL, ip,
			    frames, max);
}

/* usyms_proc_key - see usyms.h */
uint32_t usyms_proc_key(struct usyms *us, uint32_t pid)
{
	struct uproc *p = us ? usyms_proc_get(us, pid) : NULL;

	if (!p)
		return 0;
	if (!p->key) {
		if (us->nkeyed == UINT32_MAX)
			return 0;
		if (array_reserve(&us->keyed, &us->keyed_cap, us->nkeyed + 1,
				  sizeof(*us->keyed), 256))
			return 0;
		us->keyed[us->nkeyed++] = p;
		p->key = (uint32_t)us->nkeyed;
	}
	return p->key;
}

/* uproc_lookup - name ip in a process image (NULL: unknown); see usyms_lookup() */
static int uproc_lookup(struct usyms *us, struct uproc *p, uint64_t ip,
			struct usym_frame *frames, int max)
{
	struct usym_frame tmp[USYMS_INLINE_MAX];
	struct ucache_entry *e;
	struct umap *m;
	struct ufile *f;
	uint64_t addr;
	int n;

	m = p ? uproc_map_find(p, ip) : NULL;
	if (!m) {
		frames[0] = (struct usym_frame){ .offset = ip };
		return 1;
	}
	f = m->file;
	if (f->state == UFILE_NEW)
		ufile_resolve(us, f, NULL);
	if (!umap_bias_compute(m)) {
		frames[0] = (struct usym_frame){
			.module = f->base,
			.offset = ip - m->start + m->pgoff,
		};
		return 1;
	}
	addr = ip - m->bias;

	if (us->cache_cap) {
		e = usyms_cache_slot(us, f, addr);
		if (e->file) {
			n = (int)e->n < max ? (int)e->n : max;
			/* keep the real function last when max cuts inlines */
			memcpy(frames, &us->cframes[e->first], (n - 1) * sizeof(*frames));
			frames[n - 1] = us->cframes[e->first + e->n - 1];
			return n;
		}
	}
	n = ufile_frames(us, f, addr, tmp, USYMS_INLINE_MAX);
	usyms_cache_store(us, f, addr, tmp, n);
	if (n > max) {
		tmp[max - 1] = tmp[n - 1];
		n = max;
	}
	memcpy(frames, tmp, n * sizeof(*frames));
	return n;
}
