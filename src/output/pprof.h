/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_PPROF_H
#define IOTAP_PPROF_H

/*
 * A profile in pprof's format (src/output/pprof.proto), built stack by stack: each sample is
 * a stack of frames, innermost first, with one value per sample type and its labels. The
 * profile keeps every string, function, mapping and location once, however many frames name
 * it, and samples of the same locations and labels are one sample, their values summed: what
 * a viewer gets is as small as what the stacks hold.
 *
 * The caller owns the profile (pprof_alloc, pprof_free); strings are copied, so frames and
 * labels may be freed once pprof_sample_add returns. pprof_write encodes it (gzipped, as
 * pprof, Pyroscope and Parca read it) where the build has libprotobuf-c (pprof_supported).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What one value of every sample counts: its name and unit ("bytes", "nanoseconds", "count"). */
struct pprof_type {
	const char *type;
	const char *unit;
};

#define PPROF_TYPES_MAX 8

/* One frame of a stack. */
struct pprof_frame {
	uint64_t address;
	const char *function;		/* NULL or "": not known (its location has no line) */
	const char *file;		/* its source file; NULL: not known */
	int64_t line;			/* 0: not known */
	const char *mapping;		/* the binary it is in, or the kernel's; NULL: not known */
	bool inlined;			/* inlined into the frame after it: one location, two lines */
};

/* A label of a sample: a text value under a key; a NULL or empty value is no label. */
struct pprof_label {
	const char *key;
	const char *value;
};

struct pprof;

/* pprof_alloc - an empty profile of these sample types (1 to PPROF_TYPES_MAX); NULL with errno */
struct pprof *pprof_alloc(const struct pprof_type *types, size_t nr_types);

/* pprof_free - release the profile; NULL is accepted */
void pprof_free(struct pprof *p);

/*
 * pprof_sample_add - add values (one per sample type) to the stack frames[0..nr), innermost
 * first, with its labels; a stack of no frames (it was lost) is a sample without locations.
 * Returns 0, -EINVAL (frames NULL while nr is not 0, or an inlined last frame),
 * -EOVERFLOW (a value would pass INT64_MAX) or -ENOMEM; on error the samples are as before.
 */
int pprof_sample_add(struct pprof *p, const struct pprof_frame *frames, size_t nr,
		     const uint64_t *values, const struct pprof_label *labels, size_t nr_labels);

/* pprof_comment_add - a line of text shown with the profile: 0 or -ENOMEM */
int pprof_comment_add(struct pprof *p, const char *text);

/* pprof_time_set - when what the profile measures began (Unix ns) and how long it lasted */
void pprof_time_set(struct pprof *p, int64_t time_ns, int64_t duration_ns);

/* pprof_default_type_set - the sample type a viewer shows first (an index): 0 or -EINVAL */
int pprof_default_type_set(struct pprof *p, size_t type);

/* pprof_nr_samples - the distinct samples so far */
size_t pprof_nr_samples(const struct pprof *p);

/* pprof_supported - whether this build can write profiles (configure found libprotobuf-c) */
bool pprof_supported(void);

/*
 * pprof_write - the profile, encoded and gzipped, to f: 0, -ENOTSUP (a build without
 * libprotobuf-c), -ENOMEM or -EIO (f reports an error, or zlib failed)
 */
int pprof_write(const struct pprof *p, FILE *f);

#endif
