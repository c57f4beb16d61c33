// SPDX-License-Identifier: GPL-2.0-or-later
/* syscall.c - decode sys_enter_* arguments and sys_exit_* results by field name */
#include <errno.h>
#include <string.h>

#include "syscall.h"

/* syscall_fmt_init - locate the fields ev has; -ENOENT if it has none of them */
int syscall_fmt_init(struct syscall_fmt *f, struct tep_event *ev)
{
	static const char *const fd[] = { "fd", "fildes", "oldfd", NULL };
	static const char *const name[] = { "filename", "pathname", NULL };
	static const char *const count[] = { "count", "vlen", "nbytes", NULL };

	memset(f, 0, sizeof(*f));
	field_init_any(&f->fd, ev, fd);
	field_init(&f->newfd, ev, "newfd");
	field_init(&f->dfd, ev, "dfd");
	field_init_any(&f->filename, ev, name);
	field_init(&f->flags, ev, "flags");
	field_init_any(&f->count, ev, count);
	field_init(&f->cmd, ev, "cmd");
	field_init(&f->arg, ev, "arg");
	field_init(&f->ret, ev, "ret");
	if (!f->fd.present && !f->filename.present && !f->ret.present)
		return -ENOENT;
	return 0;
}

/* syscall_sext32 - an int argument stored in a 64-bit slot, as the syscall sees it */
static int64_t syscall_sext32(uint64_t v)
{
	return (int64_t)(int32_t)(uint32_t)v;
}

/* syscall_decode - the arguments (or result) of one record */
void syscall_decode(const struct syscall_fmt *f, const void *raw, uint32_t size,
		    struct syscall_args *a)
{
	/* Descriptors are ints: AT_FDCWD and -1 must read as negatives whatever the slot. */
	a->fd = syscall_sext32(field_u64(&f->fd, raw, size));
	a->newfd = syscall_sext32(field_u64(&f->newfd, raw, size));
	a->dfd = syscall_sext32(field_u64(&f->dfd, raw, size));
	a->filename = field_u64(&f->filename, raw, size);
	a->flags = field_u64(&f->flags, raw, size);
	a->count = field_u64(&f->count, raw, size);
	a->cmd = field_u64(&f->cmd, raw, size);
	a->arg = field_u64(&f->arg, raw, size);
	a->ret = field_s64(&f->ret, raw, size);
}
