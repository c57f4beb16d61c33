// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter.c - block I/O metrics for Prometheus: a /metrics endpoint and a textfile */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exporter-local.h"
#include "httpd.h"
#include "webconfig.h"

#define P(f) offsetof(struct exporter_params, f)
static const struct opt exporter_opts[] = {
	{ 'l', "listen", OPT_STR, P(listen), "ADDR:PORT",
	  "serve /metrics over HTTP on this address (default " EXPORTER_LISTEN ": every address, "
	  "port " EXPORTER_PORT "; 127.0.0.1:" EXPORTER_PORT " for this host only, "
	  "[::1]:" EXPORTER_PORT " for IPv6)" },
	{ 0, "textfile", OPT_OUTFILE, P(textfile), "FILE",
	  "each interval, also write the metrics to a temporary and rename it over FILE, for "
	  "node_exporter's textfile collector; without --listen, no HTTP server is started" },
	{ 0, "web.config.file", OPT_STR, P(web_config), "FILE",
	  "TLS and basic auth for --listen, from FILE in the format of Prometheus' exporter-toolkit "
	  "(node_exporter's --web.config.file): tls_server_config (cert_file, key_file, "
	  "client_ca_file, client_auth_type) and basic_auth_users (bcrypt hashes); any other key "
	  "is an error. Relative paths are from FILE's folder" },
	{ 0, "queue-time", OPT_FLAG, P(queue), NULL,
	  "also publish iotap_block_request_queue_seconds, from each request's creation to its "
	  "issue: it traces block_io_start for requests with data too, three events per request "
	  "instead of biolatency's two, so it costs more per I/O (bench/README.md); -Q implies it" },
	{ 0, "no-queue-time", OPT_FLAG, P(no_queue), NULL,
	  "no iotap_block_request_queue_seconds: the default (kept for the scripts that name it)" },
	{ 'o', "output", OPT_OUTFILE, P(rec.output), "FILE",
	  "with --ring: write each dump to FILE.<timestamp> (created mode 0600)" },
	RECORD_RING_OPTS(P(rec), "with --ring: write at most N dumps, then keep serving metrics (default: no limit)",
			 ". What it costs is this host's memory: each 4 KiB of events (about 30 I/Os) is written into memory last written a ring ago, 1 to 4.6 us a page where measured, so the exporter with --ring took 1.14 times biolatency's CPU per I/O and 1.02 without it; bench/coldpage.c in the source tree measures that cost per page on this machine before you deploy (cc -O2 -o coldpage bench/coldpage.c && ./coldpage), and process_cpu_seconds_total with and without --ring measures it in service"),
	TOOL_OPT_DISK_HELP(P(disk), "trace this disk only (the metrics, the ring and the triggers)"),
	RECORD_OPT_QUEUED(P(rec)),
	{ 0, "stages", OPT_FLAG, P(stages), NULL,
	  "also publish each request's stages as btt splits them (iotap_block_request_stage_seconds: "
	  "Q2G, G2I, I2D, D2C, Q2C, as biostages shows them); it traces three more events per "
	  "request (the bio queued, the request allocated, inserted), so it costs more per I/O" },
	{ 0, "cgroups", OPT_FLAG, P(cgroups), NULL,
	  "also publish block I/O per cgroup and disk: iotap_cgroup_ios_total and "
	  "iotap_cgroup_bytes_total by op as io.stat counts them, "
	  "iotap_cgroup_wait_seconds_total by cause (throttle, rqos, queue, device, dirty) and "
	  "iotap_cgroup_request_duration_seconds, for the cgroups of the hierarchy the block "
	  "controller is on: cgroup v1's blkio one on a hybrid or v1 host, else cgroup v2's "
	  "(one info line says which; --cgroup's when given). It traces each bio, each "
	  "request's creation and allocation (so iotap_block_request_queue_seconds comes too), "
	  "balance_dirty_pages and every task's moves between cgroups: it costs more per I/O" },
	{ 0, "cgroup-depth", OPT_UINT, P(cgroup_depth), "N",
	  "with --cgroups: fold cgroups deeper than N into their ancestor at depth N "
	  "(/a/b/c at 2: /a/b)", NULL, 1, 64 },
	{ 0, "cgroup-series", OPT_UINT, P(cgroup_series), "N",
	  "with --cgroups: series for N cgroups at most (default 100), the first seen; the I/O "
	  "of any further one counts as cgroup=\"other\" (totals stay exact), and "
	  "iotap_cgroup_folded_total counts those cgroups", NULL, 1, 100000 },
	OPT_END
};

static const struct tool_event exporter_events[] = {
	TOOL_EVENTS_BLOCK_REQ,
	TOOL_EVENTS_BLOCK_STAGES,
	{ "nvme", "nvme_setup_cmd", TOOL_EV_OPTIONAL },
	{ "nvme", "nvme_complete_rq", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_start", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_done", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_timeout", TOOL_EV_OPTIONAL },
	{ "scsi", "scsi_dispatch_cmd_error", TOOL_EV_OPTIONAL },
	DIRTYTRACK_EVENTS,
	{ NULL, NULL, 0 }
};

/* exporter_disk - the disk label of dev: its name, or "other" past EXPORTER_MAX_DISKS */
static const char *exporter_disk(struct iotap_ctx *ctx, uint32_t dev)
{
	struct exporter_state *st = ctx->state;
	size_t i = st->last;

	/* Requests come in runs of one disk's: the name is looked up once, when it is new. */
	if (i >= st->nr_devs || st->devs[i].dev != dev)
		for (i = 0; i < st->nr_devs && st->devs[i].dev != dev; i++)
			;
	if (i == st->nr_devs) {
		if (st->nr_devs == EXPORTER_MAX_DISKS)
			return "other";
		st->devs[i].dev = dev;
		snprintf(st->devs[i].name, sizeof(st->devs[i].name), "%s", iotap_disk_name(ctx, dev));
		st->nr_devs++;
	}
	st->last = i;
	return st->devs[i].name;
}

/* exporter_cg_disk - the disk label of a cgroup's row, as the disk's own series have it */
static const char *exporter_cg_disk(void *ctx, uint32_t dev)
{
	return exporter_disk(ctx, dev);
}

/* exporter_on_done - a request with data: also its size and whether it was sequential */
static int exporter_on_done(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *disk = exporter_disk(ctx, io->dev);
	int ret;

	ret = flightsvc_request(st->ring, io);
	if (!ret)
		ret = blk_lastpos_sequential(&st->pos, io);
	if (ret >= 0 && p->stages && stagehist_request(&st->stages, disk, io))
		ret = -ENOMEM;
	if (ret < 0)
		return ret;
	return blkmetrics_request(&st->m, disk, io, ret ? BLKM_SEQUENTIAL : BLKM_RANDOM);
}

/* exporter_on_nodata - a flush (no sector, no bytes): latency and errors only */
static int exporter_on_nodata(void *arg, const struct blk_io *io)
{
	struct iotap_ctx *ctx = arg;
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *disk = exporter_disk(ctx, io->dev);
	int ret = flightsvc_request(st->ring, io);

	if (!ret && p->stages)
		ret = stagehist_request(&st->stages, disk, io);
	return ret ? ret : blkmetrics_request(&st->m, disk, io, BLKM_NODATA);
}

/*
 * exporter_gone - drop the series of disks and devices that have gone (checked every
 * interval): a removed disk's series would otherwise be served forever
 */
static void exporter_gone(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	char num[24];

	for (size_t i = 0; i < st->nr_devs;) {
		uint32_t dev = st->devs[i].dev;

		snprintf(num, sizeof(num), "%u:%u", BLOCK_DEV_MAJOR(dev), BLOCK_DEV_MINOR(dev));
		if (iotap_device_gone(ctx, IOTAP_DEV_BLOCK, num) <= 0) {
			i++;
			continue;
		}
		blkmetrics_forget_disk(&st->m, st->devs[i].name);
		stagehist_forget_disk(&st->stages, st->devs[i].name);
		st->devs[i] = st->devs[--st->nr_devs];
		st->last = 0;
	}
	exporter_cmds_forget(ctx);
}

/* exporter_health - the exporter's own series: stream, pairing, HTTP, process, build */
static int exporter_health(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	struct health_now now = {
		.unpaired = blktrack_stats(st->bt)->unmatched,
		.cmd = {
			{ "nvme", st->nvme.tab != NULL, st->nvme.unmatched },
			{ "scsi", st->scsi.tab != NULL, st->scsi.unmatched },
		},
	};

	iotap_stream_stats(ctx, &now.events, &now.lost, &now.undelivered);
	return health_add(&st->health, st->m.prom, &now, st->httpd);
}

/* exporter_snapshot - fold the interval in, then publish the page and write the textfile */
static int exporter_snapshot(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	int ret;

	ret = blkmetrics_fold(&st->m);
	if (!ret && st->cg.cs)
		ret = cgmetrics_fold(&st->cg, st->m.prom, exporter_cg_disk, ctx);
	if (!ret && p->stages)
		ret = stagehist_prom(&st->stages, st->m.prom);
	if (!ret) {
		exporter_gone(ctx);
		ret = exporter_health(ctx);
	}
	if (!ret)
		ret = exporter_flight(st);
	if (ret)
		return ret;
	ret = exporter_publish(st);
	if (ret)
		return ret;
	if (p->textfile) {
		ret = prom_write(st->m.prom);
		if (ret)
			iotap_err(ctx, "cannot write %s: %s", p->textfile, strerror(-ret));
	}
	return ret;
}

/* exporter_wake - a scrape asks for the page: build it from the events so far */
static int exporter_wake(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	uint64_t n;

	/* Nonblocking: nothing to read is a wake whose scrapes a page already answered. */
	if (read(st->demand_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return -errno;
	/* A scrape that asked while the last page was built was answered by it. */
	return httpd_demand_take(st->httpd) ? exporter_snapshot(ctx) : 0;
}

/* exporter_init - check options, take the port, subscribe to the request events */
static int exporter_init(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	struct blktrack_cfg cfg = {
		.flags = p->queue || p->rec.queued ? BT_START : 0,
		.on_done = exporter_on_done,
		.on_nodata = exporter_on_nodata,
		.arg = ctx,
	};
	int ret;

	st->demand_fd = -1;
	if (p->no_queue && (p->rec.queued || p->queue || p->cgroups)) {
		iotap_err(ctx, "--no-queue-time: not with %s", p->queue ? "--queue-time" :
			  p->cgroups ? "--cgroups, which times requests from their creation" :
			  "-Q, whose trigger times from creation");
		return -EINVAL;
	}
	if ((p->cgroup_depth || p->cgroup_series) && !p->cgroups) {
		iotap_err(ctx, "--cgroup-depth and --cgroup-series need --cgroups");
		return -EINVAL;
	}
	health_init(&st->health);
	st->m.max_devs = EXPORTER_MAX_DISKS;
	if (!(st->devs = calloc(EXPORTER_MAX_DISKS, sizeof(*st->devs))))
		return -ENOMEM;
	if (!(st->m.prom = prom_alloc(p->textfile))) {
		iotap_err(ctx, "cannot write %s: %s", p->textfile, strerror(errno));
		return -EINVAL;
	}
	ret = exporter_ring(ctx);
	/*
	 * Its series name no process: without the ring (whose dumps name them),
	 * the host's process side-band would be work for nobody.
	 */
	if (!ret && !st->ring)
		iotap_procs_unused(ctx);
	/* With it, the dumps fill them in as they are written, when the ring keeps sub-buffers. */
	if (!ret && st->ring)
		iotap_pids_unread(ctx);
	if (!ret)
		ret = exporter_listen(ctx);
	if (!ret)
		ret = exporter_demand(ctx);
	if (!ret)
		ret = blktrack_cfg_select(&cfg, ctx, p->disk, 0);
	if (p->stages)
		cfg.flags |= BT_INSERT | BT_STAGES;
	if (!ret)
		ret = exporter_cgroups(ctx, &cfg);
	if (!ret)
		ret = blktrack_create(&st->bt, ctx, &cfg);
	if (!ret)
		ret = exporter_commands(ctx);
	return ret;
}

/* exporter_start - tracing runs: publish a first page before any interval */
static int exporter_start(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;

	if (st->httpd)
		iotap_info(ctx, "serving metrics on %s://%s/metrics",
			   st->web && st->web->tls ? "https" : "http",
			   p->listen ? p->listen : "localhost" EXPORTER_LISTEN);
	return exporter_snapshot(ctx);
}

/*
 * exporter_report - every interval: a new snapshot, unless scrapes ask for
 * the page and there is no textfile; at the end, the final page and textfile
 */
static int exporter_report(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	int ret = 0;

	/* The last dumps count in the last page and textfile. */
	if (ctx->final)
		flightsvc_finish(st->ring, ctx);
	if (ctx->final || p->textfile || st->demand_fd < 0)
		ret = exporter_snapshot(ctx);
	cmdpair_nvme_say(&st->nvme, ctx);
	cmdpair_scsi_say(&st->scsi, ctx);
	if (ctx->final)
		blktrack_warn_stats(st->bt, ctx);
	return ret;
}

/* exporter_fini - stop serving, then free the state */
static void exporter_fini(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;

	httpd_stop(st->httpd);
	if (st->demand_fd >= 0)
		close(st->demand_fd);
	webconfig_free(st->web);
	blktrack_free(st->bt);
	dirtytrack_free(st->dt);
	cgmetrics_release(&st->cg);
	cmdpair_nvme_release(&st->nvme);
	cmdpair_scsi_release(&st->scsi);
	blk_lastpos_release(&st->pos);
	blkmetrics_release(&st->m);
	stagehist_release(&st->stages);
	free(st->devs);
	prom_free(st->m.prom);
}

const struct tool tool_exporter = {
	.name = "exporter",
	.summary = "Serve block I/O latency, size and error metrics to Prometheus.",
	.description =
		"A long-running service: traces block device requests and serves their metrics "
		"at /metrics over HTTP in Prometheus' text format (default port " EXPORTER_PORT
		"), and with --textfile writes them for node_exporter's textfile collector. Per "
		"disk and operation (read, write, flush, discard, other): "
		"iotap_block_request_latency_seconds, a histogram from issue to completion with "
		"biolatency's log2 buckets (its counts equal biolatency's for the same I/O); "
		"with --queue-time (or -Q), iotap_block_request_queue_seconds, from creation to "
		"issue; "
		"iotap_block_request_size_bytes; iotap_block_requests_by_pattern_total "
		"(sequential or random); and iotap_block_request_errors_total by BLK_STS name. "
		"Where the kernel traces NVMe and SCSI commands (nvme:nvme_setup_cmd, "
		"scsi:scsi_dispatch_cmd_start and their completions; else one info line says "
		"so): iotap_nvme_command_latency_seconds per namespace and command class "
		"(read, write, flush, discard, other; admin commands per controller, "
		"op=\"admin\") and iotap_scsi_command_latency_seconds per device "
		"(host:channel:id:lun) and opcode class, paired as nvmelatency and "
		"scsilatency pair them, so their counts equal those tools' for the same I/O; "
		"with --disk, only that NVMe namespace's commands. "
		"With --cgroups, per cgroup and disk (labels cgroup, its path; container, where "
		"the path names a container or unit as cgtop's CONTAINER column does; disk): "
		"iotap_cgroup_ios_total and iotap_cgroup_bytes_total by op (read, write, discard), "
		"the bios the cgroup's tasks sent and their bytes as cgroup v2's io.stat and v1's "
		"blkio.throttle.io_serviced and io_service_bytes count them (each bio as it is "
		"queued, each piece of a split one more; charged to the sender also when "
		"blk-throttle held the bio); iotap_cgroup_request_duration_seconds, its requests "
		"(reads, writes, discards) from the send until completion, in the same buckets; "
		"iotap_cgroup_wait_seconds_total by cause: throttle, rqos, queue and device split "
		"that time as cgtop's THROTms, RQOSms, QUEUEms and DEVms do, and dirty is the "
		"tasks' pauses in balance_dirty_pages (where the kernel has that event). The "
		"cgroups are those of the hierarchy the block controller is on, whose limits and "
		"counters they have: cgroup v1's blkio hierarchy on a hybrid or v1 host, else "
		"cgroup v2's (an info line at the start says which; with --cgroup, that one's "
		"hierarchy; over a recording made with iotap record --cgroups, the same choice on "
		"the host it was made on), folded with --cgroup-depth. Past --cgroup-series distinct cgroups (100 by "
		"default) the I/O of any new one counts as cgroup=\"other\", so totals stay exact, "
		"and iotap_cgroup_folded_total counts those cgroups; a task whose cgroup is not "
		"known counts as cgroup=\"?\". A cgroup keeps its series while the exporter runs, "
		"also once it is removed. "
		"Its own health: iotap_exporter_events_total, _events_lost_total, "
		"_events_undelivered_total, _unpaired_completions_total, _http_requests_total, "
		"_http_slow_connections_closed_total, _http_connections_evicted_total, "
		"process_cpu_seconds_total, process_resident_memory_bytes and iotap_build_info. "
		"Series are cumulative since the start. Live, the page is built when a scrape asks "
		"for it, from every event up to then, and served from a thread of its own: the "
		"scrape waits for the page (0.5 s at most, then it gets the last one), tracing "
		"never waits on a client, and a page younger than 0.1 s is served as it is. With "
		"--textfile, and from a recording (-i), the page is rebuilt every interval "
		"(1 second by default). Disks that appear later get series of their "
		"own under their name, up to 64; I/O on further disks counts as disk=\"other\". "
		"A disk or device that goes away (its /sys/dev/block entry, or a size of 0: a "
		"detached loop device) loses its series at the next page; should it come "
		"back, they start again from zero. "
		"Only GET and HEAD of /metrics and / are answered (404 and 405 otherwise); at most "
		"1,024 connections from any addresses, 8 KiB of request headers, 3 seconds to "
		"send them and 10 for the whole exchange; past 1,024, a newcomer evicts the "
		"connection longest without a whole request head, so stuck clients beside "
		"Prometheus, even on its address, never shut a scrape out (the soft fd limit is "
		"raised for them; a lower hard one holds fewer, _http_connections_evicted_total "
		"counts them); with --web.config.file, TLS and basic auth. "
		"md and dm devices, which complete bios rather than requests, have no series. "
		"With --ring (and -o FILE), the same process is also a flight recorder, as iotap "
		"record --ring: the last SECS seconds of the events it traces are kept in memory, "
		"and a trigger (--trigger, or SIGUSR2) writes FILE.<timestamp>, a recording that "
		"iotap report reads (biolatency, biosnoop, bitesize and the other request tools). "
		"One tracefs instance, one event stream: the ring keeps the records the exporter "
		"reads, and the triggers see the requests the exporter pairs, so each request is "
		"traced and paired once; -d narrows all of it to one disk. The ring keeps events "
		"uncompressed (a dump compresses what it writes), and dumps go out a second or "
		"two after their trigger whatever the interval. --max-dumps ends the "
		"dumps, never the metrics. Then also iotap_flight_dumps_total by reason (latency, "
		"error, signal), iotap_flight_dump_failures_total, and the gauges "
		"iotap_flight_ring_bytes (memory the ring holds) and iotap_flight_ring_seconds "
		"(event time it spans). "
		"systemd/iotap-exporter.service runs it as a service, with the ring.",
	.examples =
		"iotap exporter\n  Serve /metrics on every address, port " EXPORTER_PORT ".\n"
		"iotap exporter -l 127.0.0.1:" EXPORTER_PORT "\n  Serve this host only.\n"
		"iotap exporter --web.config.file /etc/iotap/web.yml\n"
		"  Serve over TLS to users with a password (doc/service.md: Securing the endpoint).\n"
		"iotap exporter --textfile /var/lib/prometheus/node-exporter/iotap.prom 15\n"
		"  No HTTP: every 15 seconds, a file for node_exporter's textfile collector.\n"
		"iotap exporter --cgroups --cgroup-depth 3\n"
		"  Also per cgroup and disk, a cgroup below depth 3 counted as its ancestor there.\n"
		"iotap exporter --ring 60 --after 5 --trigger 'latency>500,error' -o /var/lib/iotap-exporter/dump\n"
		"  Metrics, and a dump of the last minute (and 5 s more) on a request slower than 500 ms or failed.\n"
		"systemctl kill -s USR2 iotap-exporter\n  Ask the service's flight recorder for a dump now.\n"
		"systemctl enable --now iotap-exporter\n"
		"  Run it as a service, options from /etc/default/iotap-exporter.\n",
	.banner = "Tracing block device I/O for Prometheus... Hit Ctrl-C to end.",
	.args = TOOL_ARGS_INTERVAL,
	.default_interval = 1,
	.interval_does = "rewrite the textfile, and over a recording the page (live, each scrape builds the page),",
	.opts = exporter_opts,
	.events = exporter_events,
	.probes = blktrack_probes,
	.params_size = sizeof(struct exporter_params),
	.state_size = sizeof(struct exporter_state),
	.init = exporter_init,
	.report = exporter_report,
	.wake = exporter_wake,
	.fini = exporter_fini,
	.start = exporter_start,
};
