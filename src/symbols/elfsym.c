// SPDX-License-Identifier: GPL-2.0-or-later
/* elfsym.c - where a function lives in its ELF file, for uprobes */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"

/* elf_symbol_vaddr - the value of a defined function symbol in .symtab or .dynsym */
static int elf_symbol_vaddr(Elf *elf, const char *symbol, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, symbol)) {
				*vaddr = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* elf_symbol_file_offset - the file offset of symbol's first instruction (what uprobes take) */
int elf_symbol_file_offset(const char *path, const char *symbol, uint64_t *offset)
{
	uint64_t vaddr;
	size_t nph;
	Elf *elf;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		ret = -ENOEXEC;
		goto out_close;
	}
	ret = elf_symbol_vaddr(elf, symbol, &vaddr);
	if (ret)
		goto out_end;
	ret = -ENOENT;
	if (elf_getphdrnum(elf, &nph))
		goto out_end;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*offset = vaddr - ph.p_vaddr + ph.p_offset;
			ret = 0;
			break;
		}
	}
out_end:
	elf_end(elf);
out_close:
	close(fd);
	return ret;
}
