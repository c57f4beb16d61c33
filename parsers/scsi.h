/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SCSI_H
#define IOTAP_SCSI_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"
#include "symbolic.h"

/* The fields of the scsi:scsi_dispatch_cmd_* events, found by name. */
struct scsi_fmt {
	struct field host_no, channel, id, lun, opcode, result, rtn, driver_tag;
	struct symbolic_table ops;		/* opcode names */
	struct symbolic_table host, status;	/* result byte 2 (DID_*) and byte 0 (SAM_STAT_*) */
};

/* One decoded command event. */
struct scsi_cmd {
	uint32_t host_no, channel, id, lun;
	uint32_t opcode;
	int32_t result;			/* done/timeout; error: the dispatch return code */
	int32_t driver_tag;		/* -1 when the kernel does not trace it */
};

#define SCSI_HOST_BYTE(r) (((uint32_t)(r) >> 16) & 0xff)
#define SCSI_MSG_BYTE(r) (((uint32_t)(r) >> 8) & 0xff)
#define SCSI_STATUS_BYTE(r) ((uint32_t)(r) & 0xff)
#define SCSI_DRIVER_BYTE(r) (((uint32_t)(r) >> 24) & 0xff)

/* scsi_fmt_init - the fields and name tables: 0, -ENOENT without the device fields, or -ENOMEM */
int scsi_fmt_init(struct scsi_fmt *f, struct tep_event *ev);
void scsi_fmt_release(struct scsi_fmt *f);
/* scsi_cmd_decode - one raw scsi event: 0, or -EINVAL when the record is too short */
int scsi_cmd_decode(const struct scsi_fmt *f, const void *raw, uint32_t size, struct scsi_cmd *c);
/* scsi_opcode_name - READ_10, or the number in hex: 0, or -ENOSPC when it does not fit */
int scsi_opcode_name(const struct scsi_fmt *f, uint32_t opcode, char *buf, size_t len);
/* scsi_host_name - the host byte of a result (DID_OK): 0, or -ENOSPC when it does not fit */
int scsi_host_name(const struct scsi_fmt *f, int32_t result, char *buf, size_t len);
/*
 * scsi_status_name - the status byte of a result (SAM_STAT_GOOD): 0, or -ENOSPC when it does
 * not fit
 */
int scsi_status_name(const struct scsi_fmt *f, int32_t result, char *buf, size_t len);

#endif
