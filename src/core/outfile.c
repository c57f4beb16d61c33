// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - output files created without following planted symlinks */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* outfile_not_dir - -EISDIR when path names a directory (or ends in '/'), else 0 */
static int outfile_not_dir(const char *path)
{
	struct stat st;
	size_t len = strlen(path);

	if (path[len - 1] == '/')
		return -EISDIR;
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	return 0;
}

/* outfile_tmpname - DIR/.NAME.XXXXXX for DIR/NAME, the template mkostemp fills in */
static char *outfile_tmpname(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path);
	char *t = malloc(len + sizeof(".") + sizeof(".XXXXXX"));

	if (!t)
		return NULL;
	memcpy(t, path, dirlen);
	t[dirlen] = '.';
	memcpy(t + dirlen + 1, path + dirlen, len - dirlen);
	memcpy(t + len + 1, ".XXXXXX", sizeof(".XXXXXX"));
	return t;
}

/* outfile_open - see outfile.h */
int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
	int fd, ret;

	memset(of, 0, sizeof(*of));
	if (!path || !*path)
		return -EINVAL;
	ret = outfile_not_dir(path);
	if (ret)
		return ret;
	of->path = strdup(path);
	of->tmp = outfile_tmpname(path);
	if (!of->path || !of->tmp) {
		ret = -ENOMEM;
		goto free_names;
	}
	/* mkostemp opens with O_CREAT|O_EXCL: an existing name, a symlink too, is never opened. */
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto free_names;
	}
	if (fchmod(fd, mode) < 0) {
		ret = -errno;
		goto remove_tmp;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		ret = -errno;
		goto remove_tmp;
	}
	return 0;

remove_tmp:
	close(fd);
	unlink(of->tmp);
free_names:
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
	return ret;
}

/* outfile_commit - see outfile.h */
int outfile_commit(struct outfile *of)
{
	int ret = 0;

	if (!of->f)
		return -EBADF;
	errno = 0;
	if (fflush(of->f) || ferror(of->f))
		ret = errno ? -errno : -EIO;
	/* Without the fsync a crash after the rename can leave an empty file under the name. */
	if (!ret && fsync(fileno(of->f)) < 0)
		ret = -errno;
	if (fclose(of->f) && !ret)
		ret = -errno;
	of->f = NULL;
	if (!ret && rename(of->tmp, of->path) < 0)
		ret = -errno;
	if (!ret) {
		free(of->tmp);
		of->tmp = NULL;
	}
	outfile_abort(of);
	return ret;
}

/* outfile_abort - see outfile.h */
void outfile_abort(struct outfile *of)
{
	if (of->f)
		fclose(of->f);
	if (of->tmp)
		unlink(of->tmp);
	free(of->tmp);
	free(of->path);
	memset(of, 0, sizeof(*of));
}

/* outfile_check - see outfile.h */
int outfile_check(const char *path)
{
	struct outfile of;
	int ret = outfile_open(&of, path, 0600);

	if (!ret)
		outfile_abort(&of);
	return ret;
}

/* outfile_create - see outfile.h */
int outfile_create(const char *path, bool replace, mode_t mode)
{
	struct stat st;
	int fd, ret;

	if (!path || !*path)
		return -EINVAL;
	ret = outfile_not_dir(path);
	if (ret)
		return ret;
	if (replace && lstat(path, &st) == 0) {
		/* A device or FIFO under the name is never removed (-f -o /dev/null as root). */
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return -ENOTSUP;
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0) {
		ret = -errno;
		close(fd);
		unlink(path);
		return ret;
	}
	return fd;
}
