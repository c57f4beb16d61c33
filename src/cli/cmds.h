/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CMDS_H
#define IOTAP_CMDS_H

/* The commands besides the tools: command specs as a tool has, with no analysis behind them. */
#include "iotap.h"

extern const struct cmd_spec cmd_record;	/* record-opts.c; params: struct record_params */
extern const struct cmd_spec cmd_report;	/* report-opts.c; params: struct report_params */

#endif
