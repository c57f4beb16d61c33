// SPDX-License-Identifier: GPL-2.0-or-later
/* uring.c - decode io_uring:* tracepoints by field name; opcode names where the event has none */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uring.h"

/* Opcode names for kernels whose events carry no op_str (5.10: include/uapi/linux/io_uring.h). */
static const char *const uring_opnames[] = {
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD",
	"POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE",
	"ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE",
	"FILES_UPDATE", "STATX", "READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV",
	"OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
};

/* uring_fmt_init - locate the fields; only ctx is required (the others: absent) */
int uring_fmt_init(struct uring_fmt *f, struct tep_event *ev)
{
	static const char *const data[] = { "user_data", "data", NULL };

	field_init(&f->req, ev, "req");
	field_init_any(&f->user_data, ev, data);
	field_init(&f->opcode, ev, "opcode");
	field_init(&f->op_str, ev, "op_str");
	field_init(&f->sq_thread, ev, "sq_thread");
	field_init(&f->fd, ev, "fd");
	field_init(&f->res, ev, "res");
	return field_init(&f->ring, ev, "ctx");
}

/* uring_op - the opcode's name: op_str where the event has it, else the table */
static void uring_op(const struct uring_fmt *f, const void *raw, uint32_t size, char *buf,
		       size_t len)
{
	uint64_t op = field_u64(&f->opcode, raw, size);

	if (f->op_str.present && field_str(&f->op_str, raw, size, buf, len))
		return;
	if (op < sizeof(uring_opnames) / sizeof(uring_opnames[0]))
		snprintf(buf, len, "%s", uring_opnames[op]);
	else
		snprintf(buf, len, "op%u", (unsigned int)op);
}

/* uring_ev_decode - one raw io_uring event; -EINVAL when the record ends before its ctx */
int uring_ev_decode(const struct uring_fmt *f, const void *raw, uint32_t size,
		      struct uring_ev *e)
{
	if ((uint32_t)f->ring.offset + f->ring.size > size)
		return -EINVAL;
	e->ring = field_u64(&f->ring, raw, size);
	e->req = field_u64(&f->req, raw, size);
	e->user_data = field_u64(&f->user_data, raw, size);
	e->res = field_s64(&f->res, raw, size);
	e->fd = (int32_t)field_s64(&f->fd, raw, size);
	e->sq_thread = field_u64(&f->sq_thread, raw, size) != 0;
	e->op[0] = 0;
	if (f->opcode.present || f->op_str.present)
		uring_op(f, raw, size, e->op, sizeof(e->op));
	return 0;
}
