/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HTTPD_H
#define IOTAP_HTTPD_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * A small HTTP server for Prometheus scrapes, on libmicrohttpd in a thread of
 * its own. It serves the last page published, never anything the tracing
 * thread is still changing: httpd_publish copies the page under a mutex that
 * a request holds only while it copies the page out, so a slow or hostile
 * client never holds up tracing. Only GET and HEAD of /metrics (the page) and
 * / (a link to it) are answered; other paths get 404, other methods 405.
 * Connections, request headers and idle time are bounded (HTTPD_MAX_*).
 */
#define HTTPD_MAX_CONNECTIONS	32	/* at once; more are refused at accept */
#define HTTPD_MAX_REQUEST	8192	/* bytes of request line and headers: larger gets 431 */
#define HTTPD_TIMEOUT		10	/* seconds a connection may stay idle */

struct httpd;

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
 * 0 or -errno (-EINVAL: bad address; bind's errors: -EADDRINUSE, -EACCES...;
 * -EIO: the server could not start).
 */
int httpd_start(struct httpd **out, const char *listen, const char *content_type);

/* Replace the page with a copy of len bytes of text. 0 or -ENOMEM (the old page stays). */
int httpd_publish(struct httpd *h, const char *text, size_t len);

/* Requests answered so far, by route (index: enum httpd_route). */
unsigned long long httpd_requests(struct httpd *h, enum httpd_route r);

/* Stop the thread, close every connection and free h; h may be NULL. */
void httpd_stop(struct httpd *h);

#endif
