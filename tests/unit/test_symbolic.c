// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_symbolic.c - nvme and scsi events decoded from the format files of real
 * kernels (6.1, 6.12), with command, host byte and status byte names read
 * from the __print_symbolic tables of their print fmt, and the built-in
 * tables standing in for formats that have none.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "block.h"
#include "nvme.h"
#include "scsi.h"
#include "testlib.h"
#include "tfs.h"

static const char *const kernels[] = { "6.1.0-56-amd64", "6.12.117+deb12-amd64" };

/* put_u - store a little-endian integer of size n at off */
static void put_u(uint8_t *raw, int off, uint64_t v, int n)
{
	memcpy(raw + off, &v, n);
}

/* test_nvme_names - I/O and admin names from the format, told apart by the qid branch */
static void test_nvme_names(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct fmt_set fs;
		struct nvme_fmt f;
		struct nvme_cmd c = { .qid = 1 };
		char name[64];

		testlib_fmt_init(&fs, kernels[k]);
		assert_int_equal(nvme_fmt_init(&f, testlib_fmt_add(&fs, kernels[k], "nvme",
								   "nvme_setup_cmd")), 0);
		assert_true(f.io_ops.from_format);
		assert_true(f.admin_ops.from_format);
		assert_int_equal(f.io_ops.unresolved, 0);
		assert_int_equal(f.admin_ops.unresolved, 0);
		/* Each table holds its own names only. */
		assert_null(symbolic_name(&f.io_ops, 0x06));
		assert_string_equal(symbolic_name(&f.admin_ops, 0x06), "nvme_admin_identify");
		c.opcode = 0x02;
		assert_int_equal(nvme_cmd_name(&f, &c, name, sizeof(name)), 0);
		assert_string_equal(name, "nvme_cmd_read");
		c.opcode = 0x01;
		nvme_cmd_name(&f, &c, name, sizeof(name));
		assert_string_equal(name, "nvme_cmd_write");
		c.opcode = 0x00;
		nvme_cmd_name(&f, &c, name, sizeof(name));
		assert_string_equal(name, "nvme_cmd_flush");
		c.qid = 0;
		nvme_cmd_name(&f, &c, name, sizeof(name));
		assert_string_equal(name, "nvme_admin_delete_sq");
		c.opcode = 0xee;
		nvme_cmd_name(&f, &c, name, sizeof(name));
		assert_string_equal(name, "nvme_admin_0xee");
		c.opcode = NVME_FABRICS_COMMAND;
		c.fctype = 0x01;
		nvme_cmd_name(&f, &c, name, sizeof(name));
		assert_string_equal(name, "nvme_fabrics_type_connect");
		nvme_fmt_release(&f);
		fmt_set_release(&fs);
	}
}

/* test_nvme_decode - setup (u16 cid) and completion (int cid) decode to the same key */
static void test_nvme_decode(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct fmt_set fs, fs2;
		struct nvme_fmt fset, fdone;
		struct nvme_cmd c;
		uint8_t raw[128] = { 0 };

		testlib_fmt_init(&fs, kernels[k]);
		assert_int_equal(nvme_fmt_init(&fset, testlib_fmt_add(&fs, kernels[k], "nvme",
								      "nvme_setup_cmd")), 0);
		memcpy(raw + fset.disk.offset, "nvme0n1", 7);
		put_u(raw, fset.ctrl_id.offset, 0, 4);
		put_u(raw, fset.qid.offset, 2, 4);
		put_u(raw, fset.cid.offset, 0x3005, fset.cid.size);
		put_u(raw, fset.opcode.offset, 0x02, 1);
		assert_int_equal(nvme_cmd_decode(&fset, raw, sizeof(raw), &c), 0);
		assert_string_equal(c.disk, "nvme0n1");
		assert_int_equal(c.qid, 2);
		assert_int_equal(c.cid, 0x3005);
		assert_int_equal(c.opcode, 2);
		assert_int_not_equal(nvme_cmd_decode(&fset, raw, fset.cid.offset + 1, &c), 0);

		testlib_fmt_init(&fs2, kernels[k]);
		assert_int_equal(nvme_fmt_init(&fdone, testlib_fmt_add(&fs2, kernels[k], "nvme",
								       "nvme_complete_rq")), 0);
		assert_int_equal(fdone.cid.size, 4);
		memset(raw, 0, sizeof(raw));
		put_u(raw, fdone.qid.offset, 2, 4);
		put_u(raw, fdone.cid.offset, 0x3005, 4);
		put_u(raw, fdone.status.offset, 0x281, 2);
		assert_int_equal(nvme_cmd_decode(&fdone, raw, sizeof(raw), &c), 0);
		assert_int_equal(c.cid, 0x3005);
		assert_int_equal(c.status, 0x281);
		nvme_fmt_release(&fset);
		nvme_fmt_release(&fdone);
		fmt_set_release(&fs);
		fmt_set_release(&fs2);
	}
}

/* test_scsi_names - opcodes (numbers) and result bytes (enum names) from the format */
static void test_scsi_names(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct fmt_set fs;
		struct scsi_fmt f;
		struct scsi_cmd c;
		uint8_t raw[128] = { 0 };
		char name[64];

		testlib_fmt_init(&fs, kernels[k]);
		assert_int_equal(scsi_fmt_init(&f, testlib_fmt_add(&fs, kernels[k], "scsi",
								   "scsi_dispatch_cmd_done")), 0);
		assert_true(f.ops.from_format);
		assert_true(f.host.from_format);
		assert_true(f.status.from_format);
		/* Every opcode the kernel names, more than the built-in table knows. */
		assert_true(f.ops.nr > 80);
		scsi_opcode_name(&f, 0x28, name, sizeof(name));
		assert_string_equal(name, "READ_10");
		scsi_opcode_name(&f, 0x88, name, sizeof(name));
		assert_string_equal(name, "READ_16");
		/* Two names share 0x07: the first is the one the kernel prints. */
		scsi_opcode_name(&f, 0x07, name, sizeof(name));
		assert_string_equal(name, "REASSIGN_BLOCKS");
		scsi_opcode_name(&f, 0xa7, name, sizeof(name));
		assert_string_equal(name, "0xa7");
		scsi_host_name(&f, 0x00070000, name, sizeof(name));
		assert_string_equal(name, "DID_ERROR");
		scsi_status_name(&f, 0x00070002, name, sizeof(name));
		assert_string_equal(name, "SAM_STAT_CHECK_CONDITION");
		scsi_status_name(&f, 0, name, sizeof(name));
		assert_string_equal(name, "SAM_STAT_GOOD");
		put_u(raw, f.host_no.offset, 2, 4);
		put_u(raw, f.lun.offset, 0, 4);
		put_u(raw, f.result.offset, 0x2, 4);
		put_u(raw, f.opcode.offset, 0x28, 4);
		put_u(raw, f.driver_tag.offset, 17, 4);
		assert_int_equal(scsi_cmd_decode(&f, raw, sizeof(raw), &c), 0);
		assert_int_equal(c.host_no, 2);
		assert_int_equal(c.result, 2);
		assert_int_equal(c.opcode, 0x28);
		assert_int_equal(c.driver_tag, 17);
		scsi_fmt_release(&f);
		fmt_set_release(&fs);
	}
}

/* A print fmt without tables, and one whose identifiers are unknown: the built-in names. */
static const char no_table[] =
	"name: scsi_dispatch_cmd_done\nID: 9\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"\tfield:unsigned int host_no;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int channel;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int id;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int lun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:int result;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int opcode;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"op=%u host=%s\", REC->opcode, __print_symbolic(((REC->result) >> 16) & 0xff, "
	"{ DID_FUTURE_THING, \"DID_FUTURE_THING\" })\n";

/* test_fallback - built-in names where the format has no usable table */
static void test_fallback(void **state)
{
	struct fmt_set fs;
	struct scsi_fmt f;
	struct tep_event *ev;
	char name[64];

	testlib_fmt_init(&fs, kernels[0]);
	ev = fmt_set_add(&fs, "scsi", "scsi_dispatch_cmd_done", no_table, sizeof(no_table) - 1);
	assert_non_null(ev);
	assert_int_equal(scsi_fmt_init(&f, ev), 0);
	assert_false(f.ops.from_format);
	assert_false(f.host.from_format);
	assert_int_equal(f.host.unresolved, 1);
	scsi_opcode_name(&f, 0x2a, name, sizeof(name));
	assert_string_equal(name, "WRITE_10");
	scsi_host_name(&f, 0x00130000, name, sizeof(name));
	assert_string_equal(name, "DID_MEDIUM_ERROR");
	scsi_fmt_release(&f);
	fmt_set_release(&fs);
}

/* test_blk_status - the block events' errno back to the kernel's BLK_STS names */
static void test_blk_status(void **state)
{
	assert_string_equal(block_status_name(-ENODATA), "BLK_STS_MEDIUM");
	assert_string_equal(block_status_name(-EIO), "BLK_STS_IOERR");
	assert_string_equal(block_status_name(-ENOLINK), "BLK_STS_TRANSPORT");
	assert_string_equal(block_status_name(-EOPNOTSUPP), "BLK_STS_NOTSUPP");
	assert_null(block_status_name(-EPERM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvme_names),
		cmocka_unit_test(test_nvme_decode),
		cmocka_unit_test(test_scsi_names),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_blk_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
