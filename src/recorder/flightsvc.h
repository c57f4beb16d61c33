/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FLIGHTSVC_H
#define IOTAP_FLIGHTSVC_H

/*
 * The flight recorder (flight.h) inside a tool's session, for a service
 * that also keeps one (iotap exporter --ring): one tracefs instance, one
 * event stream, each request paired once. The ring holds every record the
 * session delivers, that is the events the tool traces and nothing more; the
 * tool pairs the requests and hands each completed one over for the
 * triggers (flightsvc_request). --ring, --ring-size, --trigger, --after,
 * -d and -Q mean what they mean to record --ring; --max-dumps ends the
 * dumps, not the session. The ring is flushed and the dumps whose window
 * is over go out once a second (the session's tick), whatever the tool's
 * interval; SIGUSR2 and each dump written wake the loop at once.
 */
#include "flight.h"
#include "iotap.h"
#include "record-params.h"

struct flightsvc;

/*
 * A flight recorder fed by the session of the tool ctx, as p says (its
 * tools: the names the dumps' head gives, comma-separated); from the tool's
 * init, so that the tool sees no session. *out is NULL without --ring. p
 * must outlive the session. 0, or -errno said through the log hook
 * (-EINVAL: options that do not go together). It is freed with the session
 * (its consumer's fini).
 */
int flightsvc_add(struct flightsvc **out, struct iotap_ctx *ctx, const struct record_params *p);
/* A completed request (or flush), paired by the tool: 0. fs may be NULL. */
int flightsvc_request(struct flightsvc *fs, const struct blk_io *io);
/*
 * At the end: the open incident dumped and every dump written and said, so
 * that the tool's last report counts them (else the session's final report
 * does it, after the tool's). fs may be NULL; once.
 */
void flightsvc_finish(struct flightsvc *fs, struct iotap_ctx *ctx);
/* The dumps so far and what the ring holds now (flight_stats); fs not NULL. */
void flightsvc_stats(const struct flightsvc *fs, struct flight_stats *st);

#endif
