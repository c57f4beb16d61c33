// SPDX-License-Identifier: GPL-2.0-or-later
/* flightsvc.c - the flight recorder as one more consumer of a tool's session */
#include <errno.h>
#include <stdlib.h>

#include "flightsvc.h"
#include "log.h"
#include "session.h"

struct flightsvc {
	const struct record_params *p;
	struct evstream es;		/* the ring's writer (flight_setup makes it) */
	struct snap_info info;
	struct flight *f;
	bool finished;			/* flightsvc_finish ran: the dumps are all said */
};

/* flightsvc_end - the open incident dumped and every dump said, once (fs may be NULL) */
static void flightsvc_end(struct flightsvc *fs, struct session *s)
{
	if (!fs || fs->finished)
		return;
	fs->finished = true;
	flight_finish(fs->f, s);
}

/* flightsvc_init - SIGUSR2 wakes the run loop: its dump does not wait for the next tick */
static int flightsvc_init(struct session *s, void *priv)
{
	return flight_wake_join(((struct flightsvc *)priv)->f, s, priv);
}

/* flightsvc_start - events flow: -d resolved, the writer thread */
static int flightsvc_start(struct session *s, void *priv)
{
	struct flightsvc *fs = priv;

	return flight_start(fs->f, s, &fs->info, fs);
}

/* flightsvc_on_record - every record into the ring, as record --ring puts it there */
static int flightsvc_on_record(struct session *s, void *priv, const struct perf_event_header *rec)
{
	return flight_record(((struct flightsvc *)priv)->f, s, rec);
}

/* flightsvc_tick - once a second, whatever the interval: a chunk, the dumps due */
static int flightsvc_tick(struct session *s, void *priv)
{
	return flight_tick(((struct flightsvc *)priv)->f, s);
}

/* flightsvc_wake - SIGUSR2: the incident it opens, at once */
static int flightsvc_wake(struct session *s, void *priv)
{
	return flight_wake(((struct flightsvc *)priv)->f, s);
}

/* flightsvc_report - at the end, the open incident, unless the tool finished it first */
static int flightsvc_report(struct session *s, void *priv, bool final)
{
	if (final)
		flightsvc_end(priv, s);
	return 0;
}

/* flightsvc_fini - the writer stopped, the ring freed, SIGUSR2 as it was */
static void flightsvc_fini(struct session *s, void *priv)
{
	struct flightsvc *fs = priv;

	flight_free(fs->f);
	evstream_release(&fs->es);
	free(fs);
}

/* The ring takes every record raw, after the tool subscribed to its events. */
static const struct consumer_ops flightsvc_consumer = {
	.name = "flight recorder",
	.init = flightsvc_init,
	.start = flightsvc_start,
	.on_record = flightsvc_on_record,
	.report = flightsvc_report,
	.tick = flightsvc_tick,
	.wake = flightsvc_wake,
	.fini = flightsvc_fini,
};

/* flightsvc_add - see flightsvc.h */
int flightsvc_add(struct flightsvc **out, struct iotap_ctx *ctx, const struct record_params *p)
{
	struct flightsvc *fs;
	int ret;

	*out = NULL;
	if (p->ring && !p->output) {
		log_msg(LOG_ERR, "--ring needs -o FILE: where the dumps go");
		return -EINVAL;
	}
	if (!p->ring && p->output) {
		log_msg(LOG_ERR, "-o needs --ring");
		return -EINVAL;
	}
	if (!p->ring && (p->ring_size || p->trigger || p->after || p->max_dumps || p->queued)) {
		log_msg(LOG_ERR, "--ring-size, --trigger, --after, --max-dumps and -Q need --ring");
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->p = p;
	fs->info.p = p;
	fs->info.tools = p->tools;
	ret = flight_setup(&fs->f, p, &fs->es);
	if (ret || !fs->f) {
		free(fs);
		return ret;
	}
	flight_serve(fs->f);
	ret = session_consumer_add(ctx->sess, &flightsvc_consumer, fs);
	if (ret) {
		flight_free(fs->f);
		evstream_release(&fs->es);
		free(fs);
		return ret;
	}
	*out = fs;
	return 0;
}

/* flightsvc_request - see flightsvc.h */
int flightsvc_request(struct flightsvc *fs, const struct blk_io *io)
{
	return fs ? flight_request(fs->f, io) : 0;
}

/* flightsvc_stats - see flightsvc.h */
void flightsvc_stats(const struct flightsvc *fs, struct flight_stats *st)
{
	flight_stats(fs->f, st);
}

/* flightsvc_finish - see flightsvc.h */
void flightsvc_finish(struct flightsvc *fs, struct iotap_ctx *ctx)
{
	flightsvc_end(fs, ctx->sess);
}
