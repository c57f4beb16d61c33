// SPDX-License-Identifier: GPL-2.0-or-later
/* webauth.c - basic auth against bcrypt hashes, bounded so that it cannot starve the server */
#include <crypt.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "webauth.h"

struct webauth {
	const struct webconfig *wc;
	char **good;			/* per user: the last password that matched, or NULL */
	struct crypt_data *cd;		/* crypt_rn's work area: 32 KiB, not for the stack */
	uint64_t second;		/* the budget's second (now_ns / 1e9) */
	unsigned int spent;		/* checks run in it */
	unsigned long long crypts;
};

/* webauth_alloc - see webauth.h */
struct webauth *webauth_alloc(const struct webconfig *wc)
{
	struct webauth *a;

	if (!wc->nr_users) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->wc = wc;
	a->good = calloc(wc->nr_users, sizeof(*a->good));
	a->cd = calloc(1, sizeof(*a->cd));
	if (!a->good || !a->cd) {
		webauth_free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

/* webauth_equal - whether a and b are equal, in a time that depends on their lengths only */
static bool webauth_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb;
	unsigned char diff = la != lb;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)((i < la ? a[i] : 0) ^ (i < lb ? b[i] : 0));
	return !diff;
}

/* webauth_wipe - free a kept password, wiped first */
static void webauth_wipe(char **p)
{
	if (!*p)
		return;
	explicit_bzero(*p, strlen(*p));
	free(*p);
	*p = NULL;
}

/* webauth_check - see webauth.h */
enum webauth_result webauth_check(struct webauth *a, const char *user, const char *pass,
				  uint64_t now_ns)
{
	const struct webconfig *wc = a->wc;
	size_t i = wc->nr_users;
	const char *hash, *got;
	bool match;

	if (!user || !pass)
		return WEBAUTH_DENIED;
	for (size_t u = 0; u < wc->nr_users; u++)
		if (!strcmp(wc->users[u].name, user))
			i = u;
	if (i < wc->nr_users && a->good[i] && webauth_equal(a->good[i], pass))
		return WEBAUTH_OK;
	if (now_ns / 1000000000 != a->second) {
		a->second = now_ns / 1000000000;
		a->spent = 0;
	}
	if (a->spent == WEBAUTH_CHECKS_PER_SECOND)
		return WEBAUTH_BUSY;
	a->spent++;
	/* An unknown user costs the first user's hash, and is denied whatever it gives. */
	hash = wc->users[i < wc->nr_users ? i : 0].hash;
	a->crypts++;
	got = crypt_rn(pass, hash, a->cd, sizeof(*a->cd));
	match = got && got[0] != '*' && webauth_equal(got, hash);
	if (!match || i == wc->nr_users)
		return WEBAUTH_DENIED;
	webauth_wipe(&a->good[i]);
	a->good[i] = strdup(pass);	/* none kept when out of memory: only slower */
	return WEBAUTH_OK;
}

/* webauth_crypts - see webauth.h */
unsigned long long webauth_crypts(const struct webauth *a)
{
	return a->crypts;
}

/* webauth_free - see webauth.h */
void webauth_free(struct webauth *a)
{
	if (!a)
		return;
	if (a->good)
		for (size_t i = 0; i < a->wc->nr_users; i++)
			webauth_wipe(&a->good[i]);
	free(a->good);
	if (a->cd)
		explicit_bzero(a->cd, sizeof(*a->cd));
	free(a->cd);
	free(a);
}
