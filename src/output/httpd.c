// SPDX-License-Identifier: GPL-2.0-or-later
/* httpd.c - the scrape endpoint: a published page served by libmicrohttpd */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "httpd.h"
#include "webauth.h"
#include "webconfig.h"

/* A connection, from libmicrohttpd's notice that it opened to the one that it closed. */
struct httpd_conn {
	struct httpd_conn *prev, *next;
	int fd;
	uint64_t since;			/* opened, or last answered: the deadlines count from here */
	bool head;			/* a whole request head came since then */
	bool closed;			/* shut down by the sweep or evicted */
};

struct httpd {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;		/* page and len */
	char *page;
	size_t len;
	char *content_type;
	unsigned long long requests[HTTPD_BAD_METHOD + 1];	/* under lock */
	/* httpd_demand, under lock: requests asked, taken by the publisher, answered by a page. */
	int demand_fd;			/* -1: pages are published as the publisher likes */
	pthread_cond_t published;
	uint64_t asked, taken, answered;
	uint64_t published_at;		/* httpd_now of the last page */
	bool closing;			/* httpd_stop: nobody waits for a page any more */
	/* The sweep: its thread, and the connections it watches (under conns_lock). */
	pthread_mutex_t conns_lock;
	pthread_cond_t wake;
	uint64_t sweep_at;		/* when the sweep wakes next (httpd_now); UINT64_MAX: at a signal */
	pthread_t sweeper;
	bool sweeping, stopping;
	struct httpd_conn *conns;
	unsigned int capacity;		/* conns not closed, at most: past it, one is evicted */
	unsigned int live;		/* conns not closed */
	unsigned long long closed[HTTPD_CLOSED_EVICTED + 1];	/* by enum httpd_close */
	/* With a web configuration. */
	const struct webconfig *web;
	struct webauth *auth;		/* only ever used from the server's thread */
	char *why;			/* libmicrohttpd's first complaint while it starts */
	size_t whylen;
};

/* httpd_now - CLOCK_MONOTONIC in ns */
static uint64_t httpd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static const char httpd_index[] =
	"<html><head><title>iotap exporter</title></head><body>"
	"<h1>iotap exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

/* httpd_route - see httpd.h */
enum httpd_route httpd_route(const char *method, const char *path)
{
	bool page, index;

	if (!method || !path)
		return HTTPD_NOT_FOUND;
	page = !strcmp(path, "/metrics");
	index = !strcmp(path, "/");
	if (!page && !index)
		return HTTPD_NOT_FOUND;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return HTTPD_BAD_METHOD;
	return page ? HTTPD_PAGE : HTTPD_INDEX;
}

/* httpd_parse_port - a decimal port 1..65535 that ends the string */
static int httpd_parse_port(const char *s, in_port_t *port)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 65535)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*port = htons((in_port_t)v);
	return 0;
}

/* httpd_parse_listen - see httpd.h */
int httpd_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	const char *colon;
	char addr[INET6_ADDRSTRLEN];
	in_port_t port;
	size_t n;

	if (!s)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':' || (n = (size_t)(end - s - 1)) >= sizeof(addr) || !n)
			return -EINVAL;
		memcpy(addr, s + 1, n);
		addr[n] = 0;
		if (httpd_parse_port(end + 2, &port) || inet_pton(AF_INET6, addr, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = port;
		*len = sizeof(*in6);
		return 0;
	}
	colon = strrchr(s, ':');
	if (!colon || (n = (size_t)(colon - s)) >= sizeof(addr) || httpd_parse_port(colon + 1, &port))
		return -EINVAL;
	if (!n) {
		/* Every address: IPv6's wildcard takes IPv4 too (IPV6_V6ONLY off). */
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_any;
		in6->sin6_port = port;
		*len = sizeof(*in6);
		return 0;
	}
	memcpy(addr, s, n);
	addr[n] = 0;
	if (inet_pton(AF_INET, addr, &in4->sin_addr) != 1)
		return -EINVAL;
	in4->sin_family = AF_INET;
	in4->sin_port = port;
	*len = sizeof(*in4);
	return 0;
}

/* httpd_cond_init - a condition variable whose timed waits count on CLOCK_MONOTONIC */
static int httpd_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	int ret = pthread_condattr_init(&attr);

	if (!ret)
		ret = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!ret)
		ret = pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
	return -ret;
}

/*
 * httpd_bind - a listening socket on ss; the fd or -errno. Its backlog is the
 * system's most: connections over the limits are accepted and closed at once, and
 * a full backlog would drop a scraper's SYN for a second (TCP's first retry).
 */
static int httpd_bind(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, zero = 0;
	int err;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(fd, (const struct sockaddr *)ss, len) || listen(fd, SOMAXCONN))
		goto close_fd;
	return fd;
close_fd:
	err = errno;
	close(fd);
	return -err;
}

/*
 * httpd_fd_capacity - the connections this process can hold: HTTPD_MAX_CONNECTIONS,
 * raising the soft fd limit toward the hard one for them, or what the hard
 * one leaves beside HTTPD_EVICT_SLACK and HTTPD_FD_RESERVE (8 at the least)
 */
static unsigned int httpd_fd_capacity(void)
{
	const rlim_t need = HTTPD_MAX_CONNECTIONS + HTTPD_EVICT_SLACK + HTTPD_FD_RESERVE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return HTTPD_MAX_CONNECTIONS;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		struct rlimit want = { rl.rlim_max < need ? rl.rlim_max : need, rl.rlim_max };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			rl.rlim_cur = want.rlim_cur;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return HTTPD_MAX_CONNECTIONS;
	if (rl.rlim_cur < HTTPD_EVICT_SLACK + HTTPD_FD_RESERVE + 8)
		return 8;
	return (unsigned int)(rl.rlim_cur - HTTPD_EVICT_SLACK - HTTPD_FD_RESERVE);
}

/* httpd_queue - answer one request with status and a copy of body */
static enum MHD_Result httpd_queue(struct MHD_Connection *c, unsigned int status, const char *body,
				   size_t len, const char *type, bool allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) == MHD_NO ||
	    (allow && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") == MHD_NO))
		ret = MHD_NO;
	else
		ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* httpd_conn_of - the connection's entry, or NULL (none could be allocated) */
static struct httpd_conn *httpd_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* httpd_head_came - a whole request head: only the exchange's deadline is left */
static void httpd_head_came(struct httpd *h, struct MHD_Connection *c)
{
	struct httpd_conn *conn = httpd_conn_of(c);

	if (!conn)
		return;
	pthread_mutex_lock(&h->conns_lock);
	conn->head = true;
	pthread_mutex_unlock(&h->conns_lock);
}

/* httpd_deadline - when conn is late: no whole head, or no exchange done, in time */
static uint64_t httpd_deadline(const struct httpd_conn *conn)
{
	return conn->since + (uint64_t)(conn->head ? HTTPD_TIMEOUT : HTTPD_HEAD_SECONDS) * 1000000000;
}

/* httpd_sweep_by - conn's deadline, new or sooner, comes before the sweep wakes: wake it (conns_lock held) */
static void httpd_sweep_by(struct httpd *h, const struct httpd_conn *conn)
{
	if (httpd_deadline(conn) < h->sweep_at) {
		h->sweep_at = 0;	/* it will say when it wakes next */
		pthread_cond_signal(&h->wake);
	}
}

/* httpd_on_completed - an answer sent: a kept-alive connection starts over for the next head */
static void httpd_on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			       enum MHD_RequestTerminationCode toe)
{
	struct httpd *h = cls;
	struct httpd_conn *conn = httpd_conn_of(c);

	if (!conn)
		return;
	pthread_mutex_lock(&h->conns_lock);
	conn->since = httpd_now();
	conn->head = false;
	httpd_sweep_by(h, conn);
	pthread_mutex_unlock(&h->conns_lock);
}

/*
 * httpd_close - shut conn down (conns_lock held): libmicrohttpd sees the end
 * of the stream and closes the connection, and says so to httpd_on_connection
 */
static void httpd_close(struct httpd *h, struct httpd_conn *conn)
{
	shutdown(conn->fd, SHUT_RDWR);
	conn->closed = true;
	h->live--;
}

/*
 * httpd_evict - the server is full: close the connection that has gone
 * longest without a whole request head, or the oldest exchange when every
 * one has its head (conns_lock held). A scraper sends its head as soon as it
 * is connected (or through TLS), so it would take a whole capacity of newer
 * connections in that time to make it the one evicted.
 */
static void httpd_evict(struct httpd *h)
{
	struct httpd_conn *victim = NULL;

	for (struct httpd_conn *conn = h->conns; conn; conn = conn->next) {
		if (conn->closed)
			continue;
		if (!victim || (victim->head && !conn->head) ||
		    (victim->head == conn->head && conn->since < victim->since))
			victim = conn;
	}
	if (!victim)
		return;
	httpd_close(h, victim);
	h->closed[HTTPD_CLOSED_EVICTED]++;
}

/*
 * httpd_on_connection - libmicrohttpd's notice of a connection opened or closed: the
 * sweep's list. It shuts a socket down only while it is listed, and libmicrohttpd
 * closes the socket only after saying it closed, so no fd is shut down once reused.
 */
static void httpd_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
				enum MHD_ConnectionNotificationCode toe)
{
	struct httpd *h = cls;
	struct httpd_conn *conn = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		conn = calloc(1, sizeof(*conn));
		/* Out of memory: the connection goes unwatched, under the idle timeout only. */
		if (!conn || !ci) {
			free(conn);
			return;
		}
		conn->fd = ci->connect_fd;
		conn->since = httpd_now();
		pthread_mutex_lock(&h->conns_lock);
		if (h->live >= h->capacity)
			httpd_evict(h);
		conn->next = h->conns;
		if (h->conns)
			h->conns->prev = conn;
		h->conns = conn;
		h->live++;
		httpd_sweep_by(h, conn);
		pthread_mutex_unlock(&h->conns_lock);
		*socket_context = conn;
		return;
	}
	if (!conn)
		return;
	pthread_mutex_lock(&h->conns_lock);
	if (!conn->closed)
		h->live--;
	if (conn->prev)
		conn->prev->next = conn->next;
	else
		h->conns = conn->next;
	if (conn->next)
		conn->next->prev = conn->prev;
	pthread_mutex_unlock(&h->conns_lock);
	free(conn);
	*socket_context = NULL;
}

/*
 * httpd_sweep - shut down connections past their deadline, waking at the
 * next one, or when a connection opens or is answered (its next deadline may
 * come sooner); with none open, only then: an idle server costs no wake-ups
 */
static void *httpd_sweep(void *arg)
{
	struct httpd *h = arg;
	struct timespec ts;

	pthread_mutex_lock(&h->conns_lock);
	while (!h->stopping) {
		uint64_t now = httpd_now(), next = UINT64_MAX;

		for (struct httpd_conn *conn = h->conns; conn; conn = conn->next) {
			uint64_t due = httpd_deadline(conn);

			if (conn->closed)
				continue;
			if (now < due) {
				next = due < next ? due : next;
				continue;
			}
			httpd_close(h, conn);
			h->closed[HTTPD_CLOSED_LATE]++;
		}
		if (next == UINT64_MAX) {
			h->sweep_at = UINT64_MAX;
			pthread_cond_wait(&h->wake, &h->conns_lock);
			continue;
		}
		/* The clock of the condition variable's (httpd_cond_init), and of httpd_now. */
		h->sweep_at = next + HTTPD_SWEEP_SLACK_MS * 1000000ull;
		ts.tv_sec = (time_t)(h->sweep_at / 1000000000);
		ts.tv_nsec = (long)(h->sweep_at % 1000000000);
		pthread_cond_timedwait(&h->wake, &h->conns_lock, &ts);
	}
	pthread_mutex_unlock(&h->conns_lock);
	return NULL;
}

/* httpd_cert_ok - whether the client's certificate is as client_auth_type asks */
static bool httpd_cert_ok(struct httpd *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	unsigned int status;
	int ret;

	if (h->web->client_auth == WEBCONFIG_NO_CLIENT_CERT)
		return true;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	ret = gnutls_certificate_verify_peers2((gnutls_session_t)ci->tls_session, &status);
	if (ret == GNUTLS_E_NO_CERTIFICATE_FOUND)
		return h->web->client_auth == WEBCONFIG_VERIFY_IF_GIVEN;
	return ret == GNUTLS_E_SUCCESS && !status;
}

/*
 * httpd_allowed - whether the client may have an answer; when not, *ret is the
 * refusal queued: 403 (client certificate), 401 with WWW-Authenticate (user and
 * password), 429 (too many password checks this second)
 */
static bool httpd_allowed(struct httpd *h, struct MHD_Connection *c, enum MHD_Result *ret)
{
	static const char no_cert[] = "403 a client certificate signed by the configured CA is needed\n";
	static const char denied[] = "401 unauthorized\n";
	static const char busy[] = "429 too many password checks: retry in a second\n";
	struct MHD_Response *r;
	enum webauth_result ok;
	char *user, *pass = NULL;

	if (!httpd_cert_ok(h, c)) {
		*ret = httpd_queue(c, MHD_HTTP_FORBIDDEN, no_cert, sizeof(no_cert) - 1,
				   "text/plain; charset=utf-8", false);
		return false;
	}
	if (!h->auth)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = webauth_check(h->auth, user, pass, httpd_now());
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	if (ok == WEBAUTH_OK)
		return true;
	if (ok == WEBAUTH_BUSY) {
		r = MHD_create_response_from_buffer(sizeof(busy) - 1, (void *)busy,
						    MHD_RESPMEM_PERSISTENT);
		if (!r || MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1") == MHD_NO)
			*ret = MHD_NO;
		else
			*ret = MHD_queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
		MHD_destroy_response(r);
		return false;
	}
	r = MHD_create_response_from_buffer(sizeof(denied) - 1, (void *)denied,
					    MHD_RESPMEM_PERSISTENT);
	*ret = r ? MHD_queue_basic_auth_fail_response(c, "iotap exporter", r) : MHD_NO;
	MHD_destroy_response(r);
	return false;
}

/*
 * httpd_demand_wait - with h->lock held: unless the page is fresh, ask the
 * publisher for one and wait until it answers, HTTPD_DEMAND_WAIT_MS at most
 */
static void httpd_demand_wait(struct httpd *h)
{
	uint64_t now = httpd_now(), until = now + HTTPD_DEMAND_WAIT_MS * 1000000ull, me, one = 1;
	struct timespec ts = { (time_t)(until / 1000000000), (long)(until % 1000000000) };

	if (h->published_at && now - h->published_at < HTTPD_DEMAND_FRESH_MS * 1000000ull)
		return;
	me = ++h->asked;
	/* An eventfd: never blocks before 2^64 - 2 requests unread. */
	if (write(h->demand_fd, &one, sizeof(one)) != sizeof(one))
		return;
	while (h->answered < me && !h->closing)
		if (pthread_cond_timedwait(&h->published, &h->lock, &ts) == ETIMEDOUT)
			break;
}

/* httpd_on_request - libmicrohttpd's access handler: answer at once, never read a body */
static enum MHD_Result httpd_on_request(void *cls, struct MHD_Connection *c, const char *url,
					const char *method, const char *version,
					const char *upload_data, size_t *upload_data_size,
					void **req_cls)
{
	static const char not_found[] = "404 page not found\n";
	static const char bad_method[] = "405 method not allowed: GET or HEAD\n";
	struct httpd *h = cls;
	enum httpd_route r = httpd_route(method, url);
	enum MHD_Result ret;

	httpd_head_came(h, c);
	if (h->web && !httpd_allowed(h, c, &ret))
		return ret;
	pthread_mutex_lock(&h->lock);
	h->requests[r]++;
	if (r == HTTPD_PAGE && h->demand_fd >= 0)
		httpd_demand_wait(h);
	if (r == HTTPD_PAGE) {
		/* Copied while locked: the publisher may free the page right after. */
		ret = httpd_queue(c, MHD_HTTP_OK, h->page ? h->page : "", h->len, h->content_type,
				  false);
		pthread_mutex_unlock(&h->lock);
		return ret;
	}
	pthread_mutex_unlock(&h->lock);
	if (r == HTTPD_INDEX)
		return httpd_queue(c, MHD_HTTP_OK, httpd_index, sizeof(httpd_index) - 1,
				   "text/html; charset=utf-8", false);
	if (r == HTTPD_BAD_METHOD)
		return httpd_queue(c, MHD_HTTP_METHOD_NOT_ALLOWED, bad_method, sizeof(bad_method) - 1,
				   "text/plain; charset=utf-8", true);
	return httpd_queue(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1,
			   "text/plain; charset=utf-8", false);
}

/* httpd_log - libmicrohttpd's messages: the first while it starts says why it did not */
static void __attribute__((format(printf, 2, 0)))
httpd_log(void *cls, const char *fmt, va_list ap)
{
	struct httpd *h = cls;
	char *nl;

	if (!h->why || h->why[0])
		return;
	vsnprintf(h->why, h->whylen, fmt, ap);
	nl = strchr(h->why, '\n');
	if (nl)
		*nl = 0;
}

/* httpd_options - the server's options, TLS ones with a web configuration; how many */
static size_t httpd_options(struct httpd *h, int fd, struct MHD_OptionItem *o)
{
	const struct webconfig *web = h->web;
	size_t n = 0;

#define OPT(opt, v, p) (o[n++] = (struct MHD_OptionItem){ (opt), (intptr_t)(v), (p) })
	/* libmicrohttpd takes its logger only as the first option. */
	OPT(MHD_OPTION_EXTERNAL_LOGGER, httpd_log, h);
	OPT(MHD_OPTION_LISTEN_SOCKET, fd, NULL);
	/* Evicted connections close a moment later: room for them, not a quota. */
	OPT(MHD_OPTION_CONNECTION_LIMIT, h->capacity + HTTPD_EVICT_SLACK, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTPD_MAX_REQUEST, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_TIMEOUT, NULL);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, httpd_on_connection, h);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, httpd_on_completed, h);
	if (web && web->tls) {
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, web->key);
		if (web->client_ca)
			OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, web->client_ca);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	return n;
}

/* httpd_web_supported - see httpd.h */
bool httpd_web_supported(void)
{
#ifdef IOTAP_HTTPD_NOTLS
	return false;
#else
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
#endif
}

/* httpd_start - see httpd.h */
int httpd_start(struct httpd **out, const char *listen, const char *content_type,
		const struct webconfig *web, char *why, size_t whylen)
{
	struct MHD_OptionItem opts[16];
	unsigned int flags = MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	sigset_t block, old;
	socklen_t len;
	struct httpd *h;
	int fd, ret;

	if (why && whylen)
		why[0] = 0;
	ret = httpd_parse_listen(listen, &ss, &len);
	if (ret)
		return ret;
	if (web && !httpd_web_supported())
		return -ENOTSUP;
	/*
	 * epoll, but poll under TLS: libmicrohttpd 0.9.75's epoll loop spins on a
	 * connection whose TLS handshake waits for the rest of a record (one client
	 * sending half a ClientHello took a whole CPU until its head deadline),
	 * where poll sleeps. poll costs O(connections) a wake-up; epoll O(1).
	 */
	if (web && web->tls)
		flags |= MHD_USE_TLS | MHD_USE_POLL_INTERNAL_THREAD;
	else
		flags |= MHD_USE_AUTO_INTERNAL_THREAD;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->web = web;
	h->why = why;
	h->whylen = whylen;
	h->demand_fd = -1;
	h->capacity = httpd_fd_capacity();
	if (!(h->content_type = strdup(content_type))) {
		ret = -ENOMEM;
		goto free_h;
	}
	if (web && web->nr_users && !(h->auth = webauth_alloc(web))) {
		ret = -errno;
		goto free_type;
	}
	ret = pthread_mutex_init(&h->lock, NULL);
	if (ret) {
		ret = -ret;
		goto free_auth;
	}
	ret = pthread_mutex_init(&h->conns_lock, NULL);
	if (ret) {
		ret = -ret;
		goto destroy_lock;
	}
	ret = httpd_cond_init(&h->wake);
	if (ret)
		goto destroy_conns_lock;
	ret = httpd_cond_init(&h->published);
	if (ret)
		goto destroy_wake;
	fd = httpd_bind(&ss, len);
	if (fd < 0) {
		ret = fd;
		goto destroy_published;
	}
	/* The server's threads inherit this mask: signals go to the tracing thread. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	httpd_options(h, fd, opts);
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, httpd_on_request, h,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	ret = h->d ? -pthread_create(&h->sweeper, NULL, httpd_sweep, h) : -EIO;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* From here on, libmicrohttpd's messages go nowhere: the caller's buffer is its own. */
	h->why = NULL;
	if (ret) {
		if (h->d)
			MHD_stop_daemon(h->d);
		else
			close(fd);
		goto destroy_published;
	}
	h->sweeping = true;
	*out = h;
	return 0;
destroy_published:
	pthread_cond_destroy(&h->published);
destroy_wake:
	pthread_cond_destroy(&h->wake);
destroy_conns_lock:
	pthread_mutex_destroy(&h->conns_lock);
destroy_lock:
	pthread_mutex_destroy(&h->lock);
free_auth:
	webauth_free(h->auth);
free_type:
	free(h->content_type);
free_h:
	free(h);
	return ret;
}

/* httpd_publish - see httpd.h */
int httpd_publish(struct httpd *h, const char *text, size_t len)
{
	char *page = malloc(len ? len : 1), *old;

	if (!page)
		return -ENOMEM;
	memcpy(page, text, len);
	pthread_mutex_lock(&h->lock);
	old = h->page;
	h->page = page;
	h->len = len;
	h->published_at = httpd_now();
	h->answered = h->taken;
	pthread_cond_broadcast(&h->published);
	pthread_mutex_unlock(&h->lock);
	free(old);
	return 0;
}

/* httpd_demand - see httpd.h */
void httpd_demand(struct httpd *h, int fd)
{
	pthread_mutex_lock(&h->lock);
	h->demand_fd = fd;
	pthread_mutex_unlock(&h->lock);
}

/* httpd_demand_take - see httpd.h */
bool httpd_demand_take(struct httpd *h)
{
	bool waits;

	pthread_mutex_lock(&h->lock);
	h->taken = h->asked;
	waits = h->taken > h->answered;
	pthread_mutex_unlock(&h->lock);
	return waits;
}

/* httpd_requests - see httpd.h */
unsigned long long httpd_requests(struct httpd *h, enum httpd_route r)
{
	unsigned long long n;

	pthread_mutex_lock(&h->lock);
	n = h->requests[r];
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* httpd_closed - see httpd.h */
unsigned long long httpd_closed(struct httpd *h, enum httpd_close why)
{
	unsigned long long n;

	pthread_mutex_lock(&h->conns_lock);
	n = h->closed[why];
	pthread_mutex_unlock(&h->conns_lock);
	return n;
}

/* httpd_capacity - see httpd.h */
unsigned int httpd_capacity(struct httpd *h)
{
	return h->capacity;
}

/* httpd_stop - see httpd.h */
void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	/* The sweep first: it must not shut down a socket the server is closing. */
	pthread_mutex_lock(&h->conns_lock);
	h->stopping = true;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->conns_lock);
	if (h->sweeping)
		pthread_join(h->sweeper, NULL);
	/* A request waiting for a page is answered now, with the last one. */
	pthread_mutex_lock(&h->lock);
	h->closing = true;
	pthread_cond_broadcast(&h->published);
	pthread_mutex_unlock(&h->lock);
	/* Joins the server's thread and closes the listening socket and every connection. */
	MHD_stop_daemon(h->d);
	webauth_free(h->auth);
	pthread_cond_destroy(&h->published);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->conns_lock);
	pthread_mutex_destroy(&h->lock);
	free(h->page);
	free(h->content_type);
	free(h);
}
