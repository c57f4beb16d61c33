// SPDX-License-Identifier: GPL-2.0-or-later
/* test_httpd.c - routes, --listen parsing, and a published page served over loopback */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "httpd.h"

static void test_route(void **unused)
{
	assert_int_equal(httpd_route("GET", "/metrics"), HTTPD_PAGE);
	assert_int_equal(httpd_route("HEAD", "/metrics"), HTTPD_PAGE);
	assert_int_equal(httpd_route("GET", "/"), HTTPD_INDEX);
	assert_int_equal(httpd_route("POST", "/metrics"), HTTPD_BAD_METHOD);
	assert_int_equal(httpd_route("get", "/metrics"), HTTPD_BAD_METHOD);
	assert_int_equal(httpd_route("DELETE", "/"), HTTPD_BAD_METHOD);
	assert_int_equal(httpd_route("GET", "/metrics/"), HTTPD_NOT_FOUND);
	assert_int_equal(httpd_route("GET", "/metricsx"), HTTPD_NOT_FOUND);
	assert_int_equal(httpd_route("POST", "/x"), HTTPD_NOT_FOUND);
	assert_int_equal(httpd_route("GET", ""), HTTPD_NOT_FOUND);
	assert_int_equal(httpd_route(NULL, "/"), HTTPD_NOT_FOUND);
	assert_int_equal(httpd_route("GET", NULL), HTTPD_NOT_FOUND);
}

static void test_listen(void **unused)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	static const char *const bad[] = {
		"", ":", "9100", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:-1", "127.0.0.1:9x", "300.0.0.1:80", "[::1]", "[::1]80", "[]:80",
		"[::g]:80", "::1:80", "localhost:80", "[::1:80", NULL
	};

	assert_int_equal(httpd_parse_listen("127.0.0.1:10033", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(len, sizeof(*in4));
	assert_int_equal(ntohs(in4->sin_port), 10033);
	assert_int_equal(ntohl(in4->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(httpd_parse_listen("[::1]:65535", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 65535);
	assert_true(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
	assert_int_equal(httpd_parse_listen(":1", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_true(IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr));
	for (int i = 0; bad[i]; i++)
		if (httpd_parse_listen(bad[i], &ss, &len) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(httpd_parse_listen(NULL, &ss, &len), -EINVAL);
}

/* free_port - a loopback port nothing listens on now */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

/* get - send req to port, the whole answer in buf (NUL-terminated) */
static void get(int port, const char *req, char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t n = 0;
	ssize_t r;

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while (n + 1 < len && (r = read(fd, buf + n, len - n - 1)) > 0)
		n += r;
	buf[n] = 0;
	close(fd);
}

static void test_serve(void **unused)
{
	char listen[32], buf[4096];
	struct httpd *h = NULL;
	int port = free_port();

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	assert_int_equal(httpd_start(&h, listen, "text/plain; version=0.0.4", NULL, NULL, 0), 0);
	assert_int_equal(httpd_start(&(struct httpd *){ NULL }, listen, "x", NULL, NULL, 0), -EADDRINUSE);
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	assert_non_null(strstr(buf, "Content-Length: 0\r\n"));
	assert_int_equal(httpd_publish(h, "a 1\nb 2\n", 8), 0);
	assert_int_equal(httpd_publish(h, "c 3\n", 4), 0);
	get(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "Content-Type: text/plain; version=0.0.4\r\n"));
	assert_non_null(strstr(buf, "\r\n\r\nc 3\n"));
	get(port, "POST /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 405"));
	assert_non_null(strstr(buf, "Allow: GET, HEAD\r\n"));
	get(port, "GET /nope HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 404"));
	get(port, "GET / HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "<a href=\"/metrics\">"));
	assert_int_equal(httpd_requests(h, HTTPD_PAGE), 2);
	assert_int_equal(httpd_requests(h, HTTPD_INDEX), 1);
	assert_int_equal(httpd_requests(h, HTTPD_NOT_FOUND), 1);
	assert_int_equal(httpd_requests(h, HTTPD_BAD_METHOD), 1);
	httpd_stop(h);
	httpd_stop(NULL);
	/* Stopped: the port is free again. */
	assert_int_equal(httpd_start(&h, listen, "x", NULL, NULL, 0), 0);
	httpd_stop(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_serve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
