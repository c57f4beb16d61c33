// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter-flight.c - the exporter's flight recorder: one in its session, and its series */
#include <errno.h>

#include "exporter-local.h"
#include "flightsvc.h"
#include "prom.h"
#include "shared.h"

/* exporter_flight - --ring: the dumps since the last page, and what the ring holds now */
int exporter_flight(struct exporter_state *st)
{
	struct flight_stats now;
	char labels[64];
	int ret = 0;

	if (!st->ring)
		return 0;
	flightsvc_stats(st->ring, &now);
	for (unsigned int i = 0; i < FLIGHT_REASONS && !ret; i++) {
		labels[0] = 0;
		if (prom_label(labels, sizeof(labels), "reason", flight_reason_names[i]))
			return -ENOSPC;
		ret = prom_counter_add(st->m.prom, "iotap_flight_dumps_total",
				       "Flight recorder dumps written, by what fired them", labels,
				       (double)(now.dumps[i] - st->ring_last.dumps[i]));
	}
	if (!ret)
		ret = prom_counter_add(st->m.prom, "iotap_flight_dump_failures_total",
				       "Flight recorder dumps that could not be written (said in the log)",
				       "", (double)(now.failures - st->ring_last.failures));
	if (!ret)
		ret = prom_gauge_set(st->m.prom, "iotap_flight_ring_bytes",
				     "Bytes the flight recorder's ring holds: its events, uncompressed, and their bookkeeping",
				     "", (double)now.ring_bytes);
	if (!ret)
		ret = prom_gauge_set(st->m.prom, "iotap_flight_ring_seconds",
				     "Seconds of events the flight recorder's ring holds",
				     "", now.ring_ns / 1e9);
	st->ring_last = now;
	return ret;
}

/*
 * exporter_ring - -o, --ring and the rest: a flight recorder in this session, which
 * keeps what the exporter traces (the same -d) and takes its paired requests
 */
int exporter_ring(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;

	if (p->rec.ring && iotap_input_is_file(ctx)) {
		iotap_err(ctx, "--ring keeps live events: not with -i");
		return -EINVAL;
	}
	p->rec.tools = ctx->tool->name;
	p->rec.disk = p->rec.ring ? p->disk : NULL;
	return flightsvc_add(&st->ring, ctx, &p->rec);
}
