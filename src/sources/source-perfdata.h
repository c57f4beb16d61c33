/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_SOURCE_PERFDATA_H
#define IOTAP_SOURCE_PERFDATA_H

/*
 * The session source that reads a perf.data file written by 'perf record'
 * (the file format of tools/perf/Documentation/perf.data-file-format.txt,
 * read by perfdata-read.c; the host facts the file gives, host-perfdata.c).
 * Read: the file header, the attributes with their ids, the tracing-data
 * feature section (header_page, the event format texts, kallsyms when
 * perf put them there), the hostname, release, version, arch, CPU count,
 * command line, clock data and build-id features, and the records:
 * samples of tracepoint events, COMM, FORK, EXIT, MMAP2, LOST and
 * LOST_SAMPLES, ordered by FINISHED_ROUND as perf orders them.
 *
 * Samples and side-band records are rewritten, as they are read, into the
 * layout iotap's own events have (IOTAP_SAMPLE_BASE, plus a callchain with
 * -g; sample_id trailers of TID, TIME, CPU, IDENTIFIER) with the index of
 * their attribute + 1 as the id, so that everything above the source sees
 * what a live run or a recording delivers.
 *
 * Not read: pipe-mode files (perf record -o -), zstd-compressed records
 * (perf record -z), files of the other byte order: each is refused with one
 * error line. Every field is read through a bounds-checked cursor; a
 * malformed file gives -EINVAL and one error line, a malformed sample is
 * counted and left out (session_warn_malformed()).
 */
struct source_ops;

/* The source that reads perf.data files; it claims what perfdata_magic() (perfdata-read.h) does. */
extern const struct source_ops source_perf;

#endif
