// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter-web.c - the exporter's HTTP side: the port, TLS and users, scrapes' demand, the page */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "exporter-local.h"
#include "httpd.h"
#include "prom.h"
#include "shared.h"
#include "webconfig.h"

/* exporter_listen - take the port before anything is traced: a busy one is the only error said */
int exporter_listen(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *listen = p->listen ? p->listen : EXPORTER_LISTEN;
	struct sockaddr_storage ss;
	char why[512];
	socklen_t len;
	int ret;

	if (p->listen && httpd_parse_listen(p->listen, &ss, &len)) {
		iotap_err(ctx, "invalid --listen '%s': expected ADDR:PORT, [IPV6]:PORT or :PORT",
			  p->listen);
		return -EINVAL;
	}
	if (!p->listen && p->textfile) {
		if (!p->web_config)
			return 0;
		iotap_err(ctx, "--web.config.file is for the HTTP server: give --listen too");
		return -EINVAL;
	}
	if (p->web_config && !httpd_web_supported()) {
		iotap_err(ctx, "--web.config.file is not supported: this iotap is built without TLS");
		return -ENOTSUP;
	}
	if (p->web_config && (ret = webconfig_load(&st->web, p->web_config, why, sizeof(why)))) {
		iotap_err(ctx, "--web.config.file: %s", why);
		/* A bad file is no usage error: the exit status of a server that cannot start. */
		return ret == -EINVAL ? -EBADMSG : ret;
	}
	ret = httpd_start(&st->httpd, listen, "text/plain; version=0.0.4; charset=utf-8", st->web,
			  why, sizeof(why));
	if (ret)
		iotap_err(ctx, "cannot listen on %s: %s", listen, why[0] ? why : strerror(-ret));
	return ret;
}

/*
 * exporter_demand - live, the page is built when a scrape asks for it, with
 * the events up to then: not every interval for nobody (Prometheus scrapes
 * every 15 s by default), nor as old as an interval when read. From a
 * recording, every interval as before.
 */
int exporter_demand(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;
	int fd, ret;

	if (!st->httpd)
		return 0;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = iotap_wake_fd(ctx, fd);
	if (ret) {
		close(fd);
		return ret == -EOPNOTSUPP ? 0 : ret;
	}
	st->demand_fd = fd;
	httpd_demand(st->httpd, fd);
	return 0;
}

/* exporter_publish - the page to the server, when there is one (exporter-local.h) */
int exporter_publish(struct exporter_state *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!st->httpd)
		return 0;
	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	ret = prom_print(st->m.prom, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		ret = httpd_publish(st->httpd, text, len);
	free(text);
	return ret;
}
