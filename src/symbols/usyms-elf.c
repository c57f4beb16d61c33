// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usyms-elf.c - ELF files of the user symbolizer: found by path or build-id, mapped whole,
 * their load segments, symbol tables and offline Dwfl
 */
#include "usyms-local.h"

#include "array.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* path_strip_deleted - length of a path without a " (deleted)" suffix */
size_t path_strip_deleted(const char *path)
{
	static const char suffix[] = " (deleted)";
	size_t len = strlen(path);

	if (len > sizeof(suffix) - 1 &&
	    strcmp(path + len - (sizeof(suffix) - 1), suffix) == 0)
		len -= sizeof(suffix) - 1;
	return len;
}

/* path_base - the module name of a path: basename of a file, else all */
static const char *path_base(const char *path)
{
	const char *slash;

	if (path[0] != '/')
		return path;
	slash = strrchr(path, '/');
	return slash[1] ? slash + 1 : path;
}

/* elf_build_id_copy - copy an Elf's GNU build-id; length, 0 or -errno */
static int elf_build_id_copy(Elf *elf, uint8_t *build_id, size_t size)
{
	const void *bits;
	ssize_t len;

	len = dwelf_elf_gnu_build_id(elf, &bits);
	if (len < 0)
		return -ENOEXEC;
	if (len > 0)
		memcpy(build_id, bits, (size_t)len < size ? (size_t)len : size);
	return len;
}

/* usyms_build_id_read - read the GNU build-id note of an ELF file */
int usyms_build_id_read(const char *path, uint8_t *build_id, size_t size)
{
	Elf *elf;
	int fd, ret;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto end_elf;
	}
	ret = elf_build_id_copy(elf, build_id, size);
end_elf:
	elf_end(elf);
	close(fd);
	return ret;
}


/* ufile_find_elf - libdwfl find_elf callback: an Elf over the file's image */
int ufile_find_elf(Dwfl_Module *mod, void **userdata,
		   const char *modname, Dwarf_Addr base,
		   char **file_name, Elf **elfp)
{
	struct ufile *f = *userdata;

	(void)mod;
	(void)modname;
	(void)base;
	*elfp = elf_memory(f->image, f->size);
	/* lets libdwfl look for .gnu_debuglink files next to the binary */
	if (*elfp && !*file_name)
		*file_name = strdup(f->found);
	return -1;
}

/* ufile_loads_read - record an Elf's PT_LOAD segments and span */
static int ufile_loads_read(struct ufile *f, Elf *elf)
{
	bool has_text = false, text_in_file = false;
	size_t phnum, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) != 0 || phnum == 0)
		return -ENOEXEC;
	f->loads = calloc(phnum, sizeof(*f->loads));
	if (!f->loads)
		return -ENOMEM;
	f->nloads = 0;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (f->nloads == 0)
			f->low = ph.p_vaddr & -ph.p_align;	/* as libdwfl does */
		f->high = ph.p_vaddr + ph.p_memsz;
		if (ph.p_flags & PF_X) {
			has_text = true;
			text_in_file |= ph.p_filesz != 0;
		}
		f->loads[f->nloads++] = (struct uload){
			.vaddr = ph.p_vaddr,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
			.flags = ph.p_flags,
		};
	}
	if (f->nloads == 0 || f->high <= f->low)
		return -ENOEXEC;
	/* strip --only-keep-debug empties the segments and their offsets */
	f->debug_only = has_text && !text_in_file;
	return 0;
}

/* ufile_image_release - unmap a file's image and forget its segments */
static void ufile_image_release(struct ufile *f)
{
	if (f->image)
		munmap(f->image, f->size);
	f->image = NULL;
	f->size = 0;
	free(f->loads);
	f->loads = NULL;
	f->nloads = 0;
	free(f->found);
	f->found = NULL;
}

/* ufile_try - map a candidate file and keep it if its build-id matches */
int ufile_try(struct ufile *f, const char *cand)
{
	uint8_t id[USYMS_BUILD_ID_MAX];
	struct stat st;
	Elf *elf;
	int fd, len, err;

	fd = open(cand, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < EI_NIDENT) {
		err = -ENOEXEC;
		goto close_fd;
	}
	/* private and writable: libelf may write to the memory it is given */
	f->image = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			fd, 0);
	if (f->image == MAP_FAILED) {
		f->image = NULL;
		err = -errno;
		goto close_fd;
	}
	f->size = st.st_size;
	close(fd);

	elf = elf_memory(f->image, f->size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto end_elf;
	}
	if (f->build_id_len) {
		len = elf_build_id_copy(elf, id, sizeof(id));
		if (len != f->build_id_len || memcmp(id, f->build_id, len)) {
			err = -ESTALE;
			goto end_elf;
		}
	}
	err = ufile_loads_read(f, elf);
	if (err)
		goto end_elf;
	f->found = strdup(cand);
	if (!f->found) {
		err = -ENOMEM;
		goto end_elf;
	}
	elf_end(elf);
	f->state = UFILE_FOUND;
	return 0;

end_elf:
	elf_end(elf);
	ufile_image_release(f);
	return err;

close_fd:
	close(fd);
	return err;
}

/* ufile_try_join - ufile_try() on the concatenation of four strings */
static int ufile_try_join(struct ufile *f, const char *a, const char *b,
			  const char *c, const char *d)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s%s%s%s", a, b, c, d);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return ufile_try(f, path);
}

/* ufile_resolve - find the file's image: hint, path, then build-id paths */
void ufile_resolve(struct usyms *us, struct ufile *f, const char *hint)
{
	/* under a root: a copy of the binary, then a debug file */
	static const char *const by_id[][2] = {
		{ "/.build-id/", "" },
		{ "/.build-id/", ".debug" },
		{ "/usr/lib/debug/.build-id/", "" },
		{ "/usr/lib/debug/.build-id/", ".debug" },
	};
	char id[3 + 2 * USYMS_BUILD_ID_MAX];
	size_t i;

	if (hint && ufile_try(f, hint) == 0)
		return;
	if (f->path[0] == '/') {
		if (us->sysroot &&
		    ufile_try_join(f, us->sysroot, f->path, "", "") == 0)
			return;
		/* without a build-id to check it, the host's file is no
		 * stand-in for the recorded machine's */
		if ((!us->sysroot || f->build_id_len) && ufile_try(f, f->path) == 0)
			return;
	}
	if (f->build_id_len > 1) {
		/* "xx/rest" */
		snprintf(id, sizeof(id), "%02x/", f->build_id[0]);
		for (i = 1; i < f->build_id_len; i++)
			snprintf(id + 1 + 2 * i, 3, "%02x", f->build_id[i]);
		for (i = 0; us->sysroot && i < sizeof(by_id) / sizeof(by_id[0]); i++) {
			if (ufile_try_join(f, us->sysroot, by_id[i][0], id,
					   by_id[i][1]) == 0)
				return;
		}
		for (i = 2; i < sizeof(by_id) / sizeof(by_id[0]); i++) {
			if (ufile_try_join(f, "", by_id[i][0], id, by_id[i][1]) == 0)
				return;
		}
	}
	f->state = UFILE_MISSING;
}

/* A symbol being sorted, with what decides between names at one address. */
struct usym_load {
	uint64_t addr;
	uint64_t end;		/* 0 for a sizeless symbol outside any section */
	const char *name;
	int rank;		/* sized first, then global, weak, local */
};

/* usym_load_cmp - qsort order: address, then the preferred name first */
static int usym_load_cmp(const void *pa, const void *pb)
{
	const struct usym_load *a = pa, *b = pb;
	size_t ua, ub;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	ua = strspn(a->name, "_");
	ub = strspn(b->name, "_");
	if (ua != ub)
		return ua < ub ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* ufile_syms_unversion - "memcpy@@GLIBC_2.14" becomes "memcpy" */
static int ufile_syms_unversion(struct ufile *f)
{
	size_t i, total = 0, len;
	char *p;

	for (i = 0; i < f->nsyms; i++) {
		if (strchr(f->syms[i].name, '@'))
			total += strcspn(f->syms[i].name, "@") + 1;
	}
	if (!total)
		return 0;
	f->names = malloc(total);
	if (!f->names)
		return -ENOMEM;
	for (i = 0, p = f->names; i < f->nsyms; i++) {
		if (!strchr(f->syms[i].name, '@'))
			continue;
		len = strcspn(f->syms[i].name, "@");
		memcpy(p, f->syms[i].name, len);
		p[len] = '\0';
		f->syms[i].name = p;
		p += len + 1;
	}
	return 0;
}

/* ufile_syms_load - build the sorted function table of a file's module */
static int ufile_syms_load(struct ufile *f)
{
	struct usym_load *load;
	size_t n = 0, i, k;
	int count, idx;

	count = dwfl_module_getsymtab(f->mod);
	if (count <= 1)
		return 0;
	load = malloc(count * sizeof(*load));
	if (!load)
		return -ENOMEM;
	for (idx = 1; idx < count; idx++) {
		Dwarf_Addr bias;
		GElf_Shdr shdr;
		GElf_Addr addr;
		GElf_Word shndx;
		GElf_Sym sym;
		Elf *elf;
		const char *name;
		uint64_t end = 0;
		int type, bind;

		name = dwfl_module_getsym_info(f->mod, idx, &sym, &addr, &shndx,
					       &elf, &bias);
		if (!name || !name[0] || shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_size)
			end = addr + sym.st_size;
		else if (elf && shndx < SHN_LORESERVE &&
			 gelf_getshdr(elf_getscn(elf, shndx), &shdr))
			end = shdr.sh_addr + shdr.sh_size + bias;
		load[n++] = (struct usym_load){
			.addr = addr,
			.end = end,
			.name = name,
			.rank = (sym.st_size ? 0 : 4) +
				(bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2),
		};
	}
	if (n)
		qsort(load, n, sizeof(*load), usym_load_cmp);

	f->syms = malloc((n ? n : 1) * sizeof(*f->syms));
	if (!f->syms) {
		free(load);
		return -ENOMEM;
	}
	/* one name per address: the preferred one sorts first */
	for (i = 0, k = 0; i < n; i++) {
		if (k && f->syms[k - 1].addr == load[i].addr)
			continue;
		f->syms[k].addr = load[i].addr;
		f->syms[k].end = load[i].end;
		f->syms[k].name = load[i].name;
		/* a sizeless symbol (hand-written assembly) runs to the next
		 * one, within its section */
		if (load[i].rank >= 4) {
			uint64_t next = f->high;
			size_t j;

			for (j = i + 1; j < n && load[j].addr == load[i].addr; j++)
				;
			if (j < n)
				next = load[j].addr;
			if (!f->syms[k].end || f->syms[k].end > next)
				f->syms[k].end = next;
		}
		k++;
	}
	free(load);
	f->nsyms = k;
	return ufile_syms_unversion(f);
}

/* ufile_dwfl_open - make the file's offline Dwfl and its symbol table */
int ufile_dwfl_open(struct usyms *us, struct ufile *f)
{
	void **userdata;
	int err;

	if (f->dwfl_tried)
		return f->mod ? 0 : -ENOENT;
	f->dwfl_tried = true;
	f->dwfl = dwfl_begin(&us->file_cbs);
	if (!f->dwfl)
		return -ENOMEM;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_module(f->dwfl, f->base, f->low, f->high);
	if (!f->mod) {
		err = -ENOMEM;
		goto end_dwfl;
	}
	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	if (dwfl_report_end(f->dwfl, NULL, NULL) != 0) {
		err = -EINVAL;
		goto end_dwfl;
	}
	err = ufile_syms_load(f);
	if (err)
		goto end_dwfl;
	return 0;

end_dwfl:
	free(f->syms);
	f->syms = NULL;
	f->nsyms = 0;
	dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->mod = NULL;
	return err;
}

/* ufile_free - free a file and its image */
void ufile_free(struct ufile *f)
{
	if (!f)
		return;
	dwfl_end(f->dwfl);
	free(f->syms);
	free(f->names);
	free(f->cus);
	ufile_image_release(f);
	free(f->path);
	free(f);
}

/* ufile_hash - hash of a file key */
static uint64_t ufile_hash(const char *path, size_t path_len,
			   const uint8_t *build_id, uint8_t build_id_len)
{
	uint64_t h = hashtab_fnv(HASHTAB_FNV_BASIS, path, path_len);

	return hashtab_fnv(h, build_id, build_id_len);
}

/* usyms_file_get - the file for a path and build-id, created if new */
struct ufile *usyms_file_get(struct usyms *us, const char *path,
			     const uint8_t *build_id,
			     uint8_t build_id_len)
{
	static const uint8_t no_id[1];
	size_t len = path_strip_deleted(path);
	struct hashtab_pos pos;
	struct ufile *f;
	uint32_t *i;

	if (!build_id)
		build_id = no_id;	/* build_id_len is 0: keeps memcmp defined */
	for (i = hashtab_find(&us->file_index,
			      hashtab_mix(ufile_hash(path, len, build_id, build_id_len)),
			      &pos);
	     i; i = hashtab_find_next(&us->file_index, &pos)) {
		f = us->files[*i];
		if (f->build_id_len == build_id_len &&
		    memcmp(f->build_id, build_id, build_id_len) == 0 &&
		    strncmp(f->path, path, len) == 0 && f->path[len] == '\0')
			return f;
	}
	if (us->nfiles >= UINT32_MAX ||
	    array_reserve(&us->files, &us->files_cap, us->nfiles + 1,
			  sizeof(*us->files), 64))
		goto no_memory;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto no_memory;
	f->path = strndup(path, len);
	if (!f->path) {
		free(f);
		goto no_memory;
	}
	f->base = path_base(f->path);
	if (build_id_len)
		memcpy(f->build_id, build_id, build_id_len);
	f->build_id_len = build_id_len;
	if (hashtab_add(&us->file_index, &pos, (uint32_t)us->nfiles)) {
		ufile_free(f);
		goto no_memory;
	}
	us->files[us->nfiles++] = f;
	return f;

no_memory:
	errno = ENOMEM;
	return NULL;
}
