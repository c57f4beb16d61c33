/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_WEBAUTH_H
#define IOTAP_WEBAUTH_H

#include <stdint.h>

#include "webconfig.h"

/*
 * Basic auth against a web configuration's bcrypt hashes, through crypt(3)
 * (libxcrypt). A bcrypt check costs tens of milliseconds by design, and the
 * server answers every connection from one thread, so a flood of wrong
 * passwords must not become a way to starve scrapes:
 *  - a user's last password that matched is kept, and compared (in constant
 *    time) before any bcrypt: a scraper that keeps its password costs nothing;
 *  - other checks, failed ones and unknown users included, are bounded to
 *    WEBAUTH_CHECKS_PER_SECOND; past that a request is turned away unchecked
 *    (WEBAUTH_BUSY, 429 to the client) rather than queued.
 * An unknown user is checked against a hash all the same, so the time taken
 * does not say which users exist.
 */
#define WEBAUTH_CHECKS_PER_SECOND	4

struct webauth;

enum webauth_result {
	WEBAUTH_OK,
	WEBAUTH_DENIED,		/* no such user, or a wrong password */
	WEBAUTH_BUSY,		/* not checked: too many checks this second */
};

/* A checker for wc's users (wc must outlive it). NULL with errno (ENOMEM; EINVAL: no users). */
struct webauth *webauth_alloc(const struct webconfig *wc);

/*
 * Check user and password (NULL: none given, denied) at time now_ns (any
 * monotonic clock, for the budget). Not thread-safe: one server thread calls it.
 */
enum webauth_result webauth_check(struct webauth *a, const char *user, const char *pass,
				  uint64_t now_ns);

/* bcrypt checks run so far (the kept passwords spare the rest). */
unsigned long long webauth_crypts(const struct webauth *a);

/* Free a (the kept passwords wiped); a may be NULL. */
void webauth_free(struct webauth *a);

#endif
