// SPDX-License-Identifier: GPL-2.0-or-later
/* webconfig.c - the exporter's web configuration: TLS files and basic auth users, from YAML */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "webconfig.h"

/* A configuration or PEM file larger than this is not one. */
#define WEBCONFIG_MAX_FILE	(1 << 20)

/*
 * webconfig_why - format one line into why; returns err. Names and values from the
 * file are in it, and a YAML scalar may hold line breaks: control bytes become '?'.
 */
static int __attribute__((format(printf, 4, 5)))
webconfig_why(int err, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	for (char *c = why; whylen && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return err;
}

/* webconfig_hash_valid - see webconfig.h */
bool webconfig_hash_valid(const char *hash)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' || !strchr("aby", hash[2]) ||
	    !hash[2] || hash[3] != '$' || hash[6] != '$' || hash[4] < '0' || hash[4] > '3' ||
	    hash[5] < '0' || hash[5] > '9')
		return false;
	cost = (hash[4] - '0') * 10 + hash[5] - '0';
	if (cost < 4 || cost > 31)
		return false;
	for (const char *p = hash + 7; *p; p++)
		if (!strchr(b64, *p))
			return false;
	return true;
}

/* webconfig_free - see webconfig.h */
void webconfig_free(struct webconfig *wc)
{
	if (!wc)
		return;
	for (size_t i = 0; i < wc->nr_users; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->client_ca_file);
	free(wc->cert);
	if (wc->key) {
		/* The private key does not outlive its use in freed memory. */
		explicit_bzero(wc->key, strlen(wc->key));
		free(wc->key);
	}
	free(wc->client_ca);
	free(wc);
}

/* The parse: the document, where it came from, and the line to say. */
struct wc_parse {
	yaml_document_t *doc;
	const char *dir;
	char *why;
	size_t whylen;
};

/* wc_line - the 1-based line of node n */
static unsigned long wc_line(const yaml_node_t *n)
{
	return (unsigned long)n->start_mark.line + 1;
}

/* wc_scalar - n's value when it is a non-empty scalar, else NULL and why names key */
static const char *wc_scalar(struct wc_parse *p, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE || !n->data.scalar.length) {
		webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s: expected a value", wc_line(n),
			      key);
		return NULL;
	}
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s: a NUL in the value",
			      wc_line(n), key);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

/* wc_path - a path value, resolved against the configuration file's directory */
static int wc_path(struct wc_parse *p, const yaml_node_t *n, const char *key, char **out)
{
	const char *v = wc_scalar(p, n, key);

	if (!v)
		return -EINVAL;
	if (*out)
		return webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s given twice",
				     wc_line(n), key);
	if (v[0] == '/' || !p->dir || !p->dir[0])
		*out = strdup(v);
	else if (asprintf(out, "%s/%s", p->dir, v) < 0)
		*out = NULL;
	return *out ? 0 : -ENOMEM;
}

/* wc_key - the key node of pair when it is a scalar, else NULL and why says so */
static const char *wc_key(struct wc_parse *p, const yaml_node_pair_t *pair, const char *in)
{
	yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);

	if (!k || k->type != YAML_SCALAR_NODE) {
		webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s: keys are names",
			      k ? wc_line(k) : 0, in);
		return NULL;
	}
	return (const char *)k->data.scalar.value;
}

/* wc_mapping - check that n is a mapping; why says what key holds otherwise */
static int wc_mapping(struct wc_parse *p, const yaml_node_t *n, const char *key)
{
	if (n->type == YAML_MAPPING_NODE)
		return 0;
	return webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s: expected a mapping of keys",
			     wc_line(n), key);
}

/* wc_client_auth - client_auth_type, by exporter-toolkit's (Go crypto/tls's) names */
static int wc_client_auth(struct wc_parse *p, const yaml_node_t *n, struct webconfig *wc)
{
	static const struct {
		const char *name;
		int auth;	/* -1: a type of Go's that this server cannot give */
	} types[] = {
		{ "NoClientCert", WEBCONFIG_NO_CLIENT_CERT },
		{ "VerifyClientCertIfGiven", WEBCONFIG_VERIFY_IF_GIVEN },
		{ "RequireAndVerifyClientCert", WEBCONFIG_REQUIRE_AND_VERIFY },
		{ "RequestClientCert", -1 },
		{ "RequireAnyClientCert", -1 },
	};
	const char *v = wc_scalar(p, n, "client_auth_type");

	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcmp(v, types[i].name))
			continue;
		if (types[i].auth < 0)
			return webconfig_why(-EINVAL, p->why, p->whylen,
					     "line %lu: client_auth_type %s is not supported: a client "
					     "certificate is verified or not asked for",
					     wc_line(n), v);
		wc->client_auth = (enum webconfig_client_auth)types[i].auth;
		return 0;
	}
	return webconfig_why(-EINVAL, p->why, p->whylen,
			     "line %lu: client_auth_type '%s': expected NoClientCert, "
			     "VerifyClientCertIfGiven or RequireAndVerifyClientCert",
			     wc_line(n), v);
}

/* wc_tls - tls_server_config */
static int wc_tls(struct wc_parse *p, const yaml_node_t *n, struct webconfig *wc)
{
	bool auth_given = false;
	int ret = wc_mapping(p, n, "tls_server_config");

	if (ret)
		return ret;
	for (yaml_node_pair_t *pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		const char *key = wc_key(p, pair, "tls_server_config");
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);

		if (!key || !v)
			return -EINVAL;
		if (!strcmp(key, "cert_file"))
			ret = wc_path(p, v, key, &wc->cert_file);
		else if (!strcmp(key, "key_file"))
			ret = wc_path(p, v, key, &wc->key_file);
		else if (!strcmp(key, "client_ca_file"))
			ret = wc_path(p, v, key, &wc->client_ca_file);
		else if (!strcmp(key, "client_auth_type")) {
			if (auth_given)
				return webconfig_why(-EINVAL, p->why, p->whylen,
						     "line %lu: client_auth_type given twice", wc_line(v));
			auth_given = true;
			ret = wc_client_auth(p, v, wc);
		} else
			return webconfig_why(-EINVAL, p->why, p->whylen,
					     "line %lu: tls_server_config: unknown or unsupported key "
					     "'%s' (known: cert_file, key_file, client_ca_file, "
					     "client_auth_type)", wc_line(v), key);
		if (ret)
			return ret;
	}
	if (!wc->cert_file || !wc->key_file)
		return webconfig_why(-EINVAL, p->why, p->whylen,
				     "line %lu: tls_server_config: missing %s", wc_line(n),
				     wc->cert_file ? "key_file" : "cert_file");
	if (wc->client_auth != WEBCONFIG_NO_CLIENT_CERT && !wc->client_ca_file)
		return webconfig_why(-EINVAL, p->why, p->whylen,
				     "line %lu: tls_server_config: client_auth_type verifies client "
				     "certificates: client_ca_file is needed", wc_line(n));
	if (wc->client_auth == WEBCONFIG_NO_CLIENT_CERT && wc->client_ca_file)
		return webconfig_why(-EINVAL, p->why, p->whylen,
				     "line %lu: tls_server_config: client_ca_file without a "
				     "client_auth_type that verifies (VerifyClientCertIfGiven or "
				     "RequireAndVerifyClientCert)", wc_line(n));
	wc->tls = true;
	return 0;
}

/* wc_users - basic_auth_users: name: bcrypt hash */
static int wc_users(struct wc_parse *p, const yaml_node_t *n, struct webconfig *wc)
{
	size_t nr;
	int ret = wc_mapping(p, n, "basic_auth_users");

	if (ret)
		return ret;
	nr = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (!nr)
		return 0;
	wc->users = calloc(nr, sizeof(*wc->users));
	if (!wc->users)
		return -ENOMEM;
	for (yaml_node_pair_t *pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		const char *name = wc_key(p, pair, "basic_auth_users");
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		const char *hash;

		if (!name || !v || !(hash = wc_scalar(p, v, "basic_auth_users")))
			return -EINVAL;
		if (!name[0] || strchr(name, ':'))
			return webconfig_why(-EINVAL, p->why, p->whylen,
					     "line %lu: basic_auth_users: user '%s': a name is not "
					     "empty and has no ':'", wc_line(v), name);
		for (size_t i = 0; i < wc->nr_users; i++)
			if (!strcmp(wc->users[i].name, name))
				return webconfig_why(-EINVAL, p->why, p->whylen,
						     "line %lu: basic_auth_users: user '%s' given "
						     "twice", wc_line(v), name);
		if (!webconfig_hash_valid(hash))
			return webconfig_why(-EINVAL, p->why, p->whylen,
					     "line %lu: basic_auth_users: user '%s': not a bcrypt hash "
					     "($2y$, $2b$ or $2a$, cost 04 to 31: htpasswd -nBC 10 %s "
					     "makes one)", wc_line(v), name, name);
		wc->users[wc->nr_users].name = strdup(name);
		wc->users[wc->nr_users].hash = strdup(hash);
		if (!wc->users[wc->nr_users].name || !wc->users[wc->nr_users].hash) {
			free(wc->users[wc->nr_users].name);
			return -ENOMEM;
		}
		wc->nr_users++;
	}
	return 0;
}

/* wc_root - the top mapping: only the two keys iotap honours */
static int wc_root(struct wc_parse *p, const yaml_node_t *root, struct webconfig *wc)
{
	bool tls = false, users = false;
	int ret = wc_mapping(p, root, "the file");

	if (ret)
		return ret;
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		const char *key = wc_key(p, pair, "the file");
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		bool *seen;

		if (!key || !v)
			return -EINVAL;
		if (!strcmp(key, "tls_server_config"))
			seen = &tls;
		else if (!strcmp(key, "basic_auth_users"))
			seen = &users;
		else
			return webconfig_why(-EINVAL, p->why, p->whylen,
					     "line %lu: unknown or unsupported key '%s' (known: "
					     "tls_server_config, basic_auth_users)", wc_line(v), key);
		if (*seen)
			return webconfig_why(-EINVAL, p->why, p->whylen, "line %lu: %s given twice",
					     wc_line(v), key);
		*seen = true;
		ret = seen == &tls ? wc_tls(p, v, wc) : wc_users(p, v, wc);
		if (ret)
			return ret;
	}
	return 0;
}

/* webconfig_parse - see webconfig.h */
int webconfig_parse(struct webconfig **out, const char *text, size_t len, const char *dir,
		    char *why, size_t whylen)
{
	struct wc_parse p = { .dir = dir, .why = why, .whylen = whylen };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct webconfig *wc;
	int ret;

	if (!(wc = calloc(1, sizeof(*wc))))
		return -ENOMEM;
	if (!yaml_parser_initialize(&parser)) {
		ret = -ENOMEM;
		goto free_wc;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM :
		      webconfig_why(-EINVAL, why, whylen, "line %lu: not YAML: %s",
				    (unsigned long)parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "cannot parse");
		goto delete_parser;
	}
	p.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	ret = root ? wc_root(&p, root, wc) : 0;
	yaml_document_delete(&doc);
delete_parser:
	yaml_parser_delete(&parser);
	if (!ret) {
		*out = wc;
		return 0;
	}
	if (ret == -ENOMEM)
		webconfig_why(ret, why, whylen, "out of memory");
free_wc:
	webconfig_free(wc);
	return ret;
}

/* webconfig_read - the whole of a file of at most WEBCONFIG_MAX_FILE bytes, NUL-terminated */
static int webconfig_read(const char *path, char **out, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return webconfig_why(-errno, why, whylen, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = webconfig_why(-errno, why, whylen, "%s: %s", path, strerror(errno));
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > WEBCONFIG_MAX_FILE) {
		ret = webconfig_why(-EINVAL, why, whylen, "%s: not a regular file of at most 1 MiB",
				    path);
		goto close_fd;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = webconfig_why(-ENOMEM, why, whylen, "out of memory");
		goto close_fd;
	}
	while (n < (size_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = webconfig_why(-errno, why, whylen, "%s: %s", path, strerror(errno));
			free(buf);
			goto close_fd;
		}
		n += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	ret = 0;
close_fd:
	close(fd);
	return ret;
}

/* webconfig_pem - read a PEM file with a block of one of kinds ("CERTIFICATE", ...) in it */
static int webconfig_pem(const char *path, const char *key, const char *const *kinds, char **out,
			 char *why, size_t whylen)
{
	char *text, begin[64];
	bool found = false;
	size_t len;
	int ret = webconfig_read(path, &text, &len, why, whylen);

	if (ret)
		return ret;
	for (const char *const *k = kinds; *k && !found && strlen(text) == len; k++) {
		snprintf(begin, sizeof(begin), "-----BEGIN %s-----", *k);
		found = strstr(text, begin) != NULL;
	}
	if (strstr(text, "-----BEGIN ENCRYPTED PRIVATE KEY-----") || strstr(text, "Proc-Type: 4,ENCRYPTED")) {
		ret = webconfig_why(-EINVAL, why, whylen,
				    "%s %s: an encrypted key (no passphrase can be given)", key, path);
	} else if (!found) {
		ret = webconfig_why(-EINVAL, why, whylen, "%s %s: no PEM %s in it", key, path, kinds[0]);
	} else {
		*out = text;
		return 0;
	}
	explicit_bzero(text, len);
	free(text);
	return ret;
}

/* webconfig_load - see webconfig.h */
int webconfig_load(struct webconfig **out, const char *path, char *why, size_t whylen)
{
	static const char *const certs[] = { "CERTIFICATE", NULL };
	static const char *const keys[] = { "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", NULL };
	struct webconfig *wc;
	char *text, *dir, *slash;
	size_t len;
	int ret;

	ret = webconfig_read(path, &text, &len, why, whylen);
	if (ret)
		return ret;
	if (!(dir = strdup(path))) {
		free(text);
		return webconfig_why(-ENOMEM, why, whylen, "out of memory");
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0;	/* "/x.yml": "/" */
	else
		dir[0] = 0;
	ret = webconfig_parse(&wc, text, len, dir, why, whylen);
	free(dir);
	free(text);
	if (ret) {
		char *line = strdup(why);

		/* The file's name before what is wrong in it. */
		if (line)
			webconfig_why(ret, why, whylen, "%s: %s", path, line);
		free(line);
		return ret;
	}
	if (wc->tls)
		ret = webconfig_pem(wc->cert_file, "cert_file", certs, &wc->cert, why, whylen);
	if (!ret && wc->tls)
		ret = webconfig_pem(wc->key_file, "key_file", keys, &wc->key, why, whylen);
	if (!ret && wc->client_ca_file)
		ret = webconfig_pem(wc->client_ca_file, "client_ca_file", certs, &wc->client_ca, why,
				    whylen);
	if (ret) {
		webconfig_free(wc);
		return ret;
	}
	*out = wc;
	return 0;
}
