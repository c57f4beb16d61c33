/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_COMPLETION_H
#define IOTAP_COMPLETION_H

#include <stdio.h>

#include "iotap.h"

/*
 * Write a bash completion script for iotap and its argv[0] aliases, built
 * from the same option tables as --help and the man pages. specs is a
 * NULL-terminated list of every tool and command; tools (tool_find knows
 * them) also complete under their own name. Returns 0 or -EIO when out
 * reports an error.
 */
int completion_bash_write(FILE *out, const struct tool *const *specs);

#endif
