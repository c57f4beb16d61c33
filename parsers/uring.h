/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_URING_H
#define IOTAP_URING_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"

/*
 * The fields of the io_uring:* events, found by name across the kernels'
 * renames (user_data, or data). Only ctx is in every event; the others are
 * absent where an event or a kernel lacks them (5.10's io_uring_complete and
 * io_uring_file_get carry no req).
 */
struct uring_fmt {
	struct field ring, req, user_data, opcode, op_str, sq_thread, fd, res;
};

/* One decoded io_uring event. Absent fields read as 0; op is "" without opcode and op_str. */
struct uring_ev {
	uint64_t ring;			/* the ring's ctx pointer */
	uint64_t req;			/* the request's pointer */
	uint64_t user_data;
	int64_t res;			/* io_uring_complete: the CQE's result */
	int32_t fd;			/* io_uring_file_get */
	bool sq_thread;			/* submitted by the ring's SQPOLL thread */
	char op[24];			/* the opcode's name: op_str, else the uapi's (op%u: unknown) */
};

/* uring_fmt_init - the fields of one io_uring event: 0, or -ENOENT when it has no ctx */
int uring_fmt_init(struct uring_fmt *f, struct tep_event *ev);
/* uring_ev_decode - one raw io_uring event: 0, or -EINVAL when the record ends before its ctx */
int uring_ev_decode(const struct uring_fmt *f, const void *raw, uint32_t size,
		      struct uring_ev *e);

#endif
