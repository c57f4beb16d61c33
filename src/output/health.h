/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HEALTH_H
#define IOTAP_HEALTH_H

/*
 * The exporter's own health as Prometheus series: the stream's counters (events read,
 * lost, counted but not delivered), what pairing could not pair, the HTTP requests its
 * endpoint answered, and this process's CPU time, memory, start time and build. Counters
 * are handed in as totals so far; each call adds to the cumulative metrics what grew
 * since the one before. Here, beside prom and httpd, since it is how the exporter's page
 * is made from them: the tool decides what to trace and time, not how /proc/self reads.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "httpd.h"
#include "prom.h"

/* The stream and pairing counters, totals so far. */
struct health_now {
	uint64_t events, lost, undelivered;	/* iotap_stream_stats */
	uint64_t unpaired;			/* request completions whose issue was not seen */
	struct {
		const char *driver;		/* "nvme", "scsi": the label */
		bool used;			/* its commands are paired: a series of its own */
		uint64_t unpaired;
	} cmd[2];
};

struct health {
	struct health_now last;			/* as of the last call */
	unsigned long long requests[HTTPD_BAD_METHOD + 1];
	unsigned long long closed[HTTPD_CLOSED_EVICTED + 1];	/* by the server, by enum httpd_close */
	double cpu;
	time_t started;
};

/* health_init - start counting: the process's start time is now */
void health_init(struct health *h);

/*
 * health_add - the health series into p: counters by what grew since the last call (HTTP
 * requests only with an httpd), gauges as they are now. 0, -ENOSPC (labels), or prom's error.
 */
int health_add(struct health *h, struct prom *p, const struct health_now *now,
	       struct httpd *httpd);

#endif
