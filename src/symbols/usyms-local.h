/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usyms-local.h - what the files of the user symbolizer share: its tables and the calls
 * between them. Not for use outside src/symbols/usyms*.c; usyms.h is the interface.
 *
 * The struct usyms owns every process (struct uproc) and every file (struct ufile) it
 * creates, and each file owns its image, symbol table and Dwfl, until usyms_free(): a
 * struct ufile pointer, and the strings taken from it, stay valid that long. A process's
 * mappings point at shared files and own nothing. Calls returning int give 0 or -errno
 * unless their summary says otherwise; pointer returns are NULL when not found or out
 * of memory: callers treat both as "unknown".
 */
#ifndef IOTAP_USYMS_LOCAL_H
#define IOTAP_USYMS_LOCAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "usyms.h"

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

/* The sample being unwound: usyms-unwind.c's own. */
struct usample;

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

/* usyms-elf.c */
/* path_strip_deleted - length of a path without a " (deleted)" suffix */
size_t path_strip_deleted(const char *path);
/* ufile_find_elf - libdwfl find_elf callback: an Elf over the file's image in *elfp, and -1
 * (no descriptor), as libdwfl asks */
int ufile_find_elf(Dwfl_Module *mod, void **userdata,
		   const char *modname, Dwarf_Addr base,
		   char **file_name, Elf **elfp);
/* ufile_try - map a candidate file and keep it if its build-id matches: 0, or -errno (-ENOEXEC:
 * no ELF file, -ESTALE: another build-id, -ENOMEM) */
int ufile_try(struct ufile *f, const char *cand);
/* ufile_resolve - find the file's image: hint, path, then build-id paths */
void ufile_resolve(struct usyms *us, struct ufile *f, const char *hint);
/* ufile_dwfl_open - make the file's offline Dwfl and its symbol table: 0, or -errno (-ENOENT:
 * an earlier try failed, -EINVAL: libdwfl refused it, -ENOMEM) */
int ufile_dwfl_open(struct usyms *us, struct ufile *f);
/* ufile_free - free a file and its image */
void ufile_free(struct ufile *f);
/* usyms_file_get - the file for a path and build-id, created if new; NULL with errno ENOMEM */
struct ufile *usyms_file_get(struct usyms *us, const char *path,
			     const uint8_t *build_id,
			     uint8_t build_id_len);

/* usyms-maps.c */
/* uproc_dwfl_drop - free a process's unwinding Dwfl */
void uproc_dwfl_drop(struct uproc *p);
/* uproc_maps_clear - forget a process's mappings (pid reused or exec) */
void uproc_maps_clear(struct usyms *us, struct uproc *p);
/* usyms_proc_find - the process of a pid, or NULL */
struct uproc *usyms_proc_find(const struct usyms *us, uint32_t pid);
/* usyms_proc_get - the process of a pid, created if new; NULL with errno ENOMEM */
struct uproc *usyms_proc_get(struct usyms *us, uint32_t pid);
/* uproc_free - free a process */
void uproc_free(struct uproc *p);
/* uproc_map_find - the mapping holding an address, or NULL */
struct umap *uproc_map_find(struct uproc *p, uint64_t addr);
/* umap_bias_compute - find the bias of a mapping from its file's segments */
bool umap_bias_compute(struct umap *m);
/* usyms_map_add_hinted - usyms_map_add(), trying the hint path first; its errors alike */
int usyms_map_add_hinted(struct usyms *us, uint32_t pid,
			 uint64_t start, uint64_t len, uint64_t pgoff,
			 const char *path, const uint8_t *build_id,
			 uint8_t build_id_len, const char *hint);

/* usyms-unwind.c */
/* unwind_find_debuginfo - no separate debug files for unwinding modules: -1 (no descriptor) */
int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name);

#endif
