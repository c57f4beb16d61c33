/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_LOG_H
#define IOTAP_LOG_H

#include <stdarg.h>

/* The core reports through this hook; only the CLI decides where text goes. */
enum log_level { LOG_ERR, LOG_WARN, LOG_INFO };

typedef void (*log_fn)(enum log_level level, const char *msg);

void log_set(log_fn fn);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
