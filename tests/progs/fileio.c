// SPDX-License-Identifier: GPL-2.0-or-later
/* fileio.c - file I/O of known shape for the fileio and iostackbreakdown tests */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BS 4096

/* die - report and exit */
static void die(const char *what)
{
	fprintf(stderr, "fileio: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* path_of - dir/name */
static char *path_of(const char *dir, const char *name)
{
	static char buf[2][4096];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* rw - N pwrite64 of 4 KiB to a, one fsync, M O_DIRECT pread64 of 4 KiB from b */
static void rw(const char *dir, long n, long m)
{
	void *buf;
	int a, b;

	if (posix_memalign(&buf, BS, BS))
		die("posix_memalign");
	memset(buf, 'x', BS);
	a = open(path_of(dir, "a"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (a < 0)
		die("open a");
	b = open(path_of(dir, "b"), O_RDONLY | O_DIRECT);
	if (b < 0)
		die("open b");
	for (long i = 0; i < n; i++)
		if (pwrite(a, buf, BS, i * BS) != BS)
			die("pwrite a");
	if (fsync(a))
		die("fsync a");
	for (long i = 0; i < m; i++)
		if (pread(b, buf, BS, i * BS) != BS)
			die("pread b");
	close(a);
	close(b);
	free(buf);
}

/*
 * cached - M buffered pread64 of 4 KiB from b, every one from the page cache: the
 * pages are locked in first (mlock), since the kernel may page out cold page cache
 * between a warming pass and this one (DAMON reclaim does on the test machines)
 */
static void cached(const char *dir, long m)
{
	char buf[BS];
	int b = open(path_of(dir, "b"), O_RDONLY);
	void *map;

	if (b < 0)
		die("open b");
	map = mmap(NULL, m * BS, PROT_READ, MAP_SHARED | MAP_POPULATE, b, 0);
	if (map == MAP_FAILED || mlock(map, m * BS))
		die("mlock b");
	for (long i = 0; i < m; i++)
		if (pread(b, buf, BS, i * BS) != BS)
			die("pread b");
	munmap(map, m * BS);
	close(b);
}

/* dupfork - c opened, dup'd, the original closed; a child writes N blocks through its copy */
static void dupfork(const char *dir, long n)
{
	char buf[BS];
	int c, d, st;
	pid_t pid;

	memset(buf, 'y', BS);
	c = open(path_of(dir, "c"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (c < 0)
		die("open c");
	d = fcntl(c, F_DUPFD, 50);
	if (d < 0 || dup2(d, 60) != 60)
		die("dup");
	close(c);
	close(d);
	/* fd c's number now names another file: only the descriptor table tells them apart. */
	if (open(path_of(dir, "decoy"), O_RDONLY | O_CREAT, 0644) < 0)
		die("open decoy");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (write(60, buf, BS) != BS)
				_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
	printf("%d\n", (int)pid);
}

/* preopen - p opened, then stopped until continued (a recording starts), then N writes */
static void preopen(const char *dir, long n)
{
	char buf[BS];
	int p = open(path_of(dir, "p"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (p < 0)
		die("open p");
	memset(buf, 'z', BS);
	raise(SIGSTOP);
	for (long i = 0; i < n; i++)
		if (write(p, buf, BS) != BS)
			die("write p");
	close(p);
}

int main(int argc, char **argv)
{
	/* FILEIO_WAIT: stop before any I/O, once loaded; a tracer following this PID continues it. */
	if (getenv("FILEIO_WAIT"))
		raise(SIGSTOP);
	if (argc == 5 && !strcmp(argv[1], "rw"))
		rw(argv[2], atol(argv[3]), atol(argv[4]));
	else if (argc == 4 && !strcmp(argv[1], "cached"))
		cached(argv[2], atol(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "preopen"))
		preopen(argv[2], atol(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "dupfork"))
		dupfork(argv[2], atol(argv[3]));
	else {
		fprintf(stderr, "usage: fileio rw DIR N M | cached DIR M | dupfork DIR N | preopen DIR N\n");
		return 2;
	}
	return 0;
}
