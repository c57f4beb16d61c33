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
 *
 * The jobs, one file each: usyms-elf.c (finding and reading ELF files),
 * usyms-maps.c (processes and their mappings), usyms-procfs.c (reading
 * /proc/PID/maps), usyms-lookup.c (naming addresses, the address cache),
 * usyms-unwind.c (DWARF unwinding); this file creates and frees the whole.
 * What they share is in usyms-local.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* asprintf */
#endif
#include "usyms-local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
