/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SOURCE_TRACEDAT_H
#define IOTAP_SOURCE_TRACEDAT_H

/*
 * The session source that reads a trace.dat file written by 'trace-cmd
 * record', through libtracecmd (source-tracedat.c says what the file holds
 * and what it does not). It claims a file by trace-cmd's magic; its records
 * reach the session in time order as perf samples of iotap's layout.
 */
struct source_ops;

/* The source that reads trace.dat files. */
extern const struct source_ops source_tracedat;

#endif
