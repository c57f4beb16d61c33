/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CMDS_H
#define IOTAP_CMDS_H

/* The commands besides the tools, declared like tools: options, help, man page. */
#include "iotap.h"

extern const struct tool cmd_record;	/* record-opts.c; params: struct record_params */
extern const struct tool cmd_report;	/* report-opts.c; params: struct report_params */

#endif
