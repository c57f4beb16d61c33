/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_TRACEDAT_CHECK_H
#define IOTAP_TRACEDAT_CHECK_H

/*
 * The sizes a trace.dat gives, checked against the file before libtracecmd
 * reads it: libtracecmd 3.1.6 trusts them, and a kallsyms or printk size of
 * 0xffffffff has it malloc size + 1 (0 bytes) and read the rest of the file
 * into that (found by fuzzing). Version 6 is walked from its magic to the
 * CPUs' data: every section's size must fit in what is left of the file,
 * and every CPU's data within the file. Version 7 keeps its sections behind
 * options and compression, and other versions are rare: their fixed header
 * is checked, the rest is libtracecmd's (the forked open of source-tracedat.c
 * still guards it, where a crash is what the damage does).
 */

#include <stddef.h>

/*
 * tracedat_check - whether the trace.dat at fd (its size bytes) holds what it says: 0, or
 * -EINVAL with the part that does not fit in why (whylen bytes); -errno of a read
 */
int tracedat_check(int fd, unsigned long long size, char *why, size_t whylen);

#endif
