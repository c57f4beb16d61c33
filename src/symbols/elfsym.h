/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_ELFSYM_H
#define IOTAP_ELFSYM_H

#include <stdint.h>

/*
 * elf_symbol_file_offset - the file offset of symbol's first instruction (what uprobes take):
 * 0, or -errno (-ENOENT: no such symbol, -ENOEXEC: no ELF file, -EINVAL)
 */
int elf_symbol_file_offset(const char *path, const char *symbol, uint64_t *offset);

#endif
