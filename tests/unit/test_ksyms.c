// SPDX-License-Identifier: GPL-2.0-or-later
/* test_ksyms - kallsyms parsing and lookup on a hand-written text */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

/* Unsorted on purpose (module symbols come after vmlinux ones, out of
 * order), with data symbols, duplicates and a last line without newline. */
static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T __pi__text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000000 t local_alias\n"
	"ffffffff81000100 t secondary_startup\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000200 w weak_alias\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T vfs_read\n"
	"ffffffff81000500 T vfs_write\n"
	"ffffffff81000600 T _etext\n"
	"this line is garbage\n"
	"ffffffffc0002000 t nvme_irq\t[nvme]\n"
	"ffffffffc0001000 t nvme_queue_rq\t[nvme]\n"
	"ffffffffc0001800 d nvme_data\t[nvme]\n"
	"ffffffffc0100000 t ext4_file_read_iter\t[ext4]\n"
	"ffffffffc0100400 T ext4_readahead\t[ext4]";

/* ksyms_setup - parse the text once for a test */
static int ksyms_setup(void **state)
{
	*state = ksyms_parse(kallsyms_text, strlen(kallsyms_text));
	return *state ? 0 : -1;
}

/* ksyms_teardown - free the table */
static int ksyms_teardown(void **state)
{
	ksyms_free(*state);
	return 0;
}

/* lookup_name - name of the symbol at addr, NULL if none; offset out */
static const char *lookup_name(const struct ksyms *ks, uint64_t addr,
			       uint64_t *off)
{
	const struct ksym *s = ksyms_lookup(ks, addr, off);

	return s ? s->name : NULL;
}

/* test_start - lookups at a symbol start give offset 0 */
static void test_start(void **state)
{
	uint64_t off = 99;

	assert_string_equal(lookup_name(*state, 0xffffffff81000400, &off), "vfs_read");
	assert_int_equal(off, 0);
	assert_string_equal(lookup_name(*state, 0xffffffff81000100, &off),
			    "secondary_startup");
	assert_int_equal(off, 0);
}

/* test_middle - a middle address belongs to the greatest start below it */
static void test_middle(void **state)
{
	uint64_t off = 0;
	const struct ksym *s;

	s = ksyms_lookup(*state, 0xffffffff81000432, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "vfs_read");
	assert_null(s->module);
	assert_int_equal(s->type, 'T');
	assert_int_equal(off, 0x32);
	/* the data symbol is not a bound: weak_fn spans up to vfs_read */
	assert_string_equal(lookup_name(*state, 0xffffffff81000350, &off), "weak_fn");
	assert_int_equal(off, 0x150);
	assert_string_equal(lookup_name(*state, 0xffffffff810004ff, NULL), "vfs_read");
	assert_string_equal(lookup_name(*state, 0xffffffff81000500, NULL), "vfs_write");
}

/* test_refs - a table lent with ksyms_get outlives the lender's ksyms_free (ASan: no late read) */
static void test_refs(void **state)
{
	struct ksyms *ks = ksyms_parse(kallsyms_text, strlen(kallsyms_text));

	(void)state;
	assert_ptr_equal(ksyms_get(ks), ks);
	ksyms_free(ks);
	assert_string_equal(lookup_name(ks, 0xffffffff81000432, NULL), "vfs_read");
	ksyms_free(ks);
	assert_null(ksyms_get(NULL));
}

/* test_module - module symbols carry their module and are sorted */
static void test_module(void **state)
{
	uint64_t off;
	const struct ksym *s;

	s = ksyms_lookup(*state, 0xffffffffc0001010, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "nvme_queue_rq");
	assert_string_equal(s->module, "nvme");
	assert_int_equal(off, 0x10);
	/* bounded by nvme_irq, not by the data symbol */
	s = ksyms_lookup(*state, 0xffffffffc0001900, &off);
	assert_string_equal(s->name, "nvme_queue_rq");
	s = ksyms_lookup(*state, 0xffffffffc0002004, &off);
	assert_string_equal(s->name, "nvme_irq");
	assert_string_equal(s->module, "nvme");
	s = ksyms_lookup(*state, 0xffffffffc0100404, &off);
	assert_string_equal(s->name, "ext4_readahead");
	assert_string_equal(s->module, "ext4");
	assert_int_equal(off, 4);
}

/* test_outside - before the first symbol and past a module's tail */
static void test_outside(void **state)
{
	uint64_t off = 7;

	assert_null(ksyms_lookup(*state, 0, &off));
	assert_null(ksyms_lookup(*state, 0xffffffff80ffffff, &off));
	assert_int_equal(off, 7);
	/* the last nvme symbol spans KSYMS_TAIL_SIZE, no more */
	assert_string_equal(lookup_name(*state, 0xffffffffc0002000 + KSYMS_TAIL_SIZE - 1, NULL), "nvme_irq");
	assert_null(ksyms_lookup(*state, 0xffffffffc0002000 + KSYMS_TAIL_SIZE, NULL));
	assert_string_equal(lookup_name(*state, 0xffffffff81000600 + 16, NULL), "_etext");
	assert_null(ksyms_lookup(*state, 0xffffffffc0100400 + KSYMS_TAIL_SIZE, NULL));
}

/* test_duplicates - one name per address: global, fewest underscores */
static void test_duplicates(void **state)
{
	assert_string_equal(lookup_name(*state, 0xffffffff81000000, NULL), "startup_64");
	assert_string_equal(lookup_name(*state, 0xffffffff81000010, NULL), "startup_64");
	assert_string_equal(lookup_name(*state, 0xffffffff81000200, NULL), "weak_fn");
	/* 0x...000, 100, 200, 400, 500, 600, c0001000, 2000, 100000, 100400 */
	assert_int_equal(ksyms_count(*state), 10);
}

/* test_zero_addresses - kptr_restrict text gives an empty table */
static void test_zero_addresses(void **state)
{
	static const char text[] =
		"0000000000000000 T _text\n"
		"0000000000000000 T vfs_read\n"
		"0000000000000000 t nvme_irq\t[nvme]\n";
	struct ksyms *ks = ksyms_parse(text, sizeof(text) - 1);

	(void)state;
	assert_non_null(ks);
	assert_int_equal(ksyms_count(ks), 0);
	assert_null(ksyms_lookup(ks, 0, NULL));
	assert_null(ksyms_lookup(ks, 0xffffffff81000000, NULL));
	ksyms_free(ks);
}

/* test_empty - empty input and NULL handling */
static void test_empty(void **state)
{
	struct ksyms *ks = ksyms_parse("", 0);

	(void)state;
	assert_non_null(ks);
	assert_null(ksyms_lookup(ks, 0xffffffff81000000, NULL));
	ksyms_free(ks);
	ksyms_free(NULL);
	assert_null(ksyms_lookup(NULL, 1, NULL));
}

/* test_load_file - ksyms_load reads the same text from a file */
static void test_load_file(void **state)
{
	char path[] = "/tmp/test_ksyms.XXXXXX";
	struct ksyms *ks;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, kallsyms_text, strlen(kallsyms_text)),
			 (ssize_t)strlen(kallsyms_text));
	close(fd);
	ks = ksyms_load(path);
	unlink(path);
	assert_non_null(ks);
	assert_string_equal(lookup_name(ks, 0xffffffffc0001004, NULL), "nvme_queue_rq");
	ksyms_free(ks);

	errno = 0;
	assert_null(ksyms_load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

/* main - run the ksyms tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start, ksyms_setup, ksyms_teardown),
		cmocka_unit_test_setup_teardown(test_middle, ksyms_setup, ksyms_teardown),
		cmocka_unit_test_setup_teardown(test_module, ksyms_setup, ksyms_teardown),
		cmocka_unit_test_setup_teardown(test_outside, ksyms_setup, ksyms_teardown),
		cmocka_unit_test_setup_teardown(test_duplicates, ksyms_setup, ksyms_teardown),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_zero_addresses),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_load_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
