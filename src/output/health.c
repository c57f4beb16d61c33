// SPDX-License-Identifier: GPL-2.0-or-later
/* health.c - the exporter's own health as Prometheus series (health.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "health.h"

/* health_init - see health.h */
void health_init(struct health *h)
{
	memset(h, 0, sizeof(*h));
	h->started = time(NULL);
}

/* health_mem - this process's resident and virtual size in bytes, from /proc/self/statm */
static int health_mem(double *rss, double *vsz)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long size, res;
	long page = sysconf(_SC_PAGESIZE);
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%llu %llu", &size, &res);
	fclose(f);
	if (n != 2)
		return -EIO;
	*rss = (double)res * page;
	*vsz = (double)size * page;
	return 0;
}

/* health_stream - the stream's and pairing's counters, by what grew */
static int health_stream(struct health *h, struct prom *p, const struct health_now *now)
{
	char labels[256];
	int ret;

	ret = prom_counter_add(p, "iotap_exporter_events_total",
			       "Trace events read from the kernel", NULL,
			       (double)(now->events - h->last.events));
	if (!ret)
		ret = prom_counter_add(p, "iotap_exporter_events_lost_total",
				       "Trace events the kernel dropped because a ring buffer was full",
				       NULL, (double)(now->lost - h->last.lost));
	if (!ret)
		ret = prom_counter_add(p, "iotap_exporter_events_undelivered_total",
				       "Trace events the kernel counted but never delivered", NULL,
				       (double)(now->undelivered - h->last.undelivered));
	if (!ret)
		ret = prom_counter_add(p, "iotap_exporter_unpaired_completions_total",
				       "Completions whose issue was not seen (in flight at the start, "
				       "or an issue lost)", NULL, (double)(now->unpaired - h->last.unpaired));
	h->last.events = now->events;
	h->last.lost = now->lost;
	h->last.undelivered = now->undelivered;
	h->last.unpaired = now->unpaired;
	for (size_t i = 0; i < 2 && !ret; i++) {
		if (!now->cmd[i].used)
			continue;
		labels[0] = 0;
		if (prom_label(labels, sizeof(labels), "driver", now->cmd[i].driver))
			return -ENOSPC;
		ret = prom_counter_add(p, "iotap_exporter_unpaired_commands_total",
				       "NVMe or SCSI command completions whose setup or dispatch was "
				       "not seen (in flight at the start, or a kernel whose events do "
				       "not name a command alike at both ends)", labels,
				       (double)(now->cmd[i].unpaired - h->last.cmd[i].unpaired));
		h->last.cmd[i].unpaired = now->cmd[i].unpaired;
	}
	return ret;
}

/* health_http - the requests the endpoint answered, by route, by what grew */
static int health_http(struct health *h, struct prom *p, struct httpd *httpd)
{
	static const char *const codes[] = { "200", "200", "404", "405" };
	static const char *const paths[] = { "/metrics", "/", "other", "other" };
	/* By enum httpd_close. */
	static const struct { const char *name, *help; } closes[] = {
		{ "iotap_exporter_http_slow_connections_closed_total",
		  "connections closed for not sending a whole request head in time, or not ending "
		  "an exchange in time" },
		{ "iotap_exporter_http_connections_evicted_total",
		  "connections closed to make room for a newer one while the server held all it "
		  "can: those longest without a whole request head first" },
	};
	char labels[256];
	int ret = 0;

	for (int r = 0; httpd && r <= HTTPD_BAD_METHOD && !ret; r++) {
		unsigned long long n = httpd_requests(httpd, r);

		labels[0] = 0;
		if (prom_label(labels, sizeof(labels), "code", codes[r]) ||
		    prom_label(labels, sizeof(labels), "path", paths[r]))
			return -ENOSPC;
		ret = prom_counter_add(p, "iotap_exporter_http_requests_total",
				       "HTTP requests answered, by status code", labels,
				       (double)(n - h->requests[r]));
		h->requests[r] = n;
	}
	for (int why = 0; httpd && why <= HTTPD_CLOSED_EVICTED && !ret; why++) {
		unsigned long long n = httpd_closed(httpd, why);

		ret = prom_counter_add(p, closes[why].name, closes[why].help, "",
				       (double)(n - h->closed[why]));
		h->closed[why] = n;
	}
	return ret;
}

/* health_process - this process: CPU time, memory, start time, and what it was built with */
static int health_process(struct health *h, struct prom *p)
{
	struct timespec ts;
	double rss = 0, vsz = 0, cpu;
	char labels[256] = "";
	int ret;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	cpu = ts.tv_sec + ts.tv_nsec / 1e9;
	ret = prom_counter_add(p, "process_cpu_seconds_total",
			       "Total user and system CPU time spent in seconds", NULL, cpu - h->cpu);
	h->cpu = cpu;
	if (!ret && !health_mem(&rss, &vsz)) {
		ret = prom_gauge_set(p, "process_resident_memory_bytes",
				     "Resident memory size in bytes", NULL, rss);
		if (!ret)
			ret = prom_gauge_set(p, "process_virtual_memory_bytes",
					     "Virtual memory size in bytes", NULL, vsz);
	}
	if (!ret)
		ret = prom_gauge_set(p, "process_start_time_seconds",
				     "Start time of the process since unix epoch in seconds", NULL,
				     (double)h->started);
	if (!ret && (prom_label(labels, sizeof(labels), "version", PACKAGE_VERSION) ||
		     prom_label(labels, sizeof(labels), "libtraceevent", IOTAP_TRACEEVENT_VERSION) ||
		     prom_label(labels, sizeof(labels), "libtracefs", IOTAP_TRACEFS_VERSION)))
		return -ENOSPC;
	if (!ret)
		ret = prom_gauge_set(p, "iotap_build_info",
				     "A metric with a constant '1' value labelled by the version of "
				     "iotap and the libraries it was built with", labels, 1);
	return ret;
}

/* health_add - see health.h */
int health_add(struct health *h, struct prom *p, const struct health_now *now,
	       struct httpd *httpd)
{
	int ret = health_stream(h, p, now);

	if (!ret)
		ret = health_http(h, p, httpd);
	if (ret)
		return ret;
	return health_process(h, p);
}
