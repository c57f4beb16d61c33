/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SESSION_LOCAL_H
#define IOTAP_SESSION_LOCAL_H

/*
 * What the files of a session share and nothing else calls. session.c opens,
 * resets and releases a session, runs it and dispatches its records; it calls
 * into session-events.c (the events and their handlers), session-comms.c (the
 * process names) and session-signals.c (signals and stopping), which call
 * nothing of session.c's. Everything here works on the session's own memory:
 * none fails but session_comms_keep.
 */
#include <stdint.h>

#include "session.h"

/*
 * session_events_free - every event and its handlers; the array and its index
 * stay, to be filled again (session_reset)
 */
void session_events_free(struct session *s);
/* session_events_release - session_events_free, then the array and its index too */
void session_events_release(struct session *s);

/*
 * session_comms_keep - a copy of the names the source gave at open, for
 * session_comms_reset; 0 or -ENOMEM (nothing kept)
 */
int session_comms_keep(struct session *s);
/* session_comms_reset - only the names kept at open, indexed again */
void session_comms_reset(struct session *s);
/* session_comms_release - every name, the index and the copy; safe twice */
void session_comms_release(struct session *s);
/* session_comm_exit - the process pid exited at time t: its name goes after a grace */
void session_comm_exit(struct session *s, uint32_t pid, uint64_t t);

/*
 * session_signals_begin - s (opened or reset) stops only for the signals that
 * come from now on, and no session is stopping
 */
void session_signals_begin(struct session *s);

#endif
