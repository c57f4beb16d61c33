// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgclone.c - children born straight into a cgroup v2 directory (clone3 with
 * CLONE_INTO_CGROUP, as systemd and container runtimes start what they run),
 * each doing an exact number of direct reads of a device, then exiting
 *
 * usage: cgclone [-n CHILDREN] [-H] CGROUP DEV COUNT
 *   CHILDREN children (default 1), one after the other, each born into the cgroup v2
 *   directory CGROUP, read COUNT 4 KiB blocks of DEV with O_DIRECT (0: none) and exit.
 *   -H: the exited children are held unreaped (zombies, whose /proc/PID/cgroup still names
 *   their cgroup v2) until stdin reaches its end; without it each is reaped at once.
 * Prints each child's pid, one a line, as it is born. Exit status 0 when every child read
 * its blocks, 1 when one failed, 2 on misuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK 4096
#define CHILDREN_MAX 10000

/* usage - one line on misuse */
static int usage(void)
{
	fprintf(stderr, "usage: cgclone [-n CHILDREN] [-H] CGROUP DEV COUNT\n");
	return 2;
}

/* child_read - the child's COUNT direct reads of dev, block after block; its exit status */
static int child_read(const char *dev, unsigned long long count)
{
	void *buf;
	int fd;

	if (!count)
		return 0;
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "cgclone: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, BLOCK, BLOCK))
		return 1;
	for (unsigned long long i = 0; i < count; i++) {
		ssize_t r = pread(fd, buf, BLOCK, (off_t)(i * BLOCK));

		if (r != BLOCK) {
			fprintf(stderr, "cgclone: read at %llu: %s\n", i * BLOCK,
				r < 0 ? strerror(errno) : "short");
			return 1;
		}
	}
	return 0;
}

/* born - one child born into the cgroup of cgfd: its pid in the parent, or -1 */
static pid_t born(int cgfd, const char *dev, unsigned long long count)
{
	struct clone_args args;
	long pid;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)cgfd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(child_read(dev, count));
	if (pid < 0)
		fprintf(stderr, "cgclone: clone3 CLONE_INTO_CGROUP: %s\n", strerror(errno));
	return (pid_t)pid;
}

/* main - the children, one after the other; held as zombies until stdin ends with -H */
int main(int argc, char **argv)
{
	unsigned long long count;
	pid_t *pids;
	int opt, cgfd, n = 1, hold = 0, status, failed = 0;
	char c;

	while ((opt = getopt(argc, argv, "n:H")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'H')
			hold = 1;
		else
			return usage();
	}
	if (argc - optind != 3 || n < 1 || n > CHILDREN_MAX)
		return usage();
	count = strtoull(argv[optind + 2], NULL, 0);
	cgfd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgfd < 0) {
		fprintf(stderr, "cgclone: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	pids = calloc((size_t)n, sizeof(*pids));
	if (!pids)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		siginfo_t si;

		pids[i] = born(cgfd, argv[optind + 1], count);
		if (pids[i] < 0)
			return 1;
		printf("%d\n", (int)pids[i]);
		/* Exited, and left a zombie with -H (WNOWAIT). */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pids[i], &si, WEXITED | (hold ? WNOWAIT : 0)) ||
		    si.si_code != CLD_EXITED || si.si_status)
			failed = 1;
	}
	if (hold) {
		while (read(STDIN_FILENO, &c, 1) > 0)
			;
		for (int i = 0; i < n; i++)
			waitpid(pids[i], &status, 0);
	}
	free(pids);
	return failed;
}
