/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SESSION_LOCAL_H
#define IOTAP_SESSION_LOCAL_H

/*
 * What the files of a session share and nothing else calls. session.c opens,
 * resets and releases a session, runs it and dispatches its records; it calls
 * into session-signals.c (signals and stopping), which calls nothing of
 * session.c's.
 */
#include "session.h"

/*
 * session_signals_begin - s (opened or reset) stops only for the signals that
 * come from now on, and no session is stopping
 */
void session_signals_begin(struct session *s);

#endif
