/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PERFDATA_READ_H
#define IOTAP_PERFDATA_READ_H

/*
 * The one reader of the perf.data format 'perf record' writes
 * (tools/perf/Documentation/perf.data-file-format.txt): the file header, the
 * attributes with their ids, the feature sections (tracing data: header_page,
 * the event format texts, kallsyms when perf put them there; hostname,
 * release, version, arch, CPU count, command line, clock data, build-ids),
 * the framing of every record, and the fields of samples and of side-band
 * records' sample_id trailers. Every field is read through a bounds-checked
 * cursor (cursor.h).
 *
 * Errors: a malformed file gives -EINVAL, a valid one this reader does not
 * take (pipe mode, compressed records, the other byte order, ...) -ENOTSUP,
 * each after one error line naming the file; no memory gives -ENOMEM. The
 * calls on one record (perfdata_sample_time, _decode, perfdata_side_rewrite)
 * log nothing: -EINVAL says that record is malformed.
 *
 * Ownership: the caller owns the image (img, len) and path, which must outlive
 * the struct perfdata and everything it points to: ksym_trace and every record
 * and sample field handed back point into img. attrs and ids are the struct's,
 * freed by perfdata_release. The event formats go into the caller's fmt_set,
 * which owns them; an attribute's tep, sys and name point into it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fmt_set;
struct perf_event_header;
struct perf_sample;
struct tep_event;

#define PERFDATA_MAGIC "PERFILE2"
/* The perf_file_header's size: no smaller file is a perf.data. */
#define PD_HEADER_SIZE 104
/* Arguments of the perf command line kept for --info. */
#define PD_CMDLINE_MAX 4096
/* Records perf writes itself (tools/lib/perf/include/perf/event.h), from this type up. */
#define PD_REC_USER_MIN 64
#define PD_REC_FINISHED_ROUND 68

/* One perf_event_attr of the file. */
struct pd_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
	uint32_t trailer;		/* bytes of its sample_id trailer */
	struct tep_event *tep;		/* the fmt_set's, for a tracepoint with a format */
	const char *sys, *name;		/* tep's, which live as long as the fmt_set */
};

struct pd_id;

/* A perf.data image, as perfdata_read found it. */
struct perfdata {
	const char *path;		/* for error lines; the caller's */
	const uint8_t *img;		/* the whole file; the caller's */
	size_t len;
	struct pd_attr *attrs;
	size_t nr_attrs;
	struct pd_id *ids;
	size_t nr_ids;
	bool by_identifier;		/* every attribute samples PERF_SAMPLE_IDENTIFIER */
	uint64_t data, data_end;	/* the records */
	char hostname[65], release[65], version[65], arch[65];
	char cmdline[PD_CMDLINE_MAX];
	uint32_t nr_cpus;		/* online when recorded (HEADER_NRCPUS); 0: unknown */
	uint8_t kernel_bid[20];
	size_t kernel_bid_len;
	const char *ksym_trace;		/* kallsyms of the tracing data, into img */
	size_t ksym_trace_len;
	int64_t wall_offset;		/* HEADER_CLOCK_DATA: wall clock - event clock; 0: none */
};

/* perfdata_magic - whether the first bytes of a file say perf.data (either byte order) */
bool perfdata_magic(const void *buf, size_t len);

/* perfdata_bad - log what is wrong with pd's file (its path); returns -EINVAL */
int __attribute__((format(printf, 2, 3))) perfdata_bad(const struct perfdata *pd, const char *fmt, ...);

/*
 * perfdata_read - the header, the attributes and the feature sections of the
 * image the caller put in pd (path, img, len; the rest zeroed); the event
 * formats into fs, which perfdata_read starts (fmt_set_init). 0, -EINVAL,
 * -ENOTSUP or -ENOMEM; on error pd may hold memory: perfdata_release it.
 */
int perfdata_read(struct perfdata *pd, struct fmt_set *fs);

/* perfdata_release - free what perfdata_read allocated; safe twice */
void perfdata_release(struct perfdata *pd);

/* perfdata_nr_cpus - the CPUs online when perf recorded; 1 when the file does not say */
int perfdata_nr_cpus(const struct perfdata *pd);

/*
 * perfdata_record_at - the record at *pos of the data section, its framing
 * checked (AUX data after it skipped); advances *pos. 0, -EINVAL (logged) or
 * -ENOTSUP (compressed records, logged)
 */
int perfdata_record_at(const struct perfdata *pd, uint64_t *pos, const struct perf_event_header **out);

/* perfdata_sample_time - the time of a sample in the file's layout, and its attribute; -EINVAL: none */
int perfdata_sample_time(struct perfdata *pd, const struct perf_event_header *h, uint64_t *t,
			 struct pd_attr **attr);

/*
 * perfdata_sample_decode - a sample in the file's layout, up to its raw data,
 * with the index of its attribute + 1 as smp->id; its attribute in *attr.
 * smp's pointers point into the record. 0 or -EINVAL
 */
int perfdata_sample_decode(struct perfdata *pd, const struct perf_event_header *h,
			   struct perf_sample *smp, struct pd_attr **attr);

/*
 * perfdata_side_rewrite - a kernel side-band record (COMM, FORK, MMAP2,
 * LOST...) with its sample_id trailer in iotap's layout (TID, TIME, CPU, the
 * index of its attribute + 1) into out, PERF_RECORD_MAX bytes the caller
 * owns; time is its TIME when the file's trailer has none. Its size, or
 * -EINVAL when it is too short for its trailer
 */
int perfdata_side_rewrite(struct perfdata *pd, const struct perf_event_header *h, uint64_t time,
			  uint8_t *out);

#endif
