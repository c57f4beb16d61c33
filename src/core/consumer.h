/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CONSUMER_H
#define IOTAP_CONSUMER_H

/*
 * A consumer of a session's event stream. One session feeds any number of
 * them from one run loop, in the order they were added: analyses (a tool
 * plugs in through the adapter of session_tool_add, with an iotap_ctx of its
 * own), the recorder, and whatever else wants the stream.
 *
 * The call order, all from the thread that runs the session:
 *   init      session_run, each in order: subscribe to events
 *             (iotap_event_use, session_event_use), make probes. Nothing
 *             flows yet. An init may add consumers (a tool's flight
 *             recorder): they come after it, and their init runs in the
 *             same pass.
 *   start     each in order, once the source delivers; the first records
 *             come after every start returned.
 *   on_record every record in time order, before the handlers of the
 *             sample's event, for a consumer that takes records raw (the
 *             recorder); but ftrace samples, once it skips them
 *             (session_consumer_skip_ftrace). NULL: the consumer sees the
 *             samples of the events it subscribed to, through their handlers.
 *   report    each in order, at every interval (final false) and once at the
 *             end (final true); not at all after a second SIGINT.
 *   fini      session_release, in reverse order, once for every consumer
 *             added, whether or not init ran or succeeded.
 * Callbacks may be NULL. Every one that returns int returns 0 or -errno: an
 * error from init, start or on_record ends the run with it; report's is
 * returned after the other consumers reported too.
 *
 * Samples are decoded (and process names kept) unless every consumer has an
 * on_record: a session of raw consumers alone passes records on untouched.
 * Observers do not count.
 *
 * priv is the consumer's own: the session passes it back and never looks
 * inside or frees it. It must stay valid until fini, and ops until
 * session_release returns.
 */
#include <stdbool.h>

#include "sample.h"

struct session;

struct consumer_ops {
	const char *name;
	/*
	 * It watches the stream for the others (the symbolizer, the cgroup
	 * tracker): its start and on_record come before any consumer's, its
	 * fini after the source closed, and it does not count for decoding.
	 */
	bool observer;
	int (*init)(struct session *s, void *priv);
	int (*start)(struct session *s, void *priv);
	int (*on_record)(struct session *s, void *priv, const struct perf_event_header *rec);
	int (*report)(struct session *s, void *priv, bool final);
	/*
	 * Live, once a second whatever the interval (none without it): for
	 * work that must not wait for a long interval, such as a flight
	 * recorder's chunk of the last second and a dump whose window is over.
	 */
	int (*tick)(struct session *s, void *priv);
	/*
	 * Live, when the fd given to session_consumer_wake_fd is readable, once
	 * the stream is delivered up to that moment: for work another thread
	 * asks for and waits on, such as a page built at a scrape. It reads the
	 * fd itself.
	 */
	int (*wake)(struct session *s, void *priv);
	void (*fini)(struct session *s, void *priv);
};

/*
 * session_consumer_add - feed ops (with priv) from s's run loop, after the
 * consumers added before it; before session_run, or from a consumer's init.
 * Return: 0 or -ENOMEM (then fini is not called).
 */
int session_consumer_add(struct session *s, const struct consumer_ops *ops, void *priv);

/*
 * session_consumer_skip_ftrace - the consumer of priv takes the samples of
 * ftrace events another way (the flight recorder keeps the sub-buffers they
 * were read from): from now on its on_record sees every other record only.
 * From the consumer's start. Return: 0, or -ENOENT when priv is no consumer.
 */
int session_consumer_skip_ftrace(struct session *s, void *priv);

/*
 * session_consumer_wake_fd - the run loop polls fd (owned by the caller, open
 * until fini) beside the events and calls the wake of the consumer of priv
 * when it is readable. From the consumer's init. Return: 0, -ENOENT when priv
 * is no consumer, -EOPNOTSUPP when the source does not wait on anything (a
 * file: the stream is read as fast as it goes).
 */
int session_consumer_wake_fd(struct session *s, void *priv, int fd);

#endif
