/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exporter-local.h - what the exporter's files share: its params and state, and the calls
 * between them. Not for use outside src/tools/exporter*.c.
 *
 * exporter.c is the tool (its options, events and callbacks) and the only caller of the
 * others: exporter-web.c takes the port and serves the page, exporter-cmds.c keeps the
 * NVMe and SCSI command metrics, exporter-flight.c wires in the flight recorder,
 * exporter-cgroups.c keeps the series per cgroup (--cgroups). What they
 * allocate hangs off struct exporter_state, freed by the tool's fini. Calls returning int
 * give 0 or -errno.
 */
#ifndef IOTAP_EXPORTER_LOCAL_H
#define IOTAP_EXPORTER_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmetrics.h"
#include "cgmetrics.h"
#include "cmdpair.h"
#include "dirtytrack.h"
#include "flightsvc.h"
#include "health.h"
#include "shared.h"
#include "stagehist.h"

struct httpd;
struct webconfig;

/*
 * The default port: 9100-9999, the range of Prometheus' default port
 * allocation list, has had every number taken since 2023, so this one sits
 * just above it, clear of the ports the list and IANA's registry name.
 */
#define EXPORTER_PORT "10033"
#define EXPORTER_LISTEN ":" EXPORTER_PORT
/* Disks with series of their own; I/O on any further one counts as disk="other". */
#define EXPORTER_MAX_DISKS 64

struct exporter_params {
	const char *listen, *textfile, *disk, *web_config;
	bool queue, no_queue;
	struct record_params rec;	/* -o, --ring and the rest: the flight recorder's */
	bool stages;
	bool cgroups;
	uint64_t cgroup_depth, cgroup_series;	/* 0: not given */
};

/* A disk with series of its own, and its name as they label it. */
struct exporter_disk {
	uint32_t dev;
	char name[32];
};

struct exporter_state {
	struct blktrack *bt;
	struct cmdpair_nvme nvme;
	struct cmdpair_scsi scsi;
	struct blk_lastpos pos;
	struct blkmetrics m;		/* the series; m.prom: every one, cumulative */
	struct stagehist stages;	/* --stages: btt's stages, into m.prom each snapshot */
	struct exporter_disk *devs;	/* the disks with series of their own */
	size_t nr_devs, last;		/* devs[last]: the last request's, looked at first */
	struct httpd *httpd;
	int demand_fd;			/* live: a scrape asks for the page through it; -1: none */
	struct webconfig *web;
	struct health health;
	struct flightsvc *ring;		/* --ring: the flight recorder in this session */
	struct flight_stats ring_last;	/* its counts as last published */
	struct cgmetrics cg;		/* --cgroups: the series per cgroup; cg.cs NULL without */
	struct dirtytrack *dt;		/* --cgroups: dirty-page pauses, where the kernel has them */
	/* --cgroups: the request's disk series, after its cgroup's */
	int (*cg_next_done)(void *arg, const struct blk_io *io);
};

/*
 * exporter_listen - take the port (--listen), with --web.config.file's TLS and users, into
 * st->httpd; none with --textfile alone. Says why not: -EINVAL a bad option, -ENOTSUP no
 * TLS in this build, -EBADMSG a bad web config file, else httpd_start's error
 */
int exporter_listen(struct iotap_ctx *ctx);
/* exporter_demand - live, with a server: scrapes ask for the page through st->demand_fd */
int exporter_demand(struct iotap_ctx *ctx);
/* exporter_publish - the page, from st->m.prom, to the server when there is one; -ENOMEM */
int exporter_publish(struct exporter_state *st);

/* exporter_commands - NVMe and SCSI command metrics where the kernel traces them; -ENODEV: --disk */
int exporter_commands(struct iotap_ctx *ctx);
/* exporter_cmds_forget - drop the command series of devices that have gone */
void exporter_cmds_forget(struct iotap_ctx *ctx);

/*
 * exporter_cgroups - --cgroups: cfg also traces what the series per cgroup need, every
 * task's cgroup is followed (one info line says in which hierarchy), dirty-page pauses
 * where the kernel has them; as iotap_cgroup_track and dirtytrack_create fail. Nothing
 * without --cgroups.
 */
int exporter_cgroups(struct iotap_ctx *ctx, struct blktrack_cfg *cfg);

/* exporter_ring - --ring: the flight recorder in this session, into st->ring; -EINVAL with -i */
int exporter_ring(struct iotap_ctx *ctx);
/* exporter_flight - --ring: its series into st->m.prom; -ENOSPC, -ENOMEM */
int exporter_flight(struct exporter_state *st);

#endif
