// SPDX-License-Identifier: GPL-2.0-or-later
/* httpd.c - the scrape endpoint: a published page served by libmicrohttpd */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "httpd.h"

struct httpd {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;		/* page and len */
	char *page;
	size_t len;
	char *content_type;
	unsigned long long requests[HTTPD_BAD_METHOD + 1];	/* under lock */
};

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

/* httpd_bind - a listening socket on ss; the fd or -errno */
static int httpd_bind(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, zero = 0;
	int err;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(fd, (const struct sockaddr *)ss, len) || listen(fd, HTTPD_MAX_CONNECTIONS))
		goto close_fd;
	return fd;
close_fd:
	err = errno;
	close(fd);
	return -err;
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

	pthread_mutex_lock(&h->lock);
	h->requests[r]++;
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

/* httpd_start - see httpd.h */
int httpd_start(struct httpd **out, const char *listen, const char *content_type)
{
	struct sockaddr_storage ss;
	sigset_t block, old;
	socklen_t len;
	struct httpd *h;
	int fd, ret;

	ret = httpd_parse_listen(listen, &ss, &len);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (!(h->content_type = strdup(content_type))) {
		ret = -ENOMEM;
		goto free_h;
	}
	ret = pthread_mutex_init(&h->lock, NULL);
	if (ret) {
		ret = -ret;
		goto free_type;
	}
	fd = httpd_bind(&ss, len);
	if (fd < 0) {
		ret = fd;
		goto destroy_lock;
	}
	/* The server's thread inherits this mask: signals go to the tracing thread. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, httpd_on_request, h,
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTPD_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTPD_MAX_REQUEST,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTPD_TIMEOUT,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		ret = -EIO;
		close(fd);
		goto destroy_lock;
	}
	*out = h;
	return 0;
destroy_lock:
	pthread_mutex_destroy(&h->lock);
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
	pthread_mutex_unlock(&h->lock);
	free(old);
	return 0;
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

/* httpd_stop - see httpd.h */
void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	/* Joins the server's thread and closes the listening socket and every connection. */
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h->page);
	free(h->content_type);
	free(h);
}
