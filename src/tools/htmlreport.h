/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_HTMLREPORT_H
#define IOTAP_HTMLREPORT_H

/*
 * The analysis behind 'iotap report --html': one pass over a recording that
 * keeps what the block tools keep (biolatency's histograms, biotop's rows,
 * biosnoop's rows of the slowest requests, the heat map, biostacks' folded
 * stacks) and, at the end, writes the page's sections into body. Not in the
 * tools' table: it runs only through report.
 */
#include <stdio.h>

#include "iotap.h"

struct htmlreport_params {
	FILE *body;			/* where the sections go */
};

extern const struct tool tool_htmlreport;

#endif
