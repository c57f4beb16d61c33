// SPDX-License-Identifier: GPL-2.0-or-later
/* dio.c - exact O_DIRECT workloads for the live tests */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* usage - one line on misuse */
static int usage(void)
{
	fprintf(stderr, "usage: dio read|write|dsync DEV COUNT SIZE [seq|rand|stride:N] [start-offset]\n"
			"       dio fsync DEV COUNT 0\n");
	return 2;
}

/* mono - CLOCK_MONOTONIC in seconds */
static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * main - COUNT direct I/Os of SIZE bytes; prints the offsets used, one per line, to stdout,
 * and with DIO_ELAPSED set each I/O's seconds ("io S") and theirs in all ("elapsed S") on
 * stderr
 */
int main(int argc, char **argv)
{
	const char *mode, *pattern;
	unsigned long long count, size, start, devsize, off = 0, stride = 0;
	void *buf;
	double t0;
	int fd, flags;

	if (argc < 5)
		return usage();
	mode = argv[1];
	count = strtoull(argv[3], NULL, 0);
	size = strtoull(argv[4], NULL, 0);
	pattern = argc > 5 ? argv[5] : "seq";
	start = argc > 6 ? strtoull(argv[6], NULL, 0) : 0;
	if (!strncmp(pattern, "stride:", 7))
		stride = strtoull(pattern + 7, NULL, 0);
	/* fsync of a block device with nothing dirty: one cache flush each, nothing else. */
	if (!strcmp(mode, "fsync")) {
		fd = open(argv[2], O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "dio: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		for (unsigned long long i = 0; i < count; i++) {
			if (fsync(fd)) {
				fprintf(stderr, "dio: fsync %s: %s\n", argv[2], strerror(errno));
				close(fd);
				return 1;
			}
		}
		close(fd);
		return 0;
	}
	flags = O_DIRECT | (strcmp(mode, "read") ? O_WRONLY : O_RDONLY);
	if (!strcmp(mode, "dsync"))
		flags |= O_DSYNC;
	fd = open(argv[2], flags);
	if (fd < 0) {
		fprintf(stderr, "dio: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	devsize = lseek(fd, 0, SEEK_END);
	if (posix_memalign(&buf, 4096, size))
		return 1;
	memset(buf, 0xa5, size);
	srand(42);
	t0 = mono();
	for (unsigned long long i = 0; i < count; i++) {
		double t_io = mono();
		ssize_t r;

		if (!strcmp(pattern, "rand"))
			off = ((unsigned long long)rand() * 4096) % (devsize - size) / 4096 * 4096;
		else if (stride)
			off = start + i * stride;
		else
			off = start + i * size;
		r = flags & O_WRONLY ? pwrite(fd, buf, size, off) : pread(fd, buf, size, off);
		if (r != (ssize_t)size) {
			fprintf(stderr, "dio: I/O at %llu: %s\n", off, r < 0 ? strerror(errno) : "short");
			free(buf);
			return 1;
		}
		if (getenv("DIO_ELAPSED"))
			fprintf(stderr, "io %.9f\n", mono() - t_io);
		printf("%llu\n", off);
	}
	if (getenv("DIO_ELAPSED"))
		fprintf(stderr, "elapsed %.6f\n", mono() - t0);
	close(fd);
	free(buf);
	return 0;
}
