// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * threadrace.c - threads made in a tight loop while tracers start, reading the
 * moment the tracers trace: the start-up race of -p, hit on purpose
 *
 * usage: threadrace DEV COUNT NR_INSTANCES, then NR_INSTANCES tracefs instance
 * directories on stdin, one a line. From the start to the moment every
 * instance traces (its events enabled and tracing_on 1) it makes threads
 * without pause, each to wait for that moment; past WAITERS the oldest is
 * told to end without reading, so the threads alive then were made all
 * through the tracers' start. Then they read COUNT 4 KiB blocks each with
 * O_DIRECT and end at once, and LATE more threads are made to do the same.
 * No read comes before every tracer traces, so a tracer that misses none
 * counts what the disk counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 256
#define LATE 8
#define MAX_INSTANCES 8
#define TIMEOUT_S 30

struct worker {
	pthread_t th;
	sem_t wake;
	bool retire;
	unsigned long long first;
	int err;
};

static int dev_fd;
static unsigned long long count;

/* worker_run - wait to be woken; unless retired, read count blocks from block first on; end */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	void *buf;

	while (sem_wait(&w->wake))
		;
	/* Retired: no one waits for it, so that the maker does not pause. */
	if (w->retire) {
		sem_destroy(&w->wake);
		free(w);
		return NULL;
	}
	if (posix_memalign(&buf, 4096, 4096)) {
		w->err = ENOMEM;
		return NULL;
	}
	for (unsigned long long i = 0; i < count && !w->err; i++)
		if (pread(dev_fd, buf, 4096, (off_t)((w->first + i) * 4096)) != 4096)
			w->err = errno ? errno : EIO;
	free(buf);
	return NULL;
}

/* worker_start - a thread to read from block first on once woken, or NULL */
static struct worker *worker_start(unsigned long long first)
{
	struct worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->first = first;
	if (sem_init(&w->wake, 0, 0) || pthread_create(&w->th, NULL, worker_run, w)) {
		free(w);
		return NULL;
	}
	return w;
}

/* worker_retire - have w end without reading, and free itself */
static void worker_retire(struct worker *w)
{
	w->retire = true;
	pthread_detach(w->th);
	sem_post(&w->wake);
}

/* file_is_1 - whether the file at dir/rel reads "1" now */
static bool file_is_1(const char *dir, const char *rel)
{
	char path[512], c = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

/*
 * tracing - whether instance dir traces: an event enabled first, since a new
 * instance has tracing_on 1 before its tracer turns it off to set it up
 */
static bool tracing(const char *dir)
{
	return file_is_1(dir, "events/block/block_rq_complete/enable") &&
	       file_is_1(dir, "tracing_on");
}

/* stdin_lines - take what stdin has now into buf; the complete lines as instances */
static void stdin_lines(char *buf, size_t *len, size_t cap, char inst[][256], int *nr, int want)
{
	ssize_t n = read(0, buf + *len, cap - *len - 1);
	char *nl;

	if (n <= 0)
		return;
	*len += (size_t)n;
	buf[*len] = 0;
	while (*nr < want && (nl = strchr(buf, '\n'))) {
		*nl = 0;
		snprintf(inst[(*nr)++], sizeof(inst[0]), "%.255s", buf);
		*len -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, *len + 1);
	}
}

/* waiter_next - a new waiter in the next slot, retiring the one there: 0 or -1 */
static int waiter_next(struct worker **w, int *next)
{
	struct worker **slot = &w[*next];

	if (*slot)
		worker_retire(*slot);
	*slot = worker_start((unsigned long long)*next * count);
	*next = (*next + 1) % WAITERS;
	return *slot ? 0 : -1;
}

/* main - see the top of the file */
int main(int argc, char **argv)
{
	static struct worker *w[WAITERS + LATE];
	char inst[MAX_INSTANCES][256], buf[4096];
	int want, nr = 0, next = 0, ret = 0;
	size_t len = 0;
	time_t deadline = time(NULL) + TIMEOUT_S;

	if (argc != 4) {
		fprintf(stderr, "usage: threadrace DEV COUNT NR_INSTANCES < instance dirs\n");
		return 2;
	}
	count = strtoull(argv[2], NULL, 0);
	want = atoi(argv[3]);
	if (want < 1 || want > MAX_INSTANCES) {
		fprintf(stderr, "threadrace: 1 to %d instances\n", MAX_INSTANCES);
		return 2;
	}
	dev_fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (dev_fd < 0 || fcntl(0, F_SETFL, O_NONBLOCK)) {
		fprintf(stderr, "threadrace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (;;) {
		bool all = nr == want;

		for (int i = 0; all && i < nr; i++)
			all = tracing(inst[i]);
		if (all)
			break;
		if (time(NULL) > deadline) {
			fprintf(stderr, "threadrace: the tracers did not trace within %d s\n", TIMEOUT_S);
			return 1;
		}
		if (nr < want)
			stdin_lines(buf, &len, sizeof(buf), inst, &nr, want);
		if (waiter_next(w, &next)) {
			fprintf(stderr, "threadrace: cannot make a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < WAITERS; i++)
		if (w[i])
			sem_post(&w[i]->wake);
	/* Threads born after the tracers started, for the side-band's FORK records. */
	for (int i = WAITERS; i < WAITERS + LATE; i++) {
		w[i] = worker_start((unsigned long long)i * count);
		if (!w[i] || sem_post(&w[i]->wake))
			return 1;
	}
	for (int i = 0; i < WAITERS + LATE; i++) {
		if (!w[i])
			continue;
		pthread_join(w[i]->th, NULL);
		sem_destroy(&w[i]->wake);
		if (w[i]->err) {
			fprintf(stderr, "threadrace: read: %s\n", strerror(w[i]->err));
			ret = 1;
		}
		free(w[i]);
	}
	close(dev_fd);
	return ret;
}
