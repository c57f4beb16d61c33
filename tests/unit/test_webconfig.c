// SPDX-License-Identifier: GPL-2.0-or-later
/* test_webconfig.c - the web configuration file: good ones, and each bad shape refused */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "webconfig.h"

/* htpasswd -nbBC 4 prom secret */
#define HASH "$2y$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC"

static char why[512];

/* parse - webconfig_parse of text, against dir "/etc/iotap" */
static int parse(const char *text, struct webconfig **wc)
{
	why[0] = 0;
	return webconfig_parse(wc, text, strlen(text), "/etc/iotap", why, sizeof(why));
}

/* bad - text is refused with -EINVAL and a line that contains want */
static void bad(const char *text, const char *want)
{
	struct webconfig *wc = NULL;

	assert_int_equal(parse(text, &wc), -EINVAL);
	assert_null(wc);
	if (!strstr(why, want))
		fail_msg("'%s': said '%s', expected '%s' in it", text, why, want);
	assert_null(strchr(why, '\n'));
}

static void test_good(void **unused)
{
	struct webconfig *wc = NULL;

	assert_int_equal(parse("tls_server_config:\n"
			       "  cert_file: server.crt\n"
			       "  key_file: /abs/server.key\n"
			       "  client_ca_file: 'ca dir/ca.crt'\n"
			       "  client_auth_type: RequireAndVerifyClientCert\n"
			       "basic_auth_users:\n"
			       "  prom: " HASH "\n"
			       "  \"other\": '" HASH "'\n", &wc), 0);
	assert_true(wc->tls);
	assert_string_equal(wc->cert_file, "/etc/iotap/server.crt");
	assert_string_equal(wc->key_file, "/abs/server.key");
	assert_string_equal(wc->client_ca_file, "/etc/iotap/ca dir/ca.crt");
	assert_int_equal(wc->client_auth, WEBCONFIG_REQUIRE_AND_VERIFY);
	assert_int_equal(wc->nr_users, 2);
	assert_string_equal(wc->users[0].name, "prom");
	assert_string_equal(wc->users[1].name, "other");
	assert_string_equal(wc->users[1].hash, HASH);
	assert_null(wc->cert);		/* parse reads no file */
	webconfig_free(wc);

	/* Users only: plain HTTP with basic auth, as exporter-toolkit allows. */
	assert_int_equal(parse("basic_auth_users: {a: " HASH "}\n", &wc), 0);
	assert_false(wc->tls);
	assert_int_equal(wc->nr_users, 1);
	assert_int_equal(wc->client_auth, WEBCONFIG_NO_CLIENT_CERT);
	webconfig_free(wc);

	/* TLS only, the default client_auth_type; flow style. */
	assert_int_equal(parse("{tls_server_config: {cert_file: c, key_file: k}}", &wc), 0);
	assert_true(wc->tls);
	assert_int_equal(wc->nr_users, 0);
	assert_string_equal(wc->cert_file, "/etc/iotap/c");
	webconfig_free(wc);

	/* An empty file (or only a comment): nothing configured, as exporter-toolkit takes it. */
	assert_int_equal(parse("", &wc), 0);
	assert_false(wc->tls);
	webconfig_free(wc);
	assert_int_equal(parse("# nothing\n", &wc), 0);
	webconfig_free(wc);
	assert_int_equal(parse("basic_auth_users: {}\n", &wc), 0);
	assert_int_equal(wc->nr_users, 0);
	webconfig_free(wc);
	webconfig_free(NULL);
}

static void test_bad(void **unused)
{
	bad("a: [", "not YAML");
	bad("a: b\nc: d: e\n", "line 2: not YAML");
	bad("tls_server_config:\n  cert_file: c\n   key_file: k\n", "not YAML");
	bad("- a\n- b\n", "the file: expected a mapping");
	bad("just text", "expected a mapping");
	bad("http_server_config: {http2: true}\n", "line 1: unknown or unsupported key 'http_server_config'");
	bad("basic_auth_users: {a: " HASH "}\nbasic_auth_users: {b: " HASH "}\n",
	    "line 2: basic_auth_users given twice");
	bad("tls_server_config: x\n", "tls_server_config: expected a mapping");
	bad("tls_server_config:\n", "tls_server_config: expected a mapping");
	bad("tls_server_config: {cert_file: c}\n", "missing key_file");
	bad("tls_server_config: {key_file: k}\n", "missing cert_file");
	bad("tls_server_config: {cert_file: c, key_file: k, min_version: TLS13}\n",
	    "unknown or unsupported key 'min_version'");
	bad("tls_server_config: {cert_file: c, key_file: k, cert_file: d}\n", "cert_file given twice");
	bad("tls_server_config: {cert_file: '', key_file: k}\n", "cert_file: expected a value");
	bad("tls_server_config: {cert_file: [c], key_file: k}\n", "cert_file: expected a value");
	bad("tls_server_config: {cert_file: c, key_file: k, client_auth_type: Maybe}\n",
	    "client_auth_type 'Maybe': expected");
	bad("tls_server_config: {cert_file: c, key_file: k, client_auth_type: RequestClientCert}\n",
	    "RequestClientCert is not supported");
	bad("tls_server_config: {cert_file: c, key_file: k, client_auth_type: VerifyClientCertIfGiven}\n",
	    "client_ca_file is needed");
	bad("tls_server_config: {cert_file: c, key_file: k, client_ca_file: ca}\n",
	    "client_ca_file without a client_auth_type");
	bad("basic_auth_users: [a, b]\n", "basic_auth_users: expected a mapping");
	bad("basic_auth_users:\n  prom: secret\n", "line 2: basic_auth_users: user 'prom': not a bcrypt hash");
	bad("basic_auth_users: {prom: '$1$abc$def'}\n", "not a bcrypt hash");
	bad("basic_auth_users: {prom: }\n", "expected a value");
	bad("basic_auth_users: {'a:b': " HASH "}\n", "has no ':'");
	bad("basic_auth_users: {a: " HASH ", a: " HASH "}\n", "user 'a' given twice");
	bad("basic_auth_users: {[x]: " HASH "}\n", "keys are names");
	bad("tls_server_config: {cert_file: \"a\\0b\", key_file: k}\n", "a NUL in the value");
	/* Line breaks in a name stay out of the one line said (the fuzzer's find). */
	bad("{\"a\\nb\\r\": 1}\n", "unknown or unsupported key 'a?b?'");
}

static void test_hash(void **unused)
{
	assert_true(webconfig_hash_valid(HASH));
	assert_true(webconfig_hash_valid("$2b$31$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC"));
	assert_false(webconfig_hash_valid("$2x$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC"));
	assert_false(webconfig_hash_valid("$2y$03$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC"));
	assert_false(webconfig_hash_valid("$2y$32$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC"));
	assert_false(webconfig_hash_valid("$2y$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tO"));
	assert_false(webconfig_hash_valid("$2y$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5t!C"));
	assert_false(webconfig_hash_valid(""));
}

/* write_file - dir/name with text */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_load(void **unused)
{
	char dir[] = "/tmp/test_webconfig.XXXXXX", path[512];
	struct webconfig *wc = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	/* Missing: the file named, with the system's word. */
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "web.yml: No such file or directory"));
	/* Relative paths from the file's folder; PEM files read. */
	write_file(dir, "web.yml", "tls_server_config: {cert_file: s.crt, key_file: s.key}\n");
	write_file(dir, "s.crt", "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n");
	write_file(dir, "s.key", "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), 0);
	assert_non_null(strstr(wc->cert, "BEGIN CERTIFICATE"));
	assert_non_null(strstr(wc->key, "BEGIN PRIVATE KEY"));
	webconfig_free(wc);
	/* A key that is not one. */
	write_file(dir, "s.key", "not a key\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "key_file"));
	assert_non_null(strstr(why, "no PEM PRIVATE KEY"));
	write_file(dir, "s.key", "-----BEGIN CERTIFICATE REQUEST-----\nM\n-----END CERTIFICATE REQUEST-----\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -EINVAL);
	write_file(dir, "s.key", "-----BEGIN EC PRIVATE KEY-----\nMII\n-----END EC PRIVATE KEY-----\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), 0);
	webconfig_free(wc);
	write_file(dir, "s.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nM\n-----END ENCRYPTED PRIVATE KEY-----\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "an encrypted key"));
	/* A missing certificate, named. */
	snprintf(path, sizeof(path), "%s/s.crt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "s.crt: No such file or directory"));
	/* A parse error: the file, then the line. */
	write_file(dir, "web.yml", "\nfoo: 1\n");
	assert_int_equal(webconfig_load(&wc, path, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "web.yml: line 2: unknown or unsupported key 'foo'"));
	/* A folder is not a configuration. */
	assert_int_equal(webconfig_load(&wc, dir, why, sizeof(why)), -EINVAL);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
