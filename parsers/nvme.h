/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_NVME_H
#define IOTAP_NVME_H

#include <stdint.h>

#include "field.h"
#include "symbolic.h"

/* The fields of nvme:nvme_setup_cmd and nvme:nvme_complete_rq, found by name. */
struct nvme_fmt {
	struct field disk, ctrl_id, qid, cid, opcode, fctype, nsid, status, result;
	struct symbolic_table io_ops, admin_ops, fabrics_ops;	/* setup only */
};

/* One decoded command event; qid 0 is the admin queue, whose disk is "". */
struct nvme_cmd {
	char disk[32];
	int32_t ctrl_id, qid;
	uint16_t cid;
	uint8_t opcode, fctype;
	uint32_t nsid;
	uint16_t status;		/* completion only */
};

#define NVME_FABRICS_COMMAND 0x7f

/* nvme_fmt_init - the fields, and the command names when ev has them: 0, -ENOENT or -ENOMEM */
int nvme_fmt_init(struct nvme_fmt *f, struct tep_event *ev);
void nvme_fmt_release(struct nvme_fmt *f);
/* nvme_cmd_decode - one raw nvme event: 0, or -EINVAL when the record is too short */
int nvme_cmd_decode(const struct nvme_fmt *f, const void *raw, uint32_t size, struct nvme_cmd *c);
/* nvme_cmd_name - the command's name as the kernel prints it (nvme_cmd_0x%02x): 0, or -ENOSPC */
int nvme_cmd_name(const struct nvme_fmt *f, const struct nvme_cmd *c, char *buf, size_t len);

#endif
