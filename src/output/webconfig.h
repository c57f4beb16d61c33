/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_WEBCONFIG_H
#define IOTAP_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The exporter's web configuration file, in the format of Prometheus'
 * exporter-toolkit (node_exporter's --web.config.file), limited to:
 *
 *   tls_server_config:
 *     cert_file: server.crt          # PEM, may hold the chain after the certificate
 *     key_file: server.key           # PEM, not encrypted
 *     client_ca_file: ca.crt         # with a client_auth_type that verifies
 *     client_auth_type: RequireAndVerifyClientCert   # or VerifyClientCertIfGiven, NoClientCert
 *   basic_auth_users:
 *     prometheus: $2y$10$...         # bcrypt hashes only
 *
 * Relative paths resolve against the file's own directory, as
 * exporter-toolkit resolves them. Any other key is an error, never ignored:
 * an option of the toolkit's that is not honoured must not look as if it were.
 */

/* Whom TLS asks for a client certificate (client_auth_type). */
enum webconfig_client_auth {
	WEBCONFIG_NO_CLIENT_CERT,	/* NoClientCert (the default) */
	WEBCONFIG_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven: none, or one client_ca_file signed */
	WEBCONFIG_REQUIRE_AND_VERIFY,	/* RequireAndVerifyClientCert */
};

struct webconfig_user {
	char *name;
	char *hash;		/* bcrypt: $2a$, $2b$ or $2y$, cost 04..31, 60 characters */
};

struct webconfig {
	/* Paths as resolved (NULL: absent); tls is cert_file and key_file both set. */
	char *cert_file, *key_file, *client_ca_file;
	bool tls;
	enum webconfig_client_auth client_auth;
	struct webconfig_user *users;
	size_t nr_users;
	/* The files' PEM text, NUL-terminated: webconfig_load reads them, webconfig_parse does not. */
	char *cert, *key, *client_ca;
};

/*
 * Parse len bytes of YAML text; relative paths resolve against dir (NULL:
 * as they are). Reads no file. An empty document is a configuration of
 * nothing (plain HTTP, no users), as in exporter-toolkit. 0 and *out, or
 * -EINVAL with one line in why (naming the line of the text where there is
 * one), or -ENOMEM.
 */
int webconfig_parse(struct webconfig **out, const char *text, size_t len, const char *dir,
		    char *why, size_t whylen);

/*
 * Read path, parse it, then read the certificate, key and CA files it names.
 * 0 and *out, or -errno with one line in why (-EINVAL: a bad file, -ENOENT,
 * -EACCES...: a file that cannot be read, naming it).
 */
int webconfig_load(struct webconfig **out, const char *path, char *why, size_t whylen);

/* Whether hash is a bcrypt hash crypt(3) takes: $2a$/$2b$/$2y$, cost 04..31, 53 more. */
bool webconfig_hash_valid(const char *hash);

/* Free wc; wc may be NULL. */
void webconfig_free(struct webconfig *wc);

#endif
