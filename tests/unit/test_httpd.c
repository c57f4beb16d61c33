// SPDX-License-Identifier: GPL-2.0-or-later
/* test_httpd.c - routes, --listen parsing, and a published page served over loopback */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "httpd.h"
#include "webconfig.h"

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

/* dial - a connection to port on loopback */
static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* closed_within - whether the server closes fd (EOF or reset) within ms milliseconds */
static bool closed_within(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };
	char c;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return read(fd, &c, 1) <= 0 && errno != EAGAIN && errno != EWOULDBLOCK;
}

/*
 * A request head that never ends is closed at the deadline, however it trickles;
 * and stuck connections from the scraper's own address never refuse the scraper.
 */
static void test_deadline(void **unused)
{
	enum { NR_SLOW = 16 };
	char listen[32], buf[4096];
	struct httpd *h = NULL;
	int port = free_port(), slow[NR_SLOW];
	struct timespec t0, t1;
	double secs;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	assert_int_equal(httpd_start(&h, listen, "x", NULL, NULL, 0), 0);
	assert_int_equal(httpd_capacity(h), HTTPD_MAX_CONNECTIONS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < NR_SLOW; i++) {
		slow[i] = dial(port);
		assert_int_equal(write(slow[i], "GET /metrics HTTP/1.1\r\n", 23), 23);
	}
	/* No quota per address: a scrape from theirs is answered beside them. */
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	/* A byte a second keeps none of them past the deadline. */
	for (int s = 0; s < HTTPD_HEAD_SECONDS + 2; s++) {
		for (int i = 0; i < NR_SLOW; i++)
			if (write(slow[i], "X", 1) < 0)
				break;
		sleep(1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (httpd_closed(h, HTTPD_CLOSED_LATE) == NR_SLOW)
			break;
	}
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_int_equal(httpd_closed(h, HTTPD_CLOSED_LATE), NR_SLOW);
	assert_int_equal(httpd_closed(h, HTTPD_CLOSED_EVICTED), 0);
	assert_true(secs >= HTTPD_HEAD_SECONDS && secs < HTTPD_HEAD_SECONDS + 2);
	for (int i = 0; i < NR_SLOW; i++) {
		assert_true(closed_within(slow[i], 1000));
		close(slow[i]);
	}
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	httpd_stop(h);
}

/*
 * A full server evicts the connection longest without a whole head: here, where
 * the hard fd limit leaves room for 8, the oldest stuck ones, and a scrape that
 * comes after them is answered. In a child: a hard limit cannot be raised again.
 */
static void test_evict(void **unused)
{
	const struct rlimit rl = { HTTPD_EVICT_SLACK + HTTPD_FD_RESERVE + 8,
				   HTTPD_EVICT_SLACK + HTTPD_FD_RESERVE + 8 };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		char listen[32], buf[4096] = "";
		struct httpd *h = NULL;
		int port = free_port(), stuck[12];
		bool ok;

		snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
		ok = !setrlimit(RLIMIT_NOFILE, &rl) &&
		     !httpd_start(&h, listen, "x", NULL, NULL, 0) && httpd_capacity(h) == 8;
		for (int i = 0; ok && i < 12; i++) {
			stuck[i] = dial(port);
			ok = write(stuck[i], "GET /", 5) == 5;
			usleep(20000);
		}
		/* The scrape makes a 13th: the 5 oldest stuck make room, the 7 others stay. */
		if (ok)
			get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
		ok = ok && strstr(buf, "HTTP/1.1 200");
		for (int i = 0; ok && i < 12; i++)
			ok = closed_within(stuck[i], i < 5 ? 1000 : 50) == (i < 5);
		ok = ok && httpd_closed(h, HTTPD_CLOSED_EVICTED) == 5 && httpd_closed(h, HTTPD_CLOSED_LATE) == 0;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Basic auth without TLS: 401 with WWW-Authenticate, 200 with the user's password. */
static void test_auth(void **unused)
{
	/* htpasswd -nbBC 4 prom secret */
	static const char yml[] =
		"basic_auth_users: {prom: $2y$04$YqHo2yBY14dFjNjBwfGEsO4uCZPX5gDK5maAYkrvXTy2Wt6hT5tOC}";
	char listen[32], buf[4096], why[256];
	struct webconfig *wc = NULL;
	struct httpd *h = NULL;
	int port = free_port();

	assert_int_equal(webconfig_parse(&wc, yml, sizeof(yml) - 1, NULL, why, sizeof(why)), 0);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	assert_int_equal(httpd_start(&h, listen, "x", wc, why, sizeof(why)), 0);
	assert_int_equal(httpd_publish(h, "a 1\n", 4), 0);
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 401"));
	assert_non_null(strstr(buf, "WWW-Authenticate: Basic realm=\"iotap exporter\""));
	assert_null(strstr(buf, "a 1"));
	/* prom:wrong */
	get(port, "GET /metrics HTTP/1.0\r\nAuthorization: Basic cHJvbTp3cm9uZw==\r\n\r\n", buf,
	    sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 401"));
	/* prom:secret, on any path */
	get(port, "GET /metrics HTTP/1.0\r\nAuthorization: Basic cHJvbTpzZWNyZXQ=\r\n\r\n", buf,
	    sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	assert_non_null(strstr(buf, "\r\n\r\na 1\n"));
	get(port, "GET /nope HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "HTTP/1.1 401"));
	httpd_stop(h);
	webconfig_free(wc);
}

/* The publisher's side of test_demand: one wake, one page. */
struct demand_pub {
	struct httpd *h;
	int fd;
	uint64_t asked;
};

static void *demand_publish(void *arg)
{
	struct demand_pub *d = arg;
	struct pollfd pfd = { .fd = d->fd, .events = POLLIN };

	if (poll(&pfd, 1, 5000) == 1 && read(d->fd, &d->asked, sizeof(d->asked)) == 8 &&
	    httpd_demand_take(d->h))
		httpd_publish(d->h, "new 1\n", 6);
	return NULL;
}

/* httpd_ms - CLOCK_MONOTONIC in ms */
static double httpd_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* With httpd_demand, a scrape asks for its page and gets the one published for it. */
static void test_demand(void **unused)
{
	char listen[32], buf[4096];
	struct demand_pub d = { .fd = eventfd(0, EFD_NONBLOCK) };
	int port = free_port();
	pthread_t t;
	uint64_t n;
	double t0;

	assert_true(d.fd >= 0);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	assert_int_equal(httpd_start(&d.h, listen, "x", NULL, NULL, 0), 0);
	assert_int_equal(httpd_publish(d.h, "old\n", 4), 0);
	httpd_demand(d.h, d.fd);
	/* Younger than HTTPD_DEMAND_FRESH_MS: served as it is, nobody asked. */
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\r\n\r\nold\n"));
	assert_int_equal(read(d.fd, &n, sizeof(n)), -1);
	usleep((HTTPD_DEMAND_FRESH_MS + 20) * 1000);
	/* Older: the scrape waits for the page published after it asked. */
	assert_int_equal(pthread_create(&t, NULL, demand_publish, &d), 0);
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	pthread_join(t, NULL);
	assert_int_equal(d.asked, 1);
	assert_non_null(strstr(buf, "\r\n\r\nnew 1\n"));
	/* Nobody publishes: after HTTPD_DEMAND_WAIT_MS, the last page. */
	usleep((HTTPD_DEMAND_FRESH_MS + 20) * 1000);
	t0 = httpd_ms();
	get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_true(httpd_ms() - t0 >= HTTPD_DEMAND_WAIT_MS - 10);
	assert_true(httpd_ms() - t0 < HTTPD_DEMAND_WAIT_MS + 2000);
	assert_non_null(strstr(buf, "\r\n\r\nnew 1\n"));
	assert_int_equal(read(d.fd, &n, sizeof(n)), 8);
	assert_int_equal(n, 1);
	/* That request waits for no page any more, but a take before the next still finds it. */
	assert_true(httpd_demand_take(d.h));
	assert_int_equal(httpd_publish(d.h, "new 2\n", 6), 0);
	assert_false(httpd_demand_take(d.h));
	/* The index page never asks. */
	get(port, "GET / HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_int_equal(read(d.fd, &n, sizeof(n)), -1);
	httpd_stop(d.h);
	close(d.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_serve),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_evict),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_demand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
