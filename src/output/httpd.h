/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HTTPD_H
#define IOTAP_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * A small HTTP server for Prometheus scrapes, on libmicrohttpd in a thread of
 * its own. It serves the last page published, never anything the tracing
 * thread is still changing: httpd_publish copies the page under a mutex that
 * a request holds only while it copies the page out, so a slow or hostile
 * client never holds up tracing. With httpd_demand, a request asks the
 * publisher for a page and waits for it, a bounded time. Only GET and HEAD
 * of /metrics (the page) and / (a link to it) are answered; other paths get
 * 404, other methods 405.
 *
 * No client can keep a scrape from being answered, wherever it connects
 * from: the server holds up to httpd_capacity connections (HTTPD_MAX_CONNECTIONS,
 * fewer where the fd limit cannot be raised for them), and a newcomer past
 * that evicts the connection that has gone longest without a whole request
 * head (the oldest exchange, when every one has its head), so a scraper that
 * sends its head at once is never the one closed. No quota per address: a
 * scraper shares its address with others (NAT, a node IP, a sidecar), and
 * refusing newcomers would let any of them shut it out. A connection that
 * has not sent a whole request head within HTTPD_HEAD_SECONDS of opening (or
 * of its last answer, on a kept-alive connection), or has not finished an
 * exchange within HTTPD_TIMEOUT, is closed at that deadline (within
 * HTTPD_SWEEP_SLACK_MS), however it dribbles its bytes. The thread that closes
 * them sleeps until the next deadline: with no connection open, it does not
 * wake. libmicrohttpd's own timeout is an idle one only: a byte now and then
 * renews it.
 *
 * With a web configuration (webconfig.h): TLS, client certificates checked
 * against its CA, and basic auth (webauth.h): a request without a matching
 * user and password gets 401 with WWW-Authenticate, whatever its path.
 */
#define HTTPD_MAX_CONNECTIONS	1024	/* held at once; a newcomer past them evicts one */
#define HTTPD_EVICT_SLACK	64	/* evicted, not yet closed by libmicrohttpd: over this, refused */
#define HTTPD_FD_RESERVE	256	/* fds left to the rest of the process (rings, files) */
#define HTTPD_MAX_REQUEST	8192	/* bytes of request line and headers: larger gets 431 */
#define HTTPD_HEAD_SECONDS	3	/* to send a whole request head */
#define HTTPD_TIMEOUT		10	/* seconds an exchange may take, or a connection stay idle */
#define HTTPD_SWEEP_SLACK_MS	10	/* a late connection is closed this long after its deadline */
#define HTTPD_DEMAND_WAIT_MS	500	/* httpd_demand: a request waits this long for its page */
#define HTTPD_DEMAND_FRESH_MS	100	/* httpd_demand: a page this young is served as it is */

struct httpd;
struct webconfig;

/* What a request gets. */
enum httpd_route {
	HTTPD_PAGE,		/* the published page */
	HTTPD_INDEX,		/* a small HTML page linking to it */
	HTTPD_NOT_FOUND,	/* 404 */
	HTTPD_BAD_METHOD,	/* 405 */
};

/*
 * The answer to method and path (the URL without its query, as the server
 * passes it): pure, so it can be tested and fuzzed without a socket.
 * NULL for either is a request that cannot be answered (404).
 */
enum httpd_route httpd_route(const char *method, const char *path);

/*
 * Parse "ADDR:PORT" ("0.0.0.0:9999", "127.0.0.1:9999", "[::1]:9999", ":9999"
 * for every IPv4 and IPv6 address) into ss/len. 0 or -EINVAL.
 */
int httpd_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/*
 * Bind listen ("ADDR:PORT", as httpd_parse_listen) and serve the page at
 * /metrics from a thread of its own, with content_type, until
 * httpd_stop. The thread starts with SIGINT, SIGTERM and SIGHUP blocked, so
 * signals reach the caller. The page is empty until the first httpd_publish.
 * It raises the process's soft fd limit (RLIMIT_NOFILE) toward the hard one
 * when that is what HTTPD_MAX_CONNECTIONS need (as Go's runtime does for
 * node_exporter): under systemd's default of 1024, a flood of connections
 * would otherwise take the fds the scraper's connection needs.
 * web (NULL: plain HTTP, no users) must outlive the server. 0 or -errno
 * (-EINVAL: bad address; bind's errors: -EADDRINUSE, -EACCES...; -ENOTSUP:
 * a web configuration in a build without TLS; -EIO: the server could not
 * start, why says why when it can).
 */
int httpd_start(struct httpd **out, const char *listen, const char *content_type,
		const struct webconfig *web, char *why, size_t whylen);

/*
 * Whether this build serves a web configuration: false where libmicrohttpd is
 * linked without its TLS library (the static binary) or was built without it.
 */
bool httpd_web_supported(void);

/* Replace the page with a copy of len bytes of text. 0 or -ENOMEM (the old page stays). */
int httpd_publish(struct httpd *h, const char *text, size_t len);

/*
 * httpd_demand - from now on the page is built when asked for: a request for
 * it adds 1 to the eventfd fd (the caller's, open until httpd_stop) and waits,
 * at most HTTPD_DEMAND_WAIT_MS, for a page published after an
 * httpd_demand_take; then it is served whatever page is there. A page
 * published less than HTTPD_DEMAND_FRESH_MS ago is served at once, so that
 * no client makes the publisher build more than ten a second.
 */
void httpd_demand(struct httpd *h, int fd);

/*
 * httpd_demand_take - the page published next answers every request that
 * asked so far: call it (after reading fd) before building that page.
 * Return: whether any of them still waits; false: a page published since
 * answered them all, and there is nothing to build.
 */
bool httpd_demand_take(struct httpd *h);

/* Requests answered so far, by route (index: enum httpd_route). */
unsigned long long httpd_requests(struct httpd *h, enum httpd_route r);

/* Why the server closed a connection itself. */
enum httpd_close {
	HTTPD_CLOSED_LATE,	/* no whole request head, or exchange, in time */
	HTTPD_CLOSED_EVICTED,	/* to make room for a newer one: the server was full */
};

/* Connections the server closed so far for that reason. */
unsigned long long httpd_closed(struct httpd *h, enum httpd_close why);

/*
 * How many connections h holds before it evicts: HTTPD_MAX_CONNECTIONS, or
 * fewer where the hard fd limit (RLIMIT_NOFILE) is lower than they need.
 */
unsigned int httpd_capacity(struct httpd *h);

/* Stop the thread, close every connection and free h; h may be NULL. */
void httpd_stop(struct httpd *h);

#endif
