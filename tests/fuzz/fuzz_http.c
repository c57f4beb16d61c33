// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_http.c - libFuzzer harness for what the exporter does with a request.
 * libmicrohttpd parses HTTP; the routing, --listen parsing and the page the
 * handler copies out are ours. Each input is parsed as a --listen address and
 * routed as a method and path (split at the first space), then sent as raw
 * bytes to a server on loopback that serves a published page; what comes back
 * within 20 ms (an answer to a complete request does) must be HTTP. A request
 * left incomplete waits for the server's deadline on request heads (3 s), which
 * is not waited for.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd.h"

static struct httpd *server;
static int port;

/* start - the server once per process, on a port the kernel picks free */
static void start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	char listen[32];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		abort();
	close(fd);
	port = ntohs(a.sin_port);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	if (httpd_start(&server, listen, "text/plain; version=0.0.4", NULL, NULL, 0) ||
	    httpd_publish(server, "# TYPE a counter\na 1\n", 21))
		abort();
}

/* exchange - send data, close our side, read the answer */
static void exchange(const uint8_t *data, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_usec = 20000 };
	char buf[4096];
	size_t n = 0;
	ssize_t r;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		abort();
	/* Refused only past the limit and its slack (the server evicts to make room first). */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (size && send(fd, data, size, MSG_NOSIGNAL) < 0) {
		close(fd);
		return;
	}
	shutdown(fd, SHUT_WR);
	while (n < sizeof(buf) && (r = recv(fd, buf + n, sizeof(buf) - n, 0)) > 0)
		n += r;
	close(fd);
	if (n && (n < 9 || memcmp(buf, "HTTP/1.", 7)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char *s = malloc(size + 1), *sp;

	if (!server)
		start();
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	httpd_parse_listen(s, &ss, &len);
	sp = strchr(s, ' ');
	if (sp) {
		*sp = 0;
		httpd_route(s, sp + 1);
	}
	free(s);
	exchange(data, size);
	return 0;
}
