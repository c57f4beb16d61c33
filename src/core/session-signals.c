// SPDX-License-Identifier: GPL-2.0-or-later
/* session-signals.c - a session's stop: its own, or a signal's that came while it ran */
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "session.h"
#include "session-local.h"

/*
 * Signals are counted process-wide; a session compares the counts with those
 * it began with, so it stops for a signal that came while it ran and never
 * for one an earlier session already stopped for.
 */
static volatile sig_atomic_t session_sigs;	/* SIGINT, SIGTERM and SIGHUP so far */
static volatile sig_atomic_t session_aborts;	/* SIGINTs that came while a session stopped */
static volatile sig_atomic_t session_stopping;	/* the running session is stopping */

/* session_on_signal - first signal stops cleanly, a second SIGINT aborts the final report */
static void session_on_signal(int sig)
{
	if (session_stopping && sig == SIGINT)
		session_aborts++;
	session_sigs++;
	session_stopping = 1;
}

/* session_signals_install - SIGINT/SIGTERM/SIGHUP end the run; no SA_RESTART so poll wakes */
void session_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = session_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* session_signals_begin - see session-local.h */
void session_signals_begin(struct session *s)
{
	s->sig_base = session_sigs;
	s->abort_base = session_aborts;
	session_stopping = 0;
}

/* session_stop - end the run after the current record; safe in a signal handler */
void session_stop(struct session *s)
{
	s->stop = 1;
}

/* session_stopped - whether s stops: asked to, or a signal came since it began */
bool session_stopped(struct session *s)
{
	if (!s->stop && session_signalled(s))
		s->stop = 1;
	if (s->stop)
		session_stopping = 1;
	return s->stop;
}

/* session_signalled - whether a signal came since s was opened, even after it ended */
bool session_signalled(const struct session *s)
{
	return session_sigs != s->sig_base;
}

/* session_aborted - whether a second SIGINT asked s to skip its final report */
bool session_aborted(const struct session *s)
{
	return session_aborts != s->abort_base;
}
