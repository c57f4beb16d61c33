/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BTF_H
#define IOTAP_BTF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Member offsets of kernel structures from BTF (/sys/kernel/btf/vmlinux),
 * for probe fetch arguments that follow pointers: the kernel's layout, never
 * a hard-coded one. Only what that needs: struct and union members by name.
 *
 * btf_member_offset - the byte offset of member in the first struct or union named strct
 * of the BTF data: 0, -ENOENT when there is no such struct or member, -ENOTSUP for a bit
 * field, -EINVAL for data that is not BTF. btf_vmlinux_member_offset - the same from the
 * running kernel's BTF: those, or -errno reading it (-ENOENT without it), or -ENOMEM.
 */
int btf_member_offset(const void *data, size_t len, const char *strct, const char *member,
		      uint32_t *offset);
int btf_vmlinux_member_offset(const char *strct, const char *member, uint32_t *offset);

#endif
