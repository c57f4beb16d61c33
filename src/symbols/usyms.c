// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usyms - user-space symbolization and DWARF unwinding, live or offline.
 *
 * Three tables: processes (pid -> sorted executable mappings), files (path +
 * build-id -> the ELF image found for them) and a cache of resolved
 * addresses (file + address -> frames).
 *
 * A file is found once and mapped whole (MAP_PRIVATE), so it stays usable
 * when the original disappears; every libdwfl module made from it gets its
 * Elf from that image through the find_elf callback, which keeps no file
 * descriptor open. Each file has its own offline Dwfl holding one module
 * at bias 0: symbolization works on link-time addresses (ip - bias of the
 * mapping), so one symbol table and one address cache serve every process
 * mapping the file. libdwfl's dwfl_module_addrsym scans the whole symbol
 * table on each call, hence our own sorted table.
 *
 * Unwinding needs the modules at their run-time addresses, so each process
 * being unwound gets a Dwfl of its own, rebuilt when its mappings change,
 * attached with thread callbacks that serve the sampled registers and the
 * copied stack.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* asprintf */
#endif
#include "usyms.h"

#include "array.h"
#include "hashtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Inlined frames kept per address, the real function included. */
#define USYMS_INLINE_MAX	16

/* Cache entries after which the address cache starts afresh. */
#define USYMS_CACHE_MAX		(1u << 20)

/* perf register numbers on x86_64 (uapi asm/perf_regs.h), part of the ABI. */
enum {
	X86_AX = 0, X86_BX = 1, X86_CX = 2, X86_DX = 3, X86_SI = 4, X86_DI = 5,
	X86_BP = 6, X86_SP = 7, X86_IP = 8,
	X86_R8 = 16, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14,
	X86_R15,
	X86_NREGS
};

/* DWARF register numbers of the x86_64 psABI: rax rdx rcx rbx rsi rdi rbp
 * rsp r8-r15, then 16 for the return address (the ip). */
#define X86_DWARF_NREGS	17
#define X86_DWARF_SP	7
#define X86_DWARF_RA	16

static const uint8_t x86_dwarf_to_perf[X86_DWARF_NREGS] = {
	X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP,
	X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
	X86_IP,
};

enum ufile_state {
	UFILE_NEW,		/* not looked for yet */
	UFILE_FOUND,		/* image mapped */
	UFILE_MISSING,		/* nothing matched */
};

/* A PT_LOAD segment. */
struct uload {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
	uint32_t flags;
};

/* A function symbol, in link-time addresses. */
struct usym {
	uint64_t addr;
	uint64_t end;
	const char *name;
};

/* An address range of a compile unit, in link-time addresses. */
struct ucu {
	uint64_t lo;
	uint64_t hi;
	Dwarf_Die die;
	Dwarf_Addr bias;
};

struct ufile {
	char *path;			/* as mapped, without " (deleted)" */
	const char *base;		/* module name handed out, into path */
	uint8_t build_id[USYMS_BUILD_ID_MAX];
	uint8_t build_id_len;
	enum ufile_state state;
	char *found;			/* where the image was read from */
	void *image;
	size_t size;
	struct uload *loads;
	size_t nloads;
	uint64_t low, high;		/* link-time span, as libdwfl computes it */
	bool debug_only;		/* a separate debug file: no file contents */
	Dwfl *dwfl;			/* offline, one module at bias 0 */
	Dwfl_Module *mod;
	bool dwfl_tried;
	struct usym *syms;
	size_t nsyms;
	char *names;			/* symbol names without @version */
	struct ucu *cus;		/* when .debug_aranges is missing */
	size_t ncus;
	bool cus_loaded;
};

struct umap {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	struct ufile *file;
	uint64_t bias;			/* ip - bias = link-time address */
	bool bias_known;
};

/* The sample being unwound, served to libdwfl's thread callbacks. */
struct usample {
	Dwarf_Word regs[X86_DWARF_NREGS];
	bool have[X86_DWARF_NREGS];
	const uint8_t *stack;
	uint64_t sp;
	uint64_t size;
};

struct uproc {
	struct uproc *next;		/* in the retired list */
	uint32_t pid;
	bool exited;
	struct umap *maps;		/* sorted by start, not overlapping */
	size_t nmaps;
	size_t cap;
	uint64_t gen;			/* bumped on every mapping change */
	Dwfl *dwfl;			/* for unwinding, modules at run time */
	uint64_t dwfl_gen;
	struct usample *sample;
	uint32_t key;			/* usyms_proc_key(); 0: none handed out yet */
};

struct ucache_entry {
	const struct ufile *file;	/* NULL: free slot */
	uint64_t addr;
	uint32_t first;			/* index in cframes */
	uint32_t n;
};

struct usyms {
	char *sysroot;
	char *debuginfo_path;
	Dwfl_Callbacks file_cbs;
	Dwfl_Callbacks unwind_cbs;
	struct uproc **procs;		/* in creation order */
	size_t nprocs, procs_cap;
	struct hashtab proc_index;	/* hash of pid -> index in procs */
	struct ufile **files;		/* in creation order */
	size_t nfiles, files_cap;
	struct hashtab file_index;	/* hash of path and build-id -> index in files */
	/*
	 * Symbolized addresses, open addressing with the entries in the slots:
	 * a hit reads one slot, where an index would add a second load.
	 */
	struct ucache_entry *cache;
	size_t cache_used;
	size_t cache_cap;		/* power of two */
	struct usym_frame *cframes;
	size_t ncframes;
	size_t cframes_cap;
	/* Process images by key (usyms_proc_key): live ones, and retired ones kept for lookups. */
	struct uproc **keyed;
	size_t nkeyed, keyed_cap;
	struct uproc *retired;		/* chained by next */
};

/* hash_bytes - FNV-1a over a byte string, continuing from h */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* path_strip_deleted - length of a path without a " (deleted)" suffix */
static size_t path_strip_deleted(const char *path)
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

/* ---- files ---- */

/* ufile_find_elf - libdwfl find_elf callback: an Elf over the file's image */
static int ufile_find_elf(Dwfl_Module *mod, void **userdata,
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

/* unwind_find_debuginfo - no separate debug files for unwinding modules */
static int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata,
				 const char *modname, Dwarf_Addr base,
				 const char *file_name, const char *debuglink,
				 GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink;
	(void)crc;
	(void)debuginfo_file_name;
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
static int ufile_try(struct ufile *f, const char *cand)
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
static void ufile_resolve(struct usyms *us, struct ufile *f, const char *hint)
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
static int ufile_dwfl_open(struct usyms *us, struct ufile *f)
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
static void ufile_free(struct ufile *f)
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
	uint64_t h = hash_bytes(0xcbf29ce484222325ULL, path, path_len);

	return hash_bytes(h, build_id, build_id_len);
}

/* usyms_file_get - the file for a path and build-id, created if new */
static struct ufile *usyms_file_get(struct usyms *us, const char *path,
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
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strndup(path, len);
	if (!f->path) {
		free(f);
		return NULL;
	}
	f->base = path_base(f->path);
	if (build_id_len)
		memcpy(f->build_id, build_id, build_id_len);
	f->build_id_len = build_id_len;
	if (hashtab_add(&us->file_index, &pos, (uint32_t)us->nfiles)) {
		ufile_free(f);
		return NULL;
	}
	us->files[us->nfiles++] = f;
	return f;
}

/* ---- processes ---- */

/* uproc_dwfl_drop - free a process's unwinding Dwfl */
static void uproc_dwfl_drop(struct uproc *p)
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
static void uproc_maps_clear(struct usyms *us, struct uproc *p)
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
static struct uproc *usyms_proc_find(const struct usyms *us, uint32_t pid)
{
	struct hashtab_pos pos;

	return usyms_proc_probe(us, pid, &pos);
}

/* usyms_proc_get - the process of a pid, created if new */
static struct uproc *usyms_proc_get(struct usyms *us, uint32_t pid)
{
	struct hashtab_pos pos;
	struct uproc *p = usyms_proc_probe(us, pid, &pos);

	if (p)
		return p;
	if (us->nprocs >= UINT32_MAX ||
	    array_reserve(&us->procs, &us->procs_cap, us->nprocs + 1,
			  sizeof(*us->procs), 256))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->gen = 1;
	if (hashtab_add(&us->proc_index, &pos, (uint32_t)us->nprocs)) {
		free(p);
		return NULL;
	}
	us->procs[us->nprocs++] = p;
	return p;
}

/* uproc_free - free a process */
static void uproc_free(struct uproc *p)
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
static struct umap *uproc_map_find(struct uproc *p, uint64_t addr)
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
static bool umap_bias_compute(struct umap *m)
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
static int usyms_map_add_hinted(struct usyms *us, uint32_t pid,
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

/* ---- /proc/PID/maps ---- */

typedef int (*maps_walk_fn)(void *arg, const struct usyms_map *map,
			    const char *hint);

/* maps_walk - call fn for each executable mapping of a live process */
static int maps_walk(uint32_t pid, maps_walk_fn fn, void *arg)
{
	char file[64], hint[PATH_MAX], last[PATH_MAX] = "";
	uint8_t last_id[USYMS_BUILD_ID_MAX];
	int last_len = 0, ret = 0, n, off;
	struct usyms_map map;
	size_t cap = 0, plen;
	char *line = NULL, perms[8];
	uint64_t end;
	FILE *fp;

	elf_version(EV_CURRENT);
	snprintf(file, sizeof(file), "/proc/%" PRIu32 "/maps", pid);
	fp = fopen(file, "re");
	if (!fp)
		return -errno;
	while (getline(&line, &cap, fp) > 0) {
		bool deleted;
		char *path;

		off = 0;
		n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %*u %n",
			   &map.start, &end, perms, &map.pgoff, &off);
		if (n < 4 || off == 0 || end <= map.start || !strchr(perms, 'x'))
			continue;
		map.len = end - map.start;
		path = line + off;
		path[strcspn(path, "\n")] = '\0';
		if (!path[0])
			path = (char *)"//anon";
		plen = path_strip_deleted(path);
		deleted = path[plen] != '\0';
		path[plen] = '\0';
		map.path = path;
		map.build_id_len = 0;
		hint[0] = '\0';
		if (path[0] == '/' && strcmp(path, "//anon") != 0) {
			if (deleted)
				n = snprintf(hint, sizeof(hint),
					     "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
					     pid, map.start, end);
			else
				n = snprintf(hint, sizeof(hint), "/proc/%" PRIu32 "/root%s",
					     pid, path);
			if (n < 0 || (size_t)n >= sizeof(hint))
				hint[0] = '\0';
			if (strcmp(last, path) != 0) {
				last_len = hint[0] ? usyms_build_id_read(hint, last_id,
									  sizeof(last_id))
						   : -ENOENT;
				if (last_len < 0 && !deleted)
					last_len = usyms_build_id_read(path, last_id,
								       sizeof(last_id));
				snprintf(last, sizeof(last), "%s", path);
			}
			if (last_len > 0 && last_len <= USYMS_BUILD_ID_MAX) {
				memcpy(map.build_id, last_id, last_len);
				map.build_id_len = last_len;
			}
		}
		ret = fn(arg, &map, hint[0] ? hint : NULL);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	return ret;
}

struct foreach_ctx {
	usyms_map_fn fn;
	void *arg;
};

/* foreach_cb - maps_walk() callback of usyms_maps_foreach() */
static int foreach_cb(void *arg, const struct usyms_map *map, const char *hint)
{
	struct foreach_ctx *ctx = arg;

	(void)hint;
	return ctx->fn(ctx->arg, map);
}

/* usyms_maps_foreach - walk a live process's executable mappings */
int usyms_maps_foreach(uint32_t pid, usyms_map_fn fn, void *arg)
{
	struct foreach_ctx ctx = { .fn = fn, .arg = arg };

	if (!fn)
		return -EINVAL;
	return maps_walk(pid, foreach_cb, &ctx);
}

struct maps_read_ctx {
	struct usyms *us;
	uint32_t pid;
};

/* maps_read_cb - maps_walk() callback of usyms_maps_read() */
static int maps_read_cb(void *arg, const struct usyms_map *map, const char *hint)
{
	struct maps_read_ctx *ctx = arg;

	return usyms_map_add_hinted(ctx->us, ctx->pid, map->start, map->len,
				    map->pgoff, map->path, map->build_id,
				    map->build_id_len, hint);
}

/* usyms_maps_read - load a live process's executable mappings */
int usyms_maps_read(struct usyms *us, uint32_t pid)
{
	struct maps_read_ctx ctx = { .us = us, .pid = pid };
	struct uproc *p;

	if (!us)
		return -EINVAL;
	p = usyms_proc_get(us, pid);
	if (!p)
		return -ENOMEM;
	uproc_maps_clear(us, p);
	return maps_walk(pid, maps_read_cb, &ctx);
}

/* ---- symbolization ---- */

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

/* ufile_inlines - the inlined calls at an address, innermost first */
static int ufile_inlines(struct ufile *f, uint64_t addr, uint64_t off,
			 struct usym_frame *out, int max, const char **outer)
{
	Dwarf_Die chain[USYMS_SCOPES_MAX], *cu;
	Dwarf_Addr bias;
	const char *name;
	int depth, i, n = 0;

	cu = ufile_cu_find(f, addr, &bias);
	if (!cu)
		return 0;
	depth = die_scopes_find(cu, addr - bias, chain, 0);
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
				};
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
	const char *outer;
	uint64_t off;
	int n = 0;

	if (ufile_dwfl_open(us, f) != 0) {
		out[0] = (struct usym_frame){ .module = f->base, .offset = addr };
		return 1;
	}
	sym = ufile_sym_find(f, addr);
	outer = sym ? sym->name : NULL;
	off = sym ? addr - sym->addr : addr;
	if (max > 1)
		n = ufile_inlines(f, addr, off, out, max - 1, &outer);
	out[n++] = (struct usym_frame){
		.name = outer,
		.module = f->base,
		.offset = outer ? off : addr,
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

/* ---- unwinding ---- */

/* usyms_regs_mask_x86_64 - registers to request for usyms_unwind() */
uint64_t usyms_regs_mask_x86_64(void)
{
	uint64_t mask = 0;
	int i;

	for (i = 0; i < X86_DWARF_NREGS; i++)
		mask |= 1ULL << x86_dwarf_to_perf[i];
	return mask;
}

/* unwind_next_thread - libdwfl callback; threads are only asked by tid */
static pid_t unwind_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0;
}

/* unwind_get_thread - libdwfl callback: the sampled thread */
static bool unwind_get_thread(Dwfl *dwfl, pid_t tid, void *arg,
			      void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	(void)tid;
	*thread_argp = p->sample;
	return p->sample != NULL;
}

/* unwind_memory_read - libdwfl callback: a word of the copied stack */
static bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			       void *arg)
{
	const struct uproc *p = arg;
	const struct usample *s = p->sample;

	(void)dwfl;
	if (!s || addr < s->sp || s->size < sizeof(*result) ||
	    addr - s->sp > s->size - sizeof(*result))
		return false;
	memcpy(result, s->stack + (addr - s->sp), sizeof(*result));
	return true;
}

/* unwind_set_initial_registers - libdwfl callback: the sampled registers */
static bool unwind_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct usample *s = arg;
	int i;

	for (i = 0; i < X86_DWARF_NREGS; i++) {
		if (s->have[i] &&
		    !dwfl_thread_state_registers(thread, i, 1, &s->regs[i]))
			return false;
	}
	dwfl_thread_state_register_pc(thread, s->regs[X86_DWARF_RA]);
	return true;
}

static const Dwfl_Thread_Callbacks unwind_thread_cbs = {
	.next_thread = unwind_next_thread,
	.get_thread = unwind_get_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = unwind_set_initial_registers,
};

/* uproc_dwfl_sync - (re)build a process's unwinding Dwfl from its mappings */
static int uproc_dwfl_sync(struct usyms *us, struct uproc *p)
{
	size_t i, j, nreported = 0;
	void **userdata;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	int err;

	if (p->dwfl && p->dwfl_gen == p->gen)
		return 0;
	uproc_dwfl_drop(p);
	dwfl = dwfl_begin(&us->unwind_cbs);
	if (!dwfl)
		return -ENOMEM;
	dwfl_report_begin(dwfl);
	for (i = 0; i < p->nmaps; i++) {
		struct umap *m = &p->maps[i];
		struct ufile *f = m->file;

		if (f->state == UFILE_NEW)
			ufile_resolve(us, f, NULL);
		if (!umap_bias_compute(m))
			continue;
		/* one module per file and load address */
		for (j = 0; j < i; j++) {
			if (p->maps[j].file == f && p->maps[j].bias_known &&
			    p->maps[j].bias == m->bias)
				break;
		}
		if (j < i)
			continue;
		mod = dwfl_report_module(dwfl, f->base, m->bias + f->low,
					 m->bias + f->high);
		if (!mod)
			continue;
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = f;
		nreported++;
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
		err = -EINVAL;
		goto end_dwfl;
	}
	if (!nreported) {
		err = -ENOENT;
		goto end_dwfl;
	}
	if (!dwfl_attach_state(dwfl, NULL, (pid_t)p->pid, &unwind_thread_cbs, p)) {
		err = -ENOEXEC;
		goto end_dwfl;
	}
	p->dwfl = dwfl;
	p->dwfl_gen = p->gen;
	return 0;

end_dwfl:
	dwfl_end(dwfl);
	return err;
}

struct unwind_ctx {
	uint64_t *ips;
	int max;
	int n;
};

/* unwind_frame_cb - store one frame's pc */
static int unwind_frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *ctx = arg;
	bool activation;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	if (ctx->n == 0) {
		/* the sampled ip is stored already */
		ctx->n = 1;
		return ctx->n < ctx->max ? DWARF_CB_OK : DWARF_CB_ABORT;
	}
	ctx->ips[ctx->n++] = activation ? pc : pc - 1;
	return ctx->n < ctx->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* usyms_unwind - unwind a user stack sample of an x86_64 process */
int usyms_unwind(struct usyms *us, uint32_t pid, uint32_t tid,
		 const uint64_t *regs, uint64_t regs_mask, const void *stack,
		 uint64_t stack_size, uint64_t *ips, int max)
{
	uint64_t perf[X86_NREGS];
	bool have[X86_NREGS] = { false };
	struct unwind_ctx ctx = { .ips = ips, .max = max };
	struct usample sample = { .stack = stack, .size = stack_size };
	struct uproc *p;
	int i, k = 0;

	if (!us || !regs || !ips || max < 1 || (stack_size && !stack))
		return -EINVAL;
	for (i = 0; i < 64; i++) {
		if (!(regs_mask & (1ULL << i)))
			continue;
		if (i < X86_NREGS) {
			perf[i] = regs[k];
			have[i] = true;
		}
		k++;
	}
	if (!have[X86_IP] || !have[X86_SP])
		return -EINVAL;
	ips[0] = perf[X86_IP];
	if (max == 1)
		return 1;
	for (i = 0; i < X86_DWARF_NREGS; i++) {
		sample.have[i] = have[x86_dwarf_to_perf[i]];
		sample.regs[i] = sample.have[i] ? perf[x86_dwarf_to_perf[i]] : 0;
	}
	sample.sp = sample.regs[X86_DWARF_SP];

	p = usyms_proc_find(us, pid);
	if (!p || uproc_dwfl_sync(us, p) != 0)
		return 1;
	p->sample = &sample;
	/* an error past the first frames is just the end of the stack */
	dwfl_getthread_frames(p->dwfl, (pid_t)tid, unwind_frame_cb, &ctx);
	p->sample = NULL;
	return ctx.n ? ctx.n : 1;
}

/* ---- life cycle ---- */

/* usyms_alloc - create an empty symbolizer */
struct usyms *usyms_alloc(const char *sysroot)
{
	struct usyms *us;
	int n;

	elf_version(EV_CURRENT);
	us = calloc(1, sizeof(*us));
	if (!us) {
		errno = ENOMEM;
		return NULL;
	}
	if (hashtab_init(&us->proc_index, 256) ||
	    hashtab_init(&us->file_index, 64))
		goto free_us;
	if (sysroot && sysroot[0]) {
		us->sysroot = strdup(sysroot);
		if (!us->sysroot)
			goto free_us;
		/* for .gnu_debuglink: the binary's directory, its .debug, then
		 * absolute roots, also searched for .build-id/xx/rest.debug;
		 * '-' skips CRC checks */
		n = asprintf(&us->debuginfo_path,
			     "-:.debug:/usr/lib/debug:%s/usr/lib/debug:%s",
			     sysroot, sysroot);
	} else {
		n = asprintf(&us->debuginfo_path, "-:.debug:/usr/lib/debug");
	}
	if (n < 0) {
		us->debuginfo_path = NULL;
		goto free_us;
	}
	us->file_cbs = (Dwfl_Callbacks){
		.find_elf = ufile_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &us->debuginfo_path,
	};
	us->unwind_cbs = (Dwfl_Callbacks){
		.find_elf = ufile_find_elf,
		.find_debuginfo = unwind_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &us->debuginfo_path,
	};
	return us;

free_us:
	usyms_free(us);
	errno = ENOMEM;
	return NULL;
}

/* usyms_free - free a symbolizer and every string it handed out */
void usyms_free(struct usyms *us)
{
	struct uproc *p, *pnext;
	size_t i;

	if (!us)
		return;
	for (i = 0; i < us->nprocs; i++)
		uproc_free(us->procs[i]);
	free(us->procs);
	hashtab_release(&us->proc_index);
	for (p = us->retired; p; p = pnext) {
		pnext = p->next;
		uproc_free(p);
	}
	free(us->keyed);
	for (i = 0; i < us->nfiles; i++)
		ufile_free(us->files[i]);
	free(us->files);
	hashtab_release(&us->file_index);
	free(us->cache);
	free(us->cframes);
	free(us->debuginfo_path);
	free(us->sysroot);
	free(us);
}
