// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - message hook between the core and the CLI */
#include <stdio.h>

#include "log.h"

static log_fn log_hook;

/* log_set - route core messages to fn (NULL: discard) */
void log_set(log_fn fn)
{
	log_hook = fn;
}

/* log_vmsg - format and hand a message to the hook */
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char buf[1024];

	if (!log_hook)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_hook(level, buf);
}

/* log_msg - printf-style log_vmsg */
void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
