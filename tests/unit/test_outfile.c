// SPDX-License-Identifier: GPL-2.0-or-later
/* test_outfile.c - output files: atomic replace, stated modes, planted symlinks not followed */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "outfile.h"
#include "testlib.h"

struct tdir {
	char dir[64];
	char path[128];		/* dir/out */
	char victim[128];	/* dir/victim: what a planted symlink points at */
};

/* tdir_make - a private directory with a victim file holding "keep\n" */
static void tdir_make(struct tdir *t)
{
	FILE *f;

	strcpy(t->dir, "/tmp/test_outfile.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/out", t->dir);
	snprintf(t->victim, sizeof(t->victim), "%s/victim", t->dir);
	f = fopen(t->victim, "w");
	assert_non_null(f);
	fputs("keep\n", f);
	assert_int_equal(fclose(f), 0);
}

/* tdir_names - the names in t's directory, sorted and joined by spaces */
static void tdir_names(const struct tdir *t, char *buf, size_t len)
{
	struct dirent **de;
	int n = scandir(t->dir, &de, NULL, alphasort);

	assert_true(n >= 2);
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(de[i]->d_name, ".") && strcmp(de[i]->d_name, "..")) {
			strncat(buf, de[i]->d_name, len - strlen(buf) - 2);
			strcat(buf, " ");
		}
		free(de[i]);
	}
	free(de);
}

/* tdir_remove - remove what the tests leave and the directory */
static void tdir_remove(const struct tdir *t)
{
	unlink(t->path);
	unlink(t->victim);
	assert_int_equal(rmdir(t->dir), 0);
}

/* victim_intact - the victim still holds "keep\n" */
static void victim_intact(const struct tdir *t)
{
	char *text = testlib_text_load(t->victim, NULL);

	assert_non_null(text);
	assert_string_equal(text, "keep\n");
	free(text);
}

/* write_out - write text to t->path through an outfile with mode */
static int write_out(const struct tdir *t, const char *text, mode_t mode)
{
	struct outfile of;
	int ret = outfile_open(&of, t->path, mode);

	if (ret)
		return ret;
	fputs(text, of.f);
	return outfile_commit(&of);
}

static void test_replace_and_mode(void **unused)
{
	struct tdir t;
	struct stat st;
	char names[256], *text;

	tdir_make(&t);
	umask(022);
	assert_int_equal(write_out(&t, "one\n", 0644), 0);
	assert_int_equal(write_out(&t, "two\n", 0600), 0);
	text = testlib_text_load(t.path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "two\n");
	free(text);
	assert_int_equal(stat(t.path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* No temporary is left beside it. */
	tdir_names(&t, names, sizeof(names));
	assert_string_equal(names, "out victim ");
	/* The stated mode, not the umask's. */
	umask(077);
	assert_int_equal(write_out(&t, "three\n", 0644), 0);
	umask(022);
	assert_int_equal(stat(t.path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	tdir_remove(&t);
}

static void test_symlink_at_target_replaced(void **unused)
{
	struct tdir t;
	struct stat st;
	char *text;

	tdir_make(&t);
	assert_int_equal(symlink(t.victim, t.path), 0);
	assert_int_equal(write_out(&t, "new\n", 0644), 0);
	victim_intact(&t);
	assert_int_equal(lstat(t.path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	text = testlib_text_load(t.path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "new\n");
	free(text);
	tdir_remove(&t);
}

static void test_abort_and_check(void **unused)
{
	struct outfile of;
	struct tdir t;
	char names[256];

	tdir_make(&t);
	assert_int_equal(outfile_open(&of, t.path, 0644), 0);
	fputs("never\n", of.f);
	outfile_abort(&of);
	outfile_abort(&of);
	assert_int_equal(outfile_check(t.path), 0);
	tdir_names(&t, names, sizeof(names));
	assert_string_equal(names, "victim ");
	assert_int_equal(outfile_check(t.dir), -EISDIR);
	assert_int_equal(outfile_check("/nonexistent-dir/x"), -ENOENT);
	assert_int_equal(outfile_open(&of, "", 0644), -EINVAL);
	assert_null(of.f);
	assert_int_equal(outfile_commit(&of), -EBADF);
	tdir_remove(&t);
}

static void test_create(void **unused)
{
	struct tdir t;
	struct stat st;
	int fd;

	tdir_make(&t);
	/* Without replace, an existing name (a symlink too) is refused, never opened. */
	assert_int_equal(symlink(t.victim, t.path), 0);
	assert_int_equal(outfile_create(t.path, false, 0600), -EEXIST);
	/* With replace, the symlink itself goes, and a new file takes its name. */
	umask(022);
	fd = outfile_create(t.path, true, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "rec\n", 4), 4);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	close(fd);
	victim_intact(&t);
	assert_int_equal(lstat(t.path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(outfile_create(t.dir, true, 0600), -EISDIR);
	assert_int_equal(outfile_create("", true, 0600), -EINVAL);
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_and_mode),
		cmocka_unit_test(test_symlink_at_target_replaced),
		cmocka_unit_test(test_abort_and_check),
		cmocka_unit_test(test_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
