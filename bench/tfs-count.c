// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tfs-count.c - the bare tracefs reader the benches compare iotap with: a
 * private instance with the given events enabled (and filtered), each CPU's
 * trace_pipe_raw drained every 100 ms (or when poll says so) and its events
 * counted with kbuffer; nothing else. Prints "ready" on stderr once tracing,
 * the count on stdout after SIGINT/SIGTERM, with the kernel's dropped count.
 *
 * Usage: tfs-count SYS:EVENT[,SYS:EVENT...] [FILTER]
 * Build: cc -O2 -o tfs-count tfs-count.c $(pkg-config --cflags --libs libtracefs libtraceevent)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#define MAX_CPUS 256

static volatile sig_atomic_t stop;

/* on_signal - end the run */
static void on_signal(int sig)
{
	stop = 1;
}

/* count_page - events in one sub-buffer */
static unsigned long count_page(struct kbuffer *kb, void *page)
{
	unsigned long long ts;
	unsigned long n = 0;

	if (kbuffer_load_subbuffer(kb, page))
		return 0;
	for (void *d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts))
		n++;
	return n;
}

/* drain - every event one CPU has, its partial sub-buffer too */
static unsigned long drain(struct tracefs_cpu *tc, struct kbuffer *kb, void *page, int psize,
			   int final)
{
	unsigned long n = 0;
	int r;

	while (!final && (r = tracefs_cpu_buffered_read(tc, page, true)) > 0)
		n += count_page(kb, page);
	while ((r = final ? tracefs_cpu_flush(tc, page) : tracefs_cpu_read(tc, page, true)) > 0)
		n += count_page(kb, page);
	return n;
}

int main(int argc, char **argv)
{
	struct tracefs_cpu *tc[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS];
	struct tracefs_instance *inst;
	unsigned long total = 0, dropped = 0;
	struct tep_handle *tep;
	struct kbuffer *kb;
	char name[64], *hp, *list, *ev;
	int ncpu, psize, len;
	void *page;

	if (argc < 2) {
		fprintf(stderr, "usage: tfs-count SYS:EVENT[,SYS:EVENT...] [FILTER]\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	snprintf(name, sizeof(name), "tfscount_%d", (int)getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		perror("instance");
		return 1;
	}
	tracefs_instance_file_write(inst, "tracing_on", "0");
	tracefs_instance_file_write(inst, "trace_clock", "mono");
	tracefs_option_disable(inst, TRACEFS_OPTION_OVERWRITE);
	tracefs_instance_file_write(inst, "buffer_percent", "25");
	list = strdup(argv[1]);
	for (ev = strtok(list, ","); ev; ev = strtok(NULL, ",")) {
		char *colon = strchr(ev, ':'), path[256];

		if (!colon)
			return 2;
		*colon = 0;
		if (argc > 2) {
			snprintf(path, sizeof(path), "events/%s/%s/filter", ev, colon + 1);
			tracefs_instance_file_write(inst, path, argv[2]);
		}
		snprintf(path, sizeof(path), "events/%s/%s/enable", ev, colon + 1);
		if (tracefs_instance_file_write(inst, path, "1") < 0) {
			fprintf(stderr, "cannot enable %s:%s\n", ev, colon + 1);
			goto out;
		}
	}
	tep = tep_alloc();
	tep_set_long_size(tep, sizeof(long));
	hp = tracefs_instance_file_read(inst, "events/header_page", &len);
	tep_parse_header_page(tep, hp, len, sizeof(long));
	kb = tep_kbuffer(tep);
	psize = getpagesize();
	page = malloc(psize);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (int c = 0; c < ncpu; c++) {
		char path[64], *p;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", c);
		p = tracefs_instance_get_file(inst, path);
		pfd[c].fd = open(p, O_RDONLY | O_NONBLOCK);
		pfd[c].events = POLLIN;
		tracefs_put_tracing_file(p);
		tc[c] = tracefs_cpu_alloc_fd(pfd[c].fd, psize, true);
	}
	tracefs_instance_file_write(inst, "tracing_on", "1");
	fprintf(stderr, "ready\n");
	while (!stop) {
		poll(pfd, ncpu, 100);
		for (int c = 0; c < ncpu; c++)
			total += drain(tc[c], kb, page, psize, 0);
	}
	tracefs_instance_file_write(inst, "tracing_on", "0");
	for (int c = 0; c < ncpu; c++) {
		char path[64], *st, *d;

		total += drain(tc[c], kb, page, psize, 1);
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
		st = tracefs_instance_file_read(inst, path, &len);
		d = st ? strstr(st, "dropped events:") : NULL;
		if (d)
			dropped += strtoul(d + 15, NULL, 10);
		free(st);
		tracefs_cpu_close(tc[c]);
	}
	printf("%lu\n", total);
	if (dropped)
		fprintf(stderr, "dropped %lu\n", dropped);
out:
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return 0;
}
