/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_ELFSYM_H
#define IOTAP_ELFSYM_H

#include <stdint.h>

int elf_symbol_file_offset(const char *path, const char *symbol, uint64_t *offset);

#endif
