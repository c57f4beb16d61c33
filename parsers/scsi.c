// SPDX-License-Identifier: GPL-2.0-or-later
/* scsi.c - decode scsi:* tracepoints by field name; names from the kernel's format */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "scsi.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* Opcodes are numbers in the kernel's format; these stand in when it has no table. */
static const struct sym_name scsi_ops_known[] = {
	{ 0x00, "TEST_UNIT_READY" }, { 0x03, "REQUEST_SENSE" }, { 0x08, "READ_6" },
	{ 0x0a, "WRITE_6" }, { 0x12, "INQUIRY" }, { 0x1a, "MODE_SENSE" },
	{ 0x25, "READ_CAPACITY" }, { 0x28, "READ_10" }, { 0x2a, "WRITE_10" },
	{ 0x2f, "VERIFY" }, { 0x35, "SYNCHRONIZE_CACHE" }, { 0x41, "WRITE_SAME" },
	{ 0x42, "UNMAP" }, { 0x5a, "MODE_SENSE_10" }, { 0x88, "READ_16" }, { 0x8a, "WRITE_16" },
	{ 0x91, "SYNCHRONIZE_CACHE_16" }, { 0x93, "WRITE_SAME_16" },
	{ 0x9e, "SERVICE_ACTION_IN_16" }, { 0xa0, "REPORT_LUNS" }, { 0xa8, "READ_12" },
	{ 0xaa, "WRITE_12" },
};

/* The format writes these as identifiers it does not export (include/scsi/scsi_status.h). */
static const struct sym_name scsi_host_known[] = {
	{ 0x00, "DID_OK" }, { 0x01, "DID_NO_CONNECT" }, { 0x02, "DID_BUS_BUSY" },
	{ 0x03, "DID_TIME_OUT" }, { 0x04, "DID_BAD_TARGET" }, { 0x05, "DID_ABORT" },
	{ 0x06, "DID_PARITY" }, { 0x07, "DID_ERROR" }, { 0x08, "DID_RESET" },
	{ 0x09, "DID_BAD_INTR" }, { 0x0a, "DID_PASSTHROUGH" }, { 0x0b, "DID_SOFT_ERROR" },
	{ 0x0c, "DID_IMM_RETRY" }, { 0x0d, "DID_REQUEUE" }, { 0x0e, "DID_TRANSPORT_DISRUPTED" },
	{ 0x0f, "DID_TRANSPORT_FAILFAST" }, { 0x10, "DID_TARGET_FAILURE" },
	{ 0x11, "DID_NEXUS_FAILURE" }, { 0x12, "DID_ALLOC_FAILURE" }, { 0x13, "DID_MEDIUM_ERROR" },
	{ 0x14, "DID_TRANSPORT_MARGINAL" },
};

static const struct sym_name scsi_status_known[] = {
	{ 0x00, "SAM_STAT_GOOD" }, { 0x02, "SAM_STAT_CHECK_CONDITION" },
	{ 0x04, "SAM_STAT_CONDITION_MET" }, { 0x08, "SAM_STAT_BUSY" },
	{ 0x10, "SAM_STAT_INTERMEDIATE" }, { 0x14, "SAM_STAT_INTERMEDIATE_CONDITION_MET" },
	{ 0x18, "SAM_STAT_RESERVATION_CONFLICT" }, { 0x22, "SAM_STAT_COMMAND_TERMINATED" },
	{ 0x28, "SAM_STAT_TASK_SET_FULL" }, { 0x30, "SAM_STAT_ACA_ACTIVE" },
	{ 0x40, "SAM_STAT_TASK_ABORTED" },
};

/* scsi_fmt_init - find the fields and name tables; -ENOENT without the device fields */
int scsi_fmt_init(struct scsi_fmt *f, struct tep_event *ev)
{
	static const struct symbolic_want ops = { "opcode", 0, NULL, false };
	static const struct symbolic_want host = { "result", 16, NULL, false };
	static const struct symbolic_want status = { "result", 0, NULL, false };
	int ret;

	memset(f, 0, sizeof(*f));
	if (field_init(&f->host_no, ev, "host_no") || field_init(&f->channel, ev, "channel") ||
	    field_init(&f->id, ev, "id") || field_init(&f->lun, ev, "lun") ||
	    field_init(&f->opcode, ev, "opcode"))
		return -ENOENT;
	field_init(&f->result, ev, "result");
	field_init(&f->rtn, ev, "rtn");
	field_init(&f->driver_tag, ev, "driver_tag");
	ret = symbolic_load(&f->ops, ev, &ops, scsi_ops_known, N(scsi_ops_known));
	/* Events without a result (start, error) still name results for their users. */
	if (!ret)
		ret = symbolic_load(&f->host, f->result.present ? ev : NULL, &host, scsi_host_known,
				  N(scsi_host_known));
	if (!ret)
		ret = symbolic_load(&f->status, f->result.present ? ev : NULL, &status,
				  scsi_status_known, N(scsi_status_known));
	if (ret)
		scsi_fmt_release(f);
	return ret;
}

/* scsi_fmt_release - free the name tables; safe twice */
void scsi_fmt_release(struct scsi_fmt *f)
{
	symbolic_release(&f->ops);
	symbolic_release(&f->host);
	symbolic_release(&f->status);
}

/* scsi_cmd_decode - one raw scsi event; -EINVAL when the record is too short */
int scsi_cmd_decode(const struct scsi_fmt *f, const void *raw, uint32_t size, struct scsi_cmd *c)
{
	if ((uint32_t)f->opcode.offset + f->opcode.size > size)
		return -EINVAL;
	c->host_no = field_u64(&f->host_no, raw, size);
	c->channel = field_u64(&f->channel, raw, size);
	c->id = field_u64(&f->id, raw, size);
	c->lun = field_u64(&f->lun, raw, size);
	c->opcode = field_u64(&f->opcode, raw, size);
	c->result = f->result.present ? field_s64(&f->result, raw, size) :
		field_s64(&f->rtn, raw, size);
	c->driver_tag = f->driver_tag.present ? field_s64(&f->driver_tag, raw, size) : -1;
	return 0;
}

/* scsi_name - a table's name for v, else prefix and v in hex */
static int scsi_name(const struct symbolic_table *t, uint32_t v, const char *prefix, char *buf, size_t len)
{
	const char *name = symbolic_name(t, v);
	int n = name ? snprintf(buf, len, "%s", name) : snprintf(buf, len, "%s0x%02x", prefix, v);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* scsi_opcode_name - READ_10, or the number in hex */
int scsi_opcode_name(const struct scsi_fmt *f, uint32_t opcode, char *buf, size_t len)
{
	return scsi_name(&f->ops, opcode, "", buf, len);
}

/* scsi_host_name - the host byte of a result: DID_OK */
int scsi_host_name(const struct scsi_fmt *f, int32_t result, char *buf, size_t len)
{
	return scsi_name(&f->host, SCSI_HOST_BYTE(result), "DID_", buf, len);
}

/* scsi_status_name - the status byte of a result: SAM_STAT_GOOD */
int scsi_status_name(const struct scsi_fmt *f, int32_t result, char *buf, size_t len)
{
	return scsi_name(&f->status, SCSI_STATUS_BYTE(result), "SAM_STAT_", buf, len);
}
