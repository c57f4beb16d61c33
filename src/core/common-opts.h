/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_COMMON_OPTS_H
#define IOTAP_COMMON_OPTS_H

/*
 * The option tables every tool or command shares, kept in struct
 * session_opts (a tool's .common; NULL means common_opts). Beside the
 * session, whose options they fill: a tool names its table without seeing
 * the struct, and the stack tools without reaching into the CLI.
 */
#include "iotap.h"

extern const struct opt common_opts[];
extern const struct opt record_common_opts[];
extern const struct opt stack_common_opts[];
extern const struct opt report_common_opts[];

#endif
