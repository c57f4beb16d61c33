// SPDX-License-Identifier: GPL-2.0-or-later
/* test_webauth.c - basic auth against bcrypt hashes: right, wrong, unknown, and the budget */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "webauth.h"
#include "webconfig.h"

/* htpasswd -nbBC 4 prom secret; htpasswd -nbBC 4 other pass2 */
#define YML "basic_auth_users:\n" \
	"  prom: $2y$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC\n" \
	"  other: $2y$04$GwMnYWjPdXTPmZT3C0.3tu3.jgA442Q7MhPZsDtdsHw/keYo0noQK\n"
#define SEC 1000000000ull

static struct webconfig *load(void)
{
	struct webconfig *wc = NULL;
	char why[256];

	assert_int_equal(webconfig_parse(&wc, YML, strlen(YML), NULL, why, sizeof(why)), 0);
	return wc;
}

static void test_check(void **unused)
{
	struct webconfig *wc = load();
	struct webauth *a = webauth_alloc(wc);
	uint64_t t = 100 * SEC;

	/* A second apart each: the budget is test_budget's. */
	assert_non_null(a);
	assert_int_equal(webauth_check(a, "prom", "secret", t += SEC), WEBAUTH_OK);
	assert_int_equal(webauth_crypts(a), 1);
	/* Kept: no bcrypt again for the same password. */
	assert_int_equal(webauth_check(a, "prom", "secret", t += SEC), WEBAUTH_OK);
	assert_int_equal(webauth_crypts(a), 1);
	assert_int_equal(webauth_check(a, "prom", "secreT", t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "prom", "secre", t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "prom", "secret\n", t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "prom", "", t += SEC), WEBAUTH_DENIED);
	/* Another user's password is not this one's. */
	assert_int_equal(webauth_check(a, "other", "secret", t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "other", "pass2", t += SEC), WEBAUTH_OK);
	assert_int_equal(webauth_crypts(a), 7);
	/* An unknown user is denied, a password checked all the same (a bcrypt spent). */
	assert_int_equal(webauth_check(a, "nobody", "secret", t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_crypts(a), 8);
	assert_int_equal(webauth_check(a, NULL, NULL, t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "prom", NULL, t += SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_crypts(a), 8);
	/* The kept passwords still pass. */
	assert_int_equal(webauth_check(a, "prom", "secret", t += SEC), WEBAUTH_OK);
	assert_int_equal(webauth_check(a, "other", "pass2", t += SEC), WEBAUTH_OK);
	assert_int_equal(webauth_crypts(a), 8);
	webauth_free(a);
	webauth_free(NULL);
	webconfig_free(wc);
}

static void test_budget(void **unused)
{
	struct webconfig *wc = load();
	struct webauth *a = webauth_alloc(wc);
	uint64_t t = 7 * SEC;

	for (int i = 0; i < WEBAUTH_CHECKS_PER_SECOND; i++)
		assert_int_equal(webauth_check(a, "prom", "wrong", t + i), WEBAUTH_DENIED);
	/* Past the budget: not checked, whatever the password, till the next second... */
	assert_int_equal(webauth_check(a, "prom", "secret", t + SEC - 1), WEBAUTH_BUSY);
	assert_int_equal(webauth_crypts(a), WEBAUTH_CHECKS_PER_SECOND);
	assert_int_equal(webauth_check(a, "prom", "secret", t + SEC), WEBAUTH_OK);
	/* ...but a kept password passes however busy it is (one check of this second spent). */
	for (int i = 1; i < WEBAUTH_CHECKS_PER_SECOND; i++)
		assert_int_equal(webauth_check(a, "x", "y", t + SEC), WEBAUTH_DENIED);
	assert_int_equal(webauth_check(a, "other", "pass2", t + SEC), WEBAUTH_BUSY);
	assert_int_equal(webauth_check(a, "prom", "secret", t + SEC), WEBAUTH_OK);
	webauth_free(a);
	webconfig_free(wc);
}

static void test_none(void **unused)
{
	struct webconfig *wc = NULL;
	char why[64];

	assert_int_equal(webconfig_parse(&wc, "", 0, NULL, why, sizeof(why)), 0);
	errno = 0;
	assert_null(webauth_alloc(wc));
	assert_int_equal(errno, EINVAL);
	webconfig_free(wc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
