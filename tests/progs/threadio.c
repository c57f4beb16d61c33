// SPDX-License-Identifier: GPL-2.0-or-later
/* threadio.c - O_DIRECT reads from threads other than the main one, for the -p and PID tests */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct job {
	int fd;
	unsigned long long first, count, size;
	pthread_t th;
	int err;
};

/* job_run - count direct reads of size bytes from block first on; a thread's body */
static void *job_run(void *arg)
{
	struct job *j = arg;
	void *buf;

	if (posix_memalign(&buf, 4096, j->size)) {
		j->err = ENOMEM;
		return NULL;
	}
	for (unsigned long long i = 0; i < j->count && !j->err; i++)
		if (pread(j->fd, buf, j->size, (off_t)((j->first + i) * j->size)) != (ssize_t)j->size)
			j->err = errno ? errno : EIO;
	free(buf);
	return NULL;
}

/* main - after a line on stdin, THREADS threads each read COUNT blocks; all at once or one by one */
int main(int argc, char **argv)
{
	unsigned long long threads, count, size;
	bool serial;
	struct job *jobs;
	char line[16];
	int fd, ret = 0;

	if (argc != 6 || (strcmp(argv[5], "together") && strcmp(argv[5], "one-by-one"))) {
		fprintf(stderr, "usage: threadio DEV THREADS COUNT SIZE together|one-by-one\n");
		return 2;
	}
	threads = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	size = strtoull(argv[4], NULL, 0);
	serial = !strcmp(argv[5], "one-by-one");
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	jobs = calloc(threads, sizeof(*jobs));
	if (fd < 0 || !jobs) {
		fprintf(stderr, "threadio: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* The tracer is given our PID first: wait for its go. */
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (unsigned long long t = 0; t < threads; t++) {
		jobs[t] = (struct job){ .fd = fd, .first = t * count, .count = count, .size = size };
		if (pthread_create(&jobs[t].th, NULL, job_run, &jobs[t])) {
			fprintf(stderr, "threadio: cannot create a thread\n");
			return 1;
		}
		/* One by one: each thread has exited before the next starts (short-lived threads). */
		if (serial)
			pthread_join(jobs[t].th, NULL);
	}
	for (unsigned long long t = 0; t < threads; t++) {
		if (!serial)
			pthread_join(jobs[t].th, NULL);
		if (jobs[t].err) {
			fprintf(stderr, "threadio: read: %s\n", strerror(jobs[t].err));
			ret = 1;
		}
	}
	free(jobs);
	close(fd);
	return ret;
}
