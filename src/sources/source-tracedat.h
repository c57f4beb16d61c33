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

/* trace-cmd's file magic, what 'trace-cmd record' writes first (its 10 bytes, less the NUL). */
#define TRACEDAT_MAGIC "\x17\x08" "Dtracing"

/*
 * The source that reads trace.dat files; without libtracecmd (configure
 * --disable-tracedat, the static binary) one that claims them by the same
 * magic and refuses them in one line (source-tracedat-absent.c).
 */
extern const struct source_ops source_tracedat;

#endif
