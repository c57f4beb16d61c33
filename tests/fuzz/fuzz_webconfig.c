// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_webconfig.c - libFuzzer harness for the exporter's --web.config.file (YAML) and its users */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "webauth.h"
#include "webconfig.h"

/*
 * LLVMFuzzerTestOneInput - parse the input as a web configuration; what parses must hold
 * together, and its users can be checked (bcrypt runs for the cheapest cost only: a hash
 * of cost 31 is valid and would take hours)
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct webconfig *wc = NULL;
	struct webauth *a;
	char why[256] = "";

	if (webconfig_parse(&wc, (const char *)data, size, "/etc/iotap", why, sizeof(why))) {
		/* Every refusal says why, in one line. */
		if (!why[0] || strchr(why, '\n') || wc)
			abort();
		return 0;
	}
	if (wc->tls != (wc->cert_file && wc->key_file) || wc->cert || wc->key)
		abort();
	if (wc->client_auth != WEBCONFIG_NO_CLIENT_CERT && !wc->client_ca_file)
		abort();
	for (size_t i = 0; i < wc->nr_users; i++)
		if (!webconfig_hash_valid(wc->users[i].hash) || !wc->users[i].name[0])
			abort();
	if (wc->nr_users && !strncmp(wc->users[0].hash, "$2y$04$", 7)) {
		a = webauth_alloc(wc);
		if (!a || webauth_check(a, wc->users[0].name, "", 1) == WEBAUTH_BUSY ||
		    webauth_check(a, "", "x", 2) != WEBAUTH_DENIED)
			abort();
		webauth_free(a);
	}
	webconfig_free(wc);
	return 0;
}
