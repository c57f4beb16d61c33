// SPDX-License-Identifier: GPL-2.0-or-later
/* nvme.c - decode nvme:* tracepoints by field name; command names from the kernel's format */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "nvme.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/*
 * The kernel's nvme print fmt names commands by enum identifiers it does not
 * export (nvme_cmd_read), so their values come from here (include/linux/nvme.h).
 * Without a table in the format these are the names.
 */
static const struct sym_name nvme_io_known[] = {
	{ 0x00, "nvme_cmd_flush" }, { 0x01, "nvme_cmd_write" }, { 0x02, "nvme_cmd_read" },
	{ 0x04, "nvme_cmd_write_uncor" }, { 0x05, "nvme_cmd_compare" },
	{ 0x08, "nvme_cmd_write_zeroes" }, { 0x09, "nvme_cmd_dsm" },
	{ 0x0c, "nvme_cmd_verify" }, { 0x0d, "nvme_cmd_resv_register" },
	{ 0x0e, "nvme_cmd_resv_report" }, { 0x11, "nvme_cmd_resv_acquire" },
	{ 0x12, "nvme_cmd_io_mgmt_recv" }, { 0x15, "nvme_cmd_resv_release" },
	{ 0x19, "nvme_cmd_copy" }, { 0x1d, "nvme_cmd_io_mgmt_send" },
	{ 0x79, "nvme_cmd_zone_mgmt_send" }, { 0x7a, "nvme_cmd_zone_mgmt_recv" },
	{ 0x7d, "nvme_cmd_zone_append" },
};

static const struct sym_name nvme_admin_known[] = {
	{ 0x00, "nvme_admin_delete_sq" }, { 0x01, "nvme_admin_create_sq" },
	{ 0x02, "nvme_admin_get_log_page" }, { 0x04, "nvme_admin_delete_cq" },
	{ 0x05, "nvme_admin_create_cq" }, { 0x06, "nvme_admin_identify" },
	{ 0x08, "nvme_admin_abort_cmd" }, { 0x09, "nvme_admin_set_features" },
	{ 0x0a, "nvme_admin_get_features" }, { 0x0c, "nvme_admin_async_event" },
	{ 0x0d, "nvme_admin_ns_mgmt" }, { 0x10, "nvme_admin_activate_fw" },
	{ 0x11, "nvme_admin_download_fw" }, { 0x14, "nvme_admin_dev_self_test" },
	{ 0x15, "nvme_admin_ns_attach" }, { 0x18, "nvme_admin_keep_alive" },
	{ 0x19, "nvme_admin_directive_send" }, { 0x1a, "nvme_admin_directive_recv" },
	{ 0x1c, "nvme_admin_virtual_mgmt" }, { 0x1d, "nvme_admin_nvme_mi_send" },
	{ 0x1e, "nvme_admin_nvme_mi_recv" }, { 0x7c, "nvme_admin_dbbuf" },
	{ 0x80, "nvme_admin_format_nvm" }, { 0x81, "nvme_admin_security_send" },
	{ 0x82, "nvme_admin_security_recv" }, { 0x84, "nvme_admin_sanitize_nvm" },
	{ 0x86, "nvme_admin_get_lba_status" },
};

static const struct sym_name nvme_fabrics_known[] = {
	{ 0x00, "nvme_fabrics_type_property_set" }, { 0x01, "nvme_fabrics_type_connect" },
	{ 0x04, "nvme_fabrics_type_property_get" }, { 0x05, "nvme_fabrics_type_auth_send" },
	{ 0x06, "nvme_fabrics_type_auth_receive" }, { 0x08, "nvme_fabrics_type_disconnect" },
};

/* nvme_fmt_init - find the fields, and the command names when ev has them; -ENOENT, -ENOMEM */
int nvme_fmt_init(struct nvme_fmt *f, struct tep_event *ev)
{
	static const struct symbolic_want io = { "opcode", 0, "qid", true };
	static const struct symbolic_want admin = { "opcode", 0, "qid", false };
	static const struct symbolic_want fabrics = { "fctype", 0, NULL, false };
	int ret;

	memset(f, 0, sizeof(*f));
	if (field_init(&f->ctrl_id, ev, "ctrl_id") || field_init(&f->qid, ev, "qid") ||
	    field_init(&f->cid, ev, "cid"))
		return -ENOENT;
	field_init(&f->disk, ev, "disk");
	field_init(&f->opcode, ev, "opcode");
	field_init(&f->fctype, ev, "fctype");
	field_init(&f->nsid, ev, "nsid");
	field_init(&f->status, ev, "status");
	field_init(&f->result, ev, "result");
	if (!f->opcode.present)
		return 0;
	ret = symbolic_load(&f->io_ops, ev, &io, nvme_io_known, N(nvme_io_known));
	if (!ret)
		ret = symbolic_load(&f->admin_ops, ev, &admin, nvme_admin_known,
				  N(nvme_admin_known));
	if (!ret)
		ret = symbolic_load(&f->fabrics_ops, ev, &fabrics, nvme_fabrics_known,
				  N(nvme_fabrics_known));
	if (ret)
		nvme_fmt_release(f);
	return ret;
}

/* nvme_fmt_release - free the name tables; safe twice */
void nvme_fmt_release(struct nvme_fmt *f)
{
	symbolic_release(&f->io_ops);
	symbolic_release(&f->admin_ops);
	symbolic_release(&f->fabrics_ops);
}

/* nvme_cmd_decode - one raw nvme event; -EINVAL when the record is too short */
int nvme_cmd_decode(const struct nvme_fmt *f, const void *raw, uint32_t size, struct nvme_cmd *c)
{
	if ((uint32_t)f->cid.offset + f->cid.size > size)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	field_str(&f->disk, raw, size, c->disk, sizeof(c->disk));
	c->ctrl_id = field_s64(&f->ctrl_id, raw, size);
	c->qid = field_s64(&f->qid, raw, size);
	/* u16 in setup, int in complete: the command id is 16 bits either way. */
	c->cid = field_u64(&f->cid, raw, size);
	c->opcode = field_u64(&f->opcode, raw, size);
	c->fctype = field_u64(&f->fctype, raw, size);
	c->nsid = field_u64(&f->nsid, raw, size);
	c->status = field_u64(&f->status, raw, size);
	return 0;
}

/* nvme_cmd_name - the command's name as the kernel prints it; unknown: nvme_cmd_0x%02x */
int nvme_cmd_name(const struct nvme_fmt *f, const struct nvme_cmd *c, char *buf, size_t len)
{
	const char *name;
	int n;

	if (c->opcode == NVME_FABRICS_COMMAND && (name = symbolic_name(&f->fabrics_ops, c->fctype)))
		n = snprintf(buf, len, "%s", name);
	else if ((name = symbolic_name(c->qid ? &f->io_ops : &f->admin_ops, c->opcode)))
		n = snprintf(buf, len, "%s", name);
	else
		n = snprintf(buf, len, "%s_0x%02x", c->qid ? "nvme_cmd" : "nvme_admin", c->opcode);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
