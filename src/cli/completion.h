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
int completion_bash_write(FILE *out, const struct cmd_spec *const *specs);

/*
 * Write every option of every spec in specs as a table for scripts and tests:
 * "NAME<TAB>args<TAB>KIND" for the positional arguments (none, interval,
 * duration, spec, command, tool), then "NAME<TAB>opt<TAB>--long (or -s)<TAB>
 * TYPE<TAB>MIN<TAB>MAX" per option (TYPE: flag, uint, str, choice, pid, disk,
 * list, outfile, dir; MIN and MAX for uint). Returns 0 or -EIO.
 */
int completion_table_write(FILE *out, const struct cmd_spec *const *specs);

#endif
