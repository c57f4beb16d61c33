/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_FMTCHECK_H
#define IOTAP_FMTCHECK_H

/*
 * Checks of format texts and event names that come from a file rather
 * than from the kernel (a recording), before libtraceevent parses them:
 * it trusts its input, and a damaged file can hold anything.
 */
#include <stdbool.h>
#include <stddef.h>

bool fmt_name_ok(const void *name, size_t len);
bool fmt_text_ok(const char *text, size_t len);

#endif
