/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SESSION_LOCAL_H
#define IOTAP_SESSION_LOCAL_H

/*
 * What the files of a session share and nothing else calls. session.c opens,
 * resets and releases a session, runs it and dispatches its records; it calls
 * into session-events.c (the events and their handlers) and session-signals.c
 * (signals and stopping), which call nothing of session.c's. Nothing here fails.
 */
#include "session.h"

/*
 * session_events_free - every event and its handlers; the array and its index
 * stay, to be filled again (session_reset)
 */
void session_events_free(struct session *s);
/* session_events_release - session_events_free, then the array and its index too */
void session_events_release(struct session *s);

/*
 * session_signals_begin - s (opened or reset) stops only for the signals that
 * come from now on, and no session is stopping
 */
void session_signals_begin(struct session *s);

#endif
