/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SYSCALL_H
#define IOTAP_SYSCALL_H

#include <stdint.h>

#include "field.h"

/*
 * The arguments of syscalls:sys_enter_* and the result of sys_exit_*,
 * located by name in each event's format. Absent fields read as zero: one
 * decoder serves every syscall the file tools follow.
 */
struct syscall_fmt {
	struct field fd;		/* fd, fildes or oldfd */
	struct field newfd;
	struct field dfd;
	struct field filename;		/* a user pointer: filename or pathname */
	struct field flags;
	struct field count;		/* count, vlen or nbytes */
	struct field cmd, arg;		/* fcntl */
	struct field ret;		/* sys_exit_* */
};

struct syscall_args {
	int64_t fd, newfd, dfd;
	uint64_t filename;
	uint64_t flags, count;
	uint64_t cmd, arg;
	int64_t ret;
};

/* syscall_fmt_init - locate the fields ev has: 0, or -ENOENT if it has none of them */
int syscall_fmt_init(struct syscall_fmt *f, struct tep_event *ev);
void syscall_decode(const struct syscall_fmt *f, const void *raw, uint32_t size,
		    struct syscall_args *a);

#endif
